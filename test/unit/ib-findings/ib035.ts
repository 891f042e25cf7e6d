import { describe, expect, it } from 'vitest';
import { findings, fixText, one, useNodes } from './helpers.js';

// IB-035: a virtual NIC across point-to-point subnets (direct-connect meshes).
useNodes('roce-rail-subnets', 'mesh-direct');

describe('IB-035', () => {
  it('mesh cables (/30) fused into one vNIC: keep them apart; 2.30.7 also offers subnet-aware routing', () => {
    const mesh = one(findings('mesh-direct', '2.28.3'), 'IB-035');
    expect(mesh.message).toMatch(/10\.0\.12\.0\/30: rocep1s0f0:1; 10\.0\.13\.0\/30: rocep1s0f1:1/);
    expect(fixText(mesh)).toMatch(/^export NCCL_NET_MERGE_LEVEL=LOC/);
    expect(mesh.remediation.advice).toBeUndefined();
    expect(one(findings('mesh-direct', '2.30.7'), 'IB-035').remediation.advice).toMatch(/NCCL_IB_SUBNET_AWARE_ROUTING=1/);
  });
  it('rail subnets larger than /30 fuse fine; before core vNICs (2.24.3) there is nothing fused', () => {
    expect(findings('roce-rail-subnets', '2.28.3').map((f) => f.id)).not.toContain('IB-035');
    expect(findings('mesh-direct', '2.23.4').map((f) => f.id)).not.toContain('IB-035');
  });
});
