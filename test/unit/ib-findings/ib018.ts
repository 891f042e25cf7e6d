import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSnapshot } from '../../../src/probe/snapshot-file.js';
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
  it('a node with no RDMA device at all: nothing to say, unless NCCL_NET=IB, which fails as NCCL 2.28.9 failed on that real node', () => {
    const dir = join(__dirname, '../../device/h200-vm');
    const vm = loadSnapshot(join(dir, 'snapshot-host.json'));
    expect(findings(vm, '2.28.9').some((f) => f.id === 'IB-018')).toBe(false);
    expect(findings(vm, '2.28.9', { set: { NCCL_NET: 'Socket' } }).some((f) => f.id === 'IB-018')).toBe(false);
    const f = one(findings(vm, '2.28.9', { set: { NCCL_NET: 'IB' } }), 'IB-018');
    expect(f.severity).toBe('error');
    // The job run there with NCCL_NET=IB: its WARN is the one the finding names.
    const warn = /NCCL WARN (.*)$/m.exec(readFileSync(join(dir, 'job-net-ib.txt'), 'utf8'))![1]!;
    expect(f.message).toContain(`NCCL WARNs "${warn}"`);
  });
  it('an NCCL_IB_HCA that rejected the ports is IB-001\'s to say', () => {
    expect(findings('ib8-storage', '2.28.3', { hca: 'mlx_0' }).some((f) => f.id === 'IB-018')).toBe(false);
  });
});
