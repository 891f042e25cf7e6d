import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';
import { LongestFirst } from './test/helpers/longest-first.js';

// `npm test` runs every test file but the long ones; `npm run test:full`
// (NCCLX_TEST_FULL=1) runs the long ones, named `*.full.test.ts`: bigger
// fuzz budgets and other runs worth keeping that take minutes (docs/testing.md).
const FULL = process.env['NCCLX_TEST_FULL'] === '1';

export default defineConfig({
  test: {
    include: FULL ? ['test/**/*.full.test.ts'] : ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    // Fixture trees are real-looking /sys trees, symlink loops included:
    // never let the test-file crawl descend into them.
    exclude: [...configDefaults.exclude, 'test/fixtures/**', ...(FULL ? [] : ['test/**/*.full.test.ts'])],
    // Files run side by side: each namespace test owns its namespaces, names,
    // temp directories and dist/ copy, and changes no state of the machine's
    // own namespace (docs/testing.md, "Running side by side"). Most time is
    // spent in child processes (the CLI, ip, tmux), so one worker per core
    // keeps both cores busy; vitest's default (cores - 1) would use one here.
    maxWorkers: Math.max(2, availableParallelism()),
    // The longest files first, by recorded times on a fresh clone, so both workers end together.
    sequence: { sequencer: LongestFirst },
    // The long runs build a package, an executable and an image, or start Slurm's daemons.
    testTimeout: FULL ? 300_000 : 60_000,
    hookTimeout: FULL ? 600_000 : 120_000,
    reporters: ['default'],
  },
});
