// Which netdev is behind each RDMA port (src/model/linux/rdma-netdevs.ts): the
// GID table's ndevs (the kernel's own mapping), else the PCI function's
// netdevs by dev_port (0-based decimal) or dev_id (hex), else the only netdev
// of a single-port device. Each rule on both sides.

import { describe, expect, it } from 'vitest';
import { rdmaLinkLayer, rdmaNetdevs, rdmaUnknownReason } from '../../src/model/linux/rdma-netdevs.js';
import type { GidEntry, NetdevFacts, SysfsRead } from '../../src/model/snapshot/rdma-types.js';
import { device, rdmaSnapshot } from '../rdma/helpers.js';
import { snapshotOf } from './helpers.js';

const gid = (index: number, ndev: SysfsRead): GidEntry => ({ index, gid: '0000:0000:0000:0000:0000:ffff:0a00:0001', type: 'RoCE v2', ndev });
const facts = (name: string, devPort: SysfsRead, devId: SysfsRead = { error: 'ENOENT' }): NetdevFacts =>
  ({ name, present: true, operstate: 'up', mtu: '9000', devPort, devId }) as NetdevFacts;
const triples = (s: ReturnType<typeof rdmaSnapshot>) => rdmaNetdevs(s).map((t) => `${t.dev}:${t.port}=${t.netdev}`);

/** One two-port device whose netdevs p0, p1 carry these dev_port / dev_id values; no GIDs. */
function twoPorts(p0: [SysfsRead, SysfsRead?], p1: [SysfsRead, SysfsRead?]) {
  return rdmaSnapshot([], [device({ name: 'mlx5_0', netdevs: ['p0', 'p1'], ports: [{}, {}] })], { rdma: { netdevs: { p0: facts('p0', ...p0), p1: facts('p1', ...p1) } } });
}

describe('rdmaNetdevs', () => {
  it('no RDMA part: nothing, and the reason says to re-take the snapshot', () => {
    const s = snapshotOf([]);
    expect(rdmaNetdevs(s)).toEqual([]);
    expect(rdmaUnknownReason(s)).toMatch(/no RDMA part .* re-take it with `ncclx snapshot`/);
    expect(rdmaUnknownReason(rdmaSnapshot([], []))).toBeNull();
  });

  it("the GID table's ndevs name the port's netdevs, trimmed, each once; empty or unreadable ones are none", () => {
    const s = rdmaSnapshot([], [device({ name: 'mlx5_0', netdevs: ['other'], ports: [{ gids: [gid(0, ' ens1 \n'), gid(1, 'ens1'), gid(2, '  '), gid(3, { error: 'EINVAL' }), gid(4, 'ens1.100')] }] })]);
    expect(triples(s)).toEqual(['mlx5_0:1=ens1', 'mlx5_0:1=ens1.100']);
  });

  it('without GIDs: dev_port N-1 is port N (trimmed decimal only)', () => {
    expect(triples(twoPorts(['0\n'], [' 1 ']))).toEqual(['mlx5_0:1=p0', 'mlx5_0:2=p1']);
    expect(triples(twoPorts(['1'], ['0']))).toEqual(['mlx5_0:1=p1', 'mlx5_0:2=p0']);
    // "1x" and "x1" are not dev_port numbers (and dev_id is unreadable here): no netdev for either port.
    expect(triples(twoPorts(['1x'], ['x1']))).toEqual([]);
    expect(triples(twoPorts(['10'], ['1']))).toEqual(['mlx5_0:2=p1']);
  });

  it('older drivers: dev_id in hex, with or without 0x, when dev_port does not say', () => {
    expect(triples(twoPorts([{ error: 'ENOENT' }, '0x0\n'], [{ error: 'ENOENT' }, ' 0x1 ']))).toEqual(['mlx5_0:1=p0', 'mlx5_0:2=p1']);
    expect(triples(twoPorts(['', '1'], ['', '0']))).toEqual(['mlx5_0:1=p1', 'mlx5_0:2=p0']);
    // Hex, not decimal: dev_id 10 is port 17, so neither port here.
    expect(triples(twoPorts([{ error: 'ENOENT' }, '10'], [{ error: 'ENOENT' }, '0X1']))).toEqual(['mlx5_0:2=p1']);
    expect(triples(twoPorts([{ error: 'ENOENT' }, 'g1'], [{ error: 'ENOENT' }, '0x1g']))).toEqual([]);
    expect(triples(twoPorts([{ error: 'ENOENT' }, 'x1'], [{ error: 'ENOENT' }, '1 2']))).toEqual([]);
  });

  it('dev_port that is not a whole decimal number gives way to dev_id; a valid one decides alone', () => {
    expect(triples(twoPorts(['1x', '0'], ['x1', '1']))).toEqual(['mlx5_0:1=p0', 'mlx5_0:2=p1']);
    expect(triples(twoPorts(['10', '0'], [' 1 \n', '0']))).toEqual(['mlx5_0:2=p1']);
    expect(triples(twoPorts([{ error: 'ENOENT' }, '00'], [{ error: 'ENOENT' }, '01']))).toEqual(['mlx5_0:1=p0', 'mlx5_0:2=p1']);
  });

  it("each port reads its own GID table", () => {
    const s = rdmaSnapshot([], [device({ name: 'mlx5_0', ports: [{ gids: [] }, { gids: [gid(0, 'ens2')] }] })]);
    expect(triples(s)).toEqual(['mlx5_0:2=ens2']);
  });

  it('a single-port device with a single netdev needs no dev_port; two of either does', () => {
    const one = (ports: object[], netdevs: string[]) => triples(rdmaSnapshot([], [device({ name: 'mlx5_0', netdevs, ports })]));
    expect(one([{}], ['ens1'])).toEqual(['mlx5_0:1=ens1']);
    expect(one([{}], ['ens1', 'ens2'])).toEqual([]);
    expect(one([{}, {}], ['ens1'])).toEqual([]);
  });

  it('a port listed twice gives its netdev once; each call returns its own list', () => {
    const s = rdmaSnapshot([], [device({ name: 'mlx5_0', ports: [{ port: 1, gids: [gid(0, 'ens1')] }, { port: 1, gids: [gid(0, 'ens1')] }] })]);
    expect(triples(s)).toEqual(['mlx5_0:1=ens1']);
    const first = rdmaNetdevs(s);
    first.push({ dev: 'x', port: 9, netdev: 'y' });
    expect(rdmaNetdevs(s)).toEqual([{ dev: 'mlx5_0', port: 1, netdev: 'ens1' }]);
  });
});

describe('rdmaLinkLayer', () => {
  it("the port's link_layer, trimmed; null for an unknown device or port or an unreadable file", () => {
    const s = rdmaSnapshot([], [device({ name: 'mlx5_0', ports: [{ ll: 'Ethernet\n' }, { ll: ' InfiniBand ' }] }), device({ name: 'mlx5_1', ports: [{ ll: { error: 'EACCES' } }] })]);
    expect(rdmaLinkLayer(s, 'mlx5_0', 1)).toBe('Ethernet');
    expect(rdmaLinkLayer(s, 'mlx5_0', 2)).toBe('InfiniBand');
    expect(rdmaLinkLayer(s, 'mlx5_0', 3)).toBeNull();
    expect(rdmaLinkLayer(s, 'mlx5_1', 1)).toBeNull();
    expect(rdmaLinkLayer(s, 'mlx5_9', 1)).toBeNull();
    expect(rdmaLinkLayer(snapshotOf([]), 'mlx5_0', 1)).toBeNull();
  });
});
