import { describe, expect, it } from 'vitest';
import { findings, one, useNodes } from './helpers.js';

// IB-018: the IB transport keeps no port.
useNodes('efa', 'ib8-storage');

describe('IB-018', () => {
  it('EFA keeps nothing: an info (a net plugin may take over); with NCCL_NET=IB an error', () => {
    expect(one(findings('efa', '2.28.3'), 'IB-018').severity).toBe('info');
    const f = one(findings('efa', '2.28.3', { set: { NCCL_NET: 'IB' } }), 'IB-018');
    expect(f.severity).toBe('error');
    expect(f.message).toMatch(/NCCL WARNs "Failed to initialize any NET plugin"/);
    expect(one(findings('efa', '2.26.2', { set: { NCCL_NET: 'IB' } }), 'IB-018').message).toMatch(/"Error: network IB not found\."/);
  });
  it('an NCCL_IB_HCA that rejected the ports is IB-001\'s to say', () => {
    expect(findings('ib8-storage', '2.28.3', { hca: 'mlx_0' }).some((f) => f.id === 'IB-018')).toBe(false);
  });
});
