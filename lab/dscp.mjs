#!/usr/bin/env node
// Lab: does DSCP marking plus a priority scheduler help a "training" flow that
// shares a congested bottleneck with bulk traffic?  `npm run lab:dscp` (root).
//
//   lab-snd ──veth── lab-rtr ──veth(bottleneck)── lab-rcv
//
// lab-rtr forwards; its egress towards lab-rcv is the bottleneck (an htb rate
// limit with a short FIFO, so congestion means drops, as on a real switch
// port). A bulk iperf3 flow (several streams) saturates it; a single-stream
// "training" iperf3 flow runs alongside. Two runs:
//   without: plain rate limit, nothing marked;
//   with:    `ncclx fix --only dscp-marking --mark-ports <training port>` on
//            the sender and `ncclx fix --only qdisc-priority` (htb here: the
//            kernel has no prio) at the bottleneck, both applied by ncclx itself.
// Traffic stays between the lab namespaces. Everything is removed at the end.
//
// Environment: LAB_RATE_MBIT (default 1000), LAB_SECONDS (default 10),
// LAB_BULK_STREAMS (default 8), LAB_QUEUE_PACKETS (default 100), LAB_RUNS (default 3:
// each case is measured that many times and the run with the median training
// throughput is reported, with the range).

import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const RATE = Number(process.env.LAB_RATE_MBIT ?? 1000);
const SECONDS = Number(process.env.LAB_SECONDS ?? 10);
const STREAMS = Number(process.env.LAB_BULK_STREAMS ?? 8);
const QUEUE = Number(process.env.LAB_QUEUE_PACKETS ?? 100);
const RUNS = Number(process.env.LAB_RUNS ?? 3);
const TRAIN_PORT = 5201;
const BULK_PORT = 5202;
const NS = { snd: 'ncclx-lab-snd', rtr: 'ncclx-lab-rtr', rcv: 'ncclx-lab-rcv' };

function sh(argv, { allowFail = false, input } = {}) {
  const r = spawnSync(argv[0], argv.slice(1), { encoding: 'utf8', input });
  if (!allowFail && (r.error || r.status !== 0)) throw new Error(`${JSON.stringify(argv)}: ${r.error?.message ?? r.stderr}`);
  return r.stdout ?? '';
}
const inNs = (ns, argv, o) => sh(['ip', 'netns', 'exec', ns, ...argv], o);

function preflight() {
  if (process.getuid?.() !== 0) throw new Error('the lab builds network namespaces: run it as root');
  for (const t of ['ip', 'tc', 'nft', 'iperf3']) {
    if (spawnSync('sh', ['-c', 'command -v "$1"', 'sh', t]).status !== 0) throw new Error(`${t} is missing (apt-get install -y iproute2 nftables iperf3)`);
  }
}

function teardown() {
  for (const ns of Object.values(NS)) sh(['ip', 'netns', 'del', ns], { allowFail: true });
}

function build() {
  teardown();
  for (const ns of Object.values(NS)) {
    sh(['ip', 'netns', 'add', ns]);
    inNs(ns, ['ip', 'link', 'set', 'lo', 'up']);
  }
  sh(['ip', '-n', NS.snd, 'link', 'add', 'ens1f0np0', 'type', 'veth', 'peer', 'name', 'rtr-in', 'netns', NS.rtr]);
  sh(['ip', '-n', NS.rtr, 'link', 'add', 'rtr-out', 'type', 'veth', 'peer', 'name', 'ens1f0np0', 'netns', NS.rcv]);
  const addr = [
    [NS.snd, 'ens1f0np0', '10.90.1.1/24'],
    [NS.rtr, 'rtr-in', '10.90.1.254/24'],
    [NS.rtr, 'rtr-out', '10.90.2.254/24'],
    [NS.rcv, 'ens1f0np0', '10.90.2.1/24'],
  ];
  for (const [ns, dev, a] of addr) {
    sh(['ip', '-n', ns, 'addr', 'add', a, 'dev', dev]);
    sh(['ip', '-n', ns, 'link', 'set', dev, 'up']);
  }
  sh(['ip', '-n', NS.snd, 'route', 'add', 'default', 'via', '10.90.1.254']);
  sh(['ip', '-n', NS.rcv, 'route', 'add', 'default', 'via', '10.90.2.254']);
  inNs(NS.rtr, ['sysctl', '-qw', 'net.ipv4.ip_forward=1']);
}

/**
 * The bottleneck without priorities: every packet in one class, a short FIFO.
 * bfifo (bytes), not pfifo: veth forwards GSO super-packets of up to 64 KiB,
 * so a 100-packet FIFO would hold megabytes and never drop.
 */
function plainBottleneck() {
  inNs(NS.rtr, ['tc', 'qdisc', 'replace', 'dev', 'rtr-out', 'root', 'handle', '1:', 'htb', 'default', '20']);
  inNs(NS.rtr, ['tc', 'class', 'add', 'dev', 'rtr-out', 'parent', '1:', 'classid', '1:20', 'htb', 'rate', `${RATE}mbit`, 'ceil', `${RATE}mbit`]);
  inNs(NS.rtr, ['tc', 'qdisc', 'add', 'dev', 'rtr-out', 'parent', '1:20', 'bfifo', 'limit', String(QUEUE * 1514)]);
}

function clearBottleneck() {
  inNs(NS.rtr, ['tc', 'qdisc', 'del', 'dev', 'rtr-out', 'root'], { allowFail: true });
}

/** ncclx applies both halves itself, as an operator would. */
function ncclxFix(ns, args, journal) {
  const out = inNs(ns, [process.execPath, CLI, 'fix', '--nccl-version', '2.28.3', '--apply', '--yes', '--journal', journal, ...args]);
  return out.split('\n').find((l) => l.startsWith('Applied') || l.startsWith('Nothing')) ?? out.trim();
}

/** Short FIFOs under ncclx's htb classes too, so both runs drop the same way. */
function shortLeafQueues() {
  for (const cls of ['1:10', '1:20']) inNs(NS.rtr, ['tc', 'qdisc', 'replace', 'dev', 'rtr-out', 'parent', cls, 'bfifo', 'limit', String(QUEUE * 1514)]);
}

function iperfServer(port) {
  return spawn('ip', ['netns', 'exec', NS.rcv, 'iperf3', '-s', '-p', String(port), '-B', '10.90.2.1'], { stdio: 'ignore' });
}

function iperfClient(port, streams, seconds) {
  return new Promise((resolve, reject) => {
    const c = spawn('ip', ['netns', 'exec', NS.snd, 'iperf3', '-c', '10.90.2.1', '-p', String(port), '-P', String(streams), '-t', String(seconds), '-J'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    c.stdout.on('data', (d) => (out += d));
    c.on('close', () => {
      try {
        const j = JSON.parse(out);
        if (j.error) return reject(new Error(`iperf3: ${j.error}`));
        resolve({ mbit: j.end.sum_sent.bits_per_second / 1e6, retransmits: j.end.sum_sent.retransmits ?? 0, gb: j.end.sum_sent.bytes / 1e9 });
      } catch (e) {
        reject(new Error(`iperf3 output: ${e.message}: ${out.slice(0, 200)}`));
      }
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function measureOnce() {
  const bulk = iperfClient(BULK_PORT, STREAMS, SECONDS + 4);
  await sleep(2000); // the bulk flow fills the queue first
  const training = await iperfClient(TRAIN_PORT, 1, SECONDS);
  return { training, bulk: await bulk };
}

/** RUNS measurements; the one with the median training throughput, and the range. */
async function measure() {
  const runs = [];
  for (let i = 0; i < RUNS; i++) runs.push(await measureOnce());
  runs.sort((a, b) => a.training.mbit - b.training.mbit);
  return { ...runs[Math.floor(runs.length / 2)], range: [runs[0].training.mbit, runs[runs.length - 1].training.mbit] };
}

async function main() {
  preflight();
  const work = mkdtempSync(join(tmpdir(), 'ncclx-lab-'));
  const servers = [];
  try {
    build();
    servers.push(iperfServer(TRAIN_PORT), iperfServer(BULK_PORT));
    await sleep(500);

    plainBottleneck();
    const without = await measure();

    clearBottleneck();
    const marking = ncclxFix(NS.snd, ['--only', 'dscp-marking', '--mark-ports', String(TRAIN_PORT)], join(work, 'snd.json'));
    const qdisc = ncclxFix(NS.rtr, ['--only', 'qdisc-priority', '--mark-iface', 'rtr-out', '--rate', String(RATE)], join(work, 'rtr.json'));
    shortLeafQueues();
    const withPrio = await measure();

    const perGb = (f) => (f.gb > 0 ? Math.round(f.retransmits / f.gb) : 0);
    const row = (name, m) => `| ${name} | ${m.training.mbit.toFixed(1)} (${m.range[0].toFixed(0)}–${m.range[1].toFixed(0)}) | ${m.training.retransmits} (${perGb(m.training)}/GB) | ${m.bulk.mbit.toFixed(1)} | ${m.bulk.retransmits} (${perGb(m.bulk)}/GB) |`;
    const table = [
      `Bottleneck ${RATE} Mbit/s (htb, ${QUEUE}×1514-byte FIFO), bulk ${STREAMS} streams, training 1 stream for ${SECONDS} s, median of ${RUNS} runs (range), iperf3 ${sh(['iperf3', '--version']).split(' ')[1]}, kernel ${sh(['uname', '-r']).trim()}`,
      '',
      '| run | training Mbit/s | training retransmits | bulk Mbit/s | bulk retransmits |',
      '|---|---:|---:|---:|---:|',
      row('without marking (one FIFO class)', without),
      row('with ncclx dscp-marking + qdisc-priority', withPrio),
      '',
      `ncclx on the sender: ${marking}`,
      `ncclx at the bottleneck: ${qdisc}`,
    ].join('\n');
    process.stdout.write(table + '\n');
  } finally {
    for (const s of servers) s.kill();
    teardown();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((e) => {
  process.stderr.write(`lab:dscp: ${e.message}\n`);
  teardown();
  process.exit(1);
});
