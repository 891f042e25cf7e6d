import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';
import { LongestFirst } from './test/helpers/longest-first.js';

// `npm test` runs every test file but the long ones; `npm run test:full`
// (NCCLX_TEST_FULL=1) runs the long ones, named `*.full.test.ts`: bigger
// fuzz budgets and other runs worth keeping that take minutes (docs/testing.md).
const FULL = process.env['NCCLX_TEST_FULL'] === '1';

/**
 * The test files that patch a class every file shares: test/helpers/
 * fixture-faults.ts makes every Root of the importing file fail the fixtures'
 * listed reads, and injectFaults patches the class it is given. Found by
 * following each file's relative imports inside test/ (advice-*.test.ts reach
 * it through suite.ts), so a new file that patches is kept apart without a list.
 */
function patchingFiles(): string[] {
  // Walked by hand: the fixture trees (symlink loops, big /sys copies) are never entered.
  const all: string[] = [];
  const dirs = ['test'];
  for (let d = dirs.pop(); d !== undefined; d = dirs.pop()) {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory() && p !== join('test', 'fixtures')) dirs.push(p);
      else if (e.isFile() && /\.(ts|tsx|mts|mjs)$/.test(e.name)) all.push(p);
    }
  }
  const text = new Map(all.map((f) => [f, readFileSync(f, 'utf8')]));
  const imports = (f: string) =>
    [...text.get(f)!.matchAll(/(?:from|import)\s+'(\.[^']+)'/g)].map((m) => relative('.', resolve(dirname(f), m[1]!.replace(/\.js$/, '.ts')))).filter((x) => text.has(x));
  const patches = new Map<string, boolean>();
  const visit = (f: string): boolean => {
    const known = patches.get(f);
    if (known !== undefined) return known;
    patches.set(f, false);
    const yes = /fixture-faults|injectFaults\(/.test(text.get(f)!) || imports(f).some(visit);
    patches.set(f, yes);
    return yes;
  };
  return all.filter((f) => /\.test\.tsx?$/.test(f) && !f.startsWith('test/helpers/') && visit(f));
}
const INCLUDE = FULL ? ['test/**/*.full.test.ts'] : ['test/**/*.test.ts', 'test/**/*.test.tsx'];
const EXCLUDE = [...configDefaults.exclude, 'test/fixtures/**', ...(FULL ? [] : ['test/**/*.full.test.ts'])];
const PATCHING = patchingFiles();

export default defineConfig({
  test: {
    // Fixture trees are real-looking /sys trees, symlink loops included:
    // never let the test-file crawl descend into them.
    exclude: EXCLUDE,
    // Two groups. Most files share a worker's modules with the files it ran
    // before (isolate: false): loading the product's modules once per worker
    // instead of once per file takes about a tenth off the suite's CPU time.
    // They share nothing else: no file sets process.env, mocks a module or
    // patches a class — except the files that patch Root for the fixtures'
    // failing reads, which each run in a fresh module graph of their own.
    projects: [
      { extends: true, test: { name: 'shared', include: INCLUDE, exclude: [...EXCLUDE, ...PATCHING], isolate: false } },
      { extends: true, test: { name: 'own-modules', include: PATCHING.filter((f) => f.endsWith('.full.test.ts') === FULL), isolate: true } },
    ],
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
