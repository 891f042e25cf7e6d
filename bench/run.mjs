// npm run bench: runs every bench/*.bench.mjs in order and prints their tables.
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.mjs'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();
for (const f of files) {
  console.log(`\n## ${f.replace('.bench.mjs', '')}`);
  const mod = await import(pathToFileURL(join(here, f)).href);
  await mod.default();
}
