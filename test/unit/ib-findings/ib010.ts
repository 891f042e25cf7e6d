import { describe, expect, it } from 'vitest';
import { LINKS, device, findings, fixText, one, rdmaSnapshot, useNodes } from './helpers.js';

// IB-010: rails at different rates, RoCE rails with different MTUs.
useNodes('roce-rail-subnets', 'roce-one-subnet');

describe('IB-010', () => {
  it('RoCE rails with different MTUs, with a pasteable ip link line', () => {
    const f = one(findings('roce-rail-subnets', '2.28.3'), 'IB-010');
    expect(f.message).toMatch(/netdev MTU 1500 → RoCE 1024 on mlx5_7:1 \(ens6f1np1\)/);
    expect(fixText(f)).toBe('ip link set dev ens6f1np1 mtu 9000');
  });
  it('rails at different rates: keep the largest group', () => {
    const s = rdmaSnapshot(LINKS, [device({ name: 'mlx5_0', ports: [{ rate: '400 Gb/sec (4X NDR)' }] }), device({ name: 'mlx5_1', ports: [{ rate: '400 Gb/sec (4X NDR)' }] }), device({ name: 'mlx5_2', ports: [{ rate: '200 Gb/sec (4X HDR)' }] })]);
    const f = one(findings(s, '2.28.3'), 'IB-010');
    expect(f.message).toMatch(/400 Gb\/s on mlx5_0:1, mlx5_1:1; 200 Gb\/s on mlx5_2:1/);
    expect(fixText(f)).toBe("export NCCL_IB_HCA='=mlx5_0:1,mlx5_1:1'");
  });
  it('equal rails: nothing', () => {
    const s = rdmaSnapshot(LINKS, [device({ name: 'mlx5_0' }), device({ name: 'mlx5_1' })]);
    expect(findings(s, '2.28.3').some((x) => x.id === 'IB-010')).toBe(false);
    expect(findings('roce-one-subnet', '2.28.3').some((x) => x.id === 'IB-010')).toBe(false);
  });
});
