// Bootstrap reachability: each node's NCCL bootstrap interface against the
// root (the NCCL_COMM_ID address, or the MASTER_ADDR node's own bootstrap
// address), through the node's captured routes.
import { describe, expect, it } from 'vitest';
import type { IpRouteJson } from '../../src/model/snapshot/kernel-types.js';
import type { NodeSnapshot } from '../../src/model/snapshot/types.js';
import { byId, cluster, compare } from './helpers.js';

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
