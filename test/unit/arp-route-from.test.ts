// The routing lookup arp_filter and rp_filter make (src/model/linux/arp.ts
// routeFrom): rules in priority order, their selectors, actions and tables,
// then each table by longest prefix and metric. Each rule on both sides.

import { describe, expect, it } from 'vitest';
import { arpSettings, effectiveValue, policyRoutingCommands, routeDecisions, routeFrom } from '../../src/model/linux/arp.js';
import type { IpRouteJson, IpRuleJson } from '../../src/model/snapshot/kernel-types.js';
import type { AddressInfo } from '../../src/model/snapshot/types.js';
import { link, snapshotOf } from './helpers.js';
import { failed, kernelPart } from './kernel-fixtures.js';

const SRC: AddressInfo = { name: 'ens1', link: 'ens1', ifindex: 2, family: 'AF_INET', address: '10.0.0.1', prefixlen: 24, scope: 'global', scopeId: 0, flags: [] };
// A literal, not parseV4Prefix: code run while tests are collected counts as module-level (static) for Stryker.
const SUBNET = { bytes: Uint8Array.from([10, 0, 0, 0]), len: 24 };
const ROUTES: IpRouteJson[] = [
  { dst: '10.0.0.0/24', dev: 'eth9' },
  { dst: '10.0.0.0/24', dev: 'ens1', table: '101' },
  { dst: '10.0.0.0/24', dev: 'ens2', table: '102' },
];
const MAIN: IpRuleJson = { priority: 32766, src: 'all', table: 'main' };
const dev = (rules: IpRuleJson[], routes: IpRouteJson[] = ROUTES) => routeFrom(rules, routes, SRC, SUBNET).dev;

describe('routeFrom: rules', () => {
  it('rules in priority order, whatever the listing order (no priority is 0)', () => {
    expect(dev([MAIN, { priority: 100, src: 'all', table: '101' }])).toBe('ens1');
    expect(dev([{ priority: 100, src: 'all', table: '101' }, MAIN])).toBe('ens1');
    expect(dev([{ priority: 200, table: '102' }, { table: '101' }])).toBe('ens1');
    expect(dev([{ priority: 5, table: '102' }, { priority: 10, table: '101' }])).toBe('ens2');
  });

  it('from: the source address inside the rule\'s prefix (a plain address is /32); all or none matches everything', () => {
    expect(dev([{ priority: 1, src: '10.0.0.1', table: '101' }, MAIN])).toBe('ens1');
    expect(dev([{ priority: 1, src: '10.0.0.2', table: '101' }, MAIN])).toBe('eth9');
    expect(dev([{ priority: 1, src: '10.0.0.0', srclen: 24, table: '101' }, MAIN])).toBe('ens1');
    expect(dev([{ priority: 1, src: '10.0.1.0', srclen: 24, table: '101' }, MAIN])).toBe('eth9');
    expect(dev([{ priority: 1, src: '10.0.0.0', table: '101' }, MAIN])).toBe('eth9');
    expect(dev([{ priority: 1, table: '101' }, MAIN])).toBe('ens1');
  });

  it('to: the peer subnet inside the rule\'s prefix (a plain address is /32); all matches everything', () => {
    expect(dev([{ priority: 1, dst: '10.0.0.0', dstlen: 16, table: '101' } as IpRuleJson, MAIN])).toBe('ens1');
    expect(dev([{ priority: 1, dst: '10.1.0.0', dstlen: 16, table: '101' } as IpRuleJson, MAIN])).toBe('eth9');
    expect(dev([{ priority: 1, dst: '10.0.0.0', table: '101' } as IpRuleJson, MAIN])).toBe('eth9');
    expect(dev([{ priority: 1, dst: 'all', table: '101' } as IpRuleJson, MAIN])).toBe('ens1');
  });

  it('negated rules and rules with selectors the lookup cannot know are passed over', () => {
    expect(dev([{ priority: 1, not: true, table: '101' } as IpRuleJson, MAIN])).toBe('eth9');
    for (const sel of ['iif', 'oif', 'fwmark', 'ipproto', 'sport', 'dport', 'tos', 'dsfield', 'uidrange', 'l3mdev', 'tun_id']) {
      expect(dev([{ priority: 1, [sel]: 'x', table: '101' } as IpRuleJson, MAIN])).toBe('eth9');
    }
  });

  it('actions: blackhole, unreachable and prohibit drop the packet; nop goes on; any other is not simulated', () => {
    for (const action of ['blackhole', 'unreachable', 'prohibit']) {
      const rule = { priority: 1, action } as IpRuleJson;
      expect(routeFrom([rule, MAIN], ROUTES, SRC, SUBNET)).toEqual({ dev: null, rule, route: null, unsure: null });
    }
    expect(dev([{ priority: 1, action: 'nop' } as IpRuleJson, MAIN])).toBe('eth9');
    const goto = { priority: 1, action: 'goto' } as IpRuleJson;
    expect(routeFrom([goto, MAIN], ROUTES, SRC, SUBNET)).toEqual({ dev: null, rule: goto, route: null, unsure: "rule action 'goto' is not simulated" });
  });

  it('the local table and a rule without a table are passed over; a table without a matching route goes on to the next rule', () => {
    const local: IpRouteJson = { dst: '10.0.0.0/24', dev: 'lo', table: 'local' };
    expect(dev([{ priority: 0, src: 'all', table: 'local' }, MAIN], [...ROUTES, local])).toBe('eth9');
    expect(dev([{ priority: 0, src: 'all' }, MAIN])).toBe('eth9');
    expect(dev([{ priority: 1, table: '103' }, MAIN])).toBe('eth9');
    expect(routeFrom([], ROUTES, SRC, SUBNET)).toEqual({ dev: null, rule: null, route: null, unsure: null });
  });
});

describe('routeFrom: the table', () => {
  const only = (routes: IpRouteJson[]) => routeFrom([MAIN], routes, SRC, SUBNET);
  it('longest prefix containing the subnet, then the lowest metric (none is 0), then the first listed', () => {
    expect(only([{ dst: '10.0.0.0/16', dev: 'a' }, { dst: '10.0.0.0/24', dev: 'b' }]).dev).toBe('b');
    expect(only([{ dst: '10.0.0.0/24', dev: 'b' }, { dst: '10.0.0.0/16', dev: 'a' }]).dev).toBe('b');
    expect(only([{ dst: '10.0.0.0/25', dev: 'c' }, { dst: '10.0.0.0/16', dev: 'a' }]).dev).toBe('a');
    expect(only([{ dst: '10.0.0.0/24', dev: 'a', metric: 10 }, { dst: '10.0.0.0/24', dev: 'b', metric: 5 }]).dev).toBe('b');
    expect(only([{ dst: '10.0.0.0/24', dev: 'a', metric: 10 }, { dst: '10.0.0.0/24', dev: 'b' }]).dev).toBe('b');
    expect(only([{ dst: '10.0.0.0/24', dev: 'a' }, { dst: '10.0.0.0/24', dev: 'b', metric: 5 }]).dev).toBe('a');
    expect(only([{ dst: '10.0.0.0/24', dev: 'a', metric: 5 }, { dst: '10.0.0.0/24', dev: 'b', metric: 5 }]).dev).toBe('a');
    // A longer prefix with a worse metric still wins.
    expect(only([{ dst: '10.0.0.0/16', dev: 'a', metric: 1 }, { dst: '10.0.0.0/24', dev: 'b', metric: 100 }]).dev).toBe('b');
  });
  it('IPv6 routes are not looked at', () => {
    expect(only([{ dst: '::/0', dev: 'v6' }, { dst: 'default', dev: 'a' }]).dev).toBe('a');
    expect(only([{ dst: 'default', gateway: 'fe80::1', dev: 'v6' }, { dst: 'default', dev: 'a' }]).dev).toBe('a');
  });
  it('a route that is not unicast drops the packet; a multipath route is unsure; a route without a device too', () => {
    const bh: IpRouteJson = { dst: '10.0.0.0/24', type: 'blackhole' };
    expect(only([bh])).toEqual({ dev: null, rule: MAIN, route: bh, unsure: null });
    expect(only([{ dst: '10.0.0.0/24', type: 'unicast', dev: 'a' }]).dev).toBe('a');
    const mp: IpRouteJson = { dst: '10.0.0.0/24', nexthops: [{ dev: 'ens1' }, { dev: 'ens2' }] };
    expect(only([mp])).toEqual({ dev: 'ens1', rule: MAIN, route: mp, unsure: 'multipath route: the kernel hashes flows over several devices' });
    const none: IpRouteJson = { dst: '10.0.0.0/24', gateway: '10.0.0.254' };
    expect(only([none])).toEqual({ dev: null, rule: MAIN, route: none, unsure: 'route without device' });
    expect(only([{ dst: '10.0.0.0/24', dev: 'a' }]).unsure).toBeNull();
  });
});

describe('routeDecisions and effectiveValue: what cannot be read says so', () => {
  const snap = snapshotOf([link('ens1', ['10.0.0.1/24'])]);
  it('no kernel part, rules or routes unreadable', () => {
    expect(routeDecisions(snap)).toEqual({ error: 'no kernel part' });
    const noRules = { ...snap, kernel: kernelPart(snap, { rules: failed(['ip', '-j', 'rule', 'show'], 'r.json', 'spawn ENOENT', true) }) };
    expect(routeDecisions(noRules)).toEqual({ error: '`ip` is not installed (spawn ENOENT)' });
    const noRoutes = { ...snap, kernel: kernelPart(snap, { routes: failed(['ip', '-j', 'route', 'show', 'table', 'all'], 'r.json', 'exit 1: boom') }) };
    expect(routeDecisions(noRoutes)).toEqual({ error: '`ip -j route show table all` failed: exit 1: boom' });
  });
  it('a conf value not read, unreadable or not a number names the file', () => {
    const k = kernelPart(snap, { conf: { all: { arp_ignore: { error: 'EACCES' } }, ens1: { arp_announce: { error: 'ENOENT' } } } });
    expect(effectiveValue(k, 'ens1', 'arp_ignore')).toEqual({ error: '/proc/sys/net/ipv4/conf/all/arp_ignore: EACCES' });
    expect(effectiveValue(k, 'ens1', 'arp_announce')).toEqual({ error: '/proc/sys/net/ipv4/conf/ens1/arp_announce: ENOENT' });
    expect(effectiveValue(k, 'ens9', 'arp_filter')).toEqual({ error: '/proc/sys/net/ipv4/conf/ens9/arp_filter: not read' });
    k.conf['ens1']!.arp_filter = ' 1\n';
    expect(effectiveValue(k, 'ens1', 'arp_filter')).toEqual({ key: 'arp_filter', all: 0, iface: 1, effective: 1 });
    k.conf['ens1']!.arp_filter = 'x';
    expect(effectiveValue(k, 'ens1', 'arp_filter')).toEqual({ error: "/proc/sys/net/ipv4/conf/ens1/arp_filter: unparsable value 'x'" });
  });
});

describe('arpSettings and policyRoutingCommands: the writes that fix a netdev', () => {
  const snap = snapshotOf([link('ens1', ['10.0.0.1/24'])]);
  const settings = (conf: Record<string, Record<string, number>>) => {
    const r = arpSettings(kernelPart(snap, { conf }), 'ens1');
    return 'problems' in r ? r : null;
  };
  it('arp_ignore: a conf/all above 2 comes down too; at 2 or below only the interface is written', () => {
    expect(settings({ all: { arp_announce: 2, arp_filter: 1, arp_ignore: 3 }, ens1: { arp_ignore: 0 } })!.settings).toEqual([
      ['all', 'arp_ignore', 1],
      ['ens1', 'arp_ignore', 1],
    ]);
    expect(settings({ all: { arp_announce: 2, arp_filter: 1, arp_ignore: 2 }, ens1: { arp_ignore: 3 } })!.settings).toEqual([['ens1', 'arp_ignore', 1]]);
    expect(settings({ all: { arp_announce: 2, arp_filter: 1, arp_ignore: 1 } })!.settings).toEqual([]);
  });
  it('each problem says what the value does; arp_ignore=8 answers nothing', () => {
    expect(settings({ all: { arp_announce: 2, arp_filter: 1, arp_ignore: 8 } })!.problems).toEqual(['arp_ignore=8: this NIC answers no ARP request at all']);
    expect(settings({ all: { arp_announce: 2, arp_filter: 1, arp_ignore: 0 } })!.problems).toEqual(['arp_ignore=0: this NIC answers ARP for addresses of the other NICs']);
    const all = settings({ all: { arp_announce: 1, arp_filter: 0, arp_ignore: 1 } })!;
    expect(all.problems).toEqual([
      "arp_announce=1: ARP requests may carry another NIC's address, so peers cache that address with this NIC's MAC",
      'arp_filter=0: replies are not limited to the NIC the kernel would route back through',
    ]);
    expect(all.severity).toBe('error');
    expect(settings({ all: { arp_announce: 2, arp_filter: 0, arp_ignore: 1 } })!.severity).toBe('warn');
  });
  it('policy routing: the route first, then a rule per wrong address; nothing when none is wrong, the answer is unsure or no table', () => {
    const group = { subnet: '10.0.0.0/24', members: [] };
    const a1 = { ...SRC };
    const a2 = { ...SRC, address: '10.0.0.11' };
    const need = { netdev: 'ens1', group, addrs: [a1, a2], wrong: [a1, a2], unsure: null, table: 101 };
    expect(policyRoutingCommands(need)).toEqual([
      ['ip', 'route', 'replace', '10.0.0.0/24', 'dev', 'ens1', 'src', '10.0.0.1', 'table', '101'],
      ['ip', 'rule', 'add', 'from', '10.0.0.1', 'lookup', '101'],
      ['ip', 'rule', 'add', 'from', '10.0.0.11', 'lookup', '101'],
    ]);
    expect(policyRoutingCommands({ ...need, wrong: [] })).toBeNull();
    expect(policyRoutingCommands({ ...need, unsure: 'multipath' })).toBeNull();
    expect(policyRoutingCommands({ ...need, table: null })).toBeNull();
  });
});
