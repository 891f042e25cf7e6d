// Issue #22's classes 2–4 as regressions: one bad number, deep input and
// sheer size once took gigabytes, minutes or a stack overflow. A snapshot past
// what the kernel or NCCL bounds is refused by name and field; a tree's entry
// past it is dropped with a note; what is kept is worked on in linear time.
// Fast in process where the model is the point; the built CLI (under a 512 MiB
// heap) where reading the input is.

import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ibJson } from '../../src/report/ib-text.js';
import { gidRows, renderGids } from '../../src/report/ib-text.js';
import { ibReport } from '../../src/model/nccl/ib-report.js';
import { SnapshotError, validateSnapshot } from '../../src/model/snapshot/schema.js';
import type { NodeSnapshot } from '../../src/model/snapshot/types.js';
import { topoReport } from '../../src/model/topo/report.js';
import { makeStyle } from '../../src/report/style.js';
import { probeNode } from '../../src/probe/index.js';
import '../helpers/fixture-faults.js';
import { tempDir } from '../helpers/tmp.js';
import { link, run, snapshotOf } from '../unit/helpers.js';

const CLI = join(__dirname, '../../dist/cli.js');
const FIX = join(__dirname, '../fixtures');
const tmp = tempDir('ncclx-bounds-');
const clone = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T;

/** The built CLI under a 512 MiB heap: before the fix these inputs took 1–4 GB (a V8 abort here, exit 134). */
function ncclx(args: string[]) {
  const r = spawnSync(process.execPath, ['--max-old-space-size=512', CLI, ...args], { encoding: 'utf8', timeout: 60_000, maxBuffer: 256 * 1024 * 1024, env: { PATH: process.env['PATH'] ?? '', HOME: tmp, NO_COLOR: '1' } });
  return { code: r.status, signal: r.signal, out: r.stdout, err: r.stderr };
}

let roce: NodeSnapshot;
let dgx: NodeSnapshot;
beforeAll(async () => {
  roce = await probeNode({ root: join(FIX, 'roce-healthy'), kernel: true, rdma: true, env: {} });
  dgx = await probeNode({ root: join(FIX, 'topo-dgx-h100'), kernel: true, rdma: true, env: {} });
}, 60_000);

describe('a snapshot past a bound is refused by name and field', () => {
  const cases: [string, (s: NodeSnapshot) => void, RegExp][] = [
    ['a GID entry at index 4096', (s) => void (s.rdma!.devices[0]!.ports[0]!.gids[3]!.index = 4096), /^x\.json: not a valid ncclx snapshot: rdma\.devices\.0\.ports\.0\.gids\.3\.index: Too big: expected number to be <=255$/],
    ['gidCount 4096', (s) => void (s.rdma!.devices[0]!.ports[0]!.gidCount = 4096), /rdma\.devices\.0\.ports\.0\.gidCount: Too big: expected number to be <=256$/],
    ['a GID string of 1 MB', (s) => void (s.rdma!.devices[0]!.ports[0]!.gids[0]!.gid = 'f'.repeat(1 << 20)), /rdma\.devices\.0\.ports\.0\.gids\.0\.gid: longer than 65536 characters$/],
    ['an IPv4 prefix length of 33', (s) => void (s.network.addresses.find((a) => a.family === 'AF_INET')!.prefixlen = 33), /network\.addresses\.\d+\.prefixlen: an IPv4 prefix length is 0–32$/],
    ['a NUMA node of 10^9', (s) => void (s.pci!.gpus[0]!.numaNode = 1e9), /pci\.gpus\.0\.numaNode: Too big: expected number to be <=1023$/],
    ['300,000 addresses', (s) => void (s.network.addresses = Array.from({ length: 300_000 }, () => s.network.addresses[0]!)), /network\.addresses: more than 65536 entries/],
    ['72,000 RDMA devices: refused before each is checked', (s) => void (s.rdma!.devices = Array.from({ length: 72_000 }, () => s.rdma!.devices[0]!)), /rdma\.devices: more than 65536 entries$/],
    ['8,193 RDMA devices (RDMA_MAX_PORTS)', (s) => void (s.rdma!.devices = Array.from({ length: 8193 }, (_, i) => ({ ...s.rdma!.devices[0]!, name: `mlx5_${i}`, ports: [{ ...s.rdma!.devices[0]!.ports[0]!, gids: [], gidCount: 0 }] }))), /rdma\.devices: more than 8192 entries/],
    ['one GPU listed 1,004 times', (s) => void (s.pci!.topology!.gpus = Array.from({ length: 1004 }, () => s.pci!.topology!.gpus[0]!)), /pci\.topology\.gpus: more than 640 entries/],
    ['one GPU listed twice', (s) => void (s.pci!.topology!.gpus = [s.pci!.topology!.gpus[0]!, s.pci!.topology!.gpus[0]!]), /pci\.topology\.gpus/],
  ];
  for (const [what, mutate, problem] of cases) {
    it(what, () => {
      const s = clone(what.includes('GPU') || what.includes('NUMA') ? dgx : roce);
      mutate(s);
      let err: unknown = null;
      try {
        validateSnapshot(s, 'x.json');
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(SnapshotError);
      expect((err as Error).message).toMatch(problem);
      expect((err as Error).message).not.toContain('\n');
    });
  }
  it('the same snapshots inside the bounds are accepted (the other side of each bound)', () => {
    const s = clone(roce);
    const p = s.rdma!.devices[0]!.ports[0]!;
    p.gidCount = 256;
    p.gids[3]!.index = 255;
    p.gids[0]!.gid = 'f'.repeat(65_536);
    s.network.addresses[0]!.prefixlen = s.network.addresses[0]!.family === 'AF_INET6' ? 128 : 32;
    expect(() => validateSnapshot(s, 'x.json')).not.toThrow();
    const d = clone(dgx);
    d.pci!.gpus[0]!.numaNode = 1023;
    expect(() => validateSnapshot(d, 'x.json')).not.toThrow();
  });
});

describe('what is kept is worked on in linear time and memory', () => {
  it('GID tables with gaps on eight ports: ib --json stays small (was 90 MB, 12 s, 0.9 GB)', () => {
    const s = clone(roce);
    for (const d of s.rdma!.devices) for (const p of d.ports) p.gids = p.gids.filter((g) => g.index < 4 || g.index > 250);
    const t0 = performance.now();
    const json = JSON.stringify(ibJson(ibReport(s, { ncclVersion: '2.28.3' })));
    // Linear: about 3 MB (the table with no gap, 0.5 MB, plus each port's counted paths).
    expect(json.length).toBeLessThan(8_000_000);
    expect(performance.now() - t0).toBeLessThan(5_000);
  });

  it('ib gids pads no row to one runaway cell (one 60,000-character GID made every row that wide)', () => {
    const s = clone(roce);
    s.rdma!.devices[0]!.ports[0]!.gids[5]!.gid = 'f'.repeat(60_000);
    const r = ibReport(s, { ncclVersion: '2.28.3' });
    const text = renderGids(gidRows(r, s.rdma, true), makeStyle(false));
    expect(text).toContain('f'.repeat(60_000));
    expect(text.length).toBeLessThan(60_000 + 400_000);
  });

  it('130,000 addresses: the socket model answers (was "Maximum call stack size exceeded" from a spread of the trace)', () => {
    const addrs = Array.from({ length: 130_000 }, (_, i) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}/8`);
    const r = run(snapshotOf([link('lo', ['127.0.0.1/8']), link('eth0', addrs)]), '2.28.3');
    expect(r.socket.selected.map((x) => x.name)).toEqual(['eth0']);
  });

  /** The dgx snapshot with `n` copies of its first GPU, on buses 0x20 and up, and no NVLink data. */
  const withGpus = (n: number) => {
    const s = clone(dgx);
    const t = s.pci!.topology!;
    const fn = t.functions.find((f) => f.bdf === t.gpus[0])!;
    t.gpus = [];
    for (let i = 0; i < n; i++) {
      const bdf = `0000:${(0x20 + (i >> 5)).toString(16).padStart(2, '0')}:${(i & 31).toString(16).padStart(2, '0')}.0`;
      t.functions.push({ ...fn, bdf, path: [...fn.path.slice(0, -1), bdf] });
      t.gpus.push(bdf);
    }
    t.nvlink = null;
    t.nvlinkStatus = null;
    s.pci!.gpus = [];
    return s;
  };

  it.each([32, 33])('%i GPUs: the graph search runs on at most 32 (report.ts MAX_SEARCH_GPUS)', (n) => {
    const s = withGpus(n);
    const r = topoReport(validateSnapshot(s, 'x.json'), { ncclVersion: '2.28.3', hca: 'mlx5' });
    if (n <= 32) expect(r.graphsUnavailable).toBeNull();
    else expect(r.graphsUnavailable).toBe(`${n} GPUs in one node: ncclx runs NCCL's graph search on at most 32`);
  }, 60_000);

  it('640 GPUs (NCCL_TOPO_MAX_NODES) with --hca: topo answers in seconds (did not finish in a minute)', () => {
    const s = withGpus(640);
    const t0 = performance.now();
    const r = topoReport(validateSnapshot(s, 'x.json'), { ncclVersion: '2.28.3', hca: 'mlx5' });
    expect(r.gpus).toHaveLength(640);
    expect(performance.now() - t0).toBeLessThan(20_000);
    // The graph search is not run past 32 GPUs (report.ts MAX_SEARCH_GPUS); graphs.test.ts runs it on 8.
    expect(r.graphsUnavailable).toBe('640 GPUs in one node: ncclx runs NCCL\'s graph search on at most 32');
  }, 60_000);
});

describe('the built CLI on trees and files past the bounds', () => {
  it('a GID entry at index 4096 in a tree is dropped with a note; the rest of the port is read (was 4.2 GB, then a V8 abort)', () => {
    const tree = join(tmp, 'gid-tree');
    cpSync(join(FIX, 'roce-healthy'), tree, { recursive: true, verbatimSymlinks: true });
    const port = realpathSync(join(tree, 'sys/class/infiniband/mlx5_0/ports/1'));
    expect(port.startsWith(realpathSync(tmp))).toBe(true);
    for (const d of ['gids', 'gid_attrs/types', 'gid_attrs/ndevs']) copyFileSync(join(port, d, '3'), join(port, d, '4096'));
    const r = ncclx(['ib', '--json', '--root', tree, '--nccl-version', '2.28.3']);
    expect(r.signal).toBeNull();
    expect(r.code, r.err).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.warnings).toEqual([expect.stringMatching(/^rdma: .*mlx5_0\/ports\/1\/gids: 4096 ignored: a port's GID table has at most 256 entries \(gid_tbl_len\)$/)]);
  });

  it('topology XML nested 4,000 <pci> deep: a one-line refusal naming the file, exit 2 (was a stack overflow); 1,000 deep is read', () => {
    const deep = (n: number) =>
      `<system version="1"><cpu numaid="0" affinity="ff" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="143">${Array.from({ length: n }, (_, i) => `<pci busid="0000:${((i >> 5) & 255).toString(16).padStart(2, '0')}:${(i & 31).toString(16).padStart(2, '0')}.${i >> 13}" class="0x060400" link_speed="16.0 GT/s PCIe" link_width="16">`).join('')}<pci busid="0001:00:00.0" class="0x030200"><gpu dev="0" sm="90" rank="0" gdr="1"/></pci>${'</pci>'.repeat(n)}</cpu></system>`;
    const f = join(tmp, 'deep.xml');
    writeFileSync(f, deep(4000));
    const r = ncclx(['topo', '--root', join(FIX, 'topo-dgx-h100'), '--topo-file', f, '--nccl-version', '2.28.3']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(new RegExp(`^ncclx: --topo-file ${f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: more than 1024 elements`));
    expect(r.err.trim().split('\n')).toHaveLength(1);
    writeFileSync(f, deep(1000));
    const ok = ncclx(['topo', '--json', '--root', join(FIX, 'topo-dgx-h100'), '--topo-file', f, '--nccl-version', '2.28.3']);
    expect(ok.code, ok.err).not.toBe(2);
    expect(ok.out).toContain('0001:00:00.0');
  });
});
