import { describe, expect, it } from 'vitest';
import { ENOENT, LINKS, device, findings, gids, ll, one, rdmaSnapshot, useNodes, v4gid } from './helpers.js';

// IB-031: the GID choice fails (not EINVAL).
useNodes('roce-bond');

describe('IB-031', () => {
  it('a types file that is missing fails the automatic choice', () => {
    const s = rdmaSnapshot(LINKS, [device({ name: 'mlx5_0', ports: [{ gids: gids([[ll(), 'v1'], [ll(), 'v2'], [v4gid('10.0.0.5'), ENOENT], [v4gid('10.0.0.5'), 'v2']], 8) }] })]);
    const f = one(findings(s, '2.28.3'), 'IB-031');
    expect(f.message).toMatch(/logs "NET\/IB: open failed in ncclIbRoceGetVersionNum: No such file or directory"/);
    expect(f.remediation.advice).toMatch(/set NCCL_IB_GID_INDEX explicitly/);
  });
  it('an explicit index outside the table: the index NCCL would choose instead', () => {
    const f = one(findings('roce-bond', '2.28.3', { gidIndex: '300', hca: '=mlx5_bond_0' }), 'IB-031');
    expect(f.message).toMatch(/outside the table \(255 entries\)/);
    expect(f.remediation.env).toEqual({ NCCL_IB_GID_INDEX: '3' });
  });
});
