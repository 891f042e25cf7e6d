// Mutation testing of the pure model (docs/testing.md, "Mutation testing").
// `npm run mutate` mutates all of src/model; `npm run mutate -- --mutate
// src/model/nccl/gid.ts` (or a glob) only what a change touched. Results of
// earlier runs are reused where neither the code nor the tests covering it
// changed (incremental mode; the file stays local, see docs/testing.md).
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutate.config.ts' },
  mutate: ['src/model/**/*.ts'],
  // The fixture trees hold /sys symlinks the sandbox copy cannot take: linked back by test/helpers/mutate-setup.ts.
  ignorePatterns: ['test/fixtures', 'dist', 'reports', 'bench', 'lab'],
  coverageAnalysis: 'perTest',
  // A mutant of module-level code (a constant table, a regex built at load)
  // runs every test, not only those covering it: 38 % of the mutants of
  // src/model/result took 95 % of its time. They are left out of the score.
  ignoreStatic: true,
  incremental: true,
  incrementalFile: 'reports/stryker-incremental.json',
  // Two shared cores: one mutant at a time per core.
  concurrency: 2,
  timeoutMS: 10_000,
  reporters: ['clear-text', 'progress', 'json', 'html'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
