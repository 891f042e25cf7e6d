// The order vitest starts test files in: the longest first, so the two
// workers of a 2-core machine end together instead of one running a long
// file alone at the end (docs/testing.md, "Running side by side"); the files
// with modules of their own before those that share a worker's.
//
// vitest orders by the durations of the last run in its cache
// (node_modules/.vite), and by file size where it has none — on a fresh
// clone, where `npm test` matters most, the four three-line advice files,
// ~140 s together, would start last. So a file's expected time is, in order:
// this checkout's last run (the cache), the times recorded in
// test/durations.json (`node scripts/test-durations.mjs` rewrites them from
// the cache after a run), or unknown. Unknown files start first, as vitest
// does: a new file's time is learnt before the known ones fill the end.

import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const RECORDED: Record<string, number> = JSON.parse(readFileSync(new URL('../durations.json', import.meta.url), 'utf8')).seconds;

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const cache = this.ctx.cache;
    const expected = (f: TestSpecification): number => {
      const path = relative(this.ctx.config.root, f.moduleId);
      const last = cache.getFileTestResults(`${f.project.name}:${path}`);
      if (last && !last.failed) return last.duration / 1000;
      return RECORDED[path] ?? Infinity;
    };
    const time = new Map(files.map((f) => [f, expected(f)]));
    // The files that run in modules of their own first, then those that share
    // a worker's modules: vitest hands a worker on to the next file only while
    // the file queued next shares modules too (vitest.config.ts, `projects`),
    // so mixing the two would start a fresh worker for nearly every file.
    const own = (f: TestSpecification) => (f.project.config.isolate === false ? 1 : 0);
    return [...files].sort((a, b) => own(a) - own(b) || time.get(b)! - time.get(a)! || a.moduleId.localeCompare(b.moduleId));
  }
}
