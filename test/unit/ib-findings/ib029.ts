import { describe, expect, it } from 'vitest';
import { findings, one, useNodes } from './helpers.js';

// IB-029: NCCL_NET names another transport.
useNodes('roce-one-subnet');

describe('IB-029', () => {
  it('NCCL_NET=Socket: before 2.29.2 IB is still initialised, from 2.29.2 it is not', () => {
    expect(one(findings('roce-one-subnet', '2.29.1', { set: { NCCL_NET: 'Socket' } }), 'IB-029').message).toMatch(/NCCL < 2.29.2 still initialises IB/);
    expect(one(findings('roce-one-subnet', '2.29.2', { set: { NCCL_NET: 'Socket' } }), 'IB-029').message).toMatch(/does not initialise IB/);
  });
  it('NCCL_NET=IB, or unset: nothing', () => {
    expect(findings('roce-one-subnet', '2.28.3', { set: { NCCL_NET: 'IB' } }).some((f) => f.id === 'IB-029')).toBe(false);
    expect(findings('roce-one-subnet', '2.28.3').some((f) => f.id === 'IB-029')).toBe(false);
  });
});
