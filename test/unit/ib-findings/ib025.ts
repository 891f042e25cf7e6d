import { describe, expect, it } from 'vitest';
import { findings, one, useNodes } from './helpers.js';

// IB-025: IB integer variables that C parsing reads otherwise than written.
useNodes('roce-one-subnet');

describe('IB-025', () => {
  it('a leading zero is octal', () => {
    const f = one(findings('roce-one-subnet', '2.28.3', { gidIndex: '010' }), 'IB-025');
    expect(f.message).toMatch(/octal/);
    expect(f.remediation.env).toEqual({ NCCL_IB_GID_INDEX: '8' });
  });
  it('a plain number, or none, says nothing', () => {
    expect(findings('roce-one-subnet', '2.28.3', { gidIndex: '3' }).some((f) => f.id === 'IB-025')).toBe(false);
    expect(findings('roce-one-subnet', '2.28.3').some((f) => f.id === 'IB-025')).toBe(false);
  });
});
