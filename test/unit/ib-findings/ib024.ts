import { describe, expect, it } from 'vitest';
import { LINKS, device, findings, fixText, gids, ll, one, rdmaSnapshot, useNodes, v4gid } from './helpers.js';

// IB-024: RoCE on a RoCE v1 GID.
useNodes('roce-one-subnet');

describe('IB-024', () => {
  it('before 2.21.5 RoCE uses GID 0 (link-local RoCE v1); from 2.21.5 the automatic choice', () => {
    const f = one(findings('roce-one-subnet', '2.21.4'), 'IB-024');
    expect(f.message).toMatch(/default 0 .* fe80::.* \(link-local RoCE v1: no L3 routing\); the RoCE v2 IPv4 GID is 3/);
    expect(fixText(f)).toBe('export NCCL_IB_GID_INDEX=3');
    expect(findings('roce-one-subnet', '2.21.5').some((x) => x.id === 'IB-024')).toBe(false);
  });
  it('the automatic walk ends on a RoCE v1 entry when the table has no v2; with v2 wanted only', () => {
    const s = rdmaSnapshot(LINKS, [device({ name: 'mlx5_0', ports: [{ gids: gids([[ll(), 'v1'], [v4gid('10.0.0.5'), 'v1']], 255) }] })]);
    expect(one(findings(s, '2.28.3'), 'IB-024').message).toMatch(/a RoCE v1 entry/);
    expect(findings(s, '2.28.3', { set: { NCCL_IB_ROCE_VERSION_NUM: '1' } }).some((x) => x.id === 'IB-024')).toBe(false);
  });
});
