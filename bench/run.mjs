// npm run bench [-- NAME… ] [-- --no-fail]: runs every bench/*.bench.mjs (or
// those whose name contains a NAME), prints their tables, then every target
// beside its figure and the load average. Exits 1 when a target was missed
// (a slower change cannot pass unnoticed); --no-fail always exits 0, for
// exploratory runs on a busy machine.
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loadText, results, setBench } from './targets.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const noFail = args.includes('--no-fail');
const only = args.filter((a) => !a.startsWith('--'));
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.mjs'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();
console.log(`load average at start: ${loadText()}`);
for (const f of files) {
  const name = f.replace('.bench.mjs', '');
  console.log(`\n## ${name}`);
  setBench(name);
  const mod = await import(pathToFileURL(join(here, f)).href);
  await mod.default();
}

const missed = results.filter((r) => !r.ok);
console.log('\n## targets\n');
console.log('| bench | figure | value | target | load average | |');
console.log('|---|---|---|---|---|---|');
for (const r of results) console.log(`| ${r.bench} | ${r.name} | ${r.value} | ${r.target} | ${r.load} | ${r.skipped ? `not measured: ${r.skipped}` : r.ok ? 'OK' : '**MISSED**'} |`);
console.log(`\n${results.length - missed.length} of ${results.length} targets met${missed.length ? `; MISSED: ${missed.map((r) => r.name).join('; ')}` : ''} (load average at end: ${loadText()})`);
if (missed.length && !noFail) {
  console.log('A target was missed: exit 1 (run with --no-fail for an exploratory run).');
  process.exitCode = 1;
}
