import { describe, expect, it } from 'vitest';
import { findings, fixText, of, one, useNodes } from './helpers.js';

// IB-026: the GID selection variables.
useNodes('roce-one-subnet');

describe('IB-026', () => {
  const at = (set: Record<string, string>, version = '2.28.3') => of(findings('roce-one-subnet', version, { set }), 'IB-026');
  it('a family NCCL does not recognise: the nearest spelling', () => {
    expect(fixText(one(at({ NCCL_IB_ADDR_FAMILY: 'inet6' }), 'IB-026'))).toBe('export NCCL_IB_ADDR_FAMILY=AF_INET6');
    expect(fixText(one(at({ NCCL_IB_ADDR_FAMILY: 'ipv4' }), 'IB-026'))).toBe('export NCCL_IB_ADDR_FAMILY=AF_INET');
    expect(at({ NCCL_IB_ADDR_FAMILY: 'AF_INET6' })).toEqual([]);
  });
  it('a range NCCL ignores, with its INFO line', () => {
    expect(one(at({ NCCL_IB_ADDR_RANGE: '10.0.0/8' }), 'IB-026').message).toMatch(/INFO "NET\/IB: Ip address '10\.0\.0' is invalid/);
    expect(at({ NCCL_IB_ADDR_RANGE: '10.0.0.0/8' })).toEqual([]);
  });
  it('a RoCE version other than 1 or 2', () => {
    expect(one(at({ NCCL_IB_ROCE_VERSION_NUM: '3' }), 'IB-026').message).toMatch(/RoCE v1 GID/);
    expect(at({ NCCL_IB_ROCE_VERSION_NUM: '1' })).toEqual([]);
    expect(at({ NCCL_IB_ROCE_VERSION_NUM: '2' })).toEqual([]);
  });
  it('before 2.21.5 the variables are ignored: an info, one line for all', () => {
    const [f] = at({ NCCL_IB_ADDR_FAMILY: 'AF_INET6', NCCL_IB_ROCE_VERSION_NUM: '3' }, '2.21.4');
    expect(f!.severity).toBe('info');
    expect(f!.message).toMatch(/^NCCL_IB_ADDR_FAMILY, NCCL_IB_ROCE_VERSION_NUM are ignored by NCCL 2\.21\.4/);
    expect(at({ NCCL_IB_ADDR_FAMILY: 'AF_INET6' }, '2.21.5')).toEqual([]);
  });
});
