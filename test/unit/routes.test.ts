// Routes and rules as iproute2 prints them (src/model/linux/routes.ts): what a
// failed capture says, which routes are the main table's defaults, their
// devices and their address family. Each rule on both sides.

import { describe, expect, it } from 'vitest';
import { captureFailure, commandEvidence, defaultRouteLinks, isDefaultRoute, isMainTable, mainDefaults, routeDevs, routeFamily } from '../../src/model/linux/routes.js';
import type { Captured, IpRouteJson } from '../../src/model/snapshot/kernel-types.js';

const argv = ['ip', '-j', 'route', 'show', 'table', 'all'];

describe('captureFailure', () => {
  it('nothing for a capture that worked; else the command and why, by where it came from', () => {
    expect(captureFailure({ argv, record: 'r.json', from: 'live', ok: true, data: [] } as Captured<unknown>)).toBe('');
    expect(captureFailure({ argv, record: 'r.json', from: 'recorded', ok: false, error: 'commands/r.json: not recorded', missing: true } as Captured<unknown>)).toBe('`ip -j route show table all`: commands/r.json: not recorded');
    expect(captureFailure({ argv, record: 'r.json', from: 'live', ok: false, error: 'spawn ip ENOENT', missing: true } as Captured<unknown>)).toBe('`ip` is not installed (spawn ip ENOENT)');
    expect(captureFailure({ argv, record: 'r.json', from: 'live', ok: false, error: 'exit 1: RTNETLINK answers: Operation not permitted', missing: false } as Captured<unknown>)).toBe('`ip -j route show table all` failed: exit 1: RTNETLINK answers: Operation not permitted');
  });
});

describe('commandEvidence', () => {
  it('read from /proc because the tool is missing: the file is the evidence; else the command as typed', () => {
    expect(commandEvidence({ argv, from: 'proc', record: '/proc/net/route' }, 'x')).toEqual({ kind: 'file', source: '/proc/net/route (ip is not installed)', value: 'x' });
    expect(commandEvidence({ argv, from: 'live', record: '/proc/net/route' }, 'x')).toEqual({ kind: 'command', source: 'ip -j route show table all', value: 'x' });
  });
});

describe('tables, devices, families', () => {
  it('the main table: no table printed, or "main"; nothing else', () => {
    expect(isMainTable({})).toBe(true);
    expect(isMainTable({ table: 'main' })).toBe(true);
    expect(isMainTable({ table: 'local' })).toBe(false);
    expect(isMainTable({ table: '101' })).toBe(false);
  });

  it('a route sends through its device and every nexthop device, each once', () => {
    expect(routeDevs({ dst: 'default', dev: 'eth0' })).toEqual(['eth0']);
    expect(routeDevs({ dst: 'default', nexthops: [{ dev: 'eth0' }, { dev: 'eth1' }, { dev: 'eth0' }, { gateway: '10.0.0.1' }] })).toEqual(['eth0', 'eth1']);
    expect(routeDevs({ dst: 'default' })).toEqual([]);
  });

  it('the family comes from any address the route prints: IPv6 wins, then dotted quads; none is unknown', () => {
    expect(routeFamily({ dst: '10.0.0.0/24' })).toBe('AF_INET');
    expect(routeFamily({ dst: 'default', gateway: '10.0.0.1' })).toBe('AF_INET');
    expect(routeFamily({ dst: 'default', gateway: 'fe80::1' })).toBe('AF_INET6');
    expect(routeFamily({ dst: 'default', prefsrc: '2001:db8::5' })).toBe('AF_INET6');
    expect(routeFamily({ dst: 'default', nexthops: [{ gateway: '10.0.0.1' }] })).toBe('AF_INET');
    expect(routeFamily({ dst: 'default', nexthops: [{ gateway: 'fe80::1' }] })).toBe('AF_INET6');
    // One IPv6 address among IPv4 ones makes the route IPv6 (an IPv4-via-IPv6 gateway is an IPv4 route only in the kernel's view; ncclx reads what is printed).
    expect(routeFamily({ dst: '10.0.0.0/24', gateway: 'fe80::1' })).toBe('AF_INET6');
    expect(routeFamily({ dst: 'default', dev: 'wg0' })).toBeNull();
    expect(routeFamily({ dst: 'default' })).toBeNull();
    // "default" is no address, and a word is not a dotted quad.
    expect(routeFamily({ dst: 'default', gateway: 'gw.example' })).toBeNull();
    expect(routeFamily({ dst: 'x10.0.0.1' })).toBeNull();
    expect(routeFamily({ dst: '10.0.0' })).toBeNull();
    expect(routeFamily({ dst: '100.64.10.200/32' })).toBe('AF_INET');
  });

  it('a default route: default, 0.0.0.0/0 or ::/0, unicast only', () => {
    for (const dst of ['default', '0.0.0.0/0', '::/0']) {
      expect(isDefaultRoute({ dst })).toBe(true);
      expect(isDefaultRoute({ dst, type: 'unicast' })).toBe(true);
      expect(isDefaultRoute({ dst, type: 'unreachable' })).toBe(false);
    }
    expect(isDefaultRoute({ dst: '0.0.0.0/1' })).toBe(false);
    expect(isDefaultRoute({ dst: '10.0.0.0/8' })).toBe(false);
  });

  it('main-table defaults per device with their family; other tables and non-defaults left out', () => {
    const routes: IpRouteJson[] = [
      { dst: 'default', dev: 'eth0', gateway: '10.0.0.1' },
      { dst: 'default', dev: 'ens1', gateway: '10.1.0.1', table: '101' },
      { dst: '10.0.0.0/24', dev: 'eth0' },
      { dst: 'default', gateway: 'fe80::1', nexthops: [{ dev: 'eth0', gateway: 'fe80::1' }, { dev: 'eth1', gateway: 'fe80::2' }] },
      { dst: 'default', dev: 'wg0', table: 'main' },
    ];
    expect(mainDefaults(routes).map((d) => [d.dev, d.family])).toEqual([
      ['eth0', 'AF_INET'],
      ['eth0', 'AF_INET6'],
      ['eth1', 'AF_INET6'],
      ['wg0', null],
    ]);
    const links = defaultRouteLinks({ argv, record: 'r.json', from: 'live', ok: true, data: routes })!;
    expect([...links.keys()]).toEqual(['eth0', 'eth1', 'wg0']);
    expect([...links.get('eth0')!]).toEqual(['AF_INET', 'AF_INET6']);
    expect([...links.get('wg0')!]).toEqual([null]);
    expect(links.has('ens1')).toBe(false);
    // Routes not read: not known (null), unlike "no default route" (empty).
    expect(defaultRouteLinks({ argv, record: 'r.json', from: 'live', ok: false, error: 'x', missing: true })).toBeNull();
    expect(defaultRouteLinks(undefined)).toBeNull();
    expect(defaultRouteLinks({ argv, record: 'r.json', from: 'live', ok: true, data: [] })!.size).toBe(0);
  });
});
