import { describe, expect, it } from 'vitest';
import { findings, fixText, one, useNodes } from './helpers.js';

// IB-033: a netdev name where a verbs device name belongs.
useNodes('ib8-storage');

describe('IB-033', () => {
  it('ibp24s0 belongs to mlx5_0: the fix names the device', () => {
    const f = one(findings('ib8-storage', '2.28.3', { hca: 'ibp24s0' }), 'IB-033');
    expect(f.severity).toBe('error');
    expect(f.message).toMatch(/ibp24s0 belongs to mlx5_0/);
    expect(fixText(f)).toBe("export NCCL_IB_HCA='=mlx5_0'");
  });
  it('the other entries are kept as written, and the list\'s `^` too', () => {
    expect(fixText(one(findings('ib8-storage', '2.28.3', { hca: 'mlx5_1,ibp24s0' }), 'IB-033'))).toBe("export NCCL_IB_HCA='=mlx5_1,mlx5_0'");
    expect(fixText(one(findings('ib8-storage', '2.28.3', { hca: '^ibp24s0' }), 'IB-033'))).toBe("export NCCL_IB_HCA='^=mlx5_0'");
  });
  it('a name that is no netdev either is IB-001', () => {
    const fs = findings('ib8-storage', '2.28.3', { hca: 'nothing0' });
    expect(fs.some((f) => f.id === 'IB-033')).toBe(false);
    expect(fs.some((f) => f.id === 'IB-001')).toBe(true);
  });
});
