import { describe, expect, it } from 'vitest';
import { findings, one, useNodes } from './helpers.js';
import { ibModel } from '../../../src/model/nccl/ib-report.js';
import { node } from './helpers.js';

// IB-021: the NCCL version was assumed.
useNodes('roce-one-subnet');

describe('IB-021', () => {
  it('no library and no --nccl-version: assumed, said as an info', () => {
    expect(one(ibModel(node('roce-one-subnet')).report.findings, 'IB-021').severity).toBe('info');
  });
  it('a version given: nothing', () => {
    expect(findings('roce-one-subnet', '2.28.3').some((f) => f.id === 'IB-021')).toBe(false);
  });
});
