import { describe, expect, it } from 'vitest';
import { findings, one, useNodes } from './helpers.js';

// IB-012: no GPUDirect RDMA peer-memory module this NCCL looks for.
useNodes('roce-one-subnet', 'sandbox');

describe('IB-012', () => {
  it('a loaded nvidia_peermem that NCCL < 2.23.4 does not look for; from 2.23.4 it is seen', () => {
    expect(one(findings('roce-one-subnet', '2.23.3'), 'IB-012').message).toMatch(/nvidia_peermem is loaded, but this NCCL only checks the memory_peers paths/);
    expect(findings('roce-one-subnet', '2.23.4').map((f) => f.id)).not.toContain('IB-012');
  });
  it('no module at all', () => {
    const f = one(findings('sandbox', '2.28.3'), 'IB-012');
    expect(f.severity).toBe('warn');
    expect(f.message).not.toMatch(/nvidia_peermem is loaded/);
  });
});
