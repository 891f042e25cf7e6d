import { describe, expect, it } from 'vitest';
import { LINKS, device, findings, fixText, gids, ll, one, rdmaSnapshot, v6gid } from './helpers.js';

// IB-007: only IPv6 GIDs while NCCL looks for IPv4.
describe('IB-007', () => {
  const s = rdmaSnapshot(LINKS, [device({ name: 'mlx5_0', ports: [{ gids: gids([[ll(), 'v1'], [ll(), 'v2'], [v6gid('fd93::7'), 'v1'], [v6gid('fd93::7'), 'v2']], 255) }] })]);
  it('IPv6-only GID table → NCCL_IB_ADDR_FAMILY=AF_INET6 (not IB-006)', () => {
    const fs = findings(s, '2.28.3');
    expect(fixText(one(fs, 'IB-007'))).toBe('export NCCL_IB_ADDR_FAMILY=AF_INET6');
    expect(fs.some((x) => x.id === 'IB-006')).toBe(false);
  });
  it('with AF_INET6 set, nothing', () => {
    expect(findings(s, '2.28.3', { set: { NCCL_IB_ADDR_FAMILY: 'AF_INET6' } }).map((x) => x.id)).not.toContain('IB-007');
  });
});
