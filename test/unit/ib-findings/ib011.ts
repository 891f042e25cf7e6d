import { describe, expect, it } from 'vitest';
import { LINKS, device, findings, fixText, one, rdmaSnapshot, useNodes } from './helpers.js';

// IB-011: an RDMA device whose `device` link is not a PCI function.
useNodes('sandbox', 'roce-one-subnet');

describe('IB-011', () => {
  it('plain directories (a container\'s /sys): a warning per device, folded to a path that is not a PCI device', () => {
    const pci = findings('sandbox', '2.28.3').filter((f) => f.id === 'IB-011');
    expect(pci).toHaveLength(2);
    expect(pci[0]!.severity).toBe('warn');
    expect(pci[0]!.message).toMatch(/a plain directory.*de00c0.*is not a PCI device \(\)/);
    expect(fixText(pci[0])).toMatch(/real \/sys/);
  });
  it('a device link missing from a partial capture is only an info', () => {
    const s = rdmaSnapshot(LINKS, [device({ name: 'mlx5_0', bdf: null })]);
    expect(one(findings(s, '2.28.3'), 'IB-011').severity).toBe('info');
  });
  it('PCI symlinks: nothing', () => {
    expect(findings('roce-one-subnet', '2.28.3').some((f) => f.id === 'IB-011')).toBe(false);
  });
});
