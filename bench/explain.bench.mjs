// Issue 2 target: `ncclx explain --json` costs at most 2.5× a bare `node -e 0`,
// measured in the same run (so machine load affects both alike).
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { target } from './targets.mjs';

const cli = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'cli.js');
const RUNS = Number(process.env.BENCH_RUNS ?? 20);

function time(args) {
  const samples = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = process.hrtime.bigint();
    const r = spawnSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (r.status !== 0 && r.status !== 1) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
    samples.push(ms);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)];
}

export default async function () {
  // Interleave warm-up so both commands see a warm page cache.
  time(['-e', '0']);
  time([cli, 'explain', '--json']);
  const bare = time(['-e', '0']);
  const explain = time([cli, 'explain', '--json']);
  const ratio = explain / bare;
  console.log(`| command | median ms (${RUNS} runs) |`);
  console.log('|---|---|');
  console.log(`| node -e 0 | ${bare.toFixed(1)} |`);
  console.log(`| ncclx explain --json | ${explain.toFixed(1)} |`);
  target('explain --json / node -e 0', ratio, { max: 2.5, unit: '×', digits: 2 });
}
