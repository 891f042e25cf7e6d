import { describe, expect, it } from 'vitest';
import { findings, one, useNodes } from './helpers.js';

// IB-016: NCCL_IB_DISABLE is a C integer.
useNodes('roce-one-subnet');

describe('IB-016', () => {
  const at = (value: string) => findings('roce-one-subnet', '2.28.3', { set: { NCCL_IB_DISABLE: value } });
  it('`true` reads 0 and does not disable: set it to 1', () => {
    expect(one(at('true'), 'IB-016')).toMatchObject({ severity: 'warn', remediation: { env: { NCCL_IB_DISABLE: '1' } } });
  });
  it('1 disables while RDMA ports exist: an info whose fix unsets it', () => {
    const f = one(at('1'), 'IB-016');
    expect(f.severity).toBe('info');
    expect(f.message).toMatch(/NCCL uses TCP sockets although \d+ RDMA port\(s\) exist/);
    expect(f.remediation.env).toEqual({ NCCL_IB_DISABLE: null });
  });
  it('0 in any spelling, or empty, says nothing', () => {
    for (const v of ['0', '00', ' -0 ', '']) expect(at(v).map((f) => f.id), v).not.toContain('IB-016');
  });
});
