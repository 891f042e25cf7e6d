// The rail plan (src/model/compare/rails.ts) from the facts compare reads, one
// port fact changed at a time: how rails are named, what is shown for a
// missing value, GID outcomes, InfiniBand exemptions and the fabric's shape.
import { describe, expect, it } from 'vitest';
import { railPlan } from '../../src/model/compare/rails.js';
import type { GidFacts, NodeFacts, PortFacts } from '../../src/model/compare/types.js';
import { cluster, facts } from './helpers.js';

const NAMES = ['gpu00001', 'gpu00002', 'gpu00003', 'gpu00004'];

/** n healthy nodes (8 RoCE rails each); change(port k of node i) as given. Fresh facts each time: railsOf caches by object. */
async function nodes(n: number, change: (f: NodeFacts, i: number) => void = () => {}): Promise<NodeFacts[]> {
  const fs = facts(await cluster(n));
  fs.forEach(change);
  return fs;
}
const rail = (f: NodeFacts, k: number): PortFacts => f.ports.find((p) => p.ncclIndex === k)!;
const plan = (fs: NodeFacts[], mesh = false) => railPlan(fs, NAMES.slice(0, fs.length), { mesh });
const ids = (fs: NodeFacts[], id: string) => plan(fs).findings.filter((f) => f.checkId === id);
const gid = (g: Partial<GidFacts>): GidFacts => ({ mode: 'auto', outcome: 'index', index: 3, candidates: [], type: 'RoCE v2', kind: 'IPv4', address: '::ffff:10.0.0.2', ipv4: '10.0.0.2', why: null, ...g });

describe('rail plan, fact by fact', () => {
  it('rails are named one, a run (0–2) or a list (0, 2, 5)', async () => {
    const mtu = (ks: number[]) => nodes(2, (f, i) => i === 1 && ks.forEach((k) => (rail(f, k).mtu = 1500)));
    expect(ids(await mtu([4]), 'CMP-033')[0]!.summary).toBe('rail 4: MTU differs — 9000 on gpu00001, 1500 on gpu00002');
    expect(ids(await mtu([0, 1, 2]), 'CMP-033')[0]!.summary).toMatch(/^rails 0–2: MTU differs/);
    expect(ids(await mtu([0, 2, 5]), 'CMP-033')[0]!.summary).toMatch(/^rails 0, 2, 5: MTU differs/);
  });

  it('a value a node lacks is shown as (none); an MTU remediation without a majority value says <mtu>', async () => {
    const fs = await nodes(2, (f, i) => (rail(f, 1).mtu = i === 0 ? null : 9000));
    const f = ids(fs, 'CMP-033')[0]!;
    expect(f.summary).toBe('rail 1: MTU differs — (none) on gpu00001, 9000 on gpu00002');
    expect(f.remediation).toEqual({ advice: 'ip link set dev <netdev> mtu <mtu> on gpu00002 (and the switch ports)' });
  });

  it('an indeterminate GID index is compared as its candidates; NCCL unable to pick is an error, unsure a warning', async () => {
    const fs = await nodes(2, (f, i) => {
      if (i === 1) rail(f, 2).gid = gid({ outcome: 'indeterminate', index: null, candidates: [3, 5], why: 'the GID type cannot be read' });
      if (i === 0) rail(f, 5).gid = gid({ outcome: 'failure', index: null, why: 'no GID of the requested kind' });
    });
    const p = plan(fs);
    expect(p.plan.rails[2]!.values.gidIndex).toEqual([{ value: 3, count: 1, nodes: null }, { value: '3 or 5?', count: 1, nodes: ['gpu00002'] }]);
    expect(p.plan.rails[2]!.perNode![1]!.gidIndex).toBe('3 or 5?');
    expect(p.plan.rails[5]!.perNode![0]!.gidIndex).toBeNull();
    const c38 = p.findings.filter((f) => f.checkId === 'CMP-038');
    expect(c38.map((f) => [f.severity, f.summary])).toEqual([
      ['warn', "rail 2 on gpu00002 (mlx5_2:1): NCCL's GID index is indeterminate (3 or 5): the GID type cannot be read"],
      ['error', 'rail 5 on gpu00001 (mlx5_5:1): NCCL fails to pick a GID: no GID of the requested kind'],
    ]);
  });

  it('an unset GID entry, and a link-local one on a port without a netdev: errors; the remediation needs a netdev', async () => {
    const fs = await nodes(2, (f, i) => {
      if (i === 0) rail(f, 0).gid = gid({ index: 1, kind: 'unset', address: null, ipv4: null });
      if (i === 1) Object.assign(rail(f, 0), { netdev: null, gid: gid({ index: 0, kind: 'link-local', address: 'fe80::1', ipv4: null }) });
    });
    expect(ids(fs, 'CMP-038').map((f) => [f.summary, f.remediation])).toEqual([
      ['rail 0 on gpu00001 (mlx5_0:1, enp24s0np0): NCCL ends on GID 1, an unset entry — it does not route to other nodes', { advice: 'give enp24s0np0 its rail\'s IPv4 address' }],
      ['rail 0 on gpu00002 (mlx5_0:1): NCCL ends on GID 0, a link-local GID (fe80::1) — it does not route to other nodes', null],
    ]);
    // Only RoCE routes by GID: the same GID on an InfiniBand port is not judged.
    const ib = await nodes(2, (f, i) => {
      rail(f, 0).linkLayer = 'InfiniBand';
      if (i === 0) rail(f, 0).gid = gid({ index: 0, kind: 'link-local' });
    });
    expect(ids(ib, 'CMP-038')).toEqual([]);
  });

  it('on an InfiniBand rail GID index and type differences are not findings, and subnets are not compared', async () => {
    const fs = await nodes(3, (f, i) => {
      for (const k of [0, 1]) rail(f, k).linkLayer = 'InfiniBand';
      if (i === 2) {
        rail(f, 0).gid = gid({ index: 0 });
        rail(f, 0).gidLabel = 'IB';
        rail(f, 0).subnet = '10.99.0.0/16';
        rail(f, 1).subnet = '10.98.0.0/16';
        rail(f, 4).subnet = '10.97.0.0/16';
      }
    });
    const p = plan(fs);
    expect(p.plan.rails[0]!.mismatches).toEqual(['subnet', 'gidIndex', 'gidType']);
    expect(p.findings.filter((f) => ['CMP-036', 'CMP-037'].includes(f.checkId))).toEqual([]);
    // The RoCE rail 4 on another subnet is still an error; the IB rails 0 and 1 are not.
    expect(p.findings.filter((f) => f.checkId === 'CMP-032').map((f) => f.summary)).toEqual(['rail 4: 1 node on another subnet than the rest — 10.4.0.0/16 on 2 nodes, 10.97.0.0/16 on gpu00003']);
  });

  it('the fabric: shared subnets, one subnet per node (info), no subnets at all, a mesh', async () => {
    expect(plan(await nodes(2)).plan.fabric).toBe('shared-subnets');
    const perNode = await nodes(2, (f, i) => f.ports.forEach((p) => (p.subnet = `10.${i}.${p.ncclIndex}.0/24`)));
    const p = plan(perNode);
    expect(p.plan.fabric).toBe('per-node-subnets');
    expect(p.findings.filter((f) => f.checkId === 'CMP-032')).toEqual([expect.objectContaining({ severity: 'info' })]);
    // One node has nobody to share a subnet with: nothing to say.
    expect(plan(perNode.slice(0, 1)).findings.filter((f) => f.checkId === 'CMP-032')).toEqual([]);
    const none = await nodes(2, (f) => f.ports.forEach((x) => (x.subnet = null)));
    expect(plan(none).plan.fabric).toBe('none');
    expect(plan(await nodes(2), true).plan.fabric).toBe('mesh');
  });

  it('device counts equal but transports differ: the error names the transport outliers', async () => {
    const fs = await nodes(3, (f, i) => i === 2 && (f.transport = { ...f.transport, network: 'Socket' }));
    const f = ids(fs, 'CMP-030')[0]!;
    expect(f).toMatchObject({ severity: 'error', nodes: ['gpu00003'], summary: 'NCCL devices per node differ: 8 on 3 nodes; transport IB on 2 nodes, Socket on gpu00003' });
    expect(ids(await nodes(3), 'CMP-030')).toEqual([expect.objectContaining({ severity: 'ok', summary: 'every node has 8 NCCL devices (IB)' })]);
    // A single node, or nodes without a device, compare nothing.
    expect(ids(await nodes(1), 'CMP-030')).toEqual([]);
    expect(ids(await nodes(2, (f) => f.ports.forEach((p) => (p.usedByNccl = false))), 'CMP-030')).toEqual([]);
  });

  it('up to the per-node limit every rail lists every node; past it none', async () => {
    const fs = await nodes(3);
    expect(railPlan(fs, NAMES.slice(0, 3), { mesh: false, perNodeLimit: 3 }).plan.rails[0]!.perNode).toHaveLength(3);
    expect(railPlan(await nodes(3), NAMES.slice(0, 3), { mesh: false, perNodeLimit: 2 }).plan.rails[0]!.perNode).toBeNull();
  });
});
