import { describe, expect, it } from 'vitest';
import { LINKS, device, findings, one, rdmaSnapshot, useNodes } from './helpers.js';

// IB-036: NICs off the PCI tree and the graph search's fallback to NET 0 (2.24.3–2.29.1).
useNodes('sandbox');

describe('IB-036', () => {
  it('2.27.3–2.29.1 fuse them on the first CPU: keep them apart', () => {
    expect(one(findings('sandbox', '2.28.3'), 'IB-036').remediation.env).toEqual({ NCCL_NET_MERGE_LEVEL: 'LOC' });
    expect(one(findings('sandbox', '2.29.1'), 'IB-036').message).toMatch(/fuses .* into one virtual NIC/);
  });
  it('2.24.3–2.26.x renumber every NET: no environment fix helps', () => {
    const f = one(findings('sandbox', '2.26.2'), 'IB-036');
    expect(f.message).toMatch(/renumbers every NET device after the physical ones/);
    expect(f.remediation.env).toBeUndefined();
  });
  it('fixed in 2.29.2; no vNICs before 2.24.3', () => {
    expect(findings('sandbox', '2.29.2').some((f) => f.id === 'IB-036')).toBe(false);
    expect(findings('sandbox', '2.24.2').some((f) => f.id === 'IB-036')).toBe(false);
  });
  it('one NIC off the PCI tree, nothing fused (2.27.3+): nothing', () => {
    const s = rdmaSnapshot(LINKS, [device({ name: 'mlx5_0', bdf: 'dir' }), device({ name: 'mlx5_1' })]);
    expect(findings(s, '2.28.3').some((f) => f.id === 'IB-036')).toBe(false);
  });
});
