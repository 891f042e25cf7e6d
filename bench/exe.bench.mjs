// The single executable (npm run build:exe): its size, and its start-up
// time against the same command run as `node dist/cli.js`, measured in the
// same run with the two interleaved (machine load affects both alike).
// Target: `--version` within 1.2× of node dist/cli.js. Built fresh into a
// temporary directory, so the figure is this checkout's.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { notMeasured, target } from './targets.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'dist', 'cli.js');
const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const NAME = { x64: 'ncclx-linux-x64', arm64: 'ncclx-linux-arm64' }[process.arch];

function once(argv) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(argv[0], argv.slice(1), { stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0 && r.status !== 1) throw new Error(`${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Median wall time of each command, the runs interleaved (a, b, a, b, …) after one warm-up each. */
function interleaved(a, b) {
  once(a);
  once(b);
  const ta = [];
  const tb = [];
  for (let i = 0; i < RUNS; i++) {
    ta.push(once(a));
    tb.push(once(b));
  }
  return [median(ta), median(tb)];
}

export default async function () {
  if (process.platform !== 'linux' || !NAME) {
    notMeasured('executable start-up / node dist/cli.js', `no single executable for ${process.platform} ${process.arch}`);
    return;
  }
  const out = mkdtempSync(join(tmpdir(), 'ncclx-bench-exe-'));
  try {
    const t0 = Date.now();
    const b = spawnSync(process.execPath, [join(root, 'scripts', 'build-exe.mjs'), '--out', out], { encoding: 'utf8' });
    if (b.status !== 0) throw new Error(`build-exe failed: ${b.stderr}`);
    const exe = join(out, NAME);
    const size = statSync(exe).size / 2 ** 20;
    const node = statSync(process.execPath).size / 2 ** 20;
    console.log(`built ${NAME} in ${((Date.now() - t0) / 1000).toFixed(0)} s: ${size.toFixed(1)} MiB (the Node binary inside: ${node.toFixed(1)} MiB)`);
    const snap = join(out, 'node.json');
    spawnSync(exe, ['snapshot', '--root', join(root, 'test', 'fixtures', 'roce-healthy'), '-o', snap]);
    const rows = [
      ['--version', ['--version']],
      ['doctor --snapshot S --json', ['doctor', '--snapshot', snap, '--json']],
    ];
    console.log(`| command | node dist/cli.js ms | ${NAME} ms | ratio | (median of ${RUNS}, interleaved) |`);
    console.log('|---|---|---|---|---|');
    const ratios = {};
    for (const [label, args] of rows) {
      const [viaNode, viaExe] = interleaved([process.execPath, cli, ...args], [exe, ...args]);
      ratios[label] = viaExe / viaNode;
      console.log(`| ${label} | ${viaNode.toFixed(1)} | ${viaExe.toFixed(1)} | ${ratios[label].toFixed(2)}× | |`);
    }
    console.log(`executable size: ${size.toFixed(1)} MiB`);
    target('executable start-up (--version) / node dist/cli.js', ratios['--version'], { max: 1.2, unit: '×', digits: 2 });
    target('executable doctor --snapshot --json / node dist/cli.js', ratios['doctor --snapshot S --json'], { max: 1.2, unit: '×', digits: 2 });
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
