import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    // Fixture trees are real-looking /sys trees, symlink loops included:
    // never let the test-file crawl descend into them.
    exclude: [...configDefaults.exclude, 'test/fixtures/**'],
    // Namespace tests change kernel state; run files one at a time.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default'],
  },
});
