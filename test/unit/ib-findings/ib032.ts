import { describe, expect, it } from 'vitest';
import { LINKS, device, findings, one, rdmaSnapshot } from './helpers.js';

// IB-032: NCCL_IB_MERGE_VFS folds different PCI devices onto one path (VMs).
describe('IB-032', () => {
  const vm = (env: Record<string, string> = {}) => rdmaSnapshot(LINKS, [device({ name: 'mlx5_0', bdf: '0000:00:05.0' }), device({ name: 'mlx5_1', bdf: '0000:00:06.0' })], { env });
  it('two cards at different device numbers on one bus fuse: set NCCL_IB_MERGE_VFS=0', () => {
    const f = one(findings(vm(), '2.28.3'), 'IB-032');
    expect(f.message).toMatch(/mlx5_0 \(0000:00:05\.0\), mlx5_1 \(0000:00:06\.0\) are different PCI devices/);
    expect(f.remediation.env).toEqual({ NCCL_IB_MERGE_VFS: '0' });
  });
  it('with NCCL_IB_MERGE_VFS=0, or before the variable (2.18.1), nothing', () => {
    expect(findings(vm({ NCCL_IB_MERGE_VFS: '0' }), '2.28.3').some((f) => f.id === 'IB-032')).toBe(false);
    expect(findings(vm(), '2.18.0').some((f) => f.id === 'IB-032')).toBe(false);
  });
});
