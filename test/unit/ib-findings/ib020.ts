import { describe, expect, it } from 'vitest';
import { findings, fixText, one, useNodes } from './helpers.js';

// IB-020: a GID choice that depends on a value NCCL never read.
useNodes('sandbox');

describe('IB-020', () => {
  it('the candidates and the one to pin', () => {
    const f = one(findings('sandbox', '2.28.3'), 'IB-020');
    expect(f.message).toMatch(/mlx5_1:1 \(net2\).*ends at 2 or 7/);
    expect(fixText(f)).toBe('export NCCL_IB_GID_INDEX=7');
  });
  it('an explicit index makes it determinate', () => {
    expect(findings('sandbox', '2.28.3', { gidIndex: '7' }).some((f) => f.id === 'IB-020')).toBe(false);
  });
});
