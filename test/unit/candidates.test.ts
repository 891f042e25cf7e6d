// The RDMA candidate set (src/model/linux/candidates.ts): which RDMA netdevs a
// job's view gets, each reason on both sides.
import { describe, expect, it } from 'vitest';
import { intersectPeer, rdmaCandidates } from '../../src/model/linux/candidates.js';
import { device, rdmaSnapshot } from '../rdma/helpers.js';
import { link } from './helpers.js';

const opts = { uplinkRegex: /^eth[0-9]+$/, include: [] as string[] };
const verdicts = (s: ReturnType<typeof rdmaSnapshot>, o = opts) => rdmaCandidates(s, o).verdicts.map((v) => [v.netdev, v.kept, v.reason]);

describe('rdmaCandidates', () => {
  it('RoCE needs an IPv4 address on the netdev; an InfiniBand port does not', () => {
    const s = rdmaSnapshot(
      [link('lo', ['127.0.0.1/8']), link('ens1', ['10.0.0.1/24']), link('ens2', []), link('ib0', [])],
      [device({ name: 'mlx5_0', netdevs: ['ens1'] }), device({ name: 'mlx5_1', netdevs: ['ens2'] }), device({ name: 'mlx5_2', netdevs: ['ib0'], ports: [{ ll: 'InfiniBand' }] })],
    );
    expect(verdicts(s)).toEqual([
      ['ens1', true, 'RoCE with IPv4 10.0.0.1/24'],
      ['ens2', false, "no IPv4 address: RoCE v2 GIDs come from the netdev's IP, so this port cannot route (NCCL would fall back to GID 0)"],
      ['ib0', true, 'InfiniBand port'],
    ]);
    const set = rdmaCandidates(s, opts);
    expect(set.kept).toEqual(['ens1', 'ib0']);
    expect(set.peerLine).toBe('RDMA_PEER_IFACES=ens1 ib0');
  });
  it('uplinks are left out; --include keeps a netdev whatever it is and names unknown ones', () => {
    const s = rdmaSnapshot([link('eth0', ['10.0.0.1/24']), link('ens2', [])], [device({ name: 'mlx5_0', netdevs: ['eth0'] }), device({ name: 'mlx5_1', netdevs: ['ens2'] })]);
    expect(verdicts(s)).toEqual([
      ['eth0', false, 'looks like an uplink (matches ^eth[0-9]+$)'],
      ['ens2', false, "no IPv4 address: RoCE v2 GIDs come from the netdev's IP, so this port cannot route (NCCL would fall back to GID 0)"],
    ]);
    const inc = rdmaCandidates(s, { ...opts, include: ['eth0', 'ens2', 'nope'] });
    expect(inc.verdicts.map((v) => [v.netdev, v.kept, v.reason])).toEqual([
      ['eth0', true, 'named by --include'],
      ['ens2', true, 'named by --include'],
    ]);
    expect(inc.unknownIncludes).toEqual(['nope']);
  });
  it('a RoCE netdev without IPv4 whose ports are all not ACTIVE says so (IB-009); one ACTIVE or unreadable port is no such case', () => {
    const NO_IP = "no IPv4 address: RoCE v2 GIDs come from the netdev's IP, so this port cannot route (NCCL would fall back to GID 0)";
    const down = { state: '1: DOWN', phys: '3: Disabled' };
    const bond = (a: object, b: object) =>
      rdmaSnapshot([link('bond0', []), link('ens3', ['10.0.0.3/24'])], [device({ name: 'mlx5_0', netdevs: ['bond0'], ports: [a] }), device({ name: 'mlx5_1', netdevs: ['bond0'], ports: [b] }), device({ name: 'mlx5_2', netdevs: ['ens3'], ports: [down] })]);
    const both = rdmaCandidates(bond(down, { state: '1: DOWN', phys: '2: Polling' }), opts).verdicts;
    expect(both[0]).toMatchObject({ netdev: 'bond0', devices: ['mlx5_0:1', 'mlx5_1:1'], kept: false, notActive: 'DOWN/Disabled, DOWN/Polling', reason: 'its port is DOWN/Disabled, DOWN/Polling, not ACTIVE: NCCL does not use it (IB-009), and it has no IPv4 address' });
    // The same state on both ports is said once; a port without a physical state shows its state alone.
    expect(rdmaCandidates(bond(down, down), opts).verdicts[0]!.notActive).toBe('DOWN/Disabled');
    expect(rdmaCandidates(bond({ state: '1: DOWN', phys: { error: 'EACCES' } }, { state: '1: DOWN', phys: { error: 'EACCES' } }), opts).verdicts[0]!.notActive).toBe('DOWN');
    // One ACTIVE port: the netdev is judged by its address alone.
    expect(rdmaCandidates(bond(down, {}), opts).verdicts[0]).toMatchObject({ notActive: null, kept: false, reason: NO_IP });
    // An unreadable state is not known to be down.
    expect(rdmaCandidates(bond(down, { state: { error: 'EACCES' } }), opts).verdicts[0]).toMatchObject({ notActive: null, reason: NO_IP });
    // With an IPv4 address a DOWN port is kept by this rule (IB-009 reports it), its state still shown.
    expect(rdmaCandidates(bond(down, down), opts).verdicts[1]).toMatchObject({ netdev: 'ens3', kept: true, notActive: 'DOWN/Disabled', reason: 'RoCE with IPv4 10.0.0.3/24' });
  });
  it("each port's own state: a DOWN second port is DOWN even when the first is ACTIVE", () => {
    const gidOf = (ndev: string) => [{ index: 0, gid: '0000:0000:0000:0000:0000:ffff:0a00:0001', type: 'RoCE v2', ndev }];
    const s = rdmaSnapshot([link('ensA', ['10.0.0.1/24']), link('ensB', [])], [device({ name: 'mlx5_0', ports: [{ gids: gidOf('ensA') }, { state: '1: DOWN', phys: '3: Disabled', gids: gidOf('ensB') }] })]);
    expect(rdmaCandidates(s, opts).verdicts.map((v) => [v.netdev, v.notActive])).toEqual([
      ['ensA', null],
      ['ensB', 'DOWN/Disabled'],
    ]);
  });
  it('netdevs in RDMA device order, each once with all its ports; two addresses both listed', () => {
    const s = rdmaSnapshot(
      [link('ens2', ['10.0.1.2/24', '10.0.9.2/24']), link('ens1', ['10.0.0.1/24'])],
      [device({ name: 'mlx5_0', netdevs: ['ens2'] }), device({ name: 'mlx5_1', netdevs: ['ens1'] }), device({ name: 'mlx5_2', netdevs: ['ens2'], ports: [{ ll: 'InfiniBand' }] })],
    );
    const set = rdmaCandidates(s, opts);
    expect(set.verdicts.map((v) => [v.netdev, v.devices, v.linkLayer, v.reason])).toEqual([
      ['ens2', ['mlx5_0:1', 'mlx5_2:1'], 'Ethernet', 'RoCE with IPv4 10.0.1.2/24, 10.0.9.2/24'],
      ['ens1', ['mlx5_1:1'], 'Ethernet', 'RoCE with IPv4 10.0.0.1/24'],
    ]);
  });
  it('the peer\'s list: common, only here, only there', () => {
    expect(intersectPeer(['a', 'b', 'c'], ['b', 'c', 'd'])).toEqual({ common: ['b', 'c'], onlyHere: ['a'], onlyPeer: ['d'] });
  });
});
