// NIC fusion beyond PORT (NCCL_NET_MERGE_LEVEL=PIX and up): the XML distance
// between NETs (topo.cc ncclTopoGetPath), where the vNIC lands by release
// (ncclTopoGetVNicParent, ncclTopoMakePciParent, xml.cc ncclTopoFillNet) and
// the link widths NCCL gives it (ncclTopoWidenLinks 2.28.3–2.30.4,
// ncclTopoFindLinkWidth from 2.30.7). Expectations are worked by hand from
// those functions on the tree below.
import { describe, expect, it } from 'vitest';
import { mergeDevices, readIbInputs, type NcclIbDevice } from '../../src/model/nccl/ib.js';
import { parseVersion, profileFor } from '../../src/model/nccl/versions.js';
import { netPlace, pairPath, vnicHome, xmlNetPath, xmlStack } from '../../src/model/nccl/vnic.js';
import { netFusion } from '../../src/model/topo/report.js';
import { buildSystem, fuseNets, pathMatrix, PATH_NAMES } from '../../src/model/topo/system.js';
import type { TopoFunction, TopoPart } from '../../src/model/snapshot/topo-types.js';

// CPU 0: root port 00:01.0 → switch 01:00.0 with NIC A (03:00.0, x16), NIC B (04:00.0, x8) and GPU 0 (05:00.0);
// root port 00:02.0 → switch 06:00.0 → NIC D (0b:00.0) and a second switch 08:00.0 → NIC C (0a:00.0);
// root port 00:03.0 → NIC F (0c:00.0). CPU 1: root port 80:01.0 → NIC E (81:00.0).
const GEN5 = '32.0 GT/s PCIe';
const paths: Record<string, string[]> = {
  A: ['pci0000:00', '0000:00:01.0', '0000:01:00.0', '0000:02:00.0', '0000:03:00.0'],
  B: ['pci0000:00', '0000:00:01.0', '0000:01:00.0', '0000:02:01.0', '0000:04:00.0'],
  G: ['pci0000:00', '0000:00:01.0', '0000:01:00.0', '0000:02:02.0', '0000:05:00.0'],
  C: ['pci0000:00', '0000:00:02.0', '0000:06:00.0', '0000:07:00.0', '0000:08:00.0', '0000:09:00.0', '0000:0a:00.0'],
  D: ['pci0000:00', '0000:00:02.0', '0000:06:00.0', '0000:07:01.0', '0000:0b:00.0'],
  F: ['pci0000:00', '0000:00:03.0', '0000:0c:00.0'],
  E: ['pci0000:80', '0000:80:01.0', '0000:81:00.0'],
};
const width: Record<string, number> = { '0000:04:00.0': 8 };
const fns = new Map<string, TopoFunction>();
for (const p of Object.values(paths)) {
  p.forEach((bdf, i) => {
    if (i === 0 || fns.has(bdf)) return;
    const cls = i === p.length - 1 ? (bdf === '0000:05:00.0' ? '0x030200' : '0x020700') : '0x060400';
    fns.set(bdf, { bdf, path: p.slice(0, i + 1), class: cls, vendor: '0x15b3', device: null, numaNode: bdf.startsWith('0000:8') ? 1 : 0, maxLinkSpeed: GEN5, maxLinkWidth: width[bdf] ?? 16, currentLinkSpeed: null, currentLinkWidth: null });
  });
}
const topo: TopoPart = { functions: [...fns.values()], gpus: ['0000:05:00.0'], numaNodes: [{ id: 0, cpulist: '0-7' }, { id: 1, cpulist: '8-15' }], cpu: { arch: 'x86_64', vendor: 'GenuineIntel', family: 6, model: 143 } };
const dev = (index: number, name: string, key: string, path = paths[key]!): NcclIbDevice => {
  const p = `/sys/devices/${path.join('/')}`;
  return { index, dev: name, port: 1, linkLayer: 'InfiniBand', fullPciPath: p, pciPath: p, pciPathIsPci: true, rateGbps: 400, rail: -1, plane: -1, numa: key === 'E' ? 1 : 0 };
};
const place = (key: string) => netPlace(`/sys/devices/${paths[key]!.join('/')}`, true, key === 'E' ? 1 : 0);
const rules = (v: string) => profileFor(parseVersion(v)).vnic;

describe('ncclTopoGetPath between NETs', () => {
  it('reads the XML as xml.cc builds it: two sysfs levels per step, a switch\'s upstream port as its node', () => {
    expect(place('A')).toEqual({ pci: ['0000:03:00.0', '0000:01:00.0'], cpu: '0' });
    expect(place('C')).toEqual({ pci: ['0000:0a:00.0', '0000:08:00.0', '0000:06:00.0'], cpu: '0' });
    expect(place('F')).toEqual({ pci: ['0000:0c:00.0'], cpu: '0' });
    expect(netPlace(null, false, 0)).toEqual({ pci: [], cpu: 'first' });
  });
  it('PORT in one <nic>; PIX under one switch that is every NIC\'s parent; PXB deeper; PHB at the CPU; SYS across CPUs', () => {
    const path = (...k: string[]) => xmlNetPath(k.map(place), k.map((_, i) => i));
    expect(xmlNetPath([place('A'), place('A')], [0, 1])).toEqual({ path: 'PORT', common: 'nic:0000:03:00.0' });
    expect(path('A', 'B')).toEqual({ path: 'PIX', common: 'pci:0000:01:00.0' });
    expect(path('C', 'D')).toEqual({ path: 'PXB', common: 'pci:0000:06:00.0' });
    expect(path('A', 'F')).toEqual({ path: 'PHB', common: 'cpu:0' });
    expect(path('A', 'E')).toEqual({ path: 'SYS', common: 'system' });
    // Functions of one device not folded together (bus ids equal but for the last character) part below the switch: PORT.
    const a1 = netPlace(`/sys/devices/${paths['A']!.slice(0, -1).join('/')}/0000:03:00.1`, true, 0);
    expect(xmlNetPath([place('A'), a1], [0, 1])).toEqual({ path: 'PORT', common: 'pci:0000:01:00.0' });
    // Not for 03:00.0 and 13:00.0 (differ before the last character).
    const other = netPlace(`/sys/devices/${paths['A']!.slice(0, -1).join('/')}/0000:13:00.0`, true, 0);
    expect(xmlNetPath([place('A'), other], [0, 1]).path).toBe('PIX');
  });
});

describe('pairPath (the per-pair form AutoMerge uses) agrees with xmlNetPath', () => {
  it('on every pair of the tree, unfolded functions and NICs off the PCI tree included', () => {
    const all = [...Object.keys(paths).filter((k) => k !== 'G').map(place), netPlace(`/sys/devices/${paths['A']!.slice(0, -1).join('/')}/0000:03:00.1`, true, 0), netPlace(null, false, null), { pci: [], cpu: 'first' }, netPlace(`/sys/devices/${paths['E']!.join('/')}`, true, null)];
    let n = 0;
    for (let i = 0; i < all.length; i++) {
      for (let j = 0; j < all.length; j++) {
        if (i === j) continue;
        expect(pairPath(xmlStack(all[i]!, i), xmlStack(all[j]!, j), all[i]!, all[j]!)).toBe(xmlNetPath([all[i]!, all[j]!], [i, j]).path);
        n++;
      }
    }
    expect(n).toBe(90);
  });
});

describe('where the vNIC lands, by release', () => {
  const home = (v: string, ...k: string[]) => vnicHome(k.map(place), k.map((_, i) => i), k.map((x) => `mlx5_${x}`), rules(v), new Set(k.flatMap((x) => place(x).pci)));
  it('one <nic> (PORT): nested in it before 2.27.3 (never read), in it from 2.27.3', () => {
    const two = (v: string) => vnicHome([place('A'), place('A')], [0, 1], ['a', 'b'], rules(v), new Set());
    expect(two('2.26.2').kind).toBe('unread');
    expect(two('2.27.3')).toEqual({ kind: 'in-nic', path: 'PORT', nic: '0000:03:00.0' });
  });
  it('under a switch (PIX): a made-up <pci> with NIC 0\'s bus id + 1 from 2.24.3; links widened from 2.28.3 (the chain), from 2.30.7 (the parent)', () => {
    expect(home('2.24.3', 'A', 'B')).toEqual({ kind: 'made-up', path: 'PIX', under: { pci: '0000:01:00.0' }, bdf: '0000:03:00.1', widen: 'none' });
    expect(home('2.28.3', 'A', 'B')).toMatchObject({ kind: 'made-up', widen: 'chain' });
    expect(home('2.30.4', 'A', 'B')).toMatchObject({ kind: 'made-up', widen: 'chain' });
    expect(home('2.30.7', 'A', 'B')).toMatchObject({ kind: 'made-up', widen: 'parent' });
    // The made-up id steps past ids in use (ncclTopoMakeUniqueBusId): 03:00.1 taken → 03:00.2.
    expect(vnicHome([place('A'), place('B')], [0, 1], ['a', 'b'], rules('2.30.7'), new Set(['0000:03:00.1'])).kind === 'made-up' && (vnicHome([place('A'), place('B')], [0, 1], ['a', 'b'], rules('2.30.7'), new Set(['0000:03:00.1'])) as { bdf: string }).bdf).toBe('0000:03:00.2');
  });
  it('at the CPU (PHB): the CPU\'s own <nic> before 2.28.3, a made-up <pci> below the CPU from 2.28.3; a NIC 0 off the PCI tree has no bus id to copy', () => {
    expect(home('2.27.3', 'A', 'F')).toEqual({ kind: 'cpu-nic', path: 'PHB', cpu: '0' });
    expect(home('2.28.3', 'A', 'F')).toEqual({ kind: 'made-up', path: 'PHB', under: { cpu: '0' }, bdf: '0000:03:00.1', widen: 'chain' });
    const off = vnicHome([netPlace(null, false, null), { pci: [], cpu: 'first' }], [0, 1], ['mlx5_0', 'mlx5_1'], rules('2.28.3'), new Set());
    expect(off.kind).toBe('unread');
  });
  it('across CPUs (SYS): under <system>, never read, before 2.30.7; refused from 2.30.7 (WARN, initialisation fails)', () => {
    expect(home('2.30.4', 'A', 'E')).toMatchObject({ kind: 'unread', path: 'SYS' });
    expect(home('2.30.7', 'A', 'E')).toEqual({ kind: 'fatal', path: 'SYS', log: 'Fusing NET devices from different NUMA domains is not supported.' });
  });
});

describe('NCCL_NET_MERGE_LEVEL in ncclx ib and ncclx topo (one decision)', () => {
  const devices = [dev(0, 'mlx5_0', 'A'), dev(1, 'mlx5_1', 'B'), dev(2, 'mlx5_2', 'C'), dev(3, 'mlx5_3', 'D'), dev(4, 'mlx5_4', 'F'), dev(5, 'mlx5_5', 'E')];
  const merged = (v: string, level: string) => {
    const profile = profileFor(parseVersion(v));
    return mergeDevices(devices, [], profile, readIbInputs({ NCCL_NET_MERGE_LEVEL: level }, profile));
  };
  const groups = (v: string, level: string) => merged(v, level).groups.filter((g) => g.merged).map((g) => g.members);
  it('groups by level: PIX pairs A+B; PXB adds C+D; PHB takes every NIC of CPU 0 (4 at most before 2.30.3); SYS adds CPU 1\'s', () => {
    expect(groups('2.28.3', 'PORT')).toEqual([]);
    expect(groups('2.28.3', 'PIX')).toEqual([[0, 1]]);
    expect(groups('2.28.3', 'PXB')).toEqual([[0, 1], [2, 3]]);
    // P2C and PXN sit between PXB and PHB: no XML path has them, so they fuse what PXB does.
    expect(groups('2.28.3', 'PXN')).toEqual([[0, 1], [2, 3]]);
    expect(groups('2.28.3', 'PHB')).toEqual([[0, 1, 2, 3], [4]].filter((g) => g.length > 1));
    expect(groups('2.30.3', 'PHB')).toEqual([[0, 1, 2, 3, 4]]);
    expect(groups('2.30.3', 'SYS')).toEqual([[0, 1, 2, 3, 4, 5]]);
  });
  it('SYS from 2.30.7: NCCL refuses the vNIC and initialisation fails (IB-037, unset the level)', () => {
    const m = merged('2.30.7', 'SYS');
    expect(m.refusals).toEqual([{ members: [0, 1, 2, 3, 4, 5], cause: 'vnic-parent', log: 'Fusing NET devices from different NUMA domains is not supported.', level: 'WARN', fatal: true }]);
  });
  const system = (v: string, level: string) => {
    const profile = profileFor(parseVersion(v));
    const merge = mergeDevices(devices.slice(0, 4), [], profile, readIbInputs({ NCCL_NET_MERGE_LEVEL: level }, profile));
    return fuseNets(buildSystem(topo, devices.slice(0, 4)), netFusion({ devices: devices.slice(0, 4), merge }, profile), topo);
  };
  const bwUp = (sys: ReturnType<typeof system>, bdf: string) => sys.nodes.find((n) => n.bdf === bdf && n.kind !== 'NET')!.links.find((l) => l.type === 'PCI' && l.rem.kind !== 'GPU' && l.rem.kind !== 'NIC' && (l.rem.kind === 'CPU' || sys.parents.get(`PCI:${bdf}`) === l.rem.bdf))!.bw;
  it('2.30.7, PIX: NET 4 = mlx5_0+mlx5_1 under made-up NIC 0000:03:00.1 below the switch, x16 + x8 = 24 lanes of Gen5 (72 GB/s), the switch\'s uplink widened alike; GPU 0 reaches it PIX', () => {
    const sys = system('2.30.7', 'PIX');
    expect(sys.nets.map((n) => `${n.ib!.index} ${n.ib!.dev}`)).toEqual(['4 mlx5_0+mlx5_1', '2 mlx5_2', '3 mlx5_3']);
    const nic = sys.nets[0]!.links[0]!.rem;
    expect(nic.bdf).toBe('0000:03:00.1');
    expect(nic.numa).toBe('0'); // copied from NIC 0 with its other attributes
    expect(nic.links.find((l) => l.rem.bdf === '0000:01:00.0')!.bw).toBe(72);
    expect(bwUp(sys, '0000:01:00.0')).toBe(72);
    const m = pathMatrix(sys);
    expect(`${PATH_NAMES[m[0]![0]!.type]} ${m[0]![0]!.bw}`).toBe('PIX 48');
  });
  it('before 2.28.3 the made-up link copies NIC 0 (x16: 48 GB/s) and nothing is widened; 2.26.2 keeps the members beside the vNIC (every group renumbered)', () => {
    const sys = system('2.27.3', 'PIX');
    expect(sys.nets[0]!.links[0]!.rem.links.find((l) => l.rem.bdf === '0000:01:00.0')!.bw).toBe(48);
    expect(bwUp(sys, '0000:01:00.0')).toBe(48);
    const old = system('2.26.2', 'PIX');
    expect(old.nets.map((n) => `${n.ib!.index} ${n.ib!.dev}`)).toEqual(['0 mlx5_0', '1 mlx5_1', '5 mlx5_2', '6 mlx5_3', '4 mlx5_0+mlx5_1']);
  });
  it('PXB: 2.28.3–2.30.4 widen every <pci> between a member and the common switch (the lower switch 08:00.0 too); 2.30.7 only the made-up link and the common switch', () => {
    const chain = system('2.30.4', 'PXB');
    expect(bwUp(chain, '0000:08:00.0')).toBe(96);
    expect(bwUp(chain, '0000:06:00.0')).toBe(96);
    const parent = system('2.30.7', 'PXB');
    expect(bwUp(parent, '0000:08:00.0')).toBe(48);
    expect(bwUp(parent, '0000:06:00.0')).toBe(96);
  });
});
