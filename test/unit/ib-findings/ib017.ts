import { describe, expect, it } from 'vitest';
import { findings, fixText, one, useNodes } from './helpers.js';

// IB-017: no IP interface for the IB transport's OOB socket.
useNodes('roce-one-subnet');

describe('IB-017', () => {
  it('no interface matches NCCL_SOCKET_IFNAME: an error, whose fix names an interface with IPv4', () => {
    const f = one(findings('roce-one-subnet', '2.28.3', { set: { NCCL_SOCKET_IFNAME: '=nothing' } }), 'IB-017');
    expect(f.severity).toBe('error');
    expect(f.message).toMatch(/No IP interface found/);
    expect(fixText(f)).toMatch(/Give NCCL an interface with an IP address for its OOB socket[^\n]*\nexport NCCL_SOCKET_IFNAME='?=/);
  });
  it('an OOB interface: nothing', () => {
    expect(findings('roce-one-subnet', '2.28.3').some((f) => f.id === 'IB-017')).toBe(false);
  });
});
