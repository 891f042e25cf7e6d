import { describe, expect, it } from 'vitest';
import { findings, fixText, one, useNodes } from './helpers.js';

// IB-002: the prefix trap (mlx5_1 also takes mlx5_10, mlx5_11).
useNodes('ib8-storage');

describe('IB-002', () => {
  it('mlx5_1 selects mlx5_10 and mlx5_11 too; the fix is the exact list', () => {
    const trap = one(findings('ib8-storage', '2.28.3', { hca: 'mlx5_1' }), 'IB-002');
    expect(trap.message).toMatch(/selects mlx5_1, mlx5_10, mlx5_11, not only mlx5_1/);
    expect(fixText(trap)).toBe("export NCCL_IB_HCA='=mlx5_1'");
  });
  it('in an exclusion list it excludes them', () => {
    const trap = one(findings('ib8-storage', '2.28.3', { hca: '^mlx5_1' }), 'IB-002');
    expect(trap.message).toMatch(/excludes mlx5_1, mlx5_10, mlx5_11/);
    expect(fixText(trap)).toBe("export NCCL_IB_HCA='^=mlx5_1'");
  });
  it('exact names (`=`) and prefixes that take one device raise nothing', () => {
    expect(findings('ib8-storage', '2.28.3', { hca: '=mlx5_1' }).some((x) => x.id === 'IB-002')).toBe(false);
    expect(findings('ib8-storage', '2.28.3', { hca: 'mlx5_2' }).some((x) => x.id === 'IB-002')).toBe(false);
  });
});
