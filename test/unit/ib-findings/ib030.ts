import { describe, expect, it } from 'vitest';
import { findings, useNodes } from './helpers.js';

// IB-030: NCCL_IB_HCA's grammar surprises.
useNodes('roce-one-subnet');

describe('IB-030', () => {
  it('`mlx5_0:` is port 0 (never matches) up to 2.30.4, all ports from 2.30.7', () => {
    expect(findings('roce-one-subnet', '2.30.4', { hca: 'mlx5_0:' }).find((x) => x.id === 'IB-030')!.severity).toBe('warn');
    const now = findings('roce-one-subnet', '2.30.7', { hca: 'mlx5_0:' }).find((x) => x.id === 'IB-030')!;
    expect(now.severity).toBe('info');
    expect(now.remediation.env).toEqual({ NCCL_IB_HCA: 'mlx5_0' });
  });
  it('a plain list: nothing', () => {
    expect(findings('roce-one-subnet', '2.28.3', { hca: 'mlx5_0:1' }).some((x) => x.id === 'IB-030')).toBe(false);
  });
});
