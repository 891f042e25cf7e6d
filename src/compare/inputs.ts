// The command line's SNAPSHOT... arguments → the files to read: a file as
// given, a directory's *.json files (not recursive; `srun … -o dir/%N.json`
// writes them flat) and *.json.HOST files (what `rpdcp` and `clush --rcopy`
// name the copies they fetch), in natural name order so node2 comes before node10.

import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { SkippedInput } from '../model/compare/types.js';

const natural = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });
const SNAPSHOT_NAME = /\.json(\.[^.][^/]*)?$/;

export function expandInputs(args: string[]): { files: string[]; skipped: SkippedInput[] } {
  const files: string[] = [];
  const skipped: SkippedInput[] = [];
  const seen = new Set<string>();
  const add = (f: string) => {
    if (!seen.has(f)) {
      seen.add(f);
      files.push(f);
    }
  };
  for (const arg of args) {
    let isDir = false;
    try {
      isDir = statSync(arg).isDirectory();
    } catch (e) {
      skipped.push({ file: arg, problem: `cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` });
      continue;
    }
    if (!isDir) {
      add(arg);
      continue;
    }
    let names: string[];
    try {
      names = readdirSync(arg).filter((n) => SNAPSHOT_NAME.test(n));
    } catch (e) {
      skipped.push({ file: arg, problem: `cannot list: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` });
      continue;
    }
    if (names.length === 0) skipped.push({ file: arg, problem: 'directory has no *.json (or *.json.HOST) files' });
    for (const n of names.sort(natural.compare)) add(join(arg, n));
  }
  return { files, skipped };
}
