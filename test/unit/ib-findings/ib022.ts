import { describe, expect, it } from 'vitest';
import { LINKS, device, findings, one, rdmaSnapshot, useNodes } from './helpers.js';

// IB-022: link layers NCCL's IB transport does not keep.
useNodes('efa');

describe('IB-022', () => {
  it('EFA: use aws-ofi-nccl', () => {
    expect(one(findings('efa', '2.28.3'), 'IB-022').message).toMatch(/aws-ofi-nccl/);
  });
  it('another link layer: the vendor\'s plugin', () => {
    const s = rdmaSnapshot(LINKS, [device({ name: 'qedr0', ports: [{ ll: 'Unspecified' }] })]);
    const f = one(findings(s, '2.28.3'), 'IB-022');
    expect(f.message).not.toMatch(/aws-ofi-nccl/);
    expect(f.remediation.advice).toMatch(/vendor's NCCL net plugin/);
  });
});
