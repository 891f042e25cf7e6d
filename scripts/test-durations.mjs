#!/usr/bin/env node
// Rewrites test/durations.json, the file times test/helpers/longest-first.ts
// orders a fresh clone's test run by, from vitest's cache of the last runs
// here (node_modules/.vite/vitest/*/results.json). Files the cache does not
// know keep their recorded time; files that no longer exist are dropped.
//
//   node scripts/test-durations.mjs

import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = new URL('..', import.meta.url).pathname;
const TABLE = join(ROOT, 'test/durations.json');
const CACHE = join(ROOT, 'node_modules/.vite/vitest');

const table = JSON.parse(readFileSync(TABLE, 'utf8'));
const seconds = { ...table.seconds };
let learnt = 0;
for (const dir of existsSync(CACHE) ? readdirSync(CACHE) : []) {
  const file = join(CACHE, dir, 'results.json');
  if (!existsSync(file)) continue;
  for (const [key, r] of JSON.parse(readFileSync(file, 'utf8')).results) {
    const path = key.slice(key.indexOf(':') + 1);
    if (r.failed || !existsSync(join(ROOT, path))) continue;
    seconds[path] = Math.round(r.duration / 100) / 10;
    learnt++;
  }
}
for (const path of Object.keys(seconds)) if (!existsSync(join(ROOT, path))) delete seconds[path];
table.seconds = Object.fromEntries(Object.entries(seconds).sort(([a], [b]) => a.localeCompare(b)));
writeFileSync(TABLE, `${JSON.stringify(table, null, 2)}\n`);
console.log(`test/durations.json: ${Object.keys(seconds).length} files, ${learnt} times from the cache`);
