import { describe, expect, it } from 'vitest';
import { findings, one, useNodes } from './helpers.js';

// IB-004: NCCL_IB_HCA names a port that is not ACTIVE.
useNodes('ib8-storage');

describe('IB-004', () => {
  it('a named DOWN port: fewer rails than the peers', () => {
    expect(one(findings('ib8-storage', '2.28.3', { hca: 'mlx5_1' }), 'IB-004').message).toMatch(/mlx5_11:1 \(enp170s0f1np1\) \(DOWN\)/);
    expect(one(findings('ib8-storage', '2.28.3', { hca: '=mlx5_11' }), 'IB-004').remediation.advice).toMatch(/Bring the port up/);
  });
  it('an exclusion list names nothing to use; ACTIVE ports raise nothing', () => {
    expect(findings('ib8-storage', '2.28.3', { hca: '^mlx5_11' }).some((x) => x.id === 'IB-004')).toBe(false);
    expect(findings('ib8-storage', '2.28.3', { hca: '=mlx5_0' }).some((x) => x.id === 'IB-004')).toBe(false);
  });
});
