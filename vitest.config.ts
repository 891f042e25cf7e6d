import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    // Fixture trees are real-looking /sys trees, symlink loops included:
    // never let the test-file crawl descend into them.
    // *.full.test.ts (packing, building the single executable and the image, Slurm hooks
    // under real daemons) take minutes: `npm run test:full` runs them (vitest.full.config.ts).
    exclude: [...configDefaults.exclude, 'test/fixtures/**', 'test/**/*.full.test.ts'],
    // Namespace tests change kernel state; run files one at a time.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default'],
  },
});
