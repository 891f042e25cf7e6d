import { describe, expect, it } from 'vitest';
import { findings, one, useNodes } from './helpers.js';

// IB-003: a bonded (LAG) device among the devices NCCL keeps.
useNodes('roce-bond', 'roce-one-subnet');

describe('IB-003', () => {
  it('a bond next to ordinary HCAs is a warning whose fix names the others; alone it is only info', () => {
    const f = one(findings('roce-bond', '2.28.3'), 'IB-003');
    expect(f).toMatchObject({ severity: 'warn', remediation: { env: { NCCL_IB_HCA: '=mlx5_2:1,mlx5_3:1' } } });
    expect(f.message).toMatch(/^With NCCL_IB_HCA unset NCCL also uses the bonded device mlx5_bond_0 \(bond0 over ens1f0np0\+ens1f1np1\)/);
    expect(one(findings('roce-bond', '2.28.3', { hca: 'mlx5' }), 'IB-003').message).toMatch(/^NCCL_IB_HCA='mlx5' includes/);
    expect(one(findings('roce-bond', '2.28.3', { hca: '=mlx5_bond_0' }), 'IB-003').severity).toBe('info');
  });
  it('no bond kept, nothing said', () => {
    expect(findings('roce-bond', '2.28.3', { hca: '=mlx5_2,mlx5_3' }).some((x) => x.id === 'IB-003')).toBe(false);
    expect(findings('roce-one-subnet', '2.28.3').some((x) => x.id === 'IB-003')).toBe(false);
  });
});
