import { describe, expect, it } from 'vitest';
import { device, findings, fixText, LINKS, one, rdmaSnapshot, useNodes } from './helpers.js';
import { workedTable } from '../../rdma/helpers.js';

// IB-005: NCCL_IB_GID_INDEX on a RoCE port points at an unusable or unexpected entry.
useNodes('roce-bond', 'roce-one-subnet');

describe('IB-005', () => {
  const at = (index: string, version = '2.28.3') => findings('roce-bond', version, { gidIndex: index, hca: '=mlx5_bond_0' });
  it('a link-local entry: the fix unsets it, NCCL picks the right one itself', () => {
    const f = one(at('1'), 'IB-005');
    expect(f.message).toMatch(/link-local GID .* NCCL's automatic choice would be 3/);
    expect(f.remediation.env).toEqual({ NCCL_IB_GID_INDEX: null });
    expect(fixText(f)).toMatch(/NCCL picks 3 itself\.\nunset NCCL_IB_GID_INDEX$/);
  });
  it('a RoCE v1 entry warns, an unset entry is an error, the right one says nothing', () => {
    expect(one(at('2'), 'IB-005').message).toMatch(/RoCE v1 GID/);
    expect(one(at('9'), 'IB-005').severity).toBe('error');
    expect(at('3').map((f) => f.id)).not.toContain('IB-005');
  });
  it('a valid RoCE v2 entry that is not the automatic choice is an info', () => {
    const s = rdmaSnapshot(LINKS, [device({ name: 'mlx5_0', ports: [{ gids: workedTable() }] })]);
    const f = one(findings(s, '2.28.3', { gidIndex: '5' }), 'IB-005');
    expect(f.severity).toBe('info');
    expect(f.message).toMatch(/192\.168\.1\.5, RoCE v2\); NCCL's automatic choice would be 3/);
  });
  it('before automatic selection (< 2.21.5) the fix pins the right index instead of unsetting', () => {
    expect(one(at('1', '2.20.5'), 'IB-005').remediation.env).toEqual({ NCCL_IB_GID_INDEX: '3' });
  });
});
