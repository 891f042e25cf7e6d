// Issue 15 target: `ncclx topo --json` on the largest fixture costs at most
// 2× `ncclx explain --json` on the same fixture, measured in the same run.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { target } from './targets.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const cli = join(here, '..', 'dist', 'cli.js');
const root = join(here, '..', 'test', 'fixtures', 'ib8-storage');
const RUNS = Number(process.env.BENCH_RUNS ?? 15);

function median(args) {
  const samples = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = process.hrtime.bigint();
    const r = spawnSync(process.execPath, [cli, ...args], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, HOME: '/nonexistent' } });
    samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (r.status !== 0 && r.status !== 1) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)];
}

export default async function () {
  const explainArgs = ['explain', '--json', '--root', root, '--nccl-version', '2.28.3'];
  const topoArgs = ['topo', '--json', '--root', root, '--nccl-version', '2.28.3'];
  median(explainArgs);
  median(topoArgs);
  const explain = median(explainArgs);
  const topo = median(topoArgs);
  console.log(`| command (ib8-storage, ${RUNS} runs) | median ms |`);
  console.log('|---|---|');
  console.log(`| ncclx explain --json | ${explain.toFixed(1)} |`);
  console.log(`| ncclx topo --json | ${topo.toFixed(1)} |`);
  target('topo --json / explain --json', topo / explain, { max: 2, unit: '×', digits: 2 });
}
