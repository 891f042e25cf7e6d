import { describe, expect, it } from 'vitest';
import { findings, fixText, useNodes } from './helpers.js';

// IB-001: NCCL_IB_HCA matches nothing (an entry, or the whole value).
useNodes('ib8-storage', 'roce-bond');

describe('IB-001', () => {
  it('matches nothing → error, with NCCL\'s log line and the silent TCP fallback', () => {
    const fs = findings('ib8-storage', '2.28.3', { hca: 'mlx_0' });
    const f = fs.find((x) => x.id === 'IB-001' && x.severity === 'error')!;
    expect(f.message).toMatch(/keeps no port .* "NET\/IB : No device found\." and silently falls back to TCP sockets/);
    expect(fixText(f)).toMatch(/^export NCCL_IB_HCA=/);
    expect(fs.find((x) => x.id === 'IB-001' && x.severity === 'warn')!.message).toMatch(/'mlx_0'.* matches no RDMA device/);
  });
  it('`^` alone excludes everything: a warning whose fix disables IB explicitly; `^` with an entry is an exclusion list', () => {
    const f = findings('ib8-storage', '2.28.3', { hca: '^' }).find((x) => x.id === 'IB-001')!;
    expect(f.severity).toBe('warn');
    expect(fixText(f)).toBe('export NCCL_IB_DISABLE=1');
    // An entry of an exclusion list that names nothing excludes nothing: only an info.
    expect(findings('ib8-storage', '2.28.3', { hca: '^mlx_9' }).filter((x) => x.id === 'IB-001').map((x) => x.severity)).toEqual(['info']);
  });
  it('with NCCL_NET=IB the empty selection fails initialisation', () => {
    expect(findings('ib8-storage', '2.28.3', { hca: 'mlx_0', set: { NCCL_NET: 'IB' } }).find((x) => x.id === 'IB-001' && x.severity === 'error')!.message).toMatch(/initialisation fails because NCCL_NET=IB/);
  });
  it('names the bond when a member\'s name is used', () => {
    const miss = findings('roce-bond', '2.28.3', { hca: 'mlx5_0' });
    expect(miss.find((x) => x.id === 'IB-001' && x.severity === 'warn')!.message).toMatch(/this node has mlx5_bond_0 \(bond of ens1f0np0\+ens1f1np1\)/);
  });
  it('an entry that matches a device raises nothing', () => {
    expect(findings('ib8-storage', '2.28.3', { hca: 'mlx5_0' }).some((x) => x.id === 'IB-001')).toBe(false);
  });
});
