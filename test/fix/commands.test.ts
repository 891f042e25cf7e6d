// A remediation's commands applied to the model of the kernel
// (src/model/fix/commands.ts): which pasted lines ncclx can model, and the
// node as it is after a person pastes them. Expected states are written from
// the module's rules (its header and comments), not from running it.
import { describe, expect, it } from 'vitest';
import { applyCommands, kernelChanges } from '../../src/model/fix/commands.js';
import type { RdmaPart } from '../../src/model/snapshot/rdma-types.js';
import type { NodeSnapshot } from '../../src/model/snapshot/types.js';
import { DEFAULT_RULES, failed, kernelPart, ok, type KernelSpec } from '../unit/kernel-fixtures.js';
import { link, snapshotOf } from '../unit/helpers.js';

function node(spec: KernelSpec = {}): NodeSnapshot {
  const s = snapshotOf([link('lo', ['127.0.0.1/8']), link('ens1', ['10.0.0.1/24']), link('ens2', ['10.0.0.2/24'])]);
  return { ...s, kernel: kernelPart(s, spec) };
}
const after = (s: NodeSnapshot, ...cmds: string[][]) => {
  const out = applyCommands(s, cmds);
  if (!out) throw new Error('not modelled');
  return out;
};
const words = (line: string) => line.split(' ');
const modelled = (...lines: string[]) => kernelChanges(lines.map(words)) !== null;
const routes = (s: NodeSnapshot) => (s.kernel!.routes.ok ? s.kernel!.routes.data : []);
const rules = (s: NodeSnapshot) => (s.kernel!.rules.ok ? s.kernel!.rules.data : []);

describe('which commands are modelled', () => {
  it('the forms ncclx writes are modelled; anything else makes the whole remediation unchecked', () => {
    expect(modelled('sysctl -w net/ipv4/conf/ens1/arp_ignore=1')).toBe(true);
    expect(modelled('sysctl -qw net/ipv4/conf/ens1/arp_ignore=1')).toBe(true);
    expect(modelled('ip route replace 10.0.0.0/24 dev ens1')).toBe(true);
    expect(modelled('ip route add 10.0.0.0/24 dev ens1 src 10.0.0.1 table 100')).toBe(true);
    expect(modelled('ip rule add from 10.0.0.2 lookup 100')).toBe(true);
    expect(modelled('ip rule add from 10.0.0.2 table 100 pref 10')).toBe(true);
    expect(modelled('ip link set dev ens1 mtu 9000')).toBe(true);
    expect(modelled('tc qdisc del dev ens1 root')).toBe(true);
    expect(modelled('nft add table inet ncclx')).toBe(true);
    expect(kernelChanges([])).toEqual([]);
    // One unmodelled line among modelled ones: nothing is modelled.
    expect(modelled('sysctl -w net/ipv4/conf/ens1/arp_ignore=1', 'modprobe rdma_cm')).toBe(false);
    expect(modelled('ulimit -l unlimited')).toBe(false);
    expect(modelled('echo add table inet ncclx')).toBe(false);
  });
  it('sysctl: only -w/-qw writes of a known conf key with a number', () => {
    expect(modelled('sysctl net/ipv4/conf/ens1/arp_ignore=1')).toBe(false);
    expect(modelled('sysctl -p net/ipv4/conf/ens1/arp_ignore=1')).toBe(false);
    expect(modelled('sysctl -w')).toBe(false);
    expect(modelled('sysctl -w net/ipv4/ip_forward=1')).toBe(false);
    expect(modelled('sysctl -w net/ipv4/conf/ens1/forwarding=1')).toBe(false);
    expect(modelled('sysctl -w net/ipv4/conf/ens1/arp_ignore=x')).toBe(false);
    expect(modelled('sysctl -w net/ipv4/conf/ens1/arp_ignore=1 net/ipv4/ip_forward=1')).toBe(false);
    expect(modelled('sysctl -w xnet/ipv4/conf/ens1/arp_ignore=1')).toBe(false);
    expect(modelled('sysctl -w net/ipv4/conf/ens1/arp_ignore=1x')).toBe(false);
  });
  it('ip route: a destination, a dev and only dev/src/table options', () => {
    expect(modelled('ip route del 10.0.0.0/24 dev ens1')).toBe(false);
    expect(modelled('ip route replace 10.0.0.0/24 dev')).toBe(false);
    expect(modelled('ip route replace 10.0.0.0/24 src 10.0.0.1')).toBe(false);
    expect(modelled('ip route replace 10.0.0.0/24 dev ens1 via 10.0.0.254')).toBe(false);
    expect(modelled('ip route replace 10.0.0.0/24 dev ens1 src')).toBe(false);
  });
  it('ip rule add: a from and a table (lookup or table), only from/lookup/table/priority/pref', () => {
    expect(modelled('ip rule del from 10.0.0.2 lookup 100')).toBe(false);
    expect(modelled('ip rule add from 10.0.0.2')).toBe(false);
    expect(modelled('ip rule add lookup 100')).toBe(false);
    expect(modelled('ip rule add from 10.0.0.2 lookup')).toBe(false);
    expect(modelled('ip rule add from 10.0.0.2 lookup 100 fwmark 1')).toBe(false);
    expect(modelled('ip rule add from 10.0.0.2 lookup 100 priority 5')).toBe(true);
  });
  it('ip link: exactly `set dev X mtu N`', () => {
    expect(modelled('ip link set dev ens1 mtu 9000x')).toBe(false);
    expect(modelled('ip link set dev ens1 up')).toBe(false);
    expect(modelled('ip link set ens1 mtu 9000')).toBe(false);
    expect(modelled('ip link set name ens1 mtu 9000')).toBe(false);
    expect(modelled('ip link set dev ens1 txqueuelen 9000')).toBe(false);
    expect(modelled('ip link set dev ens1 mtu x9000')).toBe(false);
    expect(modelled('ip link set dev ens1 mtu 9000 up')).toBe(false);
    expect(modelled('ip link show dev ens1 mtu 9000')).toBe(false);
    expect(modelled('ip addr add 10.0.0.1/24 dev ens1')).toBe(false);
  });
  it('tc: exactly `qdisc del dev X root`', () => {
    expect(modelled('tc qdisc del dev ens1')).toBe(false);
    expect(modelled('tc qdisc add dev ens1 root')).toBe(false);
    expect(modelled('tc class del dev ens1 root')).toBe(false);
    expect(modelled('tc qdisc del link ens1 root')).toBe(false);
    expect(modelled('tc qdisc del dev ens1 ingress')).toBe(false);
    expect(modelled('tc qdisc del dev ens1 root handle')).toBe(false);
  });
  it('nft: add table, add chain, and the DSCP marking rule only', () => {
    expect(modelled('nft add table inet')).toBe(false);
    expect(modelled('nft delete table inet ncclx')).toBe(false);
    expect(modelled('nft add table inet ncclx extra')).toBe(false);
    expect(modelled('nft add chain inet ncclx out')).toBe(false);
    expect(modelled('nft add chain inet ncclx')).toBe(false);
    expect(modelled('nft add set inet ncclx s x')).toBe(false);
    const rule = ['nft', 'add', 'rule', 'inet', 'ncclx', 'out', 'oifname', 'ens1', 'meta', 'l4proto', 'tcp', 'ip', 'dscp', 'set', '46'];
    expect(kernelChanges([rule])).not.toBeNull();
    expect(kernelChanges([[...rule.slice(0, -1), 'ef']])).toBeNull();
    expect(kernelChanges([[...rule.slice(0, -1), 'x46']])).toBeNull();
    expect(kernelChanges([[...rule.slice(0, -1), '46x']])).toBeNull();
    expect(kernelChanges([[...rule, 'x']])).toBeNull();
    expect(kernelChanges([rule.map((w) => (w === 'oifname' ? 'iifname' : w))])).toBeNull();
    expect(kernelChanges([rule.map((w) => (w === 'tcp' ? 'udp' : w))])).toBeNull();
  });
});

describe('a snapshot without a kernel part', () => {
  it('cannot be checked: null', () => {
    const s = node();
    expect(applyCommands({ ...s, kernel: undefined } as unknown as NodeSnapshot, [words('ip link set dev ens1 mtu 9000')])).toBeNull();
  });
});

describe('sysctl writes', () => {
  it('each write sets that key of that interface and no other', () => {
    const s = after(node(), words('sysctl -w net/ipv4/conf/ens2/arp_ignore=1 net/ipv4/conf/ens2/arp_announce=2'));
    expect(s.kernel!.conf['ens2']).toEqual({ arp_announce: '2', arp_ignore: '1', arp_filter: '0', rp_filter: '0' });
    expect(s.kernel!.conf['ens1']).toEqual({ arp_announce: '0', arp_ignore: '0', arp_filter: '0', rp_filter: '0' });
  });
  it('a value of several digits is written whole', () => {
    expect(after(node(), words('sysctl -w net/ipv4/conf/ens1/arp_announce=12')).kernel!.conf['ens1']!.arp_announce).toBe('12');
  });
  it('all and default are written even when they were not read before', () => {
    const n = node();
    const { all: _a, default: _d, ...links } = n.kernel!.conf;
    const s = after({ ...n, kernel: { ...n.kernel!, conf: links } }, words('sysctl -w net/ipv4/conf/all/rp_filter=2'), words('sysctl -w net/ipv4/conf/default/rp_filter=1'));
    expect(s.kernel!.conf['all']).toEqual({ rp_filter: '2' });
    expect(s.kernel!.conf['default']).toEqual({ rp_filter: '1' });
  });
  it('all and default are written; a link that does not exist leaves the node as it was', () => {
    const s = after(node(), words('sysctl -w net/ipv4/conf/all/rp_filter=2'), words('sysctl -w net/ipv4/conf/default/arp_filter=1'));
    expect(s.kernel!.conf['all']!.rp_filter).toBe('2');
    expect(s.kernel!.conf['default']!.arp_filter).toBe('1');
    const n = node();
    const gone = after(n, words('sysctl -w net/ipv4/conf/ens9/rp_filter=2'));
    expect(gone.kernel).toEqual(n.kernel);
    expect('ens9' in gone.kernel!.conf).toBe(false);
  });
});

describe('routes', () => {
  it('add puts the route first, scope link, with its source; the main table is written as no table', () => {
    const n = node();
    const s = after(n, words('ip route add 10.9.0.0/16 dev ens2 src 10.0.0.2 table main'));
    expect(routes(s)[0]).toEqual({ dst: '10.9.0.0/16', dev: 'ens2', scope: 'link', prefsrc: '10.0.0.2' });
    expect(routes(s).slice(1)).toEqual(routes(n));
  });
  it('without src the route has no prefsrc; another table is named', () => {
    const s = after(node(), words('ip route add 10.9.0.0/16 dev ens2 table 100'));
    expect(routes(s)[0]).toEqual({ dst: '10.9.0.0/16', dev: 'ens2', scope: 'link', table: '100' });
  });
  it('replace drops the same destination in the same table (main by default); add keeps it', () => {
    const n = node({ routes: [{ dst: '10.0.0.0/24', dev: 'ens1', table: '100' }] });
    const rep = after(n, words('ip route replace 10.0.0.0/24 dev ens2'));
    expect(routes(rep).filter((r) => r.dst === '10.0.0.0/24')).toEqual([
      { dst: '10.0.0.0/24', dev: 'ens2', scope: 'link' },
      { dst: '10.0.0.0/24', dev: 'ens1', table: '100' },
    ]);
    const add = after(n, words('ip route add 10.0.0.0/24 dev ens2'));
    expect(routes(add).filter((r) => r.dst === '10.0.0.0/24')).toHaveLength(4);
  });
  it('replace keeps the routes to other destinations in that table', () => {
    const n = node();
    const s = after(n, words('ip route replace 10.9.0.0/16 dev ens2'));
    expect(routes(s)).toEqual([{ dst: '10.9.0.0/16', dev: 'ens2', scope: 'link' }, ...routes(n)]);
  });
  it('routes that could not be read stay unread', () => {
    const n = node({ routes: failed(['ip', '-j', 'route', 'show', 'table', 'all'], 'ip-route.json', 'EPERM') });
    expect(after(n, words('ip route replace 10.0.0.0/24 dev ens2')).kernel).toEqual(n.kernel);
  });

  const target = (address: string) => ({
    variable: 'MASTER_ADDR' as const, value: address, source: 'environment', host: address, address, unresolved: null,
    route: ok(['ip', '-j', 'route', 'get', address], `route-get-${address}.json`, [{ dst: address, dev: 'ens1', prefsrc: '10.0.0.1' }]),
  });
  it('a /32 host route in main changes what `ip route get` answers for that address, only for it', () => {
    const n = node({ routeTargets: [target('10.0.0.7'), target('10.0.0.8')] });
    const s = after(n, words('ip route replace 10.0.0.7/32 dev ens2 src 10.0.0.2'));
    expect(s.kernel!.routeTargets[0]!.route).toEqual({ ...n.kernel!.routeTargets[0]!.route, ok: true, data: [{ dst: '10.0.0.7', dev: 'ens2', prefsrc: '10.0.0.2' }] });
    expect(s.kernel!.routeTargets[1]).toEqual(n.kernel!.routeTargets[1]);
    const noSrc = after(n, words('ip route replace 10.0.0.7/32 dev ens2'));
    expect(noSrc.kernel!.routeTargets[0]!.route).toMatchObject({ data: [{ dst: '10.0.0.7', dev: 'ens2' }] });
    expect((noSrc.kernel!.routeTargets[0]!.route as { data: object[] }).data[0]).not.toHaveProperty('prefsrc');
  });
  it('a /128 host route counts too; a /31, or a host route in another table, does not', () => {
    const n = node({ routeTargets: [target('fd00::7'), target('10.0.0.7')] });
    const v6 = after(n, words('ip route replace fd00::7/128 dev ens2'));
    expect(v6.kernel!.routeTargets[0]!.route).toMatchObject({ data: [{ dst: 'fd00::7', dev: 'ens2' }] });
    expect(after(n, words('ip route replace 10.0.0.7/31 dev ens2')).kernel!.routeTargets).toEqual(n.kernel!.routeTargets);
    expect(after(n, words('ip route replace 10.0.0.7/32 dev ens2 table 100')).kernel!.routeTargets).toEqual(n.kernel!.routeTargets);
  });
  it('a target whose route was never asked keeps none', () => {
    const n = node({ routeTargets: [{ ...target('10.0.0.7'), route: null }] });
    expect(after(n, words('ip route replace 10.0.0.7/32 dev ens2')).kernel!.routeTargets).toEqual(n.kernel!.routeTargets);
  });
});

describe('rules', () => {
  it('a rule keeps its from and table; priority or pref places it; the list stays sorted', () => {
    const s = after(node(), words('ip rule add from 10.0.0.2 lookup 100 priority 10'), words('ip rule add from 10.0.0.3 table 101 pref 20'));
    expect(rules(s)).toEqual([DEFAULT_RULES[0], { priority: 10, src: '10.0.0.2', table: '100' }, { priority: 20, src: '10.0.0.3', table: '101' }, ...DEFAULT_RULES.slice(1)]);
  });
  it('without a priority: one below the lowest non-local rule, and never above 32765', () => {
    const s = after(node({ rules: [DEFAULT_RULES[0]!, { priority: 100, src: '10.0.0.9', table: '9' }, ...DEFAULT_RULES.slice(1)] }), words('ip rule add from 10.0.0.2 lookup 100'));
    expect(rules(s).map((r) => r.priority)).toEqual([0, 99, 100, 32766, 32767]);
    const only = after(node({ rules: [DEFAULT_RULES[0]!] }), words('ip rule add from 10.0.0.2 lookup 100'));
    expect(rules(only)).toEqual([DEFAULT_RULES[0], { priority: 32765, src: '10.0.0.2', table: '100' }]);
  });
  it('rules that could not be read stay unread', () => {
    const n = node({ rules: failed(['ip', '-j', 'rule', 'show'], 'ip-rule.json', 'EPERM') });
    expect(after(n, words('ip rule add from 10.0.0.2 lookup 100')).kernel).toEqual(n.kernel);
  });
});

describe('mtu', () => {
  it('the link and its RDMA netdev take the new MTU; other links keep theirs', () => {
    const n = node();
    const rdma = { netdevs: { ens1: { mtu: '1500', name: 'ens1' }, ens2: { mtu: '1500', name: 'ens2' } } } as unknown as RdmaPart;
    const s = after({ ...n, rdma }, words('ip link set dev ens1 mtu 9000'));
    expect(s.network.links.find((l) => l.name === 'ens1')!.mtu).toBe(9000);
    expect(s.network.links.find((l) => l.name === 'ens2')!.mtu).toBe(n.network.links.find((l) => l.name === 'ens2')!.mtu);
    expect(s.rdma!.netdevs['ens1']).toEqual({ mtu: '9000', name: 'ens1' });
    expect(s.rdma!.netdevs['ens2']).toEqual({ mtu: '1500', name: 'ens2' });
  });
  it('a link with no RDMA netdev leaves the RDMA part as it was; no RDMA part stays none', () => {
    const rdma = { netdevs: { ens2: { mtu: '1500' } } } as unknown as RdmaPart;
    expect(after({ ...node(), rdma }, words('ip link set dev ens1 mtu 9000')).rdma).toEqual(rdma);
    const bare = node();
    expect(after(bare, words('ip link set dev ens1 mtu 9000')).rdma).toEqual(bare.rdma);
  });
});

describe('qdiscs', () => {
  it('deleting the root qdisc of a link removes that link\'s qdiscs only', () => {
    const s = after(node(), words('tc qdisc del dev ens1 root'));
    expect(s.kernel!.qdiscs.ok && s.kernel!.qdiscs.data.map((q) => q.dev)).toEqual(['lo', 'ens2']);
  });
  it('qdiscs that could not be read stay unread', () => {
    const n = node({ qdiscs: failed(['tc'], 'tc.json', 'x') });
    expect(after(n, words('tc qdisc del dev ens1 root')).kernel).toEqual(n.kernel);
  });
});

describe('nft', () => {
  const rule = (chain: string, ifname: string, dscp: string) => ['nft', 'add', 'rule', 'inet', 'ncclx', chain, 'oifname', ifname, 'meta', 'l4proto', 'tcp', 'ip', 'dscp', 'set', dscp];
  it('the marking rule is listed with its chain\'s hook from the add chain before it, and nft\'s quotes undone', () => {
    const n = node();
    const s = after(n, words('nft add table inet ncclx'), ['nft', 'add', 'chain', 'inet', 'ncclx', 'out', '{ type filter hook postrouting priority 0; }'], rule('out', '"en\\"s1"', '46'));
    expect(s.kernel!.nft.ok && s.kernel!.nft.data.dscpRules).toEqual([
      {
        family: 'inet', table: 'ncclx', chain: 'out', handle: null, hook: 'postrouting',
        expr: [
          { match: { op: '==', left: { meta: { key: 'oifname' } }, right: 'en"s1' } },
          { match: { op: '==', left: { meta: { key: 'l4proto' } }, right: 'tcp' } },
          { mangle: { key: { payload: { protocol: 'ip', field: 'dscp' } }, value: 46 } },
        ],
      },
    ]);
  });
  it('a rule in a chain added without a hook, or not added here, has no hook; an unquoted name stays as written', () => {
    const s = after(node(), ['nft', 'add', 'chain', 'inet', 'ncclx', 'out', '{ }'], rule('out', 'ens1', '10'), rule('other', 'ens2', '12'));
    const data = s.kernel!.nft.ok ? s.kernel!.nft.data.dscpRules : [];
    expect(data.map((r) => [r.chain, r.hook])).toEqual([['out', null], ['other', null]]);
    expect((data[0]!.expr[0] as { match: { right: string } }).match.right).toBe('ens1');
  });
  it('tables and chains alone change nothing listed; an unread ruleset stays unread', () => {
    const n = node();
    expect(after(n, words('nft add table inet ncclx'), ['nft', 'add', 'chain', 'inet', 'ncclx', 'out', '{ type filter hook output priority 0; }']).kernel).toEqual(n.kernel);
    const bad = node({ nft: failed(['nft', '-j', 'list', 'ruleset'], 'nft.json', 'EPERM') });
    expect(after(bad, rule('out', 'ens1', '46')).kernel).toEqual(bad.kernel);
  });
});
