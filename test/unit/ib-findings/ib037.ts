import { describe, expect, it } from 'vitest';
import { LINKS, device, findings, one, rdmaSnapshot } from './helpers.js';

// IB-037: a fused NIC NCCL cannot place (NCCL_NET_MERGE_LEVEL across CPUs, from 2.30.7).
describe('IB-037', () => {
  const twoCpus = () => {
    const a = device({ name: 'mlx5_0' });
    const b = device({ name: 'mlx5_1' });
    (b.pci as { numaNode: string }).numaNode = '1';
    return rdmaSnapshot(LINKS, [a, b], { env: { NCCL_NET_MERGE_LEVEL: 'SYS' } });
  };
  it('SYS over two CPUs on 2.30.7: initialisation fails; unset the level', () => {
    const f = one(findings(twoCpus(), '2.30.7'), 'IB-037');
    expect(f.severity).toBe('error');
    expect(f.message).toMatch(/^NCCL_NET_MERGE_LEVEL=SYS fuses mlx5_0:1 and mlx5_1:1 into a virtual NIC that NCCL 2\.30\.7 cannot place/);
    expect(f.remediation.env).toEqual({ NCCL_NET_MERGE_LEVEL: null });
  });
  it('before 2.30.7 the vNIC is placed where it is never read (IB-038), not refused', () => {
    expect(findings(twoCpus(), '2.30.4').some((f) => f.id === 'IB-037')).toBe(false);
  });
});
