import { describe, expect, it } from 'vitest';
import { above, device, EINVAL, findings, fixText, gids, LINKS, ll, rdmaSnapshot, useNodes, v4gid, Z } from './helpers.js';

// IB-019: EINVAL reading gid_attrs/types.
useNodes('sandbox');

describe('IB-019', () => {
  it('before 2.26.2 the connection fails (fix: the index a tolerant NCCL picks); from 2.26.2 an info', () => {
    const old = findings('sandbox', '2.26.1').filter((f) => f.id === 'IB-019');
    expect(old.map((f) => f.severity)).toEqual(['error', 'error']);
    expect(old.map((f) => f.remediation.env)).toEqual([{ NCCL_IB_GID_INDEX: '3' }, { NCCL_IB_GID_INDEX: '7' }]);
    expect(fixText(old[0])).toMatch(/NCCL ≥ 2\.26\.2, which tolerates EINVAL:\nexport NCCL_IB_GID_INDEX=3$/);
    expect(old[0]!.message).toMatch(/WARNs "NET\/IB: read failed in ncclIbRoceGetVersionNum: Invalid argument"/);
    expect(findings('sandbox', '2.26.2').filter((f) => f.id === 'IB-019').map((f) => f.severity)).toEqual(['info']);
  });
  it('unreadable types of unset entries do not matter: nothing above info, even before 2.26.2', () => {
    const s = rdmaSnapshot(LINKS, [device({ name: 'mlx5_0', ports: [{ gids: gids([[ll(), 'v1'], [ll(), 'v2'], [v4gid('10.0.0.9'), 'v1'], [v4gid('10.0.0.9'), 'v2'], [Z, EINVAL, EINVAL]], 255) }] })]);
    expect(above(findings(s, '2.21.5'))).toEqual([]);
  });
});
