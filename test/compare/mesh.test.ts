// Direct-connect meshes (DGX Spark-style, each cable its own subnet), built from
// the mesh-direct fixture: which port faces which peer, pairs without a cable,
// and what NCCL needs — by version (subnet-aware routing exists from 2.30.7).
import { describe, expect, it } from 'vitest';
import { compareNodes } from '../../src/model/compare/analyze.js';
import { detectMesh } from '../../src/model/compare/mesh.js';
import { byId, cluster, compare, facts, mesh } from './helpers.js';

describe('mesh reachability', () => {
  it('3-node full mesh: every pair, which local port meets which remote port, on which subnet', async () => {
    const r = compare(await mesh(3), { ncclVersion: '2.30.7' });
    expect(r.mesh).not.toBeNull();
    expect(r.rails.fabric).toBe('mesh');
    expect(r.mesh!.pairs).toEqual([
      { a: 'spark-a', b: 'spark-b', links: [{ subnet: '10.0.12.0/30', a: { hca: 'rocep1s0f0:1', netdev: 'enp1s0f0np0', ipv4: '10.0.12.1/30' }, b: { hca: 'rocep1s0f0:1', netdev: 'enp1s0f0np0', ipv4: '10.0.12.2/30' } }] },
      { a: 'spark-a', b: 'spark-c', links: [{ subnet: '10.0.13.0/30', a: { hca: 'rocep1s0f1:1', netdev: 'enp1s0f1np1', ipv4: '10.0.13.1/30' }, b: { hca: 'rocep1s0f0:1', netdev: 'enp1s0f0np0', ipv4: '10.0.13.2/30' } }] },
      { a: 'spark-b', b: 'spark-c', links: [{ subnet: '10.0.14.0/30', a: { hca: 'rocep1s0f1:1', netdev: 'enp1s0f1np1', ipv4: '10.0.14.1/30' }, b: { hca: 'rocep1s0f1:1', netdev: 'enp1s0f1np1', ipv4: '10.0.14.2/30' } }] },
    ]);
    expect(r.mesh!.unreachable).toEqual({ count: 0, pairs: [], listed: true });
    expect(byId(r, 'CMP-040')[0]).toMatchObject({ severity: 'ok' });
    // Per-cable subnets are the design here, not a rail mismatch.
    expect(byId(r, 'CMP-032')).toEqual([]);
    expect(r.rails.rails.every((row) => !row.mismatches.includes('subnet'))).toBe(true);
  });

  it('a pair without a cable: named, and the pair count', async () => {
    const snaps = await mesh(4);
    // spark-c loses its cable to spark-d (its third port: no address, DOWN).
    const c = snaps[2]!;
    c.network.addresses = c.network.addresses.filter((a) => a.address !== '10.0.17.1');
    const d = snaps[3]!;
    d.network.addresses = d.network.addresses.filter((a) => a.address !== '10.0.17.2');
    const r = compare(snaps, { ncclVersion: '2.30.7' });
    expect(r.mesh!.unreachable).toEqual({ count: 1, pairs: [['spark-c', 'spark-d']], listed: true });
    expect(byId(r, 'CMP-040')[0]).toMatchObject({ severity: 'warn', summary: '1 pair of nodes share no subnet: spark-c–spark-d', nodes: ['spark-c', 'spark-d'] });
    expect(r.mesh!.pairs).toHaveLength(5);
  });

  it('NCCL < 2.30.7 on a 3-node mesh: an error, upgrade and the settings as remediation', async () => {
    const r = compare(await mesh(3), { ncclVersion: '2.28.3' });
    const f = byId(r, 'CMP-041')[0]!;
    expect(f.severity).toBe('error');
    expect(f.summary).toMatch(/^NCCL 2\.28\.3 on spark-a, spark-b, spark-c has no subnet-aware routing \(added in 2\.30\.7\)/);
    expect(f.remediation).toEqual({ advice: 'Upgrade NCCL to 2.30.7 or newer, then', env: { NCCL_IB_SUBNET_AWARE_ROUTING: '1', NCCL_IB_MERGE_NICS: '0', NCCL_CROSS_NIC: '1', NCCL_IB_SUBNET_PREFIX_LEN: '30' } });
    expect(r.mesh!.subnetAwareRouting).toBe(false);
  });

  it('NCCL 2.30.7: the settings it needs, node by node; all set → ok', async () => {
    let r = compare(await mesh(3), { ncclVersion: '2.30.7' });
    expect(byId(r, 'CMP-041').map((f) => [f.severity, f.summary])).toEqual([
      ['error', 'NCCL_IB_SUBNET_AWARE_ROUTING is not 1 on spark-a, spark-b, spark-c'],
      ['warn', 'NCCL_IB_MERGE_NICS is not 0 on spark-a, spark-b, spark-c'],
      ['warn', 'NCCL_CROSS_NIC is not 1 on spark-a, spark-b, spark-c'],
    ]);
    expect(r.mesh!.exports).toEqual(['export NCCL_IB_SUBNET_AWARE_ROUTING=1', 'export NCCL_IB_MERGE_NICS=0', 'export NCCL_CROSS_NIC=1', 'export NCCL_IB_SUBNET_PREFIX_LEN=30']);
    const snaps = await mesh(3);
    // NCCL_PARAM integers: "0x1" is 1 to NCCL.
    for (const s of snaps) Object.assign(s.env.process, { NCCL_IB_SUBNET_AWARE_ROUTING: '0x1', NCCL_IB_MERGE_NICS: '0', NCCL_CROSS_NIC: '1' });
    r = compare(snaps, { ncclVersion: '2.30.7' });
    expect(byId(r, 'CMP-041')).toEqual([expect.objectContaining({ severity: 'ok' })]);
    expect(r.exitCode).toBe(0);
  });

  it('/30 links inside one /24: NCCL_IB_SUBNET_PREFIX_LEN=24 (the default) cannot tell them apart', async () => {
    const snaps = await mesh(4, { oneSlash24: true });
    for (const s of snaps) Object.assign(s.env.process, { NCCL_IB_SUBNET_AWARE_ROUTING: '1', NCCL_IB_MERGE_NICS: '0', NCCL_CROSS_NIC: '1' });
    let r = compare(snaps, { ncclVersion: '2.30.7' });
    const f = byId(r, 'CMP-042')[0]!;
    expect(f.severity).toBe('error');
    expect(f.summary).toMatch(/^at \/24 NCCL cannot tell 10\.0\.0\.0\/30 and .* apart/);
    expect(f.remediation).toEqual({ env: { NCCL_IB_SUBNET_PREFIX_LEN: '30' } });
    expect(r.mesh!.subnetPrefixLen).toMatchObject({ linkPrefixes: [30], recommended: 30 });
    for (const s of snaps) s.env.process['NCCL_IB_SUBNET_PREFIX_LEN'] = '30';
    r = compare(snaps, { ncclVersion: '2.30.7' });
    expect(byId(r, 'CMP-042')).toEqual([expect.objectContaining({ severity: 'ok' })]);
    // Too long splits a cable; out of range fails the connection.
    for (const [v, re] of [['31', /\/31 is longer than the links' \/30/], ['40', /outside 1–32/]] as const) {
      for (const s of snaps) s.env.process['NCCL_IB_SUBNET_PREFIX_LEN'] = v;
      expect(byId(compare(snaps, { ncclVersion: '2.30.7' }), 'CMP-042')[0]!.summary).toMatch(re);
    }
  });

  it('a switched rail fabric is not a mesh; --topology forces either view', async () => {
    const rail = facts(await cluster(3));
    expect(detectMesh(rail)).toBeNull();
    expect(detectMesh(rail, 'mesh')).toMatch(/--topology mesh/);
    expect(detectMesh(facts(await mesh(3)), 'switched')).toBeNull();
    // Two nodes cabled back to back on /30s: point-to-point links make it a mesh.
    expect(detectMesh(facts(await mesh(2)))).toMatch(/point-to-point/);
  });
});

describe('mesh reachability, each limit on both sides', () => {
  const SET = { NCCL_IB_SUBNET_AWARE_ROUTING: '1', NCCL_IB_MERGE_NICS: '0', NCCL_CROSS_NIC: '1' };

  it('two nodes (no third to misroute through): a warning, not an error; the remediation names the port per node', async () => {
    let r = compare(await mesh(2), { ncclVersion: '2.28.3' });
    expect(byId(r, 'CMP-041')).toEqual([
      expect.objectContaining({
        severity: 'warn',
        summary: 'NCCL 2.28.3 on spark-a, spark-b has no subnet-aware routing (added in 2.30.7): it pairs ports by index and may use a port that does not face the peer',
        remediation: { advice: 'Name only the port that faces the peer on each node (NCCL_IB_HCA==<that port>, per node), or upgrade to NCCL ≥ 2.30.7' },
      }),
    ]);
    r = compare(await mesh(2), { ncclVersion: '2.30.7' });
    expect(byId(r, 'CMP-041')[0]).toMatchObject({ severity: 'warn', summary: 'NCCL_IB_SUBNET_AWARE_ROUTING is not 1 on spark-a, spark-b' });
  });

  it('without subnet-aware routing the prefix findings are warnings', async () => {
    const r = compare(await mesh(4, { oneSlash24: true }), { ncclVersion: '2.28.3' });
    expect(byId(r, 'CMP-042')[0]).toMatchObject({ severity: 'warn' });
    expect(byId(r, 'CMP-042').map((f) => f.severity)).not.toContain('ok');
  });

  it('a node with no cabled port is isolated (an error); pairs past five are counted, not listed', async () => {
    const snaps = await mesh(3);
    const c = snaps[2]!;
    c.network.addresses = c.network.addresses.filter((a) => !a.address.startsWith('10.0.'));
    const r = compare(snaps, { ncclVersion: '2.30.7' });
    expect(r.mesh!.isolated).toEqual(['spark-c']);
    expect(byId(r, 'CMP-040').map((f) => [f.severity, f.summary])).toEqual([
      ['error', '1 node share no RDMA subnet with any other node: spark-c'],
      ['warn', '2 pairs of nodes share no subnet: spark-a–spark-c, spark-b–spark-c'],
    ]);

    // Eight nodes on a template with fewer ports than peers: most pairs have no cable.
    const big = compare(await mesh(8), { ncclVersion: '2.30.7', topology: 'mesh' });
    const u = big.mesh!.unreachable;
    expect(u.listed).toBe(true);
    expect(u.count).toBe(28 - big.mesh!.pairs.length);
    expect(u.count).toBeGreaterThan(5);
    expect(byId(big, 'CMP-040').find((f) => f.severity === 'warn')!.summary).toMatch(new RegExp(`^${u.count} pairs of nodes share no subnet: (spark-.–spark-., ){4}spark-.–spark-. and ${u.count - 5} more$`));
  });

  it('point-to-point means /30 or longer: /30 is a mesh, /29 between two nodes is not', async () => {
    expect(detectMesh(facts(await mesh(2, { linkPrefix: 30 })))).toBe('every shared RDMA subnet is a /30–/31 point-to-point link between two nodes (1 link)');
    expect(detectMesh(facts(await mesh(2, { linkPrefix: 29 })))).toBeNull();
    // With three nodes each reaches two peers through two ports: a mesh at any prefix.
    expect(detectMesh(facts(await mesh(3, { linkPrefix: 24 })))).toBe('every shared RDMA subnet holds exactly two nodes, and nodes reach different peers through different ports (3 links)');
  });

  it("a port NCCL uses whose GID is not IPv4: subnet-aware routing cannot match it", async () => {
    const snaps = await mesh(3);
    for (const s of snaps) Object.assign(s.env.process, SET);
    const fs = facts(snaps, { ncclVersion: '2.30.7' });
    const p = fs[1]!.ports.find((x) => x.usedByNccl && x.gid?.kind === 'IPv4')!;
    expect(compareNodes(fs, []).findings.filter((f) => f.checkId === 'CMP-041').map((f) => f.severity)).toEqual(['ok']);
    p.gid = { ...p.gid!, kind: 'IPv6' };
    const f = compareNodes(fs, []).findings.filter((x) => x.checkId === 'CMP-041' && x.severity === 'warn');
    expect(f).toEqual([expect.objectContaining({ summary: `NCCL's GID on spark-b ${p.hca} is not an IPv4 GID: subnet-aware routing cannot match it`, nodes: ['spark-b'], remediation: { env: { NCCL_IB_ADDR_FAMILY: 'AF_INET' } } })]);
    // A port NCCL does not use is not its concern.
    p.usedByNccl = false;
    expect(compareNodes(fs, []).findings.filter((x) => x.checkId === 'CMP-041' && x.severity === 'warn')).toEqual([]);
  });
});
