// A fix plan's end state in the model (src/model/fix/simulate.ts): the kernel
// and conf files as they will be once every operation is applied, operation
// kind by kind. Expected states are written out by hand.
import { describe, expect, it } from 'vitest';
import { markRules } from '../../src/model/fix/describe.js';
import { planEndState } from '../../src/model/fix/simulate.js';
import type { Fix, OpSpec } from '../../src/model/fix/types.js';
import type { NodeSnapshot } from '../../src/model/snapshot/types.js';
import { DEFAULT_RULES, failed, kernelPart, type KernelSpec } from '../unit/kernel-fixtures.js';
import { link, snapshotOf } from '../unit/helpers.js';

function node(spec: KernelSpec = {}): NodeSnapshot {
  const s = snapshotOf([link('lo', ['127.0.0.1/8']), link('ens1', ['10.0.0.1/24']), link('ens2', ['10.0.0.2/24'])]);
  return { ...s, kernel: kernelPart(s, spec) };
}
const fix = (ops: OpSpec[], blocked: string | null = null): Fix => ({ id: 'policy-routing', title: 't', ops, resolves: [], notes: [], blocked }) as unknown as Fix;
const end = (s: NodeSnapshot, ...ops: OpSpec[]) => planEndState(s, [fix(ops)]);

describe('sysctls', () => {
  it('an ARP or rp_filter key of an interface is set; other keys are not modelled', () => {
    const s = end(node(), { kind: 'sysctl', key: 'net/ipv4/conf/ens2/arp_ignore', value: '1' }, { kind: 'sysctl', key: 'net/ipv4/conf/ens2/rp_filter', value: '2' }, { kind: 'sysctl', key: 'net/ipv4/ip_forward', value: '1' });
    expect(s.kernel!.conf['ens2']).toEqual({ arp_announce: '0', arp_ignore: '1', arp_filter: '0', rp_filter: '2' });
    expect(s.kernel!.conf['ens1']!.arp_ignore).toBe('0');
  });
  it('an interface name with dots is one name (slash keys)', () => {
    const s = end(node(), { kind: 'sysctl', key: 'net/ipv4/conf/ens2.100/arp_filter', value: '1' });
    expect(s.kernel!.conf['ens2.100']).toMatchObject({ arp_filter: '1' });
  });
});

describe('rules and routes', () => {
  it('a rule without a priority goes just below the lowest non-local one; with one, where it says; sorted', () => {
    const s = end(node(), { kind: 'ip-rule', from: '10.0.0.2', table: 100 }, { kind: 'ip-rule', from: '10.0.0.3', table: 101, priority: 10 });
    expect(s.kernel!.rules.ok && s.kernel!.rules.data).toEqual([
      { priority: 0, src: 'all', table: 'local' },
      { priority: 10, src: '10.0.0.3', table: '101' },
      { priority: 32765, src: '10.0.0.2', table: '100' },
      ...DEFAULT_RULES.slice(1),
    ]);
  });
  it('with only the local rule the new one sits at 32765', () => {
    const s = end(node({ rules: [{ priority: 0, src: 'all', table: 'local' }] }), { kind: 'ip-rule', from: '10.0.0.2', table: 100 });
    expect(s.kernel!.rules.ok && s.kernel!.rules.data.map((r) => r.priority)).toEqual([0, 32765]);
  });
  it('the new rule sits one below the lowest non-local rule when that is below main', () => {
    const s = end(node({ rules: [{ priority: 0, src: 'all', table: 'local' }, { priority: 100, src: '10.0.0.9', table: '9' }, ...DEFAULT_RULES.slice(1)] }), { kind: 'ip-rule', from: '10.0.0.2', table: 100 });
    expect(s.kernel!.rules.ok && s.kernel!.rules.data.map((r) => r.priority)).toEqual([0, 99, 100, 32766, 32767]);
  });
  it('a route keeps the other destinations of its table', () => {
    const s = node({ routes: [{ dst: '10.1.0.0/16', dev: 'ens1', table: '100' }] });
    const data = end(s, { kind: 'ip-route', dst: '10.0.0.0/24', dev: 'ens2', src: '10.0.0.2', table: 100 }).kernel!.routes;
    expect(data.ok && data.data.filter((r) => r.table === '100').map((r) => r.dst)).toEqual(['10.0.0.0/24', '10.1.0.0/16']);
  });
  it('a route replaces the same destination in the same table only', () => {
    const s = node({ routes: [{ dst: '10.0.0.0/24', dev: 'ens1', table: '100', prefsrc: '10.0.0.1' }, { dst: '10.0.0.0/24', dev: 'ens1', table: '101', prefsrc: '10.0.0.1' }] });
    const after = end(s, { kind: 'ip-route', dst: '10.0.0.0/24', dev: 'ens2', src: '10.0.0.2', table: 100 });
    const data = after.kernel!.routes.ok ? after.kernel!.routes.data : [];
    expect(data[0]).toEqual({ dst: '10.0.0.0/24', dev: 'ens2', prefsrc: '10.0.0.2', table: '100', scope: 'link' });
    expect(data.filter((r) => r.table === '100')).toHaveLength(1);
    expect(data.filter((r) => r.table === '101')).toHaveLength(1);
  });
  it('a part that could not be read stays as it was', () => {
    const bad = node({ rules: failed(['ip', '-j', 'rule', 'show'], 'ip-rule.json', 'EPERM'), routes: failed(['ip', '-j', 'route', 'show', 'table', 'all'], 'ip-route.json', 'EPERM'), qdiscs: failed(['tc'], 'tc.json', 'x') });
    const after = end(bad, { kind: 'ip-rule', from: '10.0.0.2', table: 100 }, { kind: 'ip-route', dst: '10.0.0.0/24', dev: 'ens2', src: '10.0.0.2', table: 100 }, { kind: 'qdisc', dev: 'ens1', scheduler: 'prio', dscp: 46, replaces: 'noqueue' });
    expect(after.kernel).toEqual(bad.kernel);
  });
});

describe('qdiscs', () => {
  it('the root of the device is replaced by ncclx\'s, marked so; other devices keep theirs', () => {
    const s = end(node(), { kind: 'qdisc', dev: 'ens1', scheduler: 'htb', dscp: 46, rateMbit: 100, replaces: 'noqueue' });
    const q = s.kernel!.qdiscs.ok ? s.kernel!.qdiscs.data : [];
    expect(q.filter((x) => x.dev === 'ens1')).toEqual([{ kind: 'htb', handle: '1:', dev: 'ens1', root: true, options: { default: '0x20', ncclx: true } }]);
    expect(q.filter((x) => x.dev === 'ens2')).toEqual([{ kind: 'noqueue', handle: '0:', dev: 'ens2', root: true, options: {} }]);
    const p = end(node(), { kind: 'qdisc', dev: 'ens1', scheduler: 'prio', dscp: 46, replaces: 'noqueue' });
    expect((p.kernel!.qdiscs.ok ? p.kernel!.qdiscs.data : []).find((x) => x.dev === 'ens1')!.options).toEqual({ ncclx: true });
  });
});

describe('marking', () => {
  it('nftables: the table\'s rules replace an older ncclx table, others stay; each rule as nft -j prints it', () => {
    const other = { family: 'inet', table: 'site', chain: 'out', handle: 7, hook: 'output', expr: [] };
    const old = { family: 'inet', table: 'ncclx_qos', chain: 'output', handle: 3, hook: 'output', expr: [] };
    const selectors = [{ by: 'oif' as const, iface: 'ens1' }, { by: 'daddr' as const, prefix: '10.0.0.0/8', family: 4 as const }, { by: 'ports' as const, lo: 1, hi: 9, dir: 'dport' as const }];
    const s = end(node({ nftRules: [other, old] as never }), { kind: 'nft-mark', table: 'ncclx_qos', dscp: 46, selectors });
    const rules = s.kernel!.nft.ok ? s.kernel!.nft.data.dscpRules : [];
    expect(rules[0]).toEqual(other);
    expect(rules.slice(1)).toEqual([
      {
        family: 'inet',
        table: 'ncclx_qos',
        chain: 'output',
        handle: null,
        hook: 'output',
        expr: [
          { match: { op: '==', left: { meta: { key: 'oifname' } }, right: 'ens1' } },
          { match: { op: '==', left: { payload: { protocol: 'ip', field: 'daddr' } }, right: '10.0.0.0/8' } },
          { match: { op: '==', left: { payload: { protocol: 'tcp', field: 'dport' } }, right: { range: [1, 9] } } },
          { mangle: { key: { payload: { protocol: 'ip', field: 'dscp' } }, value: 46 } },
        ],
      },
    ]);
    const one = end(node(), { kind: 'nft-mark', table: 't', dscp: 26, selectors: [{ by: 'ports', lo: 5, hi: 5, dir: 'sport' }] });
    const exprs = (one.kernel!.nft.ok ? one.kernel!.nft.data.dscpRules : []).map((r) => r.expr);
    expect(exprs).toEqual([
      [{ match: { op: '==', left: { payload: { protocol: 'tcp', field: 'sport' } }, right: 5 } }, { mangle: { key: { payload: { protocol: 'ip', field: 'dscp' } }, value: 26 } }],
      [{ match: { op: '==', left: { payload: { protocol: 'tcp', field: 'sport' } }, right: 5 } }, { mangle: { key: { payload: { protocol: 'ip6', field: 'dscp' } }, value: 26 } }],
    ]);
    const plain = end(node(), { kind: 'nft-mark', table: 't', dscp: 26, selectors: [{ by: 'uid', uid: 0 }] });
    expect((plain.kernel!.nft.ok ? plain.kernel!.nft.data.dscpRules : [])[0]!.expr).toEqual([{ match: { op: '==', left: { meta: { key: 'l4proto' } }, right: 'tcp' } }, { mangle: { key: { payload: { protocol: 'ip', field: 'dscp' } }, value: 26 } }]);
  });
  it('iptables: the chain\'s lines replace an older ncclx chain before COMMIT; IPv6 only when asked', () => {
    const v4 = '*mangle\n:OUTPUT ACCEPT [0:0]\n-A OUTPUT -j NCCLX_QOS\n-A NCCLX_QOS -o old -j DSCP --set-dscp 0x2e\n-A OUTPUT -o lo -j ACCEPT\nCOMMIT';
    const op: OpSpec = { kind: 'iptables-mark', chain: 'NCCLX_QOS', dscp: 46, selectors: [{ by: 'oif', iface: 'ens1' }, { by: 'daddr', prefix: '10.0.0.0/8', family: 4 }], ipv6: false };
    const s = end(node({ iptables: v4, ip6tables: '' }), op);
    expect(s.kernel!.iptablesMangle.ok && s.kernel!.iptablesMangle.data).toBe('*mangle\n:OUTPUT ACCEPT [0:0]\n-A OUTPUT -o lo -j ACCEPT\n-A OUTPUT -j NCCLX_QOS\n-A NCCLX_QOS -o ens1 -d 10.0.0.0/8 -p tcp -j DSCP --set-dscp 0x2e\nCOMMIT');
    expect(s.kernel!.ip6tablesMangle.ok && s.kernel!.ip6tablesMangle.data).toBe('');
    // An empty table gets one; with ipv6 the IPv6 side too.
    const both = end(node({ iptables: '', ip6tables: '' }), { ...op, selectors: [{ by: 'uid', uid: 0 }], ipv6: true, dscp: 8 } as OpSpec);
    expect(both.kernel!.iptablesMangle.ok && both.kernel!.iptablesMangle.data).toBe('*mangle\n-A OUTPUT -j NCCLX_QOS\n-A NCCLX_QOS -p tcp -j DSCP --set-dscp 0x08\nCOMMIT');
    expect(both.kernel!.ip6tablesMangle.ok && both.kernel!.ip6tablesMangle.data).toBe('*mangle\n-A OUTPUT -j NCCLX_QOS\n-A NCCLX_QOS -p tcp -j DSCP --set-dscp 0x08\nCOMMIT');
    expect(markRules([{ by: 'uid', uid: 0 }], 8, true)).toHaveLength(2);
  });
  it('nftables: an IPv6 destination is matched on ip6 daddr; a ruleset that could not be read is left alone', () => {
    const s = end(node(), { kind: 'nft-mark', table: 't', dscp: 26, selectors: [{ by: 'daddr', prefix: 'fd00::/8', family: 6 }] });
    const r = s.kernel!.nft.ok ? s.kernel!.nft.data.dscpRules : [];
    expect(r.map((x) => x.expr[0])).toEqual([{ match: { op: '==', left: { payload: { protocol: 'ip6', field: 'daddr' } }, right: 'fd00::/8' } }]);
    const bad = node({ nft: failed(['nft', '-j', 'list', 'ruleset'], 'nft.json', 'EPERM') });
    expect(end(bad, { kind: 'nft-mark', table: 't', dscp: 26, selectors: [{ by: 'uid', uid: 0 }] }).kernel).toEqual(bad.kernel);
  });
  it('a table that could not be read is left alone', () => {
    const s = node({ iptables: failed(['iptables-save'], 'x', 'missing', true) });
    expect(end(s, { kind: 'iptables-mark', chain: 'C', dscp: 46, selectors: [{ by: 'uid', uid: 0 }], ipv6: false }).kernel!.iptablesMangle).toEqual(s.kernel!.iptablesMangle);
  });
});

describe('files and blocked fixes', () => {
  const conf = (s: NodeSnapshot) => s.env.confFiles.map((c) => [c.path, c.role, c.content, c.error]);
  it('a conf file NCCL reads gets the planned content; /etc/nccl.conf is added when absent; other files do not enter the model', () => {
    const s = snapshotOf([link('eth0', ['10.0.0.1/24'])], { confFiles: [{ path: '/root/.nccl.conf', role: 'home-env', content: null, error: 'ENOENT' }] });
    const file = (path: string, content: string): OpSpec => ({ kind: 'file', path, content, mode: 0o644, expect: null, what: 'w' });
    expect(conf(end(s, file('/root/.nccl.conf', 'A=1\n')))).toEqual([['/root/.nccl.conf', 'home-env', 'A=1\n', null]]);
    expect(conf(end(s, file('/etc/nccl.conf', 'B=2\n')))).toEqual([['/root/.nccl.conf', 'home-env', null, 'ENOENT'], ['/etc/nccl.conf', 'etc', 'B=2\n', null]]);
    expect(conf(end(s, file('/etc/sysctl.d/90-ncclx.conf', 'x = 1\n')))).toEqual(conf(s));
  });
  it('with several conf files recorded, only the planned one changes', () => {
    const s = snapshotOf([link('eth0', ['10.0.0.1/24'])], { confFiles: [{ path: '/root/.nccl.conf', role: 'home-env', content: 'X=1\n', error: null }, { path: '/etc/nccl.conf', role: 'etc', content: 'Y=1\n', error: null }] });
    const s2 = end(s, { kind: 'file', path: '/root/.nccl.conf', content: 'A=1\n', mode: 0o644, expect: null, what: 'w' });
    expect(conf(s2)).toEqual([['/root/.nccl.conf', 'home-env', 'A=1\n', null], ['/etc/nccl.conf', 'etc', 'Y=1\n', null]]);
  });
  it('a blocked fix changes nothing', () => {
    const s = node();
    expect(planEndState(s, [fix([{ kind: 'sysctl', key: 'net/ipv4/conf/ens2/arp_ignore', value: '1' }], 'not root')])).toEqual(s);
  });
  it('a snapshot without its kernel part keeps none', () => {
    const s = snapshotOf([link('eth0', ['10.0.0.1/24'])]);
    expect(end(s, { kind: 'sysctl', key: 'net/ipv4/conf/eth0/arp_ignore', value: '1' }).kernel).toBeUndefined();
  });
});
