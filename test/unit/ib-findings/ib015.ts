import { describe, expect, it } from 'vitest';
import { LINKS, device, findings, fixText, of, one, rdmaSnapshot, useNodes } from './helpers.js';

// IB-015: InfiniBand and RoCE ports together.
useNodes('ib8-storage');

describe('IB-015', () => {
  it('kept together: restrict to the majority link layer', () => {
    const f = one(findings('ib8-storage', '2.28.3'), 'IB-015');
    expect(f.severity).toBe('warn');
    expect(fixText(f)).toBe("export NCCL_IB_HCA='=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_6:1,mlx5_7:1,mlx5_8:1,mlx5_9:1'");
  });
  it('a tie keeps InfiniBand; one more RoCE port keeps RoCE', () => {
    const ib = (name: string) => device({ name, ports: [{ ll: 'InfiniBand' }] });
    const tie = one(findings(rdmaSnapshot(LINKS, [ib('mlx5_0'), device({ name: 'mlx5_1' })]), '2.28.3'), 'IB-015');
    expect(tie.remediation.env).toEqual({ NCCL_IB_HCA: '=mlx5_0:1' });
    const roce = one(findings(rdmaSnapshot(LINKS, [ib('mlx5_0'), device({ name: 'mlx5_1' }), device({ name: 'mlx5_2' })]), '2.28.3'), 'IB-015');
    expect(roce.remediation.env).toEqual({ NCCL_IB_HCA: '=mlx5_1:1,mlx5_2:1' });
  });
  it('one NIC\'s InfiniBand and RoCE ports: before 2.26.2 the refused merge ends the init (error); from 2.26.2 the warning above', () => {
    const vpi = rdmaSnapshot(LINKS, [device({ name: 'mlx5_0', bdf: '0000:17:00.0', ports: [{ ll: 'InfiniBand' }] }), device({ name: 'mlx5_1', bdf: '0000:17:00.1' })]);
    expect(of(findings(vpi, '2.25.1'), 'IB-015').map((f) => f.severity)).toEqual(['error']);
    expect(of(findings(vpi, '2.25.1'), 'IB-015')[0]!.message).toMatch(/mix InfiniBand and RoCE: NCCL WARNs "NET\/IB : Trying to merge/);
    expect(of(findings(vpi, '2.26.2'), 'IB-015').map((f) => f.severity)).toEqual(['warn']);
  });
  it('one link layer: nothing', () => {
    expect(findings('ib8-storage', '2.28.3', { hca: '=mlx5_0,mlx5_1' }).some((f) => f.id === 'IB-015')).toBe(false);
  });
});
