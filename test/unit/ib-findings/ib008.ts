import { describe, expect, it } from 'vitest';
import { LINKS, device, findings, gids, ll, one, rdmaSnapshot, v4gid } from './helpers.js';

// IB-008: the same IPv4 behind two netdevs or ports.
describe('IB-008', () => {
  it('the same IPv4 behind two netdevs', () => {
    const s = rdmaSnapshot(LINKS, [
      device({ name: 'mlx5_0', ports: [{ gids: gids([[ll(), 'v1'], [ll(), 'v2'], [v4gid('30.153.10.175'), 'v1', 'b3.vxlan.30100'], [v4gid('30.153.10.175'), 'v2', 'b3.vxlan.30100'], [v4gid('30.153.10.175'), 'v1', 'bond0'], [v4gid('30.153.10.175'), 'v2', 'bond0']], 255) }] }),
    ]);
    const f = one(findings(s, '2.28.3'), 'IB-008');
    expect(f.message).toMatch(/30\.153\.10\.175 is behind 2 netdevs\/ports: b3\.vxlan\.30100 \(mlx5_0:1 GID 2\), bond0 \(mlx5_0:1 GID 4\)/);
    expect(f.remediation.env).toEqual({ NCCL_IB_GID_INDEX: '2' });
  });
  it('one address as a v1 and a v2 entry of one netdev is one place', () => {
    const s = rdmaSnapshot(LINKS, [device({ name: 'mlx5_0', ports: [{ gids: gids([[ll(), 'v1'], [ll(), 'v2'], [v4gid('10.0.0.5'), 'v1', 'eth1'], [v4gid('10.0.0.5'), 'v2', 'eth1']], 255) }] })]);
    expect(findings(s, '2.28.3').some((x) => x.id === 'IB-008')).toBe(false);
  });
});
