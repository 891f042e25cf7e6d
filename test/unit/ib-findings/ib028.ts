import { describe, expect, it } from 'vitest';
import { LINKS, device, findings, of, one, rdmaSnapshot, useNodes } from './helpers.js';

// IB-028: ports merged into one NCCL device, and merges NCCL_IB_MERGE_NICS=0 refuses.
useNodes('roce-rail-subnets', 'roce-one-subnet');

describe('IB-028', () => {
  const dual = () => rdmaSnapshot(LINKS, [device({ name: 'mlx5_0', bdf: '0000:17:00.0' }), device({ name: 'mlx5_1', bdf: '0000:17:00.1' })]);
  it('dual-port NICs fuse into one device, named with the NIC\'s PCI address', () => {
    const f = one(findings('roce-rail-subnets', '2.28.3'), 'IB-028');
    expect(f.message).toMatch(/^Ports that share a NIC are one NCCL network device: .*mlx5_0\+mlx5_1 \(0000:17:00\.0\)/);
    expect(f.remediation.env).toEqual({ NCCL_NET_MERGE_LEVEL: 'LOC' });
    // 2.20.3–2.23.x: the IB transport merges them; kept apart with NCCL_IB_MERGE_NICS=0.
    expect(one(findings(dual(), '2.23.4'), 'IB-028').remediation.env).toEqual({ NCCL_IB_MERGE_NICS: '0' });
  });
  it('NCCL_IB_MERGE_NICS=0: an error when the refusal ends the init (2.24.3–2.25.x), an info after', () => {
    const set = { NCCL_IB_MERGE_NICS: '0' };
    expect(of(findings(dual(), '2.25.1', { set }), 'IB-028').map((f) => f.severity)).toEqual(['error']);
    const after = one(findings(dual(), '2.27.3', { set }), 'IB-028');
    expect(after.severity).toBe('info');
    expect(after.message).toMatch(/NCCL logs "NET\/IB : Skipping makeVDevice, NCCL_IB_MERGE_NICS=0"/);
  });
  it('2.24.3–2.26.x make the vNIC where the topology never reads it: the ports stay separate', () => {
    expect(one(findings(dual(), '2.26.2'), 'IB-028').message).toMatch(/never reads: the ports stay separate NET devices/);
  });
  it('one port per NIC: nothing', () => {
    expect(findings('roce-one-subnet', '2.28.3').some((f) => f.id === 'IB-028')).toBe(false);
  });
});
