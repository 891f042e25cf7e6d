import { describe, expect, it } from 'vitest';
import { findings, one, useNodes } from './helpers.js';

// IB-009: ports not ACTIVE or not LinkUp.
useNodes('mesh-direct', 'ib8-storage', 'roce-one-subnet');

describe('IB-009', () => {
  it('a DOWN/Polling port is a warning', () => {
    const f = one(findings('mesh-direct', '2.28.3'), 'IB-009');
    expect(f.severity).toBe('warn');
    expect(f.message).toMatch(/roceP2p1s0f1:1 \(enP2p1s0f1np1\) DOWN\/Polling/);
  });
  it('a down port NCCL_IB_HCA leaves out anyway is only an info', () => {
    expect(one(findings('ib8-storage', '2.28.3', { hca: '=mlx5_0' }), 'IB-009').severity).toBe('info');
  });
  it('every port up: nothing', () => {
    expect(findings('roce-one-subnet', '2.28.3').some((x) => x.id === 'IB-009')).toBe(false);
  });
});
