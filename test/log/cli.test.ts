// `ncclx log` end to end: the corpus (test/log/corpus, one file per release
// family and launcher), --json as documented in docs/log-json.md, exit codes,
// the prediction on fixture nodes, and bad input. Expectations are written
// from the log text, not computed by ncclx.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tmp.js';
import { cliServer, sameAsOwnProcess } from '../helpers/cli-server.js';

const CLI = join(__dirname, '../../dist/cli.js');
const CORPUS = join(__dirname, 'corpus');
const FIX = join(__dirname, '../fixtures');
const tmp = tempDir('ncclx-log-');

// Calls that read files go to the test file's CLI server (test/helpers/cli-server.ts, checked below);
// a call that reads standard input runs as its own process (the server's is read once).
const server = cliServer({ faults: false });
function ncclx(args: string[], input?: string | Buffer, env: Record<string, string> = {}) {
  const fullEnv = { PATH: process.env['PATH'] ?? '', HOME: tmp, ...env };
  const readsFilesOnly = input === undefined && !args.includes('-') && args.some((a) => a.startsWith('/'));
  if (readsFilesOnly) return server.spawnSync(['log', ...args], { env: fullEnv });
  return spawnSync(process.execPath, [CLI, 'log', ...args], { input, encoding: 'utf8', env: fullEnv, timeout: 60_000, maxBuffer: 64 << 20 });
}

it('the CLI server answers as its own process does (the whole corpus, --json)', () => {
  sameAsOwnProcess(server, ['log', '--json', CORPUS], { PATH: process.env['PATH'] ?? '', HOME: tmp });
});
const json = (args: string[], input?: string | Buffer, env?: Record<string, string>) => {
  const r = ncclx([...args, '--json'], input, env);
  return { status: r.status, stderr: r.stderr, d: r.stdout ? JSON.parse(r.stdout) : null };
};

describe('the corpus, one release family and launcher per file', () => {
  it('2.4 under mpirun: bare version, indexed bootstrap, ≤ 2.11 IB line, Ring lines, ranks from Init COMPLETE', () => {
    const { d, status } = json([join(CORPUS, 'v2.4-mpirun.log')]);
    expect(status).toBe(0);
    expect(d.summary).toMatchObject({ ncclVersion: '2.4.8', bootstrap: { ifname: 'eth0', address: '10.0.0.1' }, ibOob: { ifname: 'eth0', address: '10.0.0.1' }, transport: 'IB', netPlugin: null });
    expect(d.summary.ib).toEqual([{ index: 0, device: 'mlx5_0', port: 1, linkLayer: 'IB', relaxedOrdering: false, mergedInto: null }]);
    expect(d.hosts.map((h: { host: string; ranks: number[]; ncclVersion: string | null }) => [h.host, h.ranks, h.ncclVersion])).toEqual([['dgx1', [0], '2.4.8'], ['dgx2', [1], null]]);
    expect(d.ranks).toMatchObject([{ rank: 0, host: 'dgx1', nranks: 2, initComplete: true, transports: { 'NET/IB': 2 } }, { rank: 1, host: 'dgx2', transports: { 'NET/IB': 1 } }]);
  });
  it('2.7 under srun -l: env lines, the bare version goes to the host of its task', () => {
    const { d } = json([join(CORPUS, 'v2.7-srun.log')]);
    expect(d.summary.env).toEqual({ NCCL_SOCKET_IFNAME: 'ib0' });
    expect(d.summary.bootstrap).toEqual({ ifname: 'ib0', address: '192.168.10.1' });
    expect(d.hosts[0]).toMatchObject({ host: 'node-a', ncclVersion: '2.7.8' });
    expect(d.ranks[1]).toMatchObject({ rank: 1, host: 'node-b', gdrChannels: 1, netChannels: 1, busId: '1b000' });
  });
  it('2.18 under pdsh (doubled prefix): [RO], integer env with period, P2P/SHM/NET channels, GID index', () => {
    const { d } = json([join(CORPUS, 'v2.18-pdsh.log')]);
    expect(d.hosts.map((h: { host: string }) => h.host)).toEqual(['gpu05']);
    expect(d.summary.env).toEqual({ NCCL_IB_GID_INDEX: '3' });
    expect(d.summary.ib.every((x: { relaxedOrdering: boolean }) => x.relaxedOrdering)).toBe(true);
    expect(d.hosts[0]).toMatchObject({ ncclVersion: '2.18.3', gidIndex: { '1': 3 }, ranks: [3] });
    expect(d.ranks[0]).toMatchObject({ rank: 3, nranks: 16, cudaDev: 3, transports: { 'NET/IB': 1, 'P2P/IPC': 1, SHM: 1 }, netDevices: [1], gdrChannels: 1 });
  });
  it('2.21 merged NICs', () => {
    const { d } = json([join(CORPUS, 'v2.21-merged.log')]);
    expect(d.summary.ib.map((x: { index: number; device: string; mergedInto: number | null }) => [x.index, x.device, x.mergedInto])).toEqual([[0, 'mlx5_0', 0], [1, 'mlx5_1', 0], [2, 'mlx5_2', null]]);
  });
  it('2.25 under Ray: Bootstrap: form, repeated WARN counted 16 times with its timestamp line', () => {
    const { d, status } = json([join(CORPUS, 'v2.25-ray.log')]);
    expect(status).toBe(1);
    expect(d.summary.errors).toHaveLength(1);
    expect(d.summary.errors[0]).toMatchObject({ signature: 'ib-completion-12', count: 16 });
    expect(d.summary.errors[0].line).toContain('[2025-03-04 10:11:12] worker-7:8812:8870 [0] transport/net_ib.cc:1696 NCCL WARN');
    expect(d.summary.errors[0].meaning).toMatch(/retries/);
    expect(d.summary.errors[0].next.length).toBeGreaterThan(0);
    expect(d.summary.bootstrap).toEqual({ ifname: 'bond0', address: '10.1.0.7' });
  });
  it('2.30 in Kubernetes, quoted in markdown with colour residue: the silent fallback to sockets is a warning', () => {
    const { d, status } = json([join(CORPUS, 'v2.30-k8s.log')]);
    expect(status).toBe(0);
    expect(d.summary).toMatchObject({ ncclVersion: '2.30.7', transport: 'Socket', ib: [], env: { NCCL_IB_HCA: '=mlx5_9:1' } });
    expect(d.summary.bootstrap.address).toBe('fe80::54a7:2aff:fe92:27be%eth0');
    expect(d.summary.socket).toEqual([{ ifname: 'eth0', address: 'fe80::54a7:2aff:fe92:27be%eth0' }]);
    // The fallback, and every consumer on eth0's link-local address: other pods cannot reach it (the doctor's SOCK-002).
    expect(d.summary.warnings.map((w: { signature: string; detail: string }) => [w.signature, w.detail])).toEqual([
      ['iface-link-local', 'bootstrap on eth0'],
      ['ib-no-device', ''],
      ['iface-link-local', 'IB OOB on eth0'],
      ['iface-link-local', 'socket transport on eth0'],
    ]);
  });
  it('an interface other nodes cannot reach: docker0 or lo is a warning, a data interface is not (NVIDIA/nccl#529 bootstrapped on ip6tnl0 link-local)', () => {
    const text = ['a:1:1 [0] NCCL INFO Bootstrap : Using docker0:172.17.0.2<0>', 'a:1:1 [0] NCCL INFO NET/Socket : Using [0]lo:127.0.0.1<0>', 'b:1:1 [0] NCCL INFO Bootstrap : Using ens3:10.0.0.2<0>'].join('\n');
    const d = json(['-'], `${text}\n`).d;
    expect(d.summary.warnings.map((w: { signature: string; detail: string; hosts: string[] }) => [w.signature, w.detail, w.hosts])).toEqual([
      ['iface-private', 'bootstrap on docker0 (a Docker bridge)', ['a']],
      ['iface-private', 'socket transport on lo (loopback)', ['a']],
    ]);
  });
  it('every WARN signature, duplicates from collectors counted once, exit 1', () => {
    const { d, status } = json([join(CORPUS, 'warns.log')]);
    expect(status).toBe(1);
    const got = Object.fromEntries([...d.summary.errors, ...d.summary.warnings].map((e: { signature: string; count: number }) => [e.signature, e.count]));
    expect(got).toMatchObject({
      'no-socket-interface': 3, 'ibv-modify-qp': 1, 'ibv-create-qp': 1, 'ib-completion-12': 2, 'ib-completion-5': 1, 'socket-connect': 1, 'socket-timeout': 1,
      'peer-closed': 1, 'bootstrap-duplicate-rank': 1, shm: 1, 'cuda-ipc': 1, 'net-id-not-found': 1, 'gid-query': 1, 'libibverbs-missing': 1,
    });
    for (const e of d.summary.errors) expect(Object.keys(e)).toEqual(expect.arrayContaining(['signature', 'line', 'count', 'meaning', 'next']));
  });
  it('asymmetries: the host with one rail less and the one on docker0', () => {
    const { d, status } = json([join(CORPUS, 'asym-a.log')]);
    expect(status).toBe(1);
    const by = Object.fromEntries(d.asymmetries.map((a: { fact: string; outliers: string[] }) => [a.fact, a.outliers]));
    expect(by).toEqual({ ibCount: ['node03'], bootstrap: ['node03'], ibOob: ['node03'] });
  });
  it('several files, a directory, gzip and standard input give the same facts', () => {
    const text = ['v2.4-mpirun.log', 'v2.7-srun.log'].map((f) => readFileSync(join(CORPUS, f), 'utf8')).join('');
    const gz = join(tmp, 'a.log.gz');
    writeFileSync(gz, gzipSync(text));
    const a = json([join(CORPUS, 'v2.4-mpirun.log'), join(CORPUS, 'v2.7-srun.log')]).d;
    const b = json([gz]).d;
    const c = json(['-'], text).d;
    for (const x of [b, c]) {
      expect(x.summary).toEqual(a.summary);
      expect(x.hosts).toEqual(a.hosts);
    }
    const dir = json([join(CORPUS, 'predict')]).d;
    expect(dir.input.files.length).toBeGreaterThanOrEqual(6);
  });
  it('read by worker threads in parts, the answer is the one read whole (a large log takes this way)', async () => {
    // Every corpus file, then a log whose cut points fall inside one communicator's channel lines.
    const big = join(tmp, 'interleaved.log');
    const lines: string[] = [];
    for (let c = 0; c < 40; c++) for (let r = 0; r < 16; r++) {
      const h = `[1,${r}]<stdout>:node${String(r >> 3).padStart(2, '0')}:${100 + r}:${200 + r} [${r % 8}] NCCL INFO `;
      lines.push(`${h}comm 0x${(c + 10).toString(16)} rank ${r} nranks 16 cudaDev ${r % 8} busId ${r % 8}b000 commId 0x${c} - Init COMPLETE`);
      for (let ch = 0; ch < 4; ch++) lines.push(`${h}Channel 0${ch}/0 : ${r}[${r % 8}] -> ${(r + 8) % 16}[${r % 8}] [send] via NET/IB/${(r + c) % 8}/GDRDMA`);
      if (c % 7 === r % 5) lines.push(`[1,${r}]<stdout>:node${String(r >> 3).padStart(2, '0')}:${100 + r}:${300 + r} [${r % 8}] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from peer 10.0.0.9<4100> with status=12 opcode=0 len=0 vendor err 129 (Send)`);
    }
    writeFileSync(big, `${lines.join('\n')}\n`);
    for (const args of [[CORPUS], [big], [join(CORPUS, 'v2.18-pdsh.log'), big, join(CORPUS, 'warns.log')], [big, big]]) {
      const one = json(args, undefined, { NCCLX_LOG_WORKERS: '0' });
      for (const n of ['2', '3', '7']) {
        const parts = json(args, undefined, { NCCLX_LOG_WORKERS: n });
        expect(parts.status, `${args.join(' ')} with ${n} workers`).toBe(one.status);
        expect(parts.d, `${args.join(' ')} with ${n} workers`).toEqual(one.d);
      }
    }
    // Control: the parts were read side by side and merged (not read again whole), and the big log says what it holds.
    const { collectLogs } = await import(pathToFileURL(join(__dirname, '../../dist/probe/log-parallel.js')).href);
    const got = await collectLogs([big], process.stdin, () => {}, '3');
    expect(got.parts).toBe(3);
    const whole = await collectLogs([big], process.stdin, () => {}, '0');
    expect(whole.parts).toBe(0);
    expect(got.collector.result()).toEqual(whole.collector.result());
    const d = json([big], undefined, { NCCLX_LOG_WORKERS: '3' }).d;
    expect(d.ranks).toHaveLength(16);
    expect(d.ranks[0]).toMatchObject({ rank: 0, netChannels: 160, gdrChannels: 160 });
    expect(d.summary.errors[0].count).toBeGreaterThan(1);
  });
  it('text: summary first, then hosts, problems with fixes; data from the log is escaped', () => {
    const r = ncclx(['-', '--no-color'], 'n1:1:1 [0] NCCL INFO Bootstrap : Using e\x07x:10.0.0.1<0>\nn1:1:1 [0] x.cc:1 NCCL WARN NET/Socket : no interface found\n');
    expect(r.status).toBe(1);
    expect(r.stdout).not.toContain('\x07');
    expect(r.stdout).toContain('e\\x07x');
    const order = ['Summary', 'Hosts (1)', 'Problems (1)', 'no usable socket interface', 'next:'].map((s) => r.stdout.indexOf(s));
    expect(order.every((v, i) => v >= 0 && (i === 0 || v > order[i - 1]!))).toBe(true);
  });
});

describe('against the prediction for roce-one-subnet (gpu-roce-07)', () => {
  const root = join(FIX, 'roce-one-subnet');
  const pred = (f: string) => json([join(CORPUS, 'predict', f), '--root', root]).d.prediction;
  const c = (p: { consumers: { consumer: string }[] }, name: string) => p.consumers.find((x) => x.consumer === name) as unknown as { status: string; likely: string | null; evidence: string[] };
  it('a log written for this node agrees, consumer by consumer', () => {
    const p = pred('match.log');
    expect(p).toMatchObject({ node: 'gpu-roce-07', logHost: 'gpu-roce-07', ncclVersion: '2.21.5', versionSource: 'the log', agree: true });
    expect(Object.fromEntries(p.consumers.map((x: { consumer: string; status: string }) => [x.consumer, x.status]))).toEqual({ bootstrap: 'agree', socket: 'agree', ibDevices: 'agree', ibOob: 'agree', gidIndex: 'agree', transport: 'agree' });
  });
  it('another NCCL_SOCKET_IFNAME in the job: bootstrap and OOB differ, cause environment, confirmed by predicting with it', () => {
    const p = pred('differ-env.log');
    expect(p.agree).toBe(false);
    expect(p.envDifferences).toEqual([{ name: 'NCCL_SOCKET_IFNAME', log: 'enp', node: null }]);
    for (const k of ['bootstrap', 'ibOob']) expect(c(p, k)).toMatchObject({ status: 'differ', likely: 'environment' });
    expect(c(p, 'bootstrap').evidence.join(' ')).toMatch(/agrees with the log/);
    expect(c(p, 'ibDevices').status).toBe('agree');
  });
  it('an interface this node does not have: a container', () => {
    const p = pred('differ-container.log');
    expect(c(p, 'bootstrap')).toMatchObject({ status: 'differ', likely: 'container' });
    expect(c(p, 'bootstrap').evidence[0]).toMatch(/eth0/);
  });
  it('a net plugin: the network differs and the plugin is named', () => {
    const p = pred('differ-plugin.log');
    expect(c(p, 'transport')).toMatchObject({ status: 'differ', likely: 'net-plugin' });
    expect(c(p, 'bootstrap').status).toBe('agree');
  });
  it('NCCL_IB_GID_INDEX=0 in the job: the GID index differs, cause environment', () => {
    const p = pred('differ-gid.log');
    expect(c(p, 'gidIndex')).toMatchObject({ status: 'differ', likely: 'environment' });
    expect(c(p, 'ibDevices').status).toBe('agree');
  });
  it('one device fewer and no version line: the IB devices differ and the version is the suspect', () => {
    const p = pred('differ-ib.log');
    expect(c(p, 'ibDevices')).toMatchObject({ status: 'differ', likely: 'nccl-version' });
    expect(p.versionSource).toMatch(/assuming the newest known release/);
  });
  it('a log from a host of another name: the difference is put down to another node first', () => {
    const r = json(['-', '--root', root, '--nccl-version', '2.21.5'], 'other-host:1:1 [0] NCCL INFO Using network Socket\n');
    const t = c(r.d.prediction, 'transport');
    expect(t).toMatchObject({ status: 'differ', likely: 'other-node' });
    expect(t.evidence[0]).toMatch(/'other-host' is not named 'gpu-roce-07'/);
  });
  it('--host names the log host; an unknown one is said', () => {
    const r = json([join(CORPUS, 'asym-a.log'), '--root', root, '--host', 'node02']);
    expect(r.d.prediction.logHost).toBe('node02');
    const bad = json([join(CORPUS, 'asym-a.log'), '--root', root, '--host', 'nope']);
    expect(bad.d.prediction.hostNote).toMatch(/no host 'nope'/);
  });
  it('text shows each consumer', () => {
    const r = ncclx([join(CORPUS, 'predict', 'differ-env.log'), '--root', root, '--no-color']);
    expect(r.stdout).toMatch(/Against the prediction for gpu-roce-07/);
    expect(r.stdout).toMatch(/✗ bootstrap {2}log: enp12s0np0 172\.16\.0\.11\n\s+predicted: ens3 10\.0\.0\.7\n\s+likely: environment/);
  });
});

describe('--here: this node', () => {
  it('predicts for the live node, found by its hostname in the log', () => {
    const ex = JSON.parse(spawnSync(process.execPath, [CLI, 'explain', '--json', '--nccl-version', '2.28.3'], { encoding: 'utf8' }).stdout);
    const sel = ex.bootstrap.selected[0];
    const line = sel ? `Bootstrap : Using ${sel.name}:${sel.display}<0>` : 'Using network Socket';
    const r = json(['-', '--here', '--nccl-version', '2.28.3'], `${hostname().split(".")[0]}:1:1 [0] NCCL INFO ${line}\n`);
    expect(r.d.prediction).toMatchObject({ node: ex.host, logHost: hostname().split('.')[0], ncclVersion: '2.28.3' });
    if (sel) expect(r.d.prediction.consumers[0]).toMatchObject({ consumer: 'bootstrap', status: 'agree' });
  });
});

describe('shapes from logs users posted', () => {
  it('a plugin named only by `Using network` (before 2.18), and `NCCL_IB_HCA set to` as an environment fact (NVIDIA/nccl#952, #1052)', () => {
    const text = [
      'node2:14159:14168 [0] NCCL INFO NCCL_IB_HCA set to mlx5_4',
      'node2:14159:14168 [0] NCCL INFO Plugin Path : /opt/hpcx/nccl_rdma_sharp_plugin/lib/libnccl-net.so',
      'node2:14159:14168 [0] NCCL INFO P2P plugin IBext',
      'node2:14159:14168 [0] NCCL INFO Using network IBext',
      'node4:565139:565148 [0] NCCL INFO Using network IB',
    ].join('\n');
    const d = json(['-'], `${text}\n`).d;
    expect(d.summary).toMatchObject({ netPlugin: 'IBext', transport: 'IBext', env: { NCCL_IB_HCA: 'mlx5_4' } });
    const by = Object.fromEntries(d.hosts.map((h: { host: string; netPlugin: string | null }) => [h.host, h.netPlugin]));
    expect(by).toEqual({ node2: 'IBext', node4: null });
  });
});

describe('bad input: one line naming it, exit 2, bounded', () => {
  const bad = (args: string[], input?: string | Buffer) => {
    const r = ncclx(args, input);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).not.toMatch(/at .*\.js:\d+/);
    return r.stderr;
  };
  it('a missing file', () => expect(bad([join(tmp, 'nope.log')])).toMatch(/nope\.log: no such file/));
  it('binary data', () => {
    const f = join(tmp, 'bin.log');
    writeFileSync(f, Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2, 3, 0, 0]));
    expect(bad([f])).toMatch(/bin\.log: binary data/);
  });
  it('/dev/zero', () => expect(bad(['/dev/zero'])).toMatch(/\/dev\/zero: a character device/));
  it('--host without a node to predict for is refused before the log is read', () => {
    const f = join(tmp, 'bin2.log');
    writeFileSync(f, Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2, 3, 0, 0]));
    expect(bad([f, '--host', 'n1'])).toMatch(/--host and --nccl-version apply to the prediction: add --here, --snapshot, --root or --pid/);
  });
  it('no NCCL lines', () => {
    const f = join(tmp, 'train.log');
    writeFileSync(f, 'epoch 1 loss 0.3\nepoch 2 loss 0.2\n');
    expect(bad([f])).toMatch(/train\.log: no NCCL lines \(2 lines read; run the job with NCCL_DEBUG=INFO\)/);
  });
  it('an empty standard input', () => expect(bad(['-'], '')).toMatch(/standard input: no NCCL lines/));
  it('truncated gzip', () => {
    const f = join(tmp, 't.gz');
    writeFileSync(f, gzipSync('n:1:1 [0] NCCL INFO Using network IB\n'.repeat(1000)).subarray(0, 60));
    expect(bad([f])).toMatch(/t\.gz: corrupt or truncated gzip data/);
  });
  it('a binary file inside a directory is skipped and said; the logs beside it are read', () => {
    const d = tempDir('ncclx-log-dir-');
    writeFileSync(join(d, 'core'), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 0, 0]));
    writeFileSync(join(d, 'rank0.log'), 'n1:1:1 [0] NCCL INFO Using network IB\n');
    const r = ncclx([d, '--json']);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).summary.transport).toBe('IB');
    expect(r.stderr).toMatch(/skipped .*core: binary data/);
  });
  it('an empty directory', () => {
    const d = tempDir('ncclx-log-empty-');
    expect(bad([d])).toMatch(/holds no files/);
  });
  it('--here with --root', () => expect(bad([join(CORPUS, 'warns.log'), '--here', '--root', FIX])).toMatch(/give one/));
  it('a 5 MB line without a newline is cut, the rest still read', () => {
    const big = `n1:1:1 [0] NCCL INFO ${'x'.repeat(5 << 20)}\nn1:1:1 [0] NCCL INFO Using network IB\n`;
    const r = json(['-'], big);
    expect(r.status).toBe(0);
    expect(r.d.input.truncatedLines).toBe(1);
    expect(r.d.summary.transport).toBe('IB');
  });
  it('bounded whatever the log holds: 25,000 hosts keep 20,000 and one overflow entry, a 10 KB WARN keeps its first 4,096 characters', () => {
    const lines: string[] = [];
    for (let i = 0; i < 25_000; i++) lines.push(`host${i}:1:1 [0] NCCL INFO Using network IB`);
    lines.push(`host1:1:1 [0] x.cc:1 NCCL WARN ${'w'.repeat(10_000)}`);
    const r = json(['-'], lines.join('\n') + '\n');
    expect(r.status).toBe(1);
    expect(r.d.hosts).toHaveLength(20_001);
    expect(r.d.hosts.some((h: { host: string }) => h.host === '(more hosts than ncclx keeps)')).toBe(true);
    expect(r.d.input.capped).toBeGreaterThan(0);
    expect(r.d.summary.errors[0].line.length).toBe(4097);
  });
  it('a truncated last line (no newline) still counts', () => {
    const r = json(['-'], 'n1:1:1 [0] NCCL INFO Using network Socket');
    expect(r.d.summary.transport).toBe('Socket');
  });
});
