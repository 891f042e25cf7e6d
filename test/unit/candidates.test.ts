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
  it('the peer\'s list: common, only here, only there', () => {
    expect(intersectPeer(['a', 'b', 'c'], ['b', 'c', 'd'])).toEqual({ common: ['b', 'c'], onlyHere: ['a'], onlyPeer: ['d'] });
  });
});
