// One focused test per check of the gdr, topology and candidates families:
// each asserts the check fires (and what it says) on the node that has the
// problem, and stays ok on the node that does not, so a check that never
// fires, or always fires, fails here. Expectations follow
// docs/nccl/gdr.md (peer-memory paths per version, DMA-BUF ≥ 2.13.4,
// NCCL_NET_GDR_LEVEL names) and §7.

import { describe, expect, it } from 'vitest';
import type { PciFunctionInfo, PciPart } from '../../src/model/snapshot/pci.js';
import type { RdmaPart } from '../../src/model/snapshot/rdma-types.js';
import type { NodeSnapshot } from '../../src/model/snapshot/types.js';
import { link, snapshotOf } from './helpers.js';
import { brief, check, ctxFor, rdmaPart, withParts } from './kernel-fixtures.js';

const PATHS = {
  nvMem: '/sys/kernel/mm/memory_peers/nv_mem/version',
  oldPeermem: '/sys/kernel/mm/memory_peers/nvidia-peermem/version',
  nvMemNc: '/sys/kernel/mm/memory_peers/nv_mem_nc/version',
  module: '/sys/module/nvidia_peermem/version',
};

/** One RoCE rail, with the given peer-memory files and modules present. */
function node(present: string[], env: Record<string, string> = {}, modules: string[] = []): NodeSnapshot {
  const rdma: RdmaPart = {
    ...rdmaPart([{ dev: 'mlx5_0', netdev: 'ens1f0np0' }]),
    peerMem: Object.values(PATHS).map((path) => ({ path, present: present.includes(path) })),
    modules: ['/sys/module/nvidia_peermem', '/sys/module/nv_peer_mem'].map((path) => ({ path, present: modules.includes(path) })),
    sysModuleKnown: true,
  };
  return withParts(snapshotOf([link('ens1f0np0', ['10.0.0.1/24'])], { env }), { rdma, kernel: {} });
}

describe('GDR-001 peer memory or DMA-BUF', () => {
  it('nvidia_peermem module path: seen from 2.23.4, not before (then DMA-BUF)', () => {
    const n = node([PATHS.module], {}, ['/sys/module/nvidia_peermem']);
    expect(brief(check(ctxFor(n, '2.23.4'), 'GDR-001'))).toEqual([['ok', `peer memory available to NCCL 2.23.4 through ${PATHS.module}`]]);
    const old = check(ctxFor(n, '2.22.3'), 'GDR-001');
    expect(old.map((r) => r.severity)).toEqual(['warn']);
    expect(old[0]!.summary).toMatch(/GPUDirect RDMA depends on DMA-BUF/);
    expect(old[0]!.remediation!.commands).toEqual([['modprobe', 'nvidia_peermem']]);
  });
  it('no path and NCCL_DMABUF_ENABLE=false (read as 0): a warning (GPUDirect RDMA off costs bandwidth, issue #25), the fix unsets the variable', () => {
    const [r] = check(ctxFor(node([], { NCCL_DMABUF_ENABLE: 'false' }), '2.28.3'), 'GDR-001');
    expect(r!.severity).toBe('warn');
    expect(r!.summary).toMatch(/NCCL_DMABUF_ENABLE=0 turns DMA-BUF off/);
    expect(r!.remediation).toEqual({ env: { NCCL_DMABUF_ENABLE: null } });
  });
  it('before 2.13.4 there is no DMA-BUF path: no peer memory turns GPUDirect RDMA off (a warning)', () => {
    expect(check(ctxFor(node([]), '2.12.12'), 'GDR-001').map((r) => r.severity)).toEqual(['warn']);
    expect(check(ctxFor(node([PATHS.nvMem]), '2.12.12'), 'GDR-001').map((r) => r.severity)).toEqual(['ok']);
  });
  it('no RDMA device: does not apply; no RDMA part: unknown', () => {
    const none = withParts(snapshotOf([link('eth0', ['10.0.0.1/24'])]), { rdma: rdmaPart([]) });
    expect(brief(check(ctxFor(none), 'GDR-001'))).toEqual([['na', 'no RDMA devices: GPUDirect RDMA does not apply']]);
    const old = snapshotOf([link('eth0', ['10.0.0.1/24'])]);
    expect(check(ctxFor(old), 'GDR-001').map((r) => r.severity)).toEqual(['unknown']);
  });
  it('RDMA and no GPU: does not apply, no modprobe (issue #25); the same node with a GPU and no peer memory: a warning that loads nvidia_peermem', () => {
    const noGpu: NodeSnapshot = { ...node([]), pci: pci([], []) };
    expect(brief(check(ctxFor(noGpu, '2.12.12'), 'GDR-001'))).toEqual([['na', 'no NVIDIA GPU on this node: GPUDirect RDMA does not apply']]);
    expect(brief(check(ctxFor(noGpu), 'GDR-001'))).toEqual([['na', 'no NVIDIA GPU on this node: GPUDirect RDMA does not apply']]);
    const oneGpu: NodeSnapshot = { ...node([]), pci: pci([], [{ bdf: '0000:a0:00.0' }]) };
    const [r] = check(ctxFor(oneGpu, '2.12.12'), 'GDR-001');
    expect(r!.severity).toBe('warn');
    expect(r!.summary).toMatch(/GPUDirect RDMA is off for all 1 GPU$/);
    expect(r!.remediation!.commands).toEqual([['modprobe', 'nvidia_peermem']]);
  });
});

describe('GDR-002 peer-memory caveats of older NCCL', () => {
  it('nvidia_peermem loaded but NCCL < 2.23.4 looks only at memory_peers: warn', () => {
    const n = node([PATHS.module], {}, ['/sys/module/nvidia_peermem']);
    const rs = check(ctxFor(n, '2.22.3'), 'GDR-002');
    expect(rs.map((r) => r.severity)).toEqual(['warn']);
    expect(rs[0]!.summary).toMatch(/nvidia_peermem is loaded, but NCCL 2\.22\.3 only looks for .*2\.23\.4/);
    expect(check(ctxFor(n, '2.23.4'), 'GDR-002').map((r) => r.severity)).toEqual(['ok']);
  });
  it('the nvidia-peermem memory_peers entry is checked only by 2.9.8–2.21.x', () => {
    const n = node([PATHS.oldPeermem]);
    expect(check(ctxFor(n, '2.21.5'), 'GDR-002').map((r) => r.severity)).toEqual(['ok']);
    const rs = check(ctxFor(n, '2.22.3'), 'GDR-002');
    expect(rs.map((r) => r.severity)).toEqual(['warn']);
    expect(rs[0]!.summary).toMatch(/no longer checks it/);
  });
});

describe('GDR-003 NCCL_NET_GDR_LEVEL', () => {
  it('names are case-sensitive and per version; integers are accepted; anything else is ignored', () => {
    const level = (v: string, version = '2.28.3') => check(ctxFor(node([PATHS.nvMem], { NCCL_NET_GDR_LEVEL: v }), version), 'GDR-003');
    expect(level('PHB').map((r) => r.severity)).toEqual(['ok']);
    expect(level('3').map((r) => r.severity)).toEqual(['ok']);
    const lower = level('phb');
    expect(lower.map((r) => r.severity)).toEqual(['warn']);
    expect(lower[0]!.remediation).toEqual({ env: { NCCL_NET_GDR_LEVEL: 'PHB' } });
    // C2C exists from 2.26.2, P2C from 2.27.3.
    expect(level('C2C', '2.25.1').map((r) => r.severity)).toEqual(['warn']);
    expect(level('C2C', '2.26.2').map((r) => r.severity)).toEqual(['ok']);
    expect(level('P2C', '2.27.3').map((r) => r.severity)).toEqual(['ok']);
    expect(level('-1')[0]!.remediation).toEqual({ env: { NCCL_NET_GDR_LEVEL: null } });
  });
});

function pci(nics: Partial<PciFunctionInfo>[], gpus: Partial<PciFunctionInfo>[]): PciPart {
  const fn = (f: Partial<PciFunctionInfo>): PciFunctionInfo => ({ bdf: '0000:00:00.0', class: '0x020000', vendor: '0x15b3', device: '0x1021', numaNode: 0, driver: 'mlx5_core', netdevs: [], ...f });
  return { present: true, nics: nics.map(fn), gpus: gpus.map((g) => fn({ class: '0x030200', vendor: '0x10de', device: '0x2330', driver: 'nvidia', ...g })) };
}

describe('TOPO-001 NIC functions without an RDMA device', () => {
  it('a Mellanox function whose netdev no RDMA port carries: warn, with modprobe mlx5_ib', () => {
    const base = node([PATHS.nvMem]);
    const snap: NodeSnapshot = { ...base, pci: pci([{ bdf: '0000:17:00.0', netdevs: ['ens1f0np0'] }, { bdf: '0000:18:00.0', netdevs: ['ens2f0np0'] }], []) };
    const rs = check(ctxFor(snap), 'TOPO-001');
    expect(rs.map((r) => r.severity)).toEqual(['warn']);
    expect(rs[0]!.summary).toMatch(/^PCI 0000:18:00\.0 \(NVIDIA\/Mellanox \(mlx5_ib\), netdev ens2f0np0\) has no RDMA device/);
    expect(rs[0]!.remediation!.commands).toEqual([['modprobe', 'mlx5_ib']]);
    const fine: NodeSnapshot = { ...base, pci: pci([{ bdf: '0000:17:00.0', netdevs: ['ens1f0np0'] }, { bdf: '0000:19:00.0', vendor: '0x8086', class: '0x020000', netdevs: ['eno1'] }], []) };
    expect(check(ctxFor(fine), 'TOPO-001').map((r) => r.severity)).toEqual(['ok']);
  });
});

describe('TOPO-002 GPU and RDMA NIC on one NUMA node', () => {
  it('a GPU on a NUMA node without an RDMA NIC: warn; numa_node -1: unknown', () => {
    const base = node([PATHS.nvMem]);
    const rdma = base.rdma!;
    const nicOn = (numa: string): RdmaPart => ({ ...rdma, devices: rdma.devices.map((d) => ({ ...d, pci: { bdf: '0000:17:00.0', vendor: '0x15b3', device: '0x1021', class: '0x020000', numaNode: numa, currentLinkSpeed: null, currentLinkWidth: null } as unknown as NonNullable<typeof d.pci> })) });
    const on = (nicNuma: string, gpuNuma: number): NodeSnapshot => ({ ...base, rdma: nicOn(nicNuma), pci: pci([], [{ bdf: '0000:a0:00.0', numaNode: gpuNuma }]) });
    expect(check(ctxFor(on('0', 0)), 'TOPO-002').map((r) => r.severity)).toEqual(['ok']);
    const far = check(ctxFor(on('0', 1)), 'TOPO-002');
    expect(far.map((r) => r.severity)).toEqual(['warn']);
    expect(far[0]!.summary).toMatch(/GPUs 0000:a0:00\.0 on NUMA 1 have no RDMA NIC on that node/);
    expect(check(ctxFor(on('-1', -1)), 'TOPO-002').map((r) => r.severity)).toEqual(['unknown']);
  });
});

describe('CAND-001 the RDMA candidate set', () => {
  it('a RoCE netdev without IPv4 is left out with a warning; an uplink by name silently; the peer line keeps the rest', () => {
    const rdma = rdmaPart([
      { dev: 'mlx5_0', netdev: 'ens1f0np0' },
      { dev: 'mlx5_1', netdev: 'ens2f0np0' },
      { dev: 'mlx5_2', netdev: 'eth0' },
    ]);
    const snap = withParts(snapshotOf([link('ens1f0np0', ['10.0.0.1/24']), link('ens2f0np0'), link('eth0', ['192.168.0.5/24'])]), { rdma, kernel: {} });
    const rs = check(ctxFor(snap), 'CAND-001');
    expect(rs.map((r) => r.severity)).toEqual(['warn', 'ok']);
    expect(rs[0]!.summary).toMatch(/^ens2f0np0 \(mlx5_1:1\) is left out of the candidate set: no IPv4 address/);
    expect(rs[1]!.remediation).toEqual({ env: { RDMA_PEER_IFACES: 'ens1f0np0' } });
    expect(rs[1]!.evidence.map((e) => e.value)).toContain('dropped: looks like an uplink (matches ^eth[0-9]+$)');
  });
});
