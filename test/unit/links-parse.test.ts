import { describe, expect, it } from 'vitest';
import { parseIpAddrJson } from '../../src/probe/links.js';

// Shaped like `ip -j -d addr show` from iproute2 6.x.
const sample = JSON.stringify([
  { ifindex: 1, ifname: 'lo', flags: ['LOOPBACK', 'UP', 'LOWER_UP'], mtu: 65536, operstate: 'UNKNOWN', link_type: 'loopback', address: '00:00:00:00:00:00',
    addr_info: [{ family: 'inet', local: '127.0.0.1', prefixlen: 8, scope: 'host', label: 'lo' }, { family: 'inet6', local: '::1', prefixlen: 128, scope: 'host' }] },
  { ifindex: 3, ifname: 'eth0', flags: ['BROADCAST', 'MULTICAST', 'UP', 'LOWER_UP'], mtu: 1500, operstate: 'UP', link_type: 'ether', address: '02:00:00:00:00:01', linkinfo: { info_kind: 'veth' }, master: 'br0',
    addr_info: [
      { family: 'inet6', local: 'fe80::1', prefixlen: 64, scope: 'link' },
      { family: 'inet', local: '10.0.0.5', prefixlen: 24, scope: 'global', label: 'eth0' },
      { family: 'inet', local: '10.0.0.6', prefixlen: 24, scope: 'global', secondary: true, label: 'eth0:1' },
    ] },
  { ifindex: 2, ifname: 'ib0', flags: ['BROADCAST', 'MULTICAST', 'UP', 'NO-CARRIER'], mtu: 2044, operstate: 'DOWN', link_type: 'infiniband',
    addr_info: [{ family: 'inet', local: '192.168.1.5', prefixlen: 24, scope: 'global', label: 'ib0' }] },
]);

describe('ip -j addr → getifaddrs() view', () => {
  const net = parseIpAddrJson(sample);
  it('RUNNING is UP without NO-CARRIER', () => {
    expect(net.links.find((l) => l.name === 'eth0')!.flags).toContain('RUNNING');
    expect(net.links.find((l) => l.name === 'lo')!.flags).toContain('RUNNING');
    const ib = net.links.find((l) => l.name === 'ib0')!;
    expect(ib.flags).toContain('UP');
    expect(ib.flags).not.toContain('RUNNING');
    expect(ib.flags).not.toContain('NO-CARRIER' as never);
  });
  it('all IPv4 of all links by ifindex, then all IPv6; labels become names', () => {
    expect(net.addresses.map((a) => `${a.name}:${a.address}`)).toEqual([
      'lo:127.0.0.1', 'ib0:192.168.1.5', 'eth0:10.0.0.5', 'eth0:1:10.0.0.6', 'lo:::1', 'eth0:fe80::1',
    ]);
  });
  it('link-local IPv6 carries the ifindex as scope id; kind, master, flags kept', () => {
    const ll = net.addresses.find((a) => a.address === 'fe80::1')!;
    expect(ll.scopeId).toBe(3);
    expect(net.addresses.find((a) => a.address === '::1')!.scopeId).toBe(0);
    expect(net.addresses.find((a) => a.address === '10.0.0.6')!.flags).toEqual(['secondary']);
    expect(net.links.find((l) => l.name === 'eth0')).toMatchObject({ kind: 'veth', master: 'br0', mtu: 1500, operstate: 'UP' });
  });
});
