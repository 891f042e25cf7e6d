import { describe, expect, it } from 'vitest';
import { findings, one, useNodes } from './helpers.js';
import { node } from './helpers.js';

// IB-034: a snapshot without its RDMA part.
useNodes('roce-one-subnet');

describe('IB-034', () => {
  it('an older snapshot: one warning, and nothing else is said about IB', () => {
    const { rdma: _, ...old } = node('roce-one-subnet');
    const fs = findings(old, '2.28.3');
    expect(one(fs, 'IB-034').severity).toBe('warn');
    expect(fs.map((f) => f.id)).toEqual(['IB-034']);
  });
  it('with the RDMA part: nothing', () => {
    expect(findings('roce-one-subnet', '2.28.3').some((f) => f.id === 'IB-034')).toBe(false);
  });
});
