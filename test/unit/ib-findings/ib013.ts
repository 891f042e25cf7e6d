import { describe, expect, it } from 'vitest';
import { LINKS, device, findings, fixText, one, rdmaSnapshot } from './helpers.js';

// IB-013: /dev/infiniband (or its device nodes) missing.
describe('IB-013', () => {
  const snap = (container: boolean, present: boolean) => rdmaSnapshot(LINKS, [device({ name: 'mlx5_0', uverbs: 'uverbs0' })], { rdma: { devInfiniband: { known: true, present, entries: [] }, container: { detected: container, evidence: container ? ['/.dockerenv'] : [] } } });
  it('in a container: expose the devices', () => {
    const f = one(findings(snap(true, false), '2.28.3'), 'IB-013');
    expect(f.severity).toBe('error');
    expect(f.message).toMatch(/^\/dev\/infiniband is missing, so NCCL cannot open mlx5_0.*\(this looks like a container/);
    expect(fixText(f)).toMatch(/--device=\/dev\/infiniband/);
  });
  it('on a host: load the RDMA stack; the directory there but the node missing says so', () => {
    const f = one(findings(snap(false, true), '2.28.3'), 'IB-013');
    expect(f.message).toMatch(/^Device nodes under \/dev\/infiniband are missing for mlx5_0/);
    expect(f.remediation.commands).toEqual([['modprobe', 'ib_uverbs'], ['modprobe', 'mlx5_ib']]);
  });
});
