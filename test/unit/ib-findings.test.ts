// Findings of `ncclx ib`: each in the scenario that should raise it, and
// healthy nodes raising nothing above info.
import { fixText } from '../helpers/remediation.js';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ibModel, type IbOverrides } from '../../src/model/nccl/ib-report.js';
import { probeNode } from '../../src/probe/index.js';
import '../helpers/fixture-faults.js';
import type { Finding } from '../../src/model/nccl/socket-findings.js';
import type { NodeSnapshot } from '../../src/model/snapshot/types.js';
import { link, type LinkSpec } from '../unit/helpers.js';
import { device, EINVAL, ENOENT, gids, ll, rdmaSnapshot, v4gid, v6gid } from '../rdma/helpers.js';

const FIX = join(__dirname, '../fixtures');
const nodes: Record<string, NodeSnapshot> = {};
beforeAll(async () => {
  for (const n of ['ib8-storage', 'roce-one-subnet', 'roce-rail-subnets', 'mesh-direct', 'sandbox', 'roce-bond', 'efa']) {
    nodes[n] = await probeNode({ root: join(FIX, n), env: {} });
  }
});

function findings(node: string | NodeSnapshot, version: string, o: Omit<IbOverrides, 'ncclVersion'> = {}): Finding[] {
  const snap = typeof node === 'string' ? nodes[node]! : node;
  return ibModel(snap, { ...o, ncclVersion: version }).report.findings;
}
const ids = (fs: Finding[]) => fs.map((f) => `${f.id}:${f.severity}`);
const one = (fs: Finding[], id: string) => {
  const hit = fs.filter((f) => f.id === id);
  expect(hit, `${id} in ${ids(fs).join(' ')}`).toHaveLength(1);
  return hit[0]!;
};
const above = (fs: Finding[]) => fs.filter((f) => f.severity !== 'info');

const LINKS: LinkSpec[] = [link('lo', ['127.0.0.1/8']), link('eth0', ['10.0.0.9/24'])];

describe('healthy nodes', () => {
  it('8 RoCE rails, one subnet: nothing to say', () => {
    expect(findings('roce-one-subnet', '2.28.3')).toEqual([]);
  });
  it('the IB node restricted to its eight IB rails: nothing above info', () => {
    const fs = findings('ib8-storage', '2.28.3', { hca: '=mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_6,mlx5_7,mlx5_8,mlx5_9' });
    expect(above(fs)).toEqual([]);
    expect(one(fs, 'IB-009').severity).toBe('info');
  });
});

describe('NCCL_IB_HCA findings', () => {
  it('IB-001: matches nothing → error, with NCCL\'s log line and the silent TCP fallback', () => {
    const fs = findings('ib8-storage', '2.28.3', { hca: 'mlx_0' });
    const f = fs.find((x) => x.id === 'IB-001' && x.severity === 'error')!;
    expect(f.message).toMatch(/keeps no port .* "NET\/IB : No device found\." and silently falls back to TCP sockets/);
    expect(fixText(f)).toMatch(/^export NCCL_IB_HCA=/);
    expect(fs.find((x) => x.id === 'IB-001' && x.severity === 'warn')!.message).toMatch(/'mlx_0'.* matches no RDMA device/);
  });
  it('IB-001: `^` alone excludes everything; the fix says to disable IB explicitly', () => {
    const f = findings('ib8-storage', '2.28.3', { hca: '^' }).find((x) => x.id === 'IB-001')!;
    expect(f.severity).toBe('warn');
    expect(fixText(f)).toBe('export NCCL_IB_DISABLE=1');
  });
  it('IB-033: a netdev name where a verbs name belongs', () => {
    const f = one(findings('ib8-storage', '2.28.3', { hca: 'ibp24s0' }), 'IB-033');
    expect(f.severity).toBe('error');
    expect(f.message).toMatch(/ibp24s0 belongs to mlx5_0/);
    expect(fixText(f)).toBe("export NCCL_IB_HCA='=mlx5_0'");
  });
  it('IB-002: prefix trap mlx5_1 → mlx5_10, mlx5_11; IB-004: it names a DOWN port', () => {
    const fs = findings('ib8-storage', '2.28.3', { hca: 'mlx5_1' });
    const trap = one(fs, 'IB-002');
    expect(trap.message).toMatch(/selects mlx5_1, mlx5_10, mlx5_11, not only mlx5_1/);
    expect(fixText(trap)).toBe("export NCCL_IB_HCA='=mlx5_1'");
    expect(one(fs, 'IB-004').message).toMatch(/mlx5_11:1 \(enp170s0f1np1\) \(DOWN\)/);
    expect(one(fs, 'IB-015').severity).toBe('warn');
  });
  it('IB-003: a bond next to ordinary HCAs; alone it is only info; IB-001 names the bond when a PF name is used', () => {
    const f = one(findings('roce-bond', '2.28.3'), 'IB-003');
    expect(f).toMatchObject({ severity: 'warn', remediation: { env: { NCCL_IB_HCA: '=mlx5_2:1,mlx5_3:1' } } });
    expect(f.message).toMatch(/mlx5_bond_0 \(bond0 over ens1f0np0\+ens1f1np1\)/);
    expect(one(findings('roce-bond', '2.28.3', { hca: '=mlx5_bond_0' }), 'IB-003').severity).toBe('info');
    const miss = findings('roce-bond', '2.28.3', { hca: 'mlx5_0' });
    expect(miss.find((x) => x.id === 'IB-001' && x.severity === 'warn')!.message).toMatch(/this node has mlx5_bond_0 \(bond of ens1f0np0\+ens1f1np1\)/);
  });
  it('IB-030: `mlx5_0:` is port 0 (never matches) up to 2.30.4, all ports from 2.30.7', () => {
    expect(findings('roce-one-subnet', '2.28.3', { hca: 'mlx5_0:' }).find((x) => x.id === 'IB-030')!.severity).toBe('warn');
    expect(findings('roce-one-subnet', '2.30.7', { hca: 'mlx5_0:' }).find((x) => x.id === 'IB-030')!.severity).toBe('info');
  });
});

describe('transport findings', () => {
  it('IB-016: NCCL_IB_DISABLE=true does not disable; =1 does (info)', () => {
    expect(one(findings('roce-one-subnet', '2.28.3', { set: { NCCL_IB_DISABLE: 'true' } }), 'IB-016')).toMatchObject({ severity: 'warn', remediation: { env: { NCCL_IB_DISABLE: '1' } } });
    expect(one(findings('roce-one-subnet', '2.28.3', { set: { NCCL_IB_DISABLE: '1' } }), 'IB-016').severity).toBe('info');
    expect(findings('roce-one-subnet', '2.28.3', { set: { NCCL_IB_DISABLE: '0' } }).map((f) => f.id)).not.toContain('IB-016');
  });
  it('IB-017: no IP interface for the OOB → error', () => {
    expect(one(findings('roce-one-subnet', '2.28.3', { set: { NCCL_SOCKET_IFNAME: '=nothing' } }), 'IB-017').severity).toBe('error');
  });
  it('IB-018 / IB-022: EFA keeps nothing; with NCCL_NET=IB that is an error', () => {
    const fs = findings('efa', '2.28.3');
    expect(one(fs, 'IB-018').severity).toBe('info');
    expect(one(fs, 'IB-022').message).toMatch(/aws-ofi-nccl/);
    expect(one(findings('efa', '2.28.3', { set: { NCCL_NET: 'IB' } }), 'IB-018').severity).toBe('error');
  });
  it('IB-029: NCCL_NET names another transport', () => {
    expect(one(findings('roce-one-subnet', '2.28.3', { set: { NCCL_NET: 'Socket' } }), 'IB-029').message).toMatch(/NCCL < 2.29.2 still initialises IB/);
    expect(one(findings('roce-one-subnet', '2.29.2', { set: { NCCL_NET: 'Socket' } }), 'IB-029').message).toMatch(/does not initialise IB/);
  });
  it('IB-021: the version was assumed', () => {
    const fs = ibModel(nodes['roce-one-subnet']!).report.findings;
    expect(one(fs, 'IB-021').severity).toBe('info');
  });
  it('IB-025: C parsing surprises in IB integers', () => {
    expect(one(findings('roce-one-subnet', '2.28.3', { gidIndex: '03' }), 'IB-025').message).toMatch(/octal/);
  });
  it('IB-023: more ports than MAX_IB_DEVS', () => {
    const many = Array.from({ length: 20 }, (_, i) => device({ name: `mlx5_${i}`, bdf: `0000:${(0x10 + i).toString(16)}:00.0` }));
    expect(one(findings(rdmaSnapshot(LINKS, many), '2.18.3'), 'IB-023').message).toMatch(/MAX_IB_DEVS=16.*mlx5_16:1, mlx5_17:1, mlx5_18:1, mlx5_19:1/);
  });
});

describe('environment findings', () => {
  it('sandbox: memlock (error), no peer-memory module (warn), device not a PCI symlink (warn, fix per version)', () => {
    const fs = findings('sandbox', '2.28.3');
    expect(one(fs, 'IB-014')).toMatchObject({ severity: 'error' });
    expect(one(fs, 'IB-014').message).toMatch(/64 KiB .* inside a container/);
    expect(one(fs, 'IB-012').severity).toBe('warn');
    const pci = fs.filter((f) => f.id === 'IB-011');
    expect(pci).toHaveLength(2);
    expect(pci[0]!.message).toMatch(/a plain directory.*de00c0.*is not a PCI device \(\)/);
    expect(fixText(pci[0])).toMatch(/real \/sys/);
    // The fusion on the first CPU is its own finding (≤ 2.28.x), whose environment fix avoids it.
    expect(one(fs, 'IB-036').remediation.env).toEqual({ NCCL_NET_MERGE_LEVEL: 'LOC' });
    expect(findings('sandbox', '2.30.7').some((f) => f.id === 'IB-036')).toBe(false);
  });
  it('IB-012 notes a loaded nvidia_peermem that NCCL < 2.23.4 does not look for', () => {
    expect(one(findings('roce-one-subnet', '2.22.3'), 'IB-012').message).toMatch(/nvidia_peermem is loaded, but this NCCL only checks the memory_peers paths/);
    expect(findings('roce-one-subnet', '2.23.4').map((f) => f.id)).not.toContain('IB-012');
  });
  it('IB-013: /dev/infiniband missing in a container', () => {
    const s = rdmaSnapshot(LINKS, [device({ name: 'mlx5_0', uverbs: 'uverbs0' })], { rdma: { devInfiniband: { known: true, present: false, entries: [] }, container: { detected: true, evidence: ['/.dockerenv'] } } });
    const f = one(findings(s, '2.28.3'), 'IB-013');
    expect(f.severity).toBe('error');
    expect(fixText(f)).toMatch(/--device=\/dev\/infiniband/);
  });
});

describe('rails', () => {
  it('IB-015: InfiniBand and RoCE kept together → restrict to the majority link layer', () => {
    const f = one(findings('ib8-storage', '2.28.3'), 'IB-015');
    expect(fixText(f)).toBe("export NCCL_IB_HCA='=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_6:1,mlx5_7:1,mlx5_8:1,mlx5_9:1'");
  });
  it('IB-009: ports not ACTIVE/LinkUp', () => {
    expect(one(findings('mesh-direct', '2.28.3'), 'IB-009').message).toMatch(/roceP2p1s0f1:1 \(enP2p1s0f1np1\) DOWN\/Polling/);
  });
  it('IB-010: RoCE rails with different MTUs, with a pasteable ip link line', () => {
    const f = one(findings('roce-rail-subnets', '2.28.3'), 'IB-010');
    expect(f.message).toMatch(/netdev MTU 1500 → RoCE 1024 on mlx5_7:1 \(ens6f1np1\)/);
    expect(fixText(f)).toBe('ip link set dev ens6f1np1 mtu 9000');
  });
  it('IB-010: rails at different rates', () => {
    const s = rdmaSnapshot(LINKS, [device({ name: 'mlx5_0', ports: [{ rate: '400 Gb/sec (4X NDR)' }] }), device({ name: 'mlx5_1', ports: [{ rate: '400 Gb/sec (4X NDR)' }] }), device({ name: 'mlx5_2', ports: [{ rate: '200 Gb/sec (4X HDR)' }] })]);
    const f = one(findings(s, '2.28.3'), 'IB-010');
    expect(f.message).toMatch(/400 Gb\/s on mlx5_0:1, mlx5_1:1; 200 Gb\/s on mlx5_2:1/);
    expect(fixText(f)).toBe("export NCCL_IB_HCA='=mlx5_0:1,mlx5_1:1'");
  });
  it('IB-028 / IB-035: dual-port NICs fuse; across point-to-point subnets that is a warning', () => {
    expect(one(findings('roce-rail-subnets', '2.28.3'), 'IB-028').message).toMatch(/mlx5_0\+mlx5_1 \(0000:17:00\.0\)/);
    expect(findings('roce-rail-subnets', '2.28.3').map((f) => f.id)).not.toContain('IB-035');
    const mesh = one(findings('mesh-direct', '2.28.3'), 'IB-035');
    expect(mesh.message).toMatch(/10\.0\.12\.0\/30: rocep1s0f0:1; 10\.0\.13\.0\/30: rocep1s0f1:1/);
    expect(fixText(mesh)).toMatch(/^export NCCL_NET_MERGE_LEVEL=LOC/);
    expect(findings('mesh-direct', '2.23.4').map((f) => f.id)).not.toContain('IB-035');
  });
});

describe('GID findings', () => {
  it('IB-005: explicit index on link-local, RoCE v1, unset entries; IB-031 out of range', () => {
    const f1 = one(findings('roce-bond', '2.28.3', { gidIndex: '1', hca: '=mlx5_bond_0' }), 'IB-005');
    expect(f1.message).toMatch(/link-local GID .* NCCL's automatic choice would be 3/);
    expect(f1.remediation.env).toEqual({ NCCL_IB_GID_INDEX: null });
    expect(fixText(f1)).toMatch(/NCCL picks 3 itself\.\nunset NCCL_IB_GID_INDEX$/);
    expect(one(findings('roce-bond', '2.28.3', { gidIndex: '2', hca: '=mlx5_bond_0' }), 'IB-005').message).toMatch(/RoCE v1 GID/);
    expect(one(findings('roce-bond', '2.28.3', { gidIndex: '9', hca: '=mlx5_bond_0' }), 'IB-005').severity).toBe('error');
    expect(one(findings('roce-bond', '2.28.3', { gidIndex: '300', hca: '=mlx5_bond_0' }), 'IB-031').message).toMatch(/outside the table \(255 entries\)/);
    expect(findings('roce-bond', '2.28.3', { gidIndex: '3', hca: '=mlx5_bond_0' }).map((f) => f.id)).not.toContain('IB-005');
  });
  it('IB-024: before 2.21.5 RoCE uses GID 0 (link-local RoCE v1)', () => {
    const f = one(findings('roce-one-subnet', '2.19.3'), 'IB-024');
    expect(f.message).toMatch(/default 0 .* fe80::.* \(link-local RoCE v1: no L3 routing\); the RoCE v2 IPv4 GID is 3/);
    expect(fixText(f)).toBe('export NCCL_IB_GID_INDEX=3');
  });
  it('IB-006: a RoCE port whose netdev has no IPv4 falls back to GID 0', () => {
    const s = rdmaSnapshot(LINKS, [device({ name: 'mlx5_0', ports: [{ gids: gids([[ll(), 'v1'], [ll(), 'v2']], 255) }] })]);
    const f = one(findings(s, '2.28.3'), 'IB-006');
    expect(f.severity).toBe('error');
    expect(f.message).toMatch(/no IPv4 GID/);
  });
  it('IB-007: IPv6-only GID table → NCCL_IB_ADDR_FAMILY=AF_INET6', () => {
    const s = rdmaSnapshot(LINKS, [device({ name: 'mlx5_0', ports: [{ gids: gids([[ll(), 'v1'], [ll(), 'v2'], [v6gid('fd93::7'), 'v1'], [v6gid('fd93::7'), 'v2']], 255) }] })]);
    const f = one(findings(s, '2.28.3'), 'IB-007');
    expect(fixText(f)).toBe('export NCCL_IB_ADDR_FAMILY=AF_INET6');
    expect(findings(s, '2.28.3', { set: { NCCL_IB_ADDR_FAMILY: 'AF_INET6' } }).map((x) => x.id)).not.toContain('IB-007');
  });
  it('IB-006 for AF_INET6 without a global IPv6, and for a range no GID falls in; IB-026 for ignored values', () => {
    expect(fixText(one(findings('roce-one-subnet', '2.28.3', { set: { NCCL_IB_ADDR_FAMILY: 'AF_INET6' } }).filter((f) => f.id === 'IB-006').slice(0, 1), 'IB-006'))).toBe('unset NCCL_IB_ADDR_FAMILY');
    expect(findings('roce-one-subnet', '2.28.3', { set: { NCCL_IB_ADDR_RANGE: '10.0.0.0/8' } }).find((f) => f.id === 'IB-006')!.message).toMatch(/inside NCCL_IB_ADDR_RANGE=10\.0\.0\.0\/8/);
    expect(one(findings('roce-one-subnet', '2.28.3', { set: { NCCL_IB_ADDR_RANGE: '10.0.0/8' } }), 'IB-026').message).toMatch(/INFO "NET\/IB: Ip address '10\.0\.0' is invalid/);
    expect(fixText(one(findings('roce-one-subnet', '2.28.3', { set: { NCCL_IB_ADDR_FAMILY: 'inet6' } }), 'IB-026'))).toBe('export NCCL_IB_ADDR_FAMILY=AF_INET6');
    expect(one(findings('roce-one-subnet', '2.28.3', { set: { NCCL_IB_ROCE_VERSION_NUM: '3' } }), 'IB-026').message).toMatch(/RoCE v1 GID/);
    expect(one(findings('roce-one-subnet', '2.20.5', { set: { NCCL_IB_ADDR_FAMILY: 'AF_INET6' } }).filter((f) => f.id === 'IB-026'), 'IB-026').severity).toBe('info');
  });
  it('IB-008: the same IPv4 behind two netdevs', () => {
    const s = rdmaSnapshot(LINKS, [
      device({ name: 'mlx5_0', ports: [{ gids: gids([[ll(), 'v1'], [ll(), 'v2'], [v4gid('30.153.10.175'), 'v1', 'b3.vxlan.30100'], [v4gid('30.153.10.175'), 'v2', 'b3.vxlan.30100'], [v4gid('30.153.10.175'), 'v1', 'bond0'], [v4gid('30.153.10.175'), 'v2', 'bond0']], 255) }] }),
    ]);
    const f = one(findings(s, '2.28.3'), 'IB-008');
    expect(f.message).toMatch(/30\.153\.10\.175 is behind 2 netdevs\/ports: b3\.vxlan\.30100 \(mlx5_0:1 GID 2\), bond0 \(mlx5_0:1 GID 4\)/);
  });
  it('IB-019: EINVAL on types fails before 2.26.2 (fix: the index a tolerant NCCL picks); info after', () => {
    const old = findings('sandbox', '2.25.1').filter((f) => f.id === 'IB-019');
    expect(old.map((f) => f.severity)).toEqual(['error', 'error']);
    expect(old.map((f) => f.remediation.env)).toEqual([{ NCCL_IB_GID_INDEX: '3' }, { NCCL_IB_GID_INDEX: '7' }]);
    expect(fixText(old[0])).toMatch(/NCCL ≥ 2\.26\.2, which tolerates EINVAL:\nexport NCCL_IB_GID_INDEX=3$/);
    expect(old[0]!.message).toMatch(/WARNs "NET\/IB: read failed in ncclIbRoceGetVersionNum: Invalid argument"/);
    expect(one(findings('sandbox', '2.28.3'), 'IB-019').severity).toBe('info');
  });
  it('IB-020: the choice depends on a value NCCL never read', () => {
    const f = one(findings('sandbox', '2.28.3'), 'IB-020');
    expect(f.message).toMatch(/mlx5_1:1 \(net2\).*ends at 2 or 7/);
    expect(fixText(f)).toBe('export NCCL_IB_GID_INDEX=7');
  });
  it('IB-031: a types file that is missing fails the automatic choice', () => {
    const s = rdmaSnapshot(LINKS, [device({ name: 'mlx5_0', ports: [{ gids: gids([[ll(), 'v1'], [ll(), 'v2'], [v4gid('10.0.0.5'), ENOENT], [v4gid('10.0.0.5'), 'v2']], 8) }] })]);
    expect(one(findings(s, '2.28.3'), 'IB-031').message).toMatch(/logs "NET\/IB: open failed in ncclIbRoceGetVersionNum: No such file or directory"/);
  });
  it('IB-024: the automatic walk ends on a RoCE v1 entry when the table has no v2', () => {
    const s = rdmaSnapshot(LINKS, [device({ name: 'mlx5_0', ports: [{ gids: gids([[ll(), 'v1'], [v4gid('10.0.0.5'), 'v1']], 255) }] })]);
    expect(one(findings(s, '2.28.3'), 'IB-024').message).toMatch(/a RoCE v1 entry/);
  });
  it('IB-027: a RoCE MTU below 4096 on every rail', () => {
    const s = rdmaSnapshot([...LINKS, { ...link('eth1', ['10.1.0.5/24']) }], [device({ name: 'mlx5_0', netdevs: ['eth1'], ports: [{ gids: gids([[ll(), 'v1'], [ll(), 'v2'], [v4gid('10.1.0.5'), 'v1'], [v4gid('10.1.0.5'), 'v2']], 255) }] })]);
    const f = one(findings(s, '2.28.3'), 'IB-027');
    expect(f.message).toMatch(/RoCE MTU is 1024 .* netdev MTU is 1500/);
    expect(fixText(f)).toBe('ip link set dev eth1 mtu 4200');
  });
  it('unreadable types that do not matter raise nothing on an unset table', () => {
    const s = rdmaSnapshot(LINKS, [device({ name: 'mlx5_0', ports: [{ gids: gids([[ll(), 'v1'], [ll(), 'v2'], [v4gid('10.0.0.9'), 'v1'], [v4gid('10.0.0.9'), 'v2'], [Z2(), EINVAL, EINVAL]], 255) }] })]);
    expect(above(findings(s, '2.21.5'))).toEqual([]);
  });
});

function Z2() {
  return '0000:0000:0000:0000:0000:0000:0000:0000';
}
