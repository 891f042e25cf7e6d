// Issue 14 targets: `ncclx log --json` on a generated 1 GB, 1,000-rank log
// reads at least a third of `grep -c 'NCCL INFO'`'s throughput on the same
// file in the same run, with peak memory under 200 MiB.
// NCCLX_BENCH_LOG_MB scales the file (default 1024).
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { target } from './targets.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const MB = Number(process.env.NCCLX_BENCH_LOG_MB ?? 1024);
const RANKS = 1000;
const PER_NODE = 8;

/** A job's log as collectors keep it: ranks interleaved, launcher prefixes, channel lines of many communicators, training output, a few WARNs. */
export function generateLog(file, megabytes) {
  const fd = openSync(file, 'w');
  const limit = megabytes * 1024 * 1024;
  let size = 0;
  const out = [];
  let pending = 0;
  const flush = () => {
    const buf = Buffer.from(out.join(''));
    writeSync(fd, buf);
    size += buf.length;
    out.length = 0;
    pending = 0;
  };
  const put = (s) => {
    out.push(s);
    pending += s.length;
    if (pending > 1 << 22) flush();
  };
  const host = (r) => `gpu-node-${String(Math.floor(r / PER_NODE)).padStart(3, '0')}`;
  const head = (r, tid = 0) => `[1,${r}]<stdout>:${host(r)}:${10000 + r}:${10000 + r + tid} [${r % PER_NODE}] NCCL INFO `;
  const ib = Array.from({ length: 8 }, (_, i) => ` [${i}]mlx5_${i}:1/RoCE`).join('');
  for (let r = 0; r < RANKS; r++) {
    const h = head(r);
    const ip = `10.${Math.floor(r / PER_NODE / 250)}.${Math.floor(r / PER_NODE) % 250}.1`;
    put(`${h}NCCL version 2.21.5+cuda12.4\n${h}NCCL_SOCKET_IFNAME set by environment to ens3\n${h}NCCL_IB_GID_INDEX set by environment to 3.\n`);
    put(`${h}Bootstrap : Using ens3:${ip}<0>\n${h}NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file No plugin found (libnccl-net.so), using internal implementation\n`);
    put(`${h}NET/IB : Using${ib} [RO]; OOB ens3:${ip}<0>\n${h}Using network IB\n`);
  }
  let comm = 0;
  while (size + pending < limit) {
    comm++;
    for (let r = 0; r < RANKS && size + pending < limit; r++) {
      const h = head(r, 40);
      put(`${h}comm 0x${(0x55d0a000 + comm).toString(16)} rank ${r} nRanks ${RANKS} nNodes ${RANKS / PER_NODE} localRanks ${PER_NODE} localRank ${r % PER_NODE} MNNVL 0\n`);
      for (let c = 0; c < 4; c++) {
        const peer = (r + PER_NODE) % RANKS;
        put(`${h}Channel ${String(c).padStart(2, '0')}/0 : ${r}[${r % PER_NODE}] -> ${peer}[${peer % PER_NODE}] [send] via NET/IB/${r % PER_NODE}/GDRDMA\n`);
        put(`${h}Channel ${String(c).padStart(2, '0')}/0 : ${(r + RANKS - PER_NODE) % RANKS}[${r % PER_NODE}] -> ${r}[${r % PER_NODE}] [receive] via NET/IB/${r % PER_NODE}/GDRDMA\n`);
        put(`${h}Channel ${String(c + 4).padStart(2, '0')}/0 : ${r}[${r % PER_NODE}] -> ${r - (r % PER_NODE) + ((r + 1) % PER_NODE)}[${(r + 1) % PER_NODE}] via P2P/IPC/read\n`);
      }
      put(`${head(r, 41)}NET/IB: NCCL Dev ${r % PER_NODE} IbDev ${r % PER_NODE} Port 1 qpn ${4000 + comm} mtu 5 query_ece={supported=1, vendor_id=0x15b3, options=0x30000002, comp_mask=0x0} GID 3 (80FE/1) fifoRkey=0x2a fifoLkey=0x2a\n`);
      put(`${h}ncclCommInitRank comm 0x${(0x55d0a000 + comm).toString(16)} rank ${r} nranks ${RANKS} cudaDev ${r % PER_NODE} nvmlDev ${r % PER_NODE} busId 1b000 commId 0x${comm.toString(16)} - Init COMPLETE\n`);
      put(`[1,${r}]<stdout>:step ${comm} loss ${(1 / comm).toFixed(6)} lr 0.0003 tokens/s 182334\n`);
      if (comm % 97 === 0 && r % 250 === 3) put(`[1,${r}]<stdout>:${host(r)}:${10000 + r}:${10100 + r} [${r % PER_NODE}] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from peer 10.0.0.9<4100> with status=12 opcode=0 len=0 vendor err 129 (Send)\n`);
    }
  }
  flush();
  closeSync(fd);
  return size;
}

function timed(cmd, args, env = process.env) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 30, env });
  return { ms: Number(process.hrtime.bigint() - t0) / 1e6, r };
}

export default async function () {
  const dir = mkdtempSync(join(tmpdir(), 'ncclx-bench-log-'));
  try {
    const file = join(dir, 'job.log');
    const t0 = Date.now();
    generateLog(file, MB);
    const bytes = statSync(file).size;
    console.log(`generated ${(bytes / 1048576).toFixed(0)} MiB, ${RANKS} ranks, in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    // Warm the page cache for both, then best of two each.
    timed('grep', ['-c', 'NCCL INFO', file]);
    const grep = Math.min(timed('grep', ['-c', 'NCCL INFO', file]).ms, timed('grep', ['-c', 'NCCL INFO', file]).ms);
    let best = Infinity;
    let rssKb = 0;
    for (let i = 0; i < 2; i++) {
      const { ms, r } = timed(process.execPath, [join(here, 'measure.mjs'), 'log', file, '--json']);
      if (r.status !== 0 && r.status !== 1) throw new Error(`ncclx log exited ${r.status}: ${r.stderr}`);
      const d = JSON.parse(r.stdout);
      if (d.ranks.length !== RANKS) throw new Error(`expected ${RANKS} ranks, got ${d.ranks.length}`);
      best = Math.min(best, ms);
      rssKb = Math.max(rssKb, Number(/MAXRSS_KB (\d+)/.exec(r.stderr)?.[1] ?? 0));
    }
    const mbs = (ms) => bytes / 1048576 / (ms / 1000);
    // For the record, once each: the same read in one thread (worker threads off), and without the WebAssembly scanner.
    const one = timed(process.execPath, [join(here, 'measure.mjs'), 'log', file, '--json'], { ...process.env, NCCLX_LOG_WORKERS: '0' }).ms;
    const js = timed(process.execPath, [join(here, 'measure.mjs'), 'log', file, '--json'], { ...process.env, NCCLX_LOG_SCAN: 'js' }).ms;
    console.log('| command | best of 2 | MB/s |');
    console.log('|---|---|---|');
    console.log(`| grep -c 'NCCL INFO' | ${grep.toFixed(0)} ms | ${mbs(grep).toFixed(0)} |`);
    console.log(`| ncclx log --json | ${best.toFixed(0)} ms | ${mbs(best).toFixed(0)} |`);
    console.log(`| ncclx log --json, one thread (NCCLX_LOG_WORKERS=0, one run) | ${one.toFixed(0)} ms | ${mbs(one).toFixed(0)} |`);
    console.log(`| ncclx log --json, no scanner (NCCLX_LOG_SCAN=js, one run) | ${js.toFixed(0)} ms | ${mbs(js).toFixed(0)} |`);
    target('log --json throughput / grep', mbs(best) / mbs(grep), { min: 1 / 3, unit: '×', digits: 2 });
    target('log --json peak memory', rssKb / 1024, { max: 200, unit: ' MiB', digits: 0 });

    // Hostile input: every line a distinct 60 KB blob before NCCL's header (nothing may be kept per line).
    const hostile = join(dir, 'hostile.log');
    const fd = openSync(hostile, 'w');
    const blob = 'x'.repeat(60_000);
    for (let i = 0; i < Math.max(100, Math.round((MB / 4) * 17)); i++) writeSync(fd, `${i.toString(36).padStart(8, '0')}${blob} n1:1:1 [0] NCCL INFO Using network IB\n`);
    closeSync(fd);
    const h = timed(process.execPath, [join(here, 'measure.mjs'), 'log', hostile, '--json']);
    if (h.r.status !== 0) throw new Error(`ncclx log on the hostile file exited ${h.r.status}: ${h.r.stderr}`);
    const hostileMb = statSync(hostile).size / 1048576;
    console.log(`hostile log (${hostileMb.toFixed(0)} MiB of distinct 60 KB prefixes): ${h.ms.toFixed(0)} ms`);
    target('log --json peak memory, distinct long prefixes', Number(/MAXRSS_KB (\d+)/.exec(h.r.stderr)?.[1] ?? 0) / 1024, { max: 200, unit: ' MiB', digits: 0 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
