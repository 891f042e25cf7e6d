// Bootstrap reachability: each node's NCCL bootstrap interface against the
// root (the NCCL_COMM_ID address, or the MASTER_ADDR node's own bootstrap
// address), through the node's captured routes.
import { describe, expect, it } from 'vitest';
import type { IpRouteJson } from '../../src/model/snapshot/kernel-types.js';
import { bootstrapReport } from '../../src/model/compare/bootstrap.js';
import type { NodeFacts } from '../../src/model/compare/types.js';
import type { NodeSnapshot } from '../../src/model/snapshot/types.js';
import { byId, cluster, compare, facts } from './helpers.js';

/** Put eno1 on another network: its address, its connected route, and a default route (or none). */
function moveFrontend(s: NodeSnapshot, address: string, gateway: string | null, dev = 'eno1'): void {
  const a = s.network.addresses.find((x) => x.link === 'eno1' && x.family === 'AF_INET')!;
  const old = a.address;
  a.address = address;
  const routes = (s.kernel!.routes as { data: IpRouteJson[] }).data;
  const kept = routes.filter((r) => !(r.dst === 'default') && !(r.prefsrc === old));
  kept.push({ dst: `${address.split('.').slice(0, 2).join('.')}.0.0/16`, dev: 'eno1', protocol: 'kernel', scope: 'link', prefsrc: address });
  if (gateway) kept.unshift({ dst: 'default', gateway, dev, protocol: 'static' });
  (s.kernel!.routes as { data: IpRouteJson[] }).data = kept;
}

describe('bootstrap reachability', () => {
  it('MASTER_ADDR is node 1: the root is its bootstrap address, every node on its subnet', async () => {
    const r = compare(await cluster(3));
    expect(r.bootstrap.target).toMatchObject({ variable: 'MASTER_ADDR', root: 'gpu00001', address: '172.16.0.2' });
    expect(r.bootstrap.target.how).toBe("MASTER_ADDR 172.16.0.2 is gpu00001; NCCL's root (rank 0) listens on its bootstrap interface eno1 172.16.0.2");
    expect(r.bootstrap.reach).toEqual([{ value: 'same-subnet', count: 2, nodes: null }, { value: 'root', count: 1, nodes: ['gpu00001'] }]);
    expect(byId(r, 'CMP-050')).toEqual([expect.objectContaining({ severity: 'ok', summary: 'every node reaches the bootstrap root 172.16.0.2 from its bootstrap interface' })]);
  });

  it('a node on another network, routed through its bootstrap interface: reachable (replayed from its routes)', async () => {
    const snaps = await cluster(3);
    moveFrontend(snaps[2]!, '172.17.0.9', '172.17.0.1');
    const r = compare(snaps);
    expect(r.bootstrap.problems).toEqual([]);
    expect(r.bootstrap.reach.find((g) => g.value === 'routed')).toEqual({ value: 'routed', count: 1, nodes: ['gpu00003'] });
    // Different bootstrap subnets are still worth a warning: ranks also connect to each other.
    expect(byId(r, 'CMP-051')[0]).toMatchObject({ severity: 'warn', nodes: ['gpu00003'] });
  });

  it('no route to the root: an error naming the node', async () => {
    const snaps = await cluster(3);
    moveFrontend(snaps[1]!, '172.17.0.9', null);
    const r = compare(snaps);
    const f = byId(r, 'CMP-050')[0]!;
    expect(f).toMatchObject({ severity: 'error', nodes: ['gpu00002'] });
    expect(f.summary).toBe('1 node cannot reach the bootstrap root 172.16.0.2 (gpu00002): 172.16.0.2: no route (replayed from ip rule/route)');
    expect(r.exitCode).toBe(1);
  });

  it('the route to the root leaves through another NIC than the bootstrap interface: a warning', async () => {
    const snaps = await cluster(2);
    moveFrontend(snaps[1]!, '172.17.0.9', '10.0.0.1', 'enp24s0np0');
    const r = compare(snaps);
    expect(byId(r, 'CMP-050')[0]).toMatchObject({ severity: 'warn', nodes: ['gpu00002'] });
    expect(r.bootstrap.problems[0]!.detail).toMatch(/^172\.16\.0\.2 is reached through enp24s0np0 via 10\.0\.0\.1, not through NCCL's bootstrap interface eno1 \(172\.17\.0\.9\)/);
  });

  it('a node where NCCL_SOCKET_IFNAME matches nothing has no bootstrap interface', async () => {
    const r = compare(await cluster(3, { 1: 'bootstrap-name' }));
    expect(byId(r, 'CMP-050')[0]).toMatchObject({ severity: 'error', nodes: ['gpu00002'] });
    expect(r.bootstrap.problems[0]).toMatchObject({ node: 'gpu00002', reach: 'no-interface' });
  });

  it('NCCL_COMM_ID: the root is the node that owns it; an address no node owns is reported', async () => {
    let r = compare(await cluster(3), { commId: '172.16.0.3:5000' });
    expect(r.bootstrap.target).toMatchObject({ variable: 'NCCL_COMM_ID', root: 'gpu00002', address: '172.16.0.3' });
    expect(r.bootstrap.reach).toEqual([{ value: 'same-subnet', count: 2, nodes: null }, { value: 'root', count: 1, nodes: ['gpu00002'] }]);
    r = compare(await cluster(2), { commId: '172.16.9.9:5000' });
    expect(byId(r, 'CMP-052')[0]).toMatchObject({ severity: 'info', summary: 'NCCL_COMM_ID 172.16.9.9 is not an address of any compared node: rank 0 must run where it is local' });
  });

  it('without NCCL_COMM_ID or MASTER_ADDR only interfaces are compared (info), --master-addr supplies it', async () => {
    const snaps = await cluster(2);
    for (const s of snaps) delete s.env.process['MASTER_ADDR'];
    expect(byId(compare(snaps), 'CMP-050')[0]).toMatchObject({ severity: 'info' });
    expect(compare(snaps, { masterAddr: '172.16.0.3' }).bootstrap.target).toMatchObject({ variable: 'MASTER_ADDR', root: 'gpu00002', address: '172.16.0.3' });
  });

  it('--master-addr gpu00001 (what the sbatch recipe passes): the compared node of that name, whatever this machine resolves; the value is never lost', async () => {
    const r = compare(await cluster(4), { masterAddr: 'gpu00001' });
    expect(r.bootstrap.target).toMatchObject({ variable: 'MASTER_ADDR', root: 'gpu00001', address: '172.16.0.2' });
    expect(r.bootstrap.target.how).toBe("MASTER_ADDR gpu00001 (172.16.0.2) is gpu00001 (by host name); NCCL's root (rank 0) listens on its bootstrap interface eno1 172.16.0.2 (the snapshots hold MASTER_ADDR=172.16.0.2; --master-addr replaces it)");
    expect(r.bootstrap.reach.map((g) => g.value)).not.toContain('no-target');
    expect(byId(r, 'CMP-050')[0]).toMatchObject({ severity: 'ok' });
    // A fully qualified name matches the short host name too.
    expect(compare(await cluster(2), { masterAddr: 'gpu00002.cluster.example' }).bootstrap.target).toMatchObject({ root: 'gpu00002' });
  });

  it('a name that is not a compared node and does not resolve: said with the value, not a blank', async () => {
    const r = compare(await cluster(2), { masterAddr: 'nosuchhost.invalid' });
    expect(r.bootstrap.target.how).toMatch(/^MASTER_ADDR nosuchhost\.invalid is not one of the compared nodes, and its name could not be resolved/);
  });

  it('--master-addr localhost, or a loopback address in the snapshots: an error for a multi-node job, not "every node reaches"', async () => {
    for (const masterAddr of ['localhost', '127.0.0.1']) {
      const r = compare(await cluster(3), { masterAddr });
      const cmp050 = byId(r, 'CMP-050');
      expect(cmp050.map((f) => f.severity)).toEqual(['error']);
      expect(cmp050[0]!.summary).toBe(`MASTER_ADDR is ${masterAddr}, this node's own loopback: with 3 nodes every rank would connect to itself and the job hangs in bootstrap`);
    }
  });
});

// The same report from the facts compare reads, one fact changed at a time:
// each way a route, an address or a bootstrap interface can read, on both sides.
describe('bootstrap reachability, fact by fact', () => {
  const names = ['gpu00001', 'gpu00002', 'gpu00003'];
  type Route = NonNullable<NodeFacts['targets'][number]['route']>;
  /** Three nodes; node 1 moved to 172.17.0.9/16, its route to the root (172.16.0.2, on node 0) as given. */
  async function movedWith(route: Route | null, routing: 'keep' | 'none' = 'none'): Promise<NodeFacts[]> {
    const fs = facts(await cluster(3));
    const f = fs[1]!;
    f.bootstrap = { ...f.bootstrap, address: '172.17.0.9', subnet: '172.17.0.0/16' };
    f.targets = f.targets.map((t) => ({ ...t, route }));
    if (routing === 'none') f.routing = null;
    return fs;
  }
  const reachOf = (fs: NodeFacts[], i = 1) => bootstrapReport(fs, names).report.problems.find((p) => p.node === names[i]) ?? null;
  const cmp050 = (fs: NodeFacts[]) => bootstrapReport(fs, names).findings.filter((f) => f.checkId === 'CMP-050');

  it('a recorded `ip route get` through the bootstrap interface: routed, said how it was learnt', async () => {
    const fs = await movedWith({ how: 'ip route get', dev: 'eno1', gateway: '172.17.0.1', note: null });
    const { report } = bootstrapReport(fs, names);
    expect(report.problems).toEqual([]);
    expect(report.reach).toContainEqual({ value: 'routed', count: 1, nodes: ['gpu00002'] });
    // The detail is only in problems; a route through another NIC shows it.
    const other = await movedWith({ how: 'ip route get', dev: 'enp24s0np0', gateway: null, note: null });
    expect(reachOf(other)).toMatchObject({ reach: 'other-interface', detail: "172.16.0.2 is reached through enp24s0np0, not through NCCL's bootstrap interface eno1 (172.17.0.9) (recorded ip route get)" });
    const replayed = await movedWith({ how: 'replayed', dev: 'enp24s0np0', gateway: '10.0.0.1', note: null });
    expect(reachOf(replayed)!.detail).toBe("172.16.0.2 is reached through enp24s0np0 via 10.0.0.1, not through NCCL's bootstrap interface eno1 (172.17.0.9) (replayed from ip rule/route)");
  });

  it('no route device: unreachable when the lookup found none, unknown when it could not tell', async () => {
    expect(reachOf(await movedWith({ how: 'ip route get', dev: null, gateway: null, note: 'no route' }))).toMatchObject({ reach: 'unreachable', detail: '172.16.0.2: no route (recorded ip route get)' });
    expect(reachOf(await movedWith({ how: 'replayed', dev: null, gateway: null, note: null }))).toMatchObject({ reach: 'unreachable', detail: '172.16.0.2: no route (replayed from ip rule/route)' });
    const unsure = await movedWith({ how: 'replayed', dev: null, gateway: null, note: 'a rule ncclx does not model' });
    expect(reachOf(unsure)).toMatchObject({ reach: 'unknown', detail: '172.16.0.2: a rule ncclx does not model (replayed from ip rule/route)' });
    expect(cmp050(unsure)).toEqual([expect.objectContaining({ severity: 'warn', nodes: ['gpu00002'], summary: 'cannot tell whether 1 node reach the bootstrap root (gpu00002): 172.16.0.2: a rule ncclx does not model (replayed from ip rule/route)' })]);
  });

  it('no recorded route and no routing tables: unknown, naming the subnet (or its absence)', async () => {
    const fs = await movedWith(null);
    expect(reachOf(fs)).toMatchObject({ reach: 'unknown', detail: "172.16.0.2 is not on eno1's subnet 172.17.0.0/16 and the snapshot has no routes to tell whether it is routed" });
    fs[1]!.bootstrap.subnet = null;
    expect(reachOf(fs)!.detail).toBe("172.16.0.2 is not on eno1's subnet (no IPv4) and the snapshot has no routes to tell whether it is routed");
    // With the tables kept, the lookup is replayed from them (the moved node has no route back).
    const kept = await movedWith(null, 'keep');
    kept[1]!.routing = { rules: kept[1]!.routing!.rules, routes: [] };
    expect(reachOf(kept)).toMatchObject({ reach: 'unreachable', detail: '172.16.0.2: no route (replayed from ip rule/route)' });
  });

  it('a bootstrap interface ncclx cannot predict: unknown, with the reason', async () => {
    const fs = facts(await cluster(3));
    fs[2]!.bootstrap.indeterminate = 'NCCL_COMM_ID names a host this node did not resolve';
    expect(reachOf(fs, 2)).toMatchObject({ reach: 'unknown', detail: 'bootstrap interface cannot be predicted: NCCL_COMM_ID names a host this node did not resolve' });
  });

  it('several nodes with one problem: counted, and one given as the example', async () => {
    const fs = facts(await cluster(3));
    for (const i of [1, 2]) fs[i]!.bootstrap.error = `no interface on node ${i}`;
    expect(cmp050(fs)).toEqual([expect.objectContaining({ severity: 'error', nodes: ['gpu00002', 'gpu00003'], summary: '2 nodes have no bootstrap interface (e.g. gpu00002: no interface on node 1)' })]);
    fs[2]!.bootstrap.error = null;
    expect(cmp050(fs)[0]!.summary).toBe('1 node has no bootstrap interface (gpu00002): no interface on node 1');
  });

  it("a node's own NCCL_COMM_ID that names no usable address: unknown, with why", async () => {
    const fs = facts(await cluster(2), { commId: '172.16.0.2:5000' });
    const t = fs[1]!.targets.find((x) => x.variable === 'NCCL_COMM_ID')!;
    Object.assign(t, { address: null, unresolved: 'gpuhead was not resolved on this node when the snapshot was taken' });
    expect(reachOf(fs)).toMatchObject({ reach: 'unknown', target: '172.16.0.2:5000', detail: 'gpuhead was not resolved on this node when the snapshot was taken' });
    t.unresolved = null;
    expect(reachOf(fs)!.detail).toBe('NCCL_COMM_ID has no usable address');
  });

  it('the root address on two nodes, and MASTER_ADDR values that differ: errors', async () => {
    const fs = facts(await cluster(3));
    fs[2]!.localAddresses = [...fs[2]!.localAddresses, '172.16.0.2'];
    const dup = bootstrapReport(fs, names).findings.filter((f) => f.checkId === 'CMP-052');
    expect(dup).toEqual([expect.objectContaining({ severity: 'error', summary: 'MASTER_ADDR address 172.16.0.2 is on 2 nodes: gpu00001, gpu00003', nodes: ['gpu00001', 'gpu00003'] })]);

    const differ = facts(await cluster(3));
    const m = differ[2]!.targets.find((x) => x.variable === 'MASTER_ADDR')!;
    Object.assign(m, { value: '172.16.0.3', host: '172.16.0.3', address: '172.16.0.3' });
    expect(bootstrapReport(differ, names).findings.filter((f) => f.checkId === 'CMP-052')).toEqual([
      expect.objectContaining({ severity: 'error', summary: 'MASTER_ADDR differs between nodes: 172.16.0.2 on 2 nodes, 172.16.0.3 on 1 node', nodes: ['gpu00003'] }),
    ]);
  });

  it('bootstrap subnets: each named with its interface and its nodes, one node by name', async () => {
    const fs = facts(await cluster(4));
    for (const i of [2, 3]) fs[i]!.bootstrap = { ...fs[i]!.bootstrap, iface: 'eth9', subnet: '172.17.0.0/16' };
    fs[1]!.bootstrap = { ...fs[1]!.bootstrap, subnet: null };
    const f = bootstrapReport(fs, [...names, 'gpu00004']).findings.find((x) => x.checkId === 'CMP-051')!;
    expect(f).toMatchObject({ severity: 'warn', summary: 'bootstrap interfaces are on 2 subnets: 172.17.0.0/16 (eth9) on 2 nodes, 172.16.0.0/16 (eno1) on gpu00001', nodes: ['gpu00001'] });
  });

  it('a loopback MASTER_ADDR found through its resolution: shown with the address', async () => {
    const r = compare(await cluster(3), { masterAddr: 'gpuhead', resolutions: { gpuhead: { addresses: [{ address: '127.0.1.1', family: 'AF_INET' }], error: null } } });
    expect(r.bootstrap.target).toMatchObject({ address: null, how: 'MASTER_ADDR gpuhead (127.0.1.1) is loopback: each of the 3 nodes would look for rank 0 on itself' });
    // One node alone is no multi-node job: its own loopback is where rank 0 is.
    expect(compare(await cluster(1), { masterAddr: '127.0.0.1' }).bootstrap.target.how).not.toMatch(/loopback/);
  });
});
