import { configDefaults, defineConfig } from 'vitest/config';

// The tests `npm run mutate` (StrykerJS, stryker.config.mjs) runs against each
// mutant of src/model: the ones that call the model in process. Tests that
// run the built CLI (dist/, never mutated), the namespace tests and the
// property runs over every fixture (advice, fuzz: minutes per mutant that
// survives) are left out, so a kill rate here is a floor.
export default defineConfig({
  test: {
    include: [
      'test/unit/**/*.test.ts',
      'test/compare/{bootstrap,cluster,gid-choice,load,majority,mesh}.test.ts',
      'test/fix/{apply,commands,describe,simulate}.test.ts',
      'test/log/{boundaries,lines,parts,pasted,signatures-real}.test.ts',
      'test/topo/merge-level.test.ts',
      'test/tui/model.test.ts',
    ],
    // fixtures-generated regenerates the fixture trees: no model code to kill.
    exclude: [...configDefaults.exclude, 'test/fixtures/**', 'test/unit/fixtures-generated.test.ts'],
    globalSetup: ['test/helpers/mutate-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
