// Multi-rail ARP checks (ARP-001..004) on constructed snapshots: the kernel's
// all/if combination rule, shared-subnet detection, the rp_filter policy-
// routing exception, and pasteable remediations.

import { describe, expect, it } from 'vitest';
import { fixText } from '../helpers/remediation.js';
import { ALL_CHECKS } from '../../src/checks/registry.js';
import { runDoctor } from '../../src/checks/run.js';
import { verifyRun } from '../../src/checks/verify.js';
import { arpSettings, COMBINE, combine, memberHealthy, routeFrom, sharedSubnets } from '../../src/model/linux/arp.js';
import { rdmaNetdevs } from '../../src/model/linux/rdma-netdevs.js';
import { parseV4Prefix } from '../../src/model/linux/ip.js';
import type { IpRouteJson, IpRuleJson } from '../../src/model/snapshot/kernel-types.js';
import type { NodeSnapshot } from '../../src/model/snapshot/types.js';
import { link, snapshotOf } from './helpers.js';
import { brief, check, ctxFor, DEFAULT_RULES, failed, rdmaPart, severities, withParts, type KernelSpec } from './kernel-fixtures.js';

const RAILS = rdmaPart([
  { dev: 'mlx5_0', netdev: 'ens1f0np0' },
  { dev: 'mlx5_1', netdev: 'ens2f0np0' },
]);

function twoRails(kernel: KernelSpec | null = {}, addrs: [string, string] = ['10.0.0.1/24', '10.0.0.2/24']): NodeSnapshot {
  const base = snapshotOf([link('lo', ['127.0.0.1/8']), link('eth0', ['192.168.0.5/24']), link('ens1f0np0', [addrs[0]]), link('ens2f0np0', [addrs[1]])]);
  return withParts(base, { rdma: RAILS, kernel });
}

/** The per-NIC source routing an operator would add: rule from <ip> → table, route for the subnet in it. */
function policyRouting(extra: { rules?: IpRuleJson[]; routes?: IpRouteJson[] } = {}): Pick<KernelSpec, 'rules' | 'routes'> {
  return {
    rules: [
      { priority: 0, src: 'all', table: 'local' },
      { priority: 100, src: '10.0.0.1', table: '101' },
      { priority: 101, src: '10.0.0.2', table: '102' },
      ...(extra.rules ?? []),
      { priority: 32766, src: 'all', table: 'main' },
      { priority: 32767, src: 'all', table: 'default' },
    ],
    routes: [
      { dst: '10.0.0.0/24', dev: 'ens1f0np0', table: '101', scope: 'link', prefsrc: '10.0.0.1', flags: [] },
      { dst: '10.0.0.0/24', dev: 'ens2f0np0', table: '102', scope: 'link', prefsrc: '10.0.0.2', flags: [] },
      ...(extra.routes ?? []),
    ],
  };
}

const GOOD_ARP = { all: { arp_announce: 2, arp_ignore: 1, arp_filter: 1 } };

describe("the kernel's all/if combination (include/linux/inetdevice.h, ip-sysctl.rst)", () => {
  it('max for arp_announce, arp_ignore, rp_filter; OR for arp_filter', () => {
    expect(COMBINE).toEqual({ arp_announce: 'max', arp_ignore: 'max', rp_filter: 'max', arp_filter: 'or' });
  });
  const table: [Parameters<typeof combine>[0], number, number, number][] = [
    ['arp_announce', 0, 2, 2],
    ['arp_announce', 2, 0, 2],
    ['arp_announce', 1, 0, 1],
    ['arp_announce', 1, 2, 2],
    ['arp_ignore', 0, 1, 1],
    ['arp_ignore', 1, 0, 1],
    ['arp_ignore', 8, 1, 8],
    ['arp_ignore', 2, 1, 2],
    ['rp_filter', 1, 2, 2],
    ['rp_filter', 2, 1, 2],
    ['rp_filter', 0, 1, 1],
    ['rp_filter', 1, 0, 1],
    ['rp_filter', 0, 0, 0],
    ['arp_filter', 0, 0, 0],
    ['arp_filter', 0, 1, 1],
    ['arp_filter', 1, 0, 1],
    ['arp_filter', 1, 1, 1],
    ['arp_filter', 2, 0, 1],
  ];
  it.each(table)('%s all=%i if=%i → %i', (key, all, iface, want) => {
    expect(combine(key, all, iface)).toBe(want);
  });
});

describe('which RDMA netdevs share a subnet', () => {
  it('GID ndevs name the port netdevs; pciNetdevs with dev_port (or hex dev_id) cover ports without GIDs', () => {
    const part = rdmaPart(
      [{ dev: 'mlx5_0', netdev: 'bond0' }, { dev: 'mlx5_2', port: 1 }, { dev: 'mlx5_2', port: 2 }, { dev: 'mlx5_3' }],
      { ib0: { devPort: '0', devId: '0x0' }, ib1: { devId: '0x1' }, ens9: {} },
      { mlx5_2: ['ib0', 'ib1'], mlx5_3: ['ens9'] },
    );
    const snap = withParts(snapshotOf([link('lo')]), { rdma: part, kernel: null });
    expect(rdmaNetdevs(snap)).toEqual([
      { dev: 'mlx5_0', port: 1, netdev: 'bond0' },
      { dev: 'mlx5_2', port: 1, netdev: 'ib0' },
      { dev: 'mlx5_2', port: 2, netdev: 'ib1' },
      { dev: 'mlx5_3', port: 1, netdev: 'ens9' },
    ]);
  });
  it('same /24 → one group; own subnets → none; a /20 and a /24 overlap; no IPv4 → not counted', () => {
    expect(sharedSubnets(ctxFor(twoRails()).snapshot).map((g) => [g.subnet, g.members.map((m) => m.netdev)])).toEqual([['10.0.0.0/24', ['ens1f0np0', 'ens2f0np0']]]);
    expect(sharedSubnets(ctxFor(twoRails({}, ['10.0.1.1/24', '10.0.2.1/24'])).snapshot)).toEqual([]);
    expect(sharedSubnets(ctxFor(twoRails({}, ['10.0.0.1/20', '10.0.5.1/24'])).snapshot)[0]!.subnet).toBe('10.0.0.0/20');
    const v6only = withParts(snapshotOf([link('ens1f0np0', ['fd00::1/64']), link('ens2f0np0', ['fd00::2/64'])]), { rdma: RAILS });
    expect(sharedSubnets(ctxFor(v6only).snapshot)).toEqual([]);
  });
});

describe('ARP-001 shared subnet', () => {
  it('unknown without an RDMA part, not applicable without RDMA netdevs, ok or when each rail has its subnet', () => {
    const noRdma = withParts(twoRails(), { rdma: null });
    delete noRdma.rdma;
    expect(check(ctxFor(noRdma), 'ARP-001')[0]).toMatchObject({ severity: 'unknown', summary: expect.stringMatching(/no RDMA part/) });
    expect(brief(check(ctxFor(withParts(twoRails(), { rdma: rdmaPart([]) })), 'ARP-001'))).toEqual([['na', 'no RDMA netdevs: multi-rail ARP does not apply']]);
    expect(severities(check(ctxFor(twoRails({}, ['10.0.1.1/24', '10.0.2.1/24'])), 'ARP-001'))).toEqual(['ok']);
  });
  it('warns with the fixes when not set up; info once ARP, rp_filter and policy routing are right', () => {
    const [bad] = check(ctxFor(twoRails()), 'ARP-001');
    expect(bad).toMatchObject({ severity: 'warn', remediation: { fixIds: ['arp-sysctl', 'policy-routing'] } });
    expect(bad!.summary).toMatch(/^2 RDMA netdevs share 10\.0\.0\.0\/24: ens1f0np0, ens2f0np0/);
    expect(bad!.evidence.map((e) => `${e.source}=${e.value}`)).toEqual(['mlx5_0:1 → ens1f0np0=10.0.0.1/24', 'mlx5_1:1 → ens2f0np0=10.0.0.2/24']);
    expect(bad!.why).toMatch(/IBV_WC_RETRY_EXC_ERR \(status 12\)/);
    const [good] = check(ctxFor(twoRails({ conf: GOOD_ARP, ...policyRouting() })), 'ARP-001');
    expect(good).toMatchObject({ severity: 'info', remediation: null });
  });
});

describe('ARP-002 arp_announce / arp_ignore / arp_filter', () => {
  it('kernel defaults: an error per NIC with a pasteable sysctl', () => {
    const rs = check(ctxFor(twoRails()), 'ARP-002');
    expect(severities(rs)).toEqual(['error', 'error']);
    expect(rs[0]!.remediation!.commands).toEqual([['sysctl', '-w', 'net/ipv4/conf/ens1f0np0/arp_announce=2', 'net/ipv4/conf/ens1f0np0/arp_ignore=1', 'net/ipv4/conf/ens1f0np0/arp_filter=1']]);
    // ens1f0np0 wins the main table, so arp_filter works for it without rules; ens2f0np0 needs policy routing first.
    expect(rs.map((r) => r.remediation!.fixIds)).toEqual([['arp-sysctl'], ['arp-sysctl', 'policy-routing']]);
    expect(rs[1]!.why).toMatch(/ARP-004/);
    expect(rs[0]!.evidence).toContainEqual({ kind: 'file', source: '/proc/sys/net/ipv4/conf/ens1f0np0/arp_ignore', value: '0 (effective 0 = max(all, if))' });
  });
  it('all=2/1 with the interface at 0 is in effect (max); arp_filter in all only is in effect (OR)', () => {
    expect(brief(check(ctxFor(twoRails({ conf: GOOD_ARP })), 'ARP-002'))).toEqual([['ok', 'arp_announce=2, arp_ignore=1 or 2, arp_filter=1 in effect on ens1f0np0, ens2f0np0']]);
    const perIf = { ens1f0np0: { arp_announce: 2, arp_ignore: 2, arp_filter: 1 }, ens2f0np0: { arp_announce: 2, arp_ignore: 1, arp_filter: 1 } };
    expect(severities(check(ctxFor(twoRails({ conf: perIf })), 'ARP-002'))).toEqual(['ok']);
  });
  it('only arp_filter missing is a warning', () => {
    const rs = check(ctxFor(twoRails({ conf: { all: { arp_announce: 2, arp_ignore: 1 } }, ...policyRouting() })), 'ARP-002');
    expect(rs.map((r) => [r.severity, fixText(r), r.remediation!.fixIds])).toEqual([
      ['warn', 'sysctl -w net/ipv4/conf/ens1f0np0/arp_filter=1', ['arp-sysctl']],
      ['warn', 'sysctl -w net/ipv4/conf/ens2f0np0/arp_filter=1', ['arp-sysctl']],
    ]);
  });
  it('a high all/arp_ignore (3..8) wins over the interface: the fix lowers all too', () => {
    const rs = check(ctxFor(twoRails({ conf: { all: { arp_announce: 2, arp_ignore: 8, arp_filter: 1 }, ens1f0np0: { arp_ignore: 1 }, ens2f0np0: { arp_ignore: 1 } } })), 'ARP-002');
    expect(rs[0]!.summary).toBe('ens1f0np0: arp_ignore=8: this NIC answers no ARP request at all');
    expect(fixText(rs[0])).toBe('sysctl -w net/ipv4/conf/all/arp_ignore=1 net/ipv4/conf/ens1f0np0/arp_ignore=1');
  });
  it('an unreadable value is unknown with the path and errno', () => {
    const rs = check(ctxFor(twoRails({ conf: { ...GOOD_ARP, ens2f0np0: { arp_ignore: { error: 'EACCES' } } } })), 'ARP-002');
    expect(brief(rs)).toEqual([
      ['ok', 'arp_announce=2, arp_ignore=1 or 2, arp_filter=1 in effect on ens1f0np0'],
      ['unknown', 'ARP sysctls of ens2f0np0: /proc/sys/net/ipv4/conf/ens2f0np0/arp_ignore: EACCES'],
    ]);
  });
  it('conf/all unreadable (no /proc/sys under --root): one unknown for the check, not one per rail', () => {
    const rs = check(ctxFor(twoRails({ conf: { all: { arp_announce: { error: 'ENOENT' } } } })), 'ARP-002');
    expect(brief(rs)).toEqual([['unknown', 'ARP sysctls: /proc/sys/net/ipv4/conf/all/arp_announce: ENOENT']]);
  });
  it('interface names with shell metacharacters are quoted in the fix', () => {
    const odd = "r$d;(0'";
    const snap = withParts(snapshotOf([link('ens1f0np0', ['10.0.0.1/24']), link(odd, ['10.0.0.2/24'])]), {
      rdma: rdmaPart([{ dev: 'mlx5_0', netdev: 'ens1f0np0' }, { dev: 'mlx5_1', netdev: odd }]),
      kernel: {},
    });
    const rs = check(ctxFor(snap), 'ARP-002');
    // The second rail is routed through the first: its fix carries its policy routing first, then the sysctls (issue #25).
    const cmds = rs[1]!.remediation!.commands!;
    expect(cmds.map((c) => c.slice(0, 3))).toEqual([['ip', 'route', 'replace'], ['ip', 'rule', 'add'], ['sysctl', '-w', `net/ipv4/conf/${odd}/arp_announce=2`]]);
    expect(cmds[0]).toContain(odd);
    expect(fixText(rs[1]).split('\n').slice(-1)[0]).toBe(`sysctl -w 'net/ipv4/conf/r$d;(0'\\''/arp_announce=2' 'net/ipv4/conf/r$d;(0'\\''/arp_ignore=1' 'net/ipv4/conf/r$d;(0'\\''/arp_filter=1'`);
    expect(fixText(rs[1])).toContain(`ip route replace 10.0.0.0/24 dev 'r$d;(0'\\''' src 10.0.0.2 table 100`);
  });
  it('no kernel part: unknown, saying why', () => {
    const snap = twoRails(null);
    expect(check(ctxFor(snap), 'ARP-002')[0]).toMatchObject({ severity: 'unknown', summary: expect.stringMatching(/no kernel part/) });
  });
});

describe('ARP-003 rp_filter and the policy-routing exception', () => {
  it('strict rp_filter without policy routing: error for the rail the main table does not pick', () => {
    const rs = check(ctxFor(twoRails({ conf: { ens1f0np0: { rp_filter: 1 }, ens2f0np0: { rp_filter: 1 } } })), 'ARP-003');
    expect(severities(rs)).toEqual(['ok', 'error']);
    expect(rs[0]!.summary).toBe('rp_filter safe on ens1f0np0 (strict, routed back through itself)');
    expect(rs[1]).toMatchObject({ remediation: { commands: [['sysctl', '-w', 'net/ipv4/conf/ens2f0np0/rp_filter=2']], fixIds: ['rp-filter', 'policy-routing'] } });
    expect(rs[1]!.summary).toMatch(/10\.0\.0\.2 → ens1f0np0/);
  });
  it('all=1 makes every interface strict (max); all=2 makes them loose even with if=1', () => {
    expect(severities(check(ctxFor(twoRails({ conf: { all: { rp_filter: 1 } } })), 'ARP-003'))).toEqual(['ok', 'error']);
    expect(severities(check(ctxFor(twoRails({ conf: { all: { rp_filter: 2 }, ens1f0np0: { rp_filter: 1 }, ens2f0np0: { rp_filter: 1 } } })), 'ARP-003'))).toEqual(['ok']);
  });
  it('strict is fine with `ip rule from <ip> lookup <table>` and a route for the subnet via the NIC', () => {
    expect(brief(check(ctxFor(twoRails({ conf: { all: { rp_filter: 1 } }, ...policyRouting() })), 'ARP-003'))).toEqual([
      ['ok', 'rp_filter safe on ens1f0np0 (strict, routed back through itself), ens2f0np0 (strict, routed back through itself)'],
    ]);
  });
  it('a rule whose table routes the subnet through the other NIC does not count', () => {
    const pr = policyRouting();
    (pr.routes as IpRouteJson[])[1] = { dst: '10.0.0.0/24', dev: 'ens1f0np0', table: '102' };
    expect(severities(check(ctxFor(twoRails({ conf: { all: { rp_filter: 1 } }, ...pr })), 'ARP-003'))).toEqual(['ok', 'error']);
  });
  it('unknown when ip rule could not run', () => {
    const rs = check(ctxFor(twoRails({ conf: { all: { rp_filter: 1 } }, rules: failed(['ip', '-j', 'rule', 'show'], 'ip-rule.json', 'ip: ENOENT', true) })), 'ARP-003');
    expect(rs.map((r) => r.severity)).toEqual(['unknown', 'unknown']);
    expect(rs[0]!.summary).toMatch(/`ip` is not installed/);
  });
});

describe('ARP-004 source-based policy routing', () => {
  it('missing: a warning for the rail that routes through another NIC, with rule + table commands', () => {
    const rs = check(ctxFor(twoRails()), 'ARP-004');
    expect(brief(rs)).toEqual([
      ['ok', 'traffic from each address leaves through its own NIC: ens1f0np0 (main table)'],
      ['warn', 'ens2f0np0: no source-based policy routing; traffic from its address leaves through another device (10.0.0.2 → ens1f0np0)'],
    ]);
    // The route first, so the rule never points at an empty table (as `ncclx fix` applies them).
    expect(rs[1]!.remediation).toEqual({
      commands: [
        ['ip', 'route', 'replace', '10.0.0.0/24', 'dev', 'ens2f0np0', 'src', '10.0.0.2', 'table', '100'],
        ['ip', 'rule', 'add', 'from', '10.0.0.2', 'lookup', '100'],
      ],
      fixIds: ['policy-routing'],
    });
    expect(rs[1]!.evidence.map((e) => e.source)).toEqual(['ip -j rule show', 'ip -j route show table all', '/proc/sys/net/ipv4/conf/all/arp_filter', '/proc/sys/net/ipv4/conf/ens2f0np0/arp_filter']);
  });
  it('with arp_filter=1 the rail stops answering ARP for itself: error', () => {
    const rs = check(ctxFor(twoRails({ conf: { all: { arp_filter: 1 } } })), 'ARP-004');
    expect(rs[1]!.severity).toBe('error');
    expect(rs[1]!.why).toMatch(/nobody answers for this NIC/);
  });
  it('present: ok, naming the tables', () => {
    expect(brief(check(ctxFor(twoRails(policyRouting())), 'ARP-004'))).toEqual([['ok', 'traffic from each address leaves through its own NIC: ens1f0np0 (table 101), ens2f0np0 (table 102)']]);
  });
  it('a rule after the main table (priority > 32766) is never reached', () => {
    const late: KernelSpec = {
      rules: [...DEFAULT_RULES, { priority: 40000, src: '10.0.0.2', table: '102' }],
      routes: [{ dst: '10.0.0.0/24', dev: 'ens2f0np0', table: '102' }],
    };
    expect(severities(check(ctxFor(twoRails(late)), 'ARP-004'))).toEqual(['ok', 'warn']);
  });
  it('the fix picks table ids nobody uses', () => {
    const used: KernelSpec = { rules: [...DEFAULT_RULES, { priority: 5, src: '172.16.0.0', srclen: 12, table: '101' }], routes: [{ dst: 'default', dev: 'eth0', table: '100', gateway: '192.168.0.1' }] };
    expect(fixText(check(ctxFor(twoRails(used)), 'ARP-004')[1])).toMatch(/table 102\nip rule add from 10\.0\.0\.2 lookup 102$/);
  });
});

describe('routeFrom: the lookup arp_filter and rp_filter make', () => {
  const src = { name: 'ens2f0np0', link: 'ens2f0np0', ifindex: 4, family: 'AF_INET' as const, address: '10.0.0.2', prefixlen: 24, scope: 'global', scopeId: 0, flags: [] };
  const subnet = parseV4Prefix('10.0.0.0/24')!;
  it('longest prefix, then metric, in the main table', () => {
    const routes: IpRouteJson[] = [
      { dst: '10.0.0.0/16', dev: 'eth9' },
      { dst: '10.0.0.0/24', dev: 'ens1f0np0', metric: 100 },
      { dst: '10.0.0.0/24', dev: 'ens2f0np0', metric: 50 },
    ];
    expect(routeFrom(DEFAULT_RULES, routes, src, subnet).dev).toBe('ens2f0np0');
  });
  it('a blackhole rule for the source drops it; a multipath route is not trusted', () => {
    expect(routeFrom([{ priority: 10, src: '10.0.0.2', action: 'blackhole' }, ...DEFAULT_RULES], [], src, subnet)).toMatchObject({ dev: null, unsure: null });
    const mp: IpRouteJson[] = [{ dst: '10.0.0.0/24', nexthops: [{ dev: 'ens1f0np0' }, { dev: 'ens2f0np0' }] }];
    expect(routeFrom(DEFAULT_RULES, mp, src, subnet).unsure).toMatch(/multipath/);
  });
  it('rules with selectors (fwmark, iif) do not apply to all traffic and are skipped', () => {
    const rules: IpRuleJson[] = [{ priority: 10, src: '10.0.0.2', fwmark: '0x1', table: '7' }, ...DEFAULT_RULES];
    const routes: IpRouteJson[] = [{ dst: '10.0.0.0/24', dev: 'ens1f0np0' }, { dst: '10.0.0.0/24', dev: 'ens2f0np0', table: '7' }];
    expect(routeFrom(rules, routes, src, subnet).dev).toBe('ens1f0np0');
  });
});

describe('what ARP settings are healthy, on both sides of each value (memberHealthy, arpSettings)', () => {
  const healthy = (conf: KernelSpec['conf']) => memberHealthy(twoRails({ conf, ...policyRouting() }), 'ens1f0np0');
  const settings = (conf: KernelSpec['conf']) => {
    const s = arpSettings(twoRails({ conf }).kernel!, 'ens1f0np0');
    if ('unreadable' in s) throw new Error(`unreadable: ${s.unreadable}`);
    return { severity: s.severity, settings: s.settings };
  };
  it('arp_ignore 1 and 2 are healthy; 0, 3 and 8 are not', () => {
    for (const [v, ok] of [[0, false], [1, true], [2, true], [3, false], [8, false]] as const) {
      expect(healthy({ all: { arp_announce: 2, arp_ignore: v, arp_filter: 1 } }), `arp_ignore=${v}`).toBe(ok);
      expect(settings({ all: { arp_announce: 2, arp_ignore: v, arp_filter: 1 } }).severity, `arp_ignore=${v}`).toBe(ok ? 'ok' : 'error');
    }
  });
  it('a high `all` arp_ignore must come down too: it wins by max', () => {
    expect(settings({ all: { arp_announce: 2, arp_ignore: 3, arp_filter: 1 } }).settings).toEqual([['all', 'arp_ignore', 1], ['ens1f0np0', 'arp_ignore', 1]]);
    expect(settings({ all: { arp_announce: 2, arp_ignore: 0, arp_filter: 1 } }).settings).toEqual([['ens1f0np0', 'arp_ignore', 1]]);
  });
  it('arp_announce must be 2 (1 is not enough); arp_filter 1 (0 is a warning)', () => {
    expect(healthy({ all: { arp_announce: 1, arp_ignore: 1, arp_filter: 1 } })).toBe(false);
    expect(settings({ all: { arp_announce: 1, arp_ignore: 1, arp_filter: 1 } })).toEqual({ severity: 'error', settings: [['ens1f0np0', 'arp_announce', 2]] });
    expect(healthy({ all: { arp_announce: 2, arp_ignore: 1, arp_filter: 0 } })).toBe(false);
    expect(settings({ all: { arp_announce: 2, arp_ignore: 1, arp_filter: 0 } })).toEqual({ severity: 'warn', settings: [['ens1f0np0', 'arp_filter', 1]] });
    expect(settings({ all: { arp_announce: 1, arp_ignore: 1, arp_filter: 0 } }).severity).toBe('error');
  });
  it('healthy sysctls are not enough without the routing; an unreadable value is never healthy', () => {
    expect(memberHealthy(twoRails({ conf: GOOD_ARP }), 'ens2f0np0')).toBe(false);
    expect(healthy({ ...GOOD_ARP, ens1f0np0: { arp_ignore: { error: 'EACCES' } } })).toBe(false);
    expect(memberHealthy(twoRails(null), 'ens1f0np0')).toBe(false);
  });
});

// Issue #25 case 1: the sysctls alone would turn ARP-004 into an error; each finding's commands are checked
// alone in the kernel model (src/checks/verify.ts) before they are shown, as env remediations are.
describe('ARP remediations, each applied alone in the kernel model before it is shown', () => {
  it('two rails on one subnet with kernel defaults: every ARP-002 and ARP-004 fix resolves its finding and raises nothing new', () => {
    const run = verifyRun(runDoctor(ALL_CHECKS, ctxFor(twoRails({}))));
    const arp = run.results.filter((r) => /^ARP-00[24]$/.test(r.checkId) && (r.severity === 'warn' || r.severity === 'error'));
    expect(arp.map((r) => r.checkId).sort()).toEqual(['ARP-002', 'ARP-002', 'ARP-004']);
    for (const r of arp) expect(r.verdict, `${r.checkId} ${r.summary}`).toMatchObject({ resolves: true, newFindings: [], withheld: false });
  });
});
