import { describe, expect, it } from 'vitest';
import { LINKS, device, findings, of, one, rdmaSnapshot } from './helpers.js';

// IB-038: a fused NIC placed where NCCL's topology never reads it (from 2.27.3 its ports are dropped too).
describe('IB-038', () => {
  const offPci = () => rdmaSnapshot(LINKS, [device({ name: 'mlx5_0', bdf: 'dir' }), device({ name: 'mlx5_1', bdf: 'dir' })]);
  it('NICs off the PCI tree fused in a nested <nic>: keep them apart', () => {
    const f = one(findings(offPci(), '2.28.3'), 'IB-038');
    expect(f.message).toMatch(/mlx5_0\+mlx5_1 .*nested in the members' <nic>/);
    expect(f.remediation.env).toEqual({ NCCL_NET_MERGE_LEVEL: 'LOC' });
  });
  it('2.24.3–2.26.x keep the ports as NETs: IB-028\'s info instead', () => {
    const fs = findings(offPci(), '2.26.2');
    expect(fs.some((f) => f.id === 'IB-038')).toBe(false);
    expect(of(fs, 'IB-028').some((f) => /never reads/.test(f.message))).toBe(true);
  });
});
