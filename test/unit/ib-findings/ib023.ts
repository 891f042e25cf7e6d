import { describe, expect, it } from 'vitest';
import { LINKS, device, findings, one, rdmaSnapshot } from './helpers.js';

// IB-023: more ports than MAX_IB_DEVS (16 before 2.18.5, 32 from it).
describe('IB-023', () => {
  const ports = (n: number) => rdmaSnapshot(LINKS, Array.from({ length: n }, (_, i) => device({ name: `mlx5_${i}`, bdf: `0000:${(0x10 + i).toString(16)}:00.0` })));
  it('20 ports on 2.18.3: the last four are ignored', () => {
    expect(one(findings(ports(20), '2.18.3'), 'IB-023').message).toMatch(/MAX_IB_DEVS=16.*mlx5_16:1, mlx5_17:1, mlx5_18:1, mlx5_19:1/);
  });
  it('16 ports on 2.18.3 fit; 17 do not; 20 fit from 2.18.5', () => {
    expect(findings(ports(16), '2.18.3').some((f) => f.id === 'IB-023')).toBe(false);
    expect(one(findings(ports(17), '2.18.3'), 'IB-023').message).toMatch(/ignores mlx5_16:1$/);
    expect(findings(ports(20), '2.18.5').some((f) => f.id === 'IB-023')).toBe(false);
  });
});
