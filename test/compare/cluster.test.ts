// Many nodes of one type (the roce-healthy fixture, re-addressed per node):
// the symmetric set, the rail plan and the consistency checks, each fault on
// its own. Expected values come from the scenario, not from ncclx.
import { describe, expect, it } from 'vitest';
import { fixText } from '../helpers/remediation.js';
import { byId, clone, cluster, compare, problems } from './helpers.js';

describe('a healthy cluster', () => {
  it('nothing to report: one rail plan, one symmetric set, exit 0', async () => {
    const r = compare(await cluster(4));
    expect(problems(r)).toEqual([]);
    expect(r.exitCode).toBe(0);
    expect(r.symmetric.netdevs).toEqual(['enp24s0np0', 'enp58s0np0', 'enp75s0np0', 'enp92s0np0', 'enp154s0np0', 'enp186s0np0', 'enp202s0np0', 'enp218s0np0']);
    expect(r.symmetric.peerIfacesLine).toBe('RDMA_PEER_IFACES=enp24s0np0 enp58s0np0 enp75s0np0 enp92s0np0 enp154s0np0 enp186s0np0 enp202s0np0 enp218s0np0');
    expect(r.symmetric.ncclIbHca).toBe('=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_4:1,mlx5_5:1,mlx5_6:1,mlx5_7:1');
    expect(r.symmetric.exports).toContain("export NCCL_IB_HCA='=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_4:1,mlx5_5:1,mlx5_6:1,mlx5_7:1'");
    expect(r.rails.rails).toHaveLength(8);
    expect(r.rails.fabric).toBe('shared-subnets');
    const rail3 = r.rails.rails[3]!;
    expect(rail3.values.subnet).toEqual([{ value: '10.3.0.0/16', count: 4, nodes: null }]);
    expect(rail3.values.gidIndex).toEqual([{ value: 3, count: 4, nodes: null }]);
    expect(rail3.values.gidType[0]!.value).toBe('RoCE v2 IPv4');
    expect(rail3.perNode!.map((c) => c.ipv4)).toEqual(['10.3.0.2/16', '10.3.0.3/16', '10.3.0.4/16', '10.3.0.5/16']);
    expect(byId(r, 'CMP-030')[0]!.severity).toBe('ok');
    expect(byId(r, 'CMP-010')[0]!.summary).toBe('NCCL 2.28.3 on every node');
  });
});

describe('symmetric set', () => {
  it('a node lacking a rail: the rail is dropped from the set, named with the node, and the rest is offered without it', async () => {
    const r = compare(await cluster(5, { 2: 'missing-rail' }));
    expect(r.symmetric.netdevs).not.toContain('enp218s0np0');
    expect(r.symmetric.netdevs).toHaveLength(7);
    expect(r.symmetric.notEverywhere).toEqual([{ netdev: 'enp218s0np0', usableOn: 4, missingOn: ['gpu00003'], onlyOn: null }]);
    expect(r.symmetric.majority).toEqual({ netdevs: expect.arrayContaining(['enp218s0np0']), nodes: 4, excluded: ['gpu00003'] });
    const f = byId(r, 'CMP-020')[0]!;
    expect(f.severity).toBe('warn');
    expect(f.nodes).toEqual(['gpu00003']);
    expect(fixText(f)).toContain("Fix or leave out 1 node (gpu00003) and use export RDMA_PEER_IFACES='enp24s0np0");
    // NCCL sees 7 devices there: a count mismatch, an error.
    const c = byId(r, 'CMP-030')[0]!;
    expect(c.severity).toBe('error');
    expect(c.summary).toBe('NCCL devices per node differ: 8 on 4 nodes, 7 on gpu00003');
    expect(r.exitCode).toBe(1);
  });

  it('per node what was dropped and why: a DOWN port, a netdev without IPv4', async () => {
    const r = compare(await cluster(3, { 0: 'port-down', 1: 'no-ipv4' }));
    expect(r.symmetric.perNode).toEqual([
      { node: 'gpu00001', dropped: [{ netdev: 'enp202s0np0', hcas: ['mlx5_6:1'], reason: 'port DOWN: NCCL skips ports that are not ACTIVE' }] },
      { node: 'gpu00002', dropped: [{ netdev: 'enp75s0np0', hcas: ['mlx5_2:1'], reason: expect.stringMatching(/^no IPv4 address/) }] },
    ]);
    expect(r.symmetric.netdevs).toEqual(['enp24s0np0', 'enp58s0np0', 'enp92s0np0', 'enp154s0np0', 'enp186s0np0', 'enp218s0np0']);
  });

  it('HCA names that differ per node: no single NCCL_IB_HCA unless a union fits every node', async () => {
    const snaps = await cluster(2);
    // Node 2's image names its HCAs mlx5_10…mlx5_17 (NVIDIA/nccl#1277).
    const renamed = clone(snaps[1]!);
    for (const d of renamed.rdma!.devices) d.name = d.name.replace(/^mlx5_(\d+)$/, (_, n) => `mlx5_${Number(n) + 10}`);
    // The image's /etc/nccl.conf names mlx5_0…7: on the renamed node it matches nothing and NCCL falls back to sockets.
    const withConf = compare([snaps[0]!, renamed]);
    expect(byId(withConf, 'CMP-030')[0]).toMatchObject({ severity: 'error', nodes: ['gpu00002'], summary: 'NCCL devices per node differ: 8 on gpu00001, 0 on gpu00002; transport IB on gpu00001, Socket on gpu00002' });
    // Without it:
    for (const s of [snaps[0]!, renamed]) s.env.confFiles = [];
    const r = compare([snaps[0]!, renamed]);
    expect(r.symmetric.netdevs).toHaveLength(8);
    // The union names 16 HCAs, each of which exists on one node only: it selects exactly the set everywhere.
    expect(r.symmetric.ncclIbHca).toMatch(/^=mlx5_0:1,.*mlx5_17:1$/);
    expect(byId(r, 'CMP-021')).toEqual([]);
    expect(byId(r, 'CMP-031').filter((f) => f.severity === 'warn').map((f) => f.summary)).toEqual(Array.from({ length: 8 }, (_, k) => `rail ${k}: HCA differs — mlx5_${k}:1 on gpu00001, mlx5_${k + 10}:1 on gpu00002`));

    // Names shifted by one on a node whose rail 6 is down: every candidate value also names that down port somewhere.
    const [base, down] = await cluster(2, { 1: 'port-down' });
    const shifted = clone(down!);
    for (const d of shifted.rdma!.devices) d.name = d.name.replace(/^mlx5_(\d+)$/, (_, n) => `mlx5_${(Number(n) + 1) % 8}`);
    for (const x of [base!, shifted]) x.env.confFiles = [];
    const s = compare([base!, shifted]);
    expect(s.symmetric.netdevs).toHaveLength(7);
    expect(s.symmetric.ncclIbHca).toBeNull();
    expect(s.symmetric.ncclIbHcaByNode.map((g) => g.value)).toEqual(['=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_4:1,mlx5_5:1,mlx5_7:1', '=mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_4:1,mlx5_5:1,mlx5_6:1,mlx5_0:1']);
    expect(byId(s, 'CMP-021')[0]!.severity).toBe('warn');
  });
});

describe('rail plan mismatches', () => {
  it('a rail on another subnet on one of two nodes is an error naming the rail and the node', async () => {
    const r = compare(await cluster(2, { 1: 'rail-subnet' }));
    const f = byId(r, 'CMP-032');
    expect(f).toHaveLength(1);
    expect(f[0]).toMatchObject({ severity: 'error', nodes: ['gpu00001', 'gpu00002'], summary: 'rail 3: every node is on its own subnet while other rails share one — 10.3.0.0/16 on gpu00001, 10.103.0.0/16 on gpu00002' });
    expect(r.rails.rails[3]!.mismatches).toEqual(['subnet']);
    expect(r.rails.rails[3]!.perNode!.map((c) => c.subnet)).toEqual(['10.3.0.0/16', '10.103.0.0/16']);
  });

  it('with more nodes, the ones off the common subnet are named', async () => {
    const r = compare(await cluster(6, { 4: 'rail-subnet' }));
    expect(byId(r, 'CMP-032')[0]).toMatchObject({ severity: 'error', nodes: ['gpu00005'], summary: 'rail 3: 1 node on another subnet than the rest — 10.3.0.0/16 on 5 nodes, 10.103.0.0/16 on gpu00005' });
  });

  it('a GID index forced on one node: every rail ends on a RoCE v1 GID there — type mismatch (error), index mismatch (warn), one finding for all rails', async () => {
    const r = compare(await cluster(3, { 2: 'gid-index' }));
    expect(byId(r, 'CMP-036')).toEqual([expect.objectContaining({ severity: 'error', nodes: ['gpu00003'], summary: 'rails 0–7: GID type differs — RoCE v2 IPv4 on 2 nodes, RoCE v1 IPv4 on gpu00003' })]);
    const idx = byId(r, 'CMP-037');
    expect(idx).toHaveLength(1);
    expect(idx[0]).toMatchObject({ severity: 'warn', summary: 'rails 0–7: GID index differs — 3 on 2 nodes, 2 on gpu00003' });
    expect(idx[0]!.why).toContain('NCCL_IB_GID_INDEX is set on gpu00003');
    expect(byId(r, 'CMP-011')[0]).toMatchObject({ severity: 'warn', summary: 'NCCL_IB_GID_INDEX differs: (unset) on 2 nodes, "2" on gpu00003' });
  });

  it('different GID indexes of the same kind (auto-selection on differently laid out tables) are only info', async () => {
    const snaps = await cluster(2);
    const shifted = clone(snaps[1]!);
    // Two extra IPv6 entries at the top of every table push the IPv4 RoCE v2 GID from 3 to 5.
    for (const d of shifted.rdma!.devices) for (const p of d.ports) {
      const head = p.gids.slice(0, 2).map((g, i) => ({ ...g, index: 2 + i, gid: `2001:0db8:0000:0000:0000:0000:0000:000${i + 1}` }));
      const ipv4 = p.gids.slice(2, 4).map((g) => ({ ...g, index: g.index + 2 }));
      p.gids = [...p.gids.slice(0, 2), ...head, ...ipv4, ...p.gids.slice(6)];
    }
    const r = compare([snaps[0]!, shifted]);
    expect(byId(r, 'CMP-037')[0]).toMatchObject({ severity: 'info', summary: 'rails 0–7: GID index differs — 3 on gpu00001, 5 on gpu00002' });
    expect(byId(r, 'CMP-036')).toEqual([]);
  });

  it('mixed link layers on a rail: an error', async () => {
    const snaps = await cluster(2);
    const ib = clone(snaps[1]!);
    ib.rdma!.devices[0]!.ports[0]!.linkLayer = 'InfiniBand';
    const r = compare([snaps[0]!, ib]);
    expect(byId(r, 'CMP-035')[0]).toMatchObject({ severity: 'error', summary: 'rail 0: link layer differs — Ethernet on gpu00001, InfiniBand on gpu00002' });
  });

  it('MTU and rate differences are warnings with the rail', async () => {
    const r = compare(await cluster(3, { 0: 'mtu', 1: 'rate' }));
    expect(byId(r, 'CMP-033')[0]).toMatchObject({ severity: 'warn', nodes: ['gpu00001'], summary: 'rail 5: MTU differs — 9000 on 2 nodes, 1500 on gpu00001' });
    expect(byId(r, 'CMP-034')[0]).toMatchObject({ severity: 'warn', nodes: ['gpu00002'], summary: 'rail 1: rate differs — 400 Gb/sec (4X NDR) on 2 nodes, 200 Gb/sec (2X NDR) on gpu00002' });
  });

  it('a netdev without IPv4: NCCL ends on the link-local GID 0 there (an error on that node)', async () => {
    const r = compare(await cluster(2, { 1: 'no-ipv4' }));
    expect(byId(r, 'CMP-038')[0]).toMatchObject({ severity: 'error', nodes: ['gpu00002'] });
    expect(byId(r, 'CMP-038')[0]!.summary).toMatch(/^rail 2 on gpu00002 \(mlx5_2:1, enp75s0np0\): NCCL ends on GID 0, a link-local GID/);
  });
});

describe('consistency', () => {
  it('different NCCL versions: an error quoting NCCL\'s own check', async () => {
    const r = compare(await cluster(3, { 1: 'nccl-version' }));
    const f = byId(r, 'CMP-010')[0]!;
    expect(f).toMatchObject({ severity: 'error', nodes: ['gpu00002'], summary: 'NCCL versions differ: 2.28.3 on 2 nodes, 2.27.3 on gpu00002' });
    expect(f.why).toContain('Mismatched NCCL version detected');
    expect(r.consistency.ncclVersions).toEqual([{ value: '2.28.3', count: 2, nodes: null }, { value: '2.27.3', count: 1, nodes: ['gpu00002'] }]);
  });

  it('an NCCL_* setting on one node only: a warning with the value to use everywhere; NCCL_COMM_ID: an error', async () => {
    const snaps = await cluster(3, { 0: 'nccl-setting' });
    let r = compare(snaps);
    expect(byId(r, 'CMP-011')[0]).toMatchObject({ severity: 'warn', nodes: ['gpu00001'], summary: 'NCCL_IB_TIMEOUT differs: (unset) on 2 nodes, "23" on gpu00001', remediation: { advice: 'On gpu00001', env: { NCCL_IB_TIMEOUT: null } } });
    const c = snaps.map(clone);
    c.forEach((s, i) => (s.env.process['NCCL_COMM_ID'] = i === 2 ? '172.16.0.9:5000' : '172.16.0.2:5000'));
    r = compare(c);
    expect(byId(r, 'CMP-011').find((f) => f.summary.startsWith('NCCL_COMM_ID'))).toMatchObject({ severity: 'error', nodes: ['gpu00003'] });
  });

  it('GPUDirect RDMA on some nodes only', async () => {
    const r = compare(await cluster(4, { 3: 'no-peermem' }));
    expect(byId(r, 'CMP-012')[0]).toMatchObject({ severity: 'warn', nodes: ['gpu00004'], summary: 'GPUDirect RDMA differs between nodes: peer memory (nvidia_peermem) on 3 nodes, DMA-BUF only on gpu00004' });
    // The doctor's verdict, per node (topo/gdr-verdict.ts): the same words as GDR-001 and TOPO-010 say.
    expect(r.consistency.gdr.map((g) => g.value)).toEqual(['on (8/8 GPUs)', 'DMA-BUF only (decided at run time)']);
  });

  it('the same node twice, and an address on two nodes', async () => {
    const snaps = await cluster(2);
    const twin = clone(snaps[1]!);
    twin.host.hostname = 'gpu00001';
    const r = compare([snaps[0]!, twin]);
    expect(byId(r, 'CMP-002')[0]).toMatchObject({ severity: 'warn' });
    expect(r.nodes.map((n) => n.node)).toEqual(['gpu00001 (gpu00001-0.json)', 'gpu00001 (gpu00001-1.json)']);
    const dup = clone(snaps[1]!);
    dup.network.addresses.find((a) => a.address === '10.4.0.3')!.address = '10.4.0.2';
    expect(byId(compare([snaps[0]!, dup]), 'CMP-060')[0]).toMatchObject({ severity: 'error', summary: '10.4.0.2 is used by 2 nodes: gpu00001, gpu00002' });
  });
});
