import { describe, expect, it } from 'vitest';
import { above, findings, ids, one, useNodes } from './helpers.js';

// The list of IB findings (src/model/nccl/ib-findings/index.ts): healthy nodes
// raise nothing above info, and a node with many findings shows them in the
// list's order, a walk's findings in the walk's order.
useNodes('roce-one-subnet', 'ib8-storage', 'sandbox');

describe('healthy nodes', () => {
  it('8 RoCE rails, one subnet: nothing to say', () => {
    expect(findings('roce-one-subnet', '2.28.3')).toEqual([]);
  });
  it('the IB node restricted to its eight IB rails: nothing above info', () => {
    const fs = findings('ib8-storage', '2.28.3', { hca: '=mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_6,mlx5_7,mlx5_8,mlx5_9' });
    expect(above(fs)).toEqual([]);
    expect(one(fs, 'IB-009').severity).toBe('info');
  });
});

describe('order', () => {
  it('the list\'s order, per port in port order', () => {
    expect(ids(findings('sandbox', '2.25.1'))).toEqual(['IB-014:error', 'IB-012:warn', 'IB-011:warn', 'IB-011:warn', 'IB-036:warn', 'IB-028:info', 'IB-019:error', 'IB-019:error']);
    expect(ids(findings('sandbox', '2.28.3'))).toEqual(['IB-014:error', 'IB-012:warn', 'IB-011:warn', 'IB-011:warn', 'IB-036:warn', 'IB-038:warn', 'IB-019:info', 'IB-020:warn']);
  });
});
