import { describe, expect, it } from 'vitest';
import { LINKS, device, findings, one, rdmaSnapshot } from './helpers.js';

// IB-039: NCCL_NET_FORCE_MERGE that cannot be honoured.
describe('IB-039', () => {
  const two = (force: string) => rdmaSnapshot(LINKS, [device({ name: 'mlx5_0' }), device({ name: 'mlx5_1' })], { env: { NCCL_NET_FORCE_MERGE: force } });
  it('a group naming a device that does not exist: initialisation fails', () => {
    const f = one(findings(two('mlx5_0;mlx5_9'), '2.28.3'), 'IB-039');
    expect(f.severity).toBe('error');
    expect(f.message).toMatch(/cannot be honoured: NCCL WARNs "TOPO\/NET : Only matched 0 devices, 1 requested from mlx5_9"/);
    expect(f.remediation.env).toEqual({ NCCL_NET_FORCE_MERGE: null });
  });
  it('a group that parses to no device name: initialisation hangs', () => {
    expect(one(findings(two('mlx5_0,mlx5_1;:1'), '2.28.3'), 'IB-039').message).toMatch(/the group ':1' parses to no device name.*hangs/);
  });
  it('a group NCCL can fuse: nothing', () => {
    expect(findings(two('mlx5_0,mlx5_1'), '2.28.3').some((f) => f.id === 'IB-039')).toBe(false);
  });
});
