// Issue 7 target: `ncclx compare` on 10,000 realistic snapshots (bench/gen-snapshots.mjs:
// full GID tables and kernel state, 1% faulty nodes) in under 10 s and 2 GiB,
// growing linearly: the 10k run takes at most 12× the 1k run. The 1k set is
// the first 1,000 files of the 10k set (hard links), so both read the same kind
// of node. Each size runs BENCH_COMPARE_RUNS times (default 3) after a warm-up
// that fills the page cache; the median is reported.
import { spawnSync } from 'node:child_process';
import { linkSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statfsSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate } from './gen-snapshots.mjs';
import { target } from './targets.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const RUNS = Number(process.env.BENCH_COMPARE_RUNS ?? 3);
const SIZES = (process.env.BENCH_COMPARE_NODES ?? '1000,10000').split(',').map(Number);
const FAULTY = Number(process.env.BENCH_COMPARE_FAULTY ?? 0.01);

function run(dir) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [join(here, 'measure.mjs'), 'compare', dir, '--json'], { encoding: 'utf8', maxBuffer: 1024 * 1024 * 1024, env: { PATH: process.env.PATH ?? '', HOME: tmpdir(), NO_COLOR: '1' } });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0 && r.status !== 1) throw new Error(`ncclx compare ${dir} exited ${r.status}: ${r.stderr.slice(-2000)}`);
  const rss = Number(/MAXRSS_KB (\d+)/.exec(r.stderr)?.[1] ?? NaN);
  const cpu = Number(/CPU_MS (\d+)/.exec(r.stderr)?.[1] ?? NaN);
  const report = JSON.parse(r.stdout);
  return { ms, cpu, rssMiB: rss / 1024, analysed: report.inputs.analysed, errors: report.summary.errors, exit: r.status, load: loadavg() };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
/** Other work on the machine slows every figure: the 1-minute load average is printed with them. */
const loadavg = () => {
  try {
    return Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
  } catch {
    return NaN;
  }
};

/** About 850 KB a node on disk, plus room: refuse to start rather than fill the disk half way. */
function checkDisk(nodes) {
  const need = nodes * 900 * 1024 + 512 * 1024 * 1024;
  const st = statfsSync(tmpdir());
  const free = st.bavail * st.bsize;
  if (free < need) throw new Error(`compare bench: ${(need / 2 ** 30).toFixed(1)} GiB needed in ${tmpdir()} for ${nodes} snapshots, ${(free / 2 ** 30).toFixed(1)} GiB free (set TMPDIR, or BENCH_COMPARE_NODES=1000,2000)`);
}

export default async function () {
  const max = Math.max(...SIZES);
  checkDisk(max);
  const root = mkdtempSync(join(tmpdir(), 'ncclx-compare-bench-'));
  try {
    const t0 = Date.now();
    const all = join(root, `n${max}`);
    const { files } = await generate({ nodes: max, faulty: FAULTY, seed: 7, out: all });
    console.log(`generated ${max} snapshots (${Math.round(FAULTY * 100)}% faulty) in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    const dirs = new Map([[max, all]]);
    for (const n of SIZES.filter((s) => s !== max)) {
      const d = join(root, `n${n}`);
      mkdirSync(d);
      for (const f of files.slice(0, n)) linkSync(f, join(d, basename(f)));
      dirs.set(n, d);
    }
    const rows = [];
    for (const n of SIZES) {
      run(dirs.get(n)); // warm-up: page cache, compiled code on disk
      const samples = Array.from({ length: RUNS }, () => run(dirs.get(n)));
      const best = samples.reduce((a, b) => (b.ms < a.ms ? b : a));
      rows.push({ n, ms: median(samples.map((s) => s.ms)), best: best.ms, cpu: median(samples.map((s) => s.cpu)), rss: Math.max(...samples.map((s) => s.rssMiB)), load: samples.map((s) => s.load.toFixed(1)).join('/'), analysed: samples[0].analysed, errors: samples[0].errors, exit: samples[0].exit });
    }
    console.log(`${availableParallelism()} cores; ${RUNS} runs per size after a warm-up`);
    console.log('| snapshots | analysed | wall time (median) | best | CPU time (median) | peak memory | load avg | exit | errors |');
    console.log('|---|---|---|---|---|---|---|---|---|');
    for (const r of rows) console.log(`| ${r.n} | ${r.analysed} | ${(r.ms / 1000).toFixed(2)} s | ${(r.best / 1000).toFixed(2)} s | ${(r.cpu / 1000).toFixed(2)} s | ${r.rss.toFixed(0)} MiB | ${r.load} | ${r.exit} | ${r.errors} |`);
    const big = rows.find((r) => r.n === 10000);
    const small = rows.find((r) => r.n === 1000);
    if (big) {
      target('compare 10k snapshots, wall time', big.ms / 1000, { max: 10, unit: ' s', digits: 2 });
      target('compare 10k snapshots, peak memory', big.rss, { max: 2048, unit: ' MiB', digits: 0 });
    }
    if (big && small) target('compare growth 10k / 1k', big.ms / small.ms, { max: 12, unit: '×' });
  } finally {
    if (!process.env.BENCH_KEEP) rmSync(root, { recursive: true, force: true });
  }
}
