// The main-table lookup ncclx falls back to when `ip route get` cannot run
// (src/model/linux/route-lookup.ts): a local address goes through lo, else the
// longest matching prefix of the main table, then the lowest metric, then the
// kernel's listing order. Each rule on both sides of its boundary.

import { describe, expect, it } from 'vitest';
import { mainTableLookup } from '../../src/model/linux/route-lookup.js';
import type { IpRouteJson } from '../../src/model/snapshot/kernel-types.js';
import type { AddressInfo } from '../../src/model/snapshot/types.js';

const addr = (address: string, link = 'eth0'): AddressInfo => ({
  name: link,
  link,
  ifindex: 2,
  family: address.includes(':') ? 'AF_INET6' : 'AF_INET',
  address,
  prefixlen: address.includes(':') ? 64 : 24,
  scope: 'global',
  scopeId: 0,
  flags: [],
});

const look = (routes: IpRouteJson[], target: string, addrs: AddressInfo[] = []) => mainTableLookup(routes, addrs, target);

describe('mainTableLookup', () => {
  it('a target that is not an address has no route', () => {
    expect(look([{ dst: 'default', dev: 'eth0', gateway: '10.0.0.1' }], 'rank0.example')).toBeNull();
    expect(look([{ dst: 'default', dev: 'eth0', gateway: 'fe80::1' }], 'fe80::zz')).toBeNull();
  });

  it("one of the node's own addresses goes through lo (type local), whatever the routes say", () => {
    const routes: IpRouteJson[] = [{ dst: '10.0.0.0/24', dev: 'eth0', prefsrc: '10.0.0.5' }];
    expect(look(routes, '10.0.0.5', [addr('10.0.0.5')])).toEqual({ type: 'local', dev: 'lo' });
    // Another address of the same subnet is not local: the subnet route answers.
    expect(look(routes, '10.0.0.6', [addr('10.0.0.5')])).toEqual({ type: 'unicast', dev: 'eth0' });
  });

  it('a prefix covers exactly its addresses: /24 takes .0 to .255, not the next network', () => {
    const routes: IpRouteJson[] = [{ dst: '10.0.3.0/24', dev: 'eth1', prefsrc: '10.0.3.5' }];
    expect(look(routes, '10.0.3.0')?.dev).toBe('eth1');
    expect(look(routes, '10.0.3.255')?.dev).toBe('eth1');
    expect(look(routes, '10.0.4.0')).toBeNull();
    expect(look(routes, '10.0.2.255')).toBeNull();
  });

  it('a route without a length is a host route (/32, /128)', () => {
    expect(look([{ dst: '10.0.0.9', dev: 'eth1' }], '10.0.0.9')?.dev).toBe('eth1');
    expect(look([{ dst: '10.0.0.9', dev: 'eth1' }], '10.0.0.8')).toBeNull();
    expect(look([{ dst: '2001:db8::9', dev: 'eth1' }], '2001:db8::9')?.dev).toBe('eth1');
    expect(look([{ dst: '2001:db8::9', dev: 'eth1' }], '2001:db8::8')).toBeNull();
  });

  it('the default route matches everything of its family, with its gateway', () => {
    expect(look([{ dst: 'default', dev: 'eth0', gateway: '10.0.0.1' }], '192.0.2.7')).toEqual({ type: 'unicast', dev: 'eth0', gateway: '10.0.0.1' });
    expect(look([{ dst: 'default', dev: 'eth0', gateway: 'fe80::1' }], '2001:db8::7')).toEqual({ type: 'unicast', dev: 'eth0', gateway: 'fe80::1' });
    // An IPv6 default does not route an IPv4 target, nor the other way round.
    expect(look([{ dst: 'default', dev: 'eth0', gateway: 'fe80::1' }], '192.0.2.7')).toBeNull();
    expect(look([{ dst: 'default', dev: 'eth0', gateway: '10.0.0.1' }], '2001:db8::7')).toBeNull();
  });

  it('a device-only default (no address printed: family unknown) serves both families', () => {
    expect(look([{ dst: 'default', dev: 'wg0' }], '192.0.2.7')).toEqual({ type: 'unicast', dev: 'wg0' });
    expect(look([{ dst: 'default', dev: 'wg0' }], '2001:db8::7')).toEqual({ type: 'unicast', dev: 'wg0' });
  });

  it('the longest prefix wins, in either listing order', () => {
    const wide: IpRouteJson = { dst: '10.0.0.0/16', dev: 'eth0', prefsrc: '10.0.0.5' };
    const narrow: IpRouteJson = { dst: '10.0.3.0/24', dev: 'eth1', prefsrc: '10.0.3.5' };
    expect(look([wide, narrow], '10.0.3.9')?.dev).toBe('eth1');
    expect(look([narrow, wide], '10.0.3.9')?.dev).toBe('eth1');
    // Outside the narrow one, the wide one still answers.
    expect(look([narrow, wide], '10.0.4.9')?.dev).toBe('eth0');
  });

  it('equal prefixes: the lowest metric wins (no metric is 0); equal metrics keep the first listed', () => {
    const a: IpRouteJson = { dst: '10.0.0.0/24', dev: 'eth0', metric: 100, prefsrc: '10.0.0.5' };
    const b: IpRouteJson = { dst: '10.0.0.0/24', dev: 'eth1', metric: 50, prefsrc: '10.0.0.6' };
    expect(look([a, b], '10.0.0.9')?.dev).toBe('eth1');
    expect(look([b, a], '10.0.0.9')?.dev).toBe('eth1');
    const none: IpRouteJson = { dst: '10.0.0.0/24', dev: 'eth2', prefsrc: '10.0.0.7' };
    expect(look([a, none], '10.0.0.9')?.dev).toBe('eth2');
    expect(look([none, a], '10.0.0.9')?.dev).toBe('eth2');
    const a2: IpRouteJson = { ...a, dev: 'eth3' };
    expect(look([a, a2], '10.0.0.9')?.dev).toBe('eth0');
    expect(look([a2, a], '10.0.0.9')?.dev).toBe('eth3');
  });

  it('a host route beats a subnet route listed before it; a shorter prefix never wins on metric', () => {
    expect(look([{ dst: '10.0.0.0/24', dev: 'eth0' }, { dst: '10.0.0.9', dev: 'eth1' }], '10.0.0.9')?.dev).toBe('eth1');
    expect(look([{ dst: '10.0.0.0/24', dev: 'eth0', metric: 100 }, { dst: '10.0.0.0/16', dev: 'eth1', metric: 1 }], '10.0.0.9')?.dev).toBe('eth0');
  });

  it('only main-table unicast routes with a device count', () => {
    const main: IpRouteJson = { dst: '10.0.0.0/16', dev: 'eth0', prefsrc: '10.0.0.5' };
    const other = (r: IpRouteJson) => look([main, r], '10.0.3.9')?.dev;
    expect(other({ dst: '10.0.3.0/24', dev: 'eth1', table: '101' })).toBe('eth0');
    expect(other({ dst: '10.0.3.0/24', dev: 'eth1', table: 'main' })).toBe('eth1');
    expect(other({ dst: '10.0.3.0/24', dev: 'eth1', type: 'blackhole' })).toBe('eth0');
    expect(other({ dst: '10.0.3.0/24', dev: 'eth1', type: 'unicast' })).toBe('eth1');
    expect(other({ dst: '10.0.3.0/24', type: 'unicast', nexthops: [{ dev: 'eth1' }] })).toBe('eth0');
    // A gateway is reported only where the route has one.
    expect(look([main], '10.0.3.9')).toEqual({ type: 'unicast', dev: 'eth0' });
  });

  it('a route whose destination cannot be read is skipped', () => {
    expect(look([{ dst: 'not-an-address/24', dev: 'eth1' }, { dst: 'default', dev: 'eth0', gateway: '10.0.0.1' }], '10.0.3.9')?.dev).toBe('eth0');
  });
});
