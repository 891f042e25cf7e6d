import { describe, expect, it } from 'vitest';
import { LINKS, device, findings, fixText, gids, ll, one, rdmaSnapshot, useNodes } from './helpers.js';

// IB-006: the automatic GID choice finds no routable GID of the wanted family and stays at GID 0.
useNodes('roce-one-subnet');

describe('IB-006', () => {
  it('a RoCE port whose netdev has no IPv4 falls back to GID 0', () => {
    const s = rdmaSnapshot(LINKS, [device({ name: 'mlx5_0', ports: [{ gids: gids([[ll(), 'v1'], [ll(), 'v2']], 255) }] })]);
    const f = one(findings(s, '2.28.3'), 'IB-006');
    expect(f.severity).toBe('error');
    expect(f.message).toMatch(/no IPv4 GID/);
  });
  it('AF_INET6 without a global IPv6: unset the family', () => {
    expect(fixText(findings('roce-one-subnet', '2.28.3', { set: { NCCL_IB_ADDR_FAMILY: 'AF_INET6' } }).find((f) => f.id === 'IB-006'))).toBe('unset NCCL_IB_ADDR_FAMILY');
  });
  it('a range no GID falls in: unset the range; one that holds the GIDs raises nothing', () => {
    expect(findings('roce-one-subnet', '2.28.3', { set: { NCCL_IB_ADDR_RANGE: '10.0.0.0/8' } }).find((f) => f.id === 'IB-006')!.message).toMatch(/inside NCCL_IB_ADDR_RANGE=10\.0\.0\.0\/8/);
    expect(findings('roce-one-subnet', '2.28.3').some((f) => f.id === 'IB-006')).toBe(false);
  });
});
