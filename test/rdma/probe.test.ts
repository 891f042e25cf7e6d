// The RDMA probe on fixture trees, and the tests' seam for reads that fail (test/helpers/faults.mjs).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/tmp.js';
import { describe, expect, it } from 'vitest';
import { naturalCompare, probeRdma } from '../../src/probe/rdma.js';
import { Root } from '../../src/probe/root.js';
import { faultsFile, injectFaults } from '../helpers/faults.mjs';

const FIX = join(__dirname, '../fixtures');

describe('Root and the fault seam', () => {
  // The tree is a subdirectory, so its sibling faults file is inside the temporary directory too.
  const dir = join(tempDir('ncclx-root-'), 'node');
  mkdirSync(join(dir, 'sys/x/types'), { recursive: true });
  for (const i of [0, 1, 2, 3]) writeFileSync(join(dir, `sys/x/types/${i}`), 'RoCE v2\n');
  it('ncclx itself reads no file of a --root tree to make reads fail: an errors.json (even 100,000 arrays deep) is ordinary content', () => {
    let deep = '1';
    for (let i = 0; i < 100_000; i++) deep = `[${deep}]`;
    writeFileSync(join(dir, 'errors.json'), `{"ncclxFixtureErrors": 1, "errors": {"/sys/x/types/{1..2}": "EINVAL", "/sys/x/types/3": "EIO"}, "deep": ${deep}}`);
    const r = new Root(dir);
    for (const i of [0, 1, 2, 3]) expect(r.read(`/sys/x/types/${i}`)).toEqual({ ok: true, value: 'RoCE v2\n' });
  });
  it('the seam: a sibling <tree>.faults.json, applied by injectFaults, fails the listed paths (exact or a {a..b} range) and nothing else', () => {
    writeFileSync(faultsFile(dir), JSON.stringify({ reads: { '/sys/x/types/{1..2}': 'EINVAL', '/sys/x/types/3': 'EIO' } }));
    class Faulty extends Root {}
    injectFaults(Faulty);
    const r = new Faulty(dir);
    expect(r.read('/sys/x/types/0')).toEqual({ ok: true, value: 'RoCE v2\n' });
    expect(r.read('/sys/x/types/1')).toEqual({ ok: false, error: 'EINVAL' });
    expect(r.read('/sys/x/types/2')).toEqual({ ok: false, error: 'EINVAL' });
    expect(r.read('/sys/x/types/3')).toEqual({ ok: false, error: 'EIO' });
    expect(r.list('/sys/x/types')).toEqual(['0', '1', '2', '3']);
    // Only the test's class is patched.
    expect(new Root(dir).read('/sys/x/types/1')).toEqual({ ok: true, value: 'RoCE v2\n' });
  });
});

describe('probeRdma', () => {
  // The fixtures' hidden and unset GID entries read EINVAL, as on a real kernel.
  class FixtureRoot extends Root {}
  injectFaults(FixtureRoot);
  const probe = (node: string) => probeRdma(new FixtureRoot(join(FIX, node)));

  it('reads a real-looking tree: symlinked class entries, the PCI function, GID tables with their errno', () => {
    const r = probe('ib8-storage');
    expect(r.classPresent).toBe(true);
    expect(r.devices.map((d) => d.name)).toEqual(['mlx5_0', 'mlx5_1', 'mlx5_2', 'mlx5_3', 'mlx5_4', 'mlx5_5', 'mlx5_6', 'mlx5_7', 'mlx5_8', 'mlx5_9', 'mlx5_10', 'mlx5_11']);
    const d = r.devices[0]!;
    expect(d).toMatchObject({ classEntryIsSymlink: true, nodeType: '1: CA', hcaType: 'MT4129', uverbs: 'uverbs0', pciNetdevs: ['ibp24s0'] });
    expect(d.device).toMatchObject({ kind: 'symlink', link: '../../../0000:18:00.0', realpath: '/sys/devices/pci0000:17/0000:17:01.0/0000:18:00.0', subsystem: 'pci' });
    expect(d.device.folded.find((f) => f.variant === 'mergeVfs')).toEqual({ variant: 'mergeVfs', path: '/sys/devices/pci0000:17/0000:17:01.0/0000:18:00.0', exists: true, subsystem: 'pci' });
    expect(d.pci).toMatchObject({ bdf: '0000:18:00.0', class: '0x020700', vendor: '0x15b3', device: '0x1021', numaNode: '0', currentLinkSpeed: '32.0 GT/s PCIe' });
    const p = d.ports[0]!;
    expect(p).toMatchObject({ port: 1, state: '4: ACTIVE', physState: '5: LinkUp', linkLayer: 'InfiniBand', rate: '400 Gb/sec (4X NDR)', lid: '0x1a', gidCount: 128 });
    expect(p.gids[0]).toEqual({ index: 0, gid: 'fe80:0000:0000:0000:a088:c203:0040:5e10', type: 'IB/RoCE v1', ndev: { error: 'EINVAL' } });
    expect(p.gids[127]).toEqual({ index: 127, gid: '0000:0000:0000:0000:0000:0000:0000:0000', type: { error: 'EINVAL' }, ndev: { error: 'EINVAL' } });
    const roce = r.devices.find((x) => x.name === 'mlx5_4')!.ports[0]!;
    expect(roce.gidCount).toBe(255);
    expect(roce.gids.slice(0, 4).map((g) => [g.type, g.ndev])).toEqual([
      ['IB/RoCE v1', 'enp41s0f0np0'],
      ['RoCE v2', 'enp41s0f0np0'],
      ['IB/RoCE v1', 'enp41s0f0np0'],
      ['RoCE v2', 'enp41s0f0np0'],
    ]);
    expect(r.netdevs['enp41s0f0np0']).toMatchObject({ present: true, operstate: 'up', mtu: '9000', devPort: '0', master: null });
    expect(r.peerMem.find((x) => x.path.endsWith('nv_mem/version'))!.present).toBe(true);
    expect(r.memlock).toEqual({ soft: 'unlimited', hard: 'unlimited', error: null });
    expect(r.container.detected).toBe(false);
  });
  it('a sandbox: plain directories, unreadable types of other namespaces, 64 KiB memlock, container marks', () => {
    const r = probe('sandbox');
    const d = r.devices[0]!;
    expect(d).toMatchObject({ classEntryIsSymlink: false, pci: null, pciNetdevs: [] });
    expect(d.device).toMatchObject({ kind: 'directory', link: null, realpath: '/sys/class/infiniband/mlx5_0/device', subsystem: null });
    expect(d.device.folded.find((f) => f.variant === 'mergeVfs')).toMatchObject({ path: '/sys/class/infiniband/mlx5_0/de00c0', exists: false });
    const g = d.ports[0]!.gids;
    expect(g[3]!.type).toBe('RoCE v2');
    expect(g[6]).toMatchObject({ gid: '0000:0000:0000:0000:0000:ffff:0a9c:820a', type: { error: 'EINVAL' }, ndev: { error: 'EINVAL' } });
    expect(r.memlock.soft).toBe('65536');
    expect(r.container.detected).toBe(true);
    expect(r.container.evidence).toEqual(['/.dockerenv', '/proc/1/cgroup mentions kubepods']);
    expect(r.devInfiniband).toEqual({ known: true, present: true, entries: ['rdma_cm', 'uverbs0', 'uverbs1'] });
    expect(r.peerMem.some((p) => p.present)).toBe(false);
    expect(r.modules.find((m) => m.path === '/sys/module/nvidia_peermem')!.present).toBe(false);
    expect(r.sysModuleKnown).toBe(true);
  });
  it('bonds: the LAG device, its bond netdev and the members', () => {
    const r = probe('roce-bond');
    expect(r.netdevs['bond0']).toMatchObject({ bondSlaves: ['ens1f0np0', 'ens1f1np1'] });
    expect(r.netdevs['ens1f0np0']!.master).toBe('bond0');
    expect(r.devices.find((d) => d.name === 'mlx5_bond_0')!.pciNetdevs).toEqual(['ens1f0np0']);
  });
  it('missing files are ENOENT (unknown), never a value', () => {
    const r = probe('transcribed/mooncake-2747-rdma0');
    const p = r.devices[0]!.ports[0]!;
    expect(p.state).toEqual({ error: 'ENOENT' });
    expect(p.gids.map((g) => g.index)).toEqual([0, 1]);
    expect(p.gids[1]!.ndev).toEqual({ error: 'ENOENT' });
    expect(r.devices[0]!.device.kind).toBe('missing');
    expect(r.devInfiniband.known).toBe(false);
    const efa = probe('efa').devices[0]!.ports[0]!;
    expect(efa.linkLayer).toBe('Unknown');
    expect(efa.gids[0]!.type).toEqual({ error: 'ENOENT' });
  });
  it('a node without /sys/class/infiniband', () => {
    const empty = tempDir('ncclx-empty-');
    expect(probeRdma(new Root(empty))).toMatchObject({ classPresent: false, devices: [], memlock: { soft: null, error: 'ENOENT' } });
  });
  it('devices come in natural name order (mlx5_2 before mlx5_10)', () => {
    expect(['mlx5_10', 'mlx5_2', 'mlx5_bond_0', 'mlx5_1'].sort(naturalCompare)).toEqual(['mlx5_1', 'mlx5_2', 'mlx5_10', 'mlx5_bond_0']);
    // Case does not decide before the rest of the name (domain 0 before domain 2 on a DGX Spark).
    expect(['roceP2p1s0f0', 'rocep1s0f1', 'rocep1s0f0'].sort(naturalCompare)).toEqual(['rocep1s0f0', 'rocep1s0f1', 'roceP2p1s0f0']);
  });
});
