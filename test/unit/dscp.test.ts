// DSCP marking as the kernel holds it (src/model/linux/dscp.ts), rule by rule:
// the values nft and iptables accept (0–63, names, hex), what each match of a
// rule limits it to, which hooks mark what this node sends, and the one value
// a site evidently means. Each boundary on both sides.

import { describe, expect, it } from 'vitest';
import { dscpLabel, intendedDscp, iptablesMarkingRules, isEgress, localPortRange, markingInventory, markingKnown, nftMarkingRule, parseDscp, siteDscps, siteIntendedDscp } from '../../src/model/linux/dscp.js';
import type { NftDscpRule } from '../../src/model/snapshot/kernel-types.js';
import { link, snapshotOf } from './helpers.js';
import { failed, kernelPart, ok } from './kernel-fixtures.js';

describe('DSCP values', () => {
  it('numbers 0–63 only, whole', () => {
    expect([0, 1, 62, 63].map(parseDscp)).toEqual([0, 1, 62, 63]);
    expect([-1, 64, 1.5, Number.NaN].map(parseDscp)).toEqual([null, null, null, null]);
  });
  it('text: a name in any case, decimal or 0x hex, 0–63, surrounding blanks allowed', () => {
    expect(['cs0', ' AF41 ', 'ef', 'VA', 'le', 'cs7', 'af11', 'af43'].map(parseDscp)).toEqual([0, 34, 46, 44, 1, 56, 10, 38]);
    expect(['0', '63', ' 26\n', '0x3f', '0x0', '0X1a'].map(parseDscp)).toEqual([0, 63, 26, 63, 0, 26]);
    expect(['64', '0x40', '-1', '1a', 'a1', 'x0x1', '0x1g', '0x', '', 'cs8', 'af44'].map(parseDscp)).toEqual(Array(11).fill(null));
  });
  it('anything else is no value', () => {
    expect([null, undefined, {}, ['26'], true].map(parseDscp)).toEqual([null, null, null, null, null]);
  });
  it('labels name the class, CS0 excepted', () => {
    expect([0, 1, 5, 8, 26, 46].map(dscpLabel)).toEqual(['0', '1 (LE)', '5', '8 (CS1)', '26 (AF31)', '46 (EF)']);
  });
});

const nft = (expr: unknown[], o: Partial<NftDscpRule> = {}): NftDscpRule => ({ family: 'inet', table: 'qos', chain: 'out', handle: 7, hook: 'output', expr, ...o });
const m = (op: string, left: unknown, right: unknown) => ({ match: { op, left, right } });
const set = (value: unknown) => ({ mangle: { key: { payload: { protocol: 'ip', field: 'dscp' } }, value } });

describe('nftMarkingRule', () => {
  it('ports, addresses, interfaces and protocol from the matches; negated interfaces and protocols do not limit it', () => {
    const expr = [
      m('==', { meta: { key: 'l4proto' } }, 'udp'),
      m('!=', { meta: { key: 'oifname' } }, 'eth0'),
      m('==', { meta: { key: 'iifname' } }, 'ens2'),
      m('==', { meta: { key: 'oif' } }, 'ens3'),
      m('==', { meta: { key: 'iif' } }, 'ens4'),
      m('==', { meta: { key: 'mark' } }, 'ens5'),
      m('==', { meta: { key: 'oifname' } }, { set: ['ens6'] }),
      m('!=', { payload: { protocol: 'ip', field: 'saddr' } }, '10.0.0.0/8'),
      m('==', { payload: { protocol: 'ip', field: 'daddr' } }, { prefix: { addr: '10.1.0.0', len: 16 } }),
      m('!=', { payload: { protocol: 'tcp', field: 'dport' } }, { range: [1000, 2000] }),
      m('==', { payload: { protocol: 'th', field: 'sport' } }, { set: [22, { range: [30000, 30010] }] }),
      m('!=', { meta: { key: 'l4proto' } }, 'icmp'),
      m('==', { payload: { protocol: 'ip', field: 'ttl' } }, 5),
      set('cs3'),
    ];
    const r = nftMarkingRule(nft(expr));
    expect(r.ports).toEqual([
      { dir: 'dport', ranges: [[1000, 2000]], negated: true },
      { dir: 'sport', ranges: [[22, 22], [30000, 30010]], negated: false },
    ]);
    expect(r.ifaces).toEqual(['ens2', 'ens3', 'ens4']);
    expect(r.addrs).toEqual(['!= saddr "10.0.0.0/8"', 'daddr {"prefix":{"addr":"10.1.0.0","len":16}}']);
    expect(r.proto).toBe('tcp');
    expect([r.dscp, r.dscpText]).toEqual([24, 'cs3']);
    expect(r).toMatchObject({ source: 'nftables', location: 'inet qos out', hook: 'output', text: JSON.stringify(expr) });
    expect(r.evidence).toEqual({ kind: 'command', source: 'nft -j list ruleset', value: `inet qos out handle 7: ${JSON.stringify(expr)}` });
  });
  it('the protocol of a port match is the payload\'s, except the transport-header "th"', () => {
    expect(nftMarkingRule(nft([m('==', { payload: { protocol: 'udp', field: 'dport' } }, 29500), set(26)])).proto).toBe('udp');
    expect(nftMarkingRule(nft([m('==', { payload: { protocol: 'th', field: 'dport' } }, 29500), set(26)])).proto).toBeNull();
    expect(nftMarkingRule(nft([m('==', { meta: { key: 'l4proto' } }, 'tcp'), set(26)])).proto).toBe('tcp');
    expect(nftMarkingRule(nft([m('==', { meta: { key: 'l4proto' } }, 6), set(26)])).proto).toBeNull();
  });
  it('port values: a number, a range of two numbers, a set of either; anything else matches no port', () => {
    const ports = (right: unknown) => nftMarkingRule(nft([m('==', { payload: { protocol: 'tcp', field: 'dport' } }, right), set(26)])).ports[0]!.ranges;
    expect(ports(29500)).toEqual([[29500, 29500]]);
    expect(ports({ range: [1, 2] })).toEqual([[1, 2]]);
    expect(ports({ range: [1, 2, 3] })).toEqual([]);
    expect(ports({ range: ['a', 2] })).toEqual([]);
    expect(ports({ range: [1, 'b'] })).toEqual([]);
    expect(ports({ set: [1, { range: [5, 6] }, 'x'] })).toEqual([[1, 1], [5, 6]]);
    expect(ports(null)).toEqual([]);
    expect(ports(true)).toEqual([]);
    expect(ports({})).toEqual([]);
  });
  it('the DSCP as written: a number, a name, or JSON for anything else; no statement: ? and no value', () => {
    expect(nftMarkingRule(nft([set(26)]))).toMatchObject({ dscp: 26, dscpText: '26' });
    expect(nftMarkingRule(nft([set({ map: 1 })]))).toMatchObject({ dscp: null, dscpText: '{"map":1}' });
    expect(nftMarkingRule(nft([]))).toMatchObject({ dscp: null, dscpText: '?' });
    expect(nftMarkingRule(nft([{ mangle: { key: { payload: { field: 'ttl' } }, value: 5 } }]))).toMatchObject({ dscp: null, dscpText: '?' });
    // A rule without a handle names none.
    expect(nftMarkingRule(nft([set(26)], { handle: null })).evidence.value).toBe('inet qos out: [{"mangle":{"key":{"payload":{"protocol":"ip","field":"dscp"}},"value":26}}]');
  });
});

const SAVE = [
  '# Generated by iptables-save',
  '*mangle',
  ':OUTPUT ACCEPT [0:0]',
  '-A OUTPUT -o ens1 -p tcp -m tcp --dport 29500:29510 -j DSCP --set-dscp 0x1a',
  '-A POSTROUTING ! -o eth0 ! -p udp -s 10.0.0.0/8 ! -d 10.9.0.0/16 -m multiport --sports 22,1000:1010 -j DSCP --set-dscp-class AF41',
  '-A mychain -i ens2 -m multiport --ports 5000 -j TOS --set-tos 0x68/0xfc',
  '-A PREROUTING -j TOS --set-tos 0x68/0x0f',
  '-A OUTPUT -p tcp --destination-port 80 -j ACCEPT',
  '-A OUTPUT -p tcp -j MARK --set-mark 1',
  '-A OUTPUT -m comment --comment "a -j DSCP rule" -p tcp --source-port 443 --destination-ports 1000:x,22 -j TOS --set-tos 104',
  '-A FORWARD -p tcp --dport',
  'COMMIT',
].join('\n');

describe('iptablesMarkingRules', () => {
  // Parsed inside each test: code run while vitest collects tests would count as module-level (static) for Stryker.
  const parse = () => iptablesMarkingRules(SAVE, 'iptables', ['iptables-save', '-t', 'mangle']);
  it('only DSCP and TOS targets, each with its table, chain and hook (a user chain has none)', () => {
    const rules = parse();
    expect(rules.map((r) => [r.location, r.hook, r.dscp, r.dscpText])).toEqual([
      ['mangle OUTPUT', 'output', 26, '0x1a'],
      ['mangle POSTROUTING', 'postrouting', 34, 'AF41'],
      ['mangle mychain', null, 26, 'TOS 0x68/0xfc'],
      ['mangle PREROUTING', 'prerouting', null, 'TOS 0x68/0x0f'],
      ['mangle OUTPUT', 'output', 26, 'TOS 104'],
    ]);
    expect(rules[0]!.evidence).toEqual({ kind: 'command', source: 'iptables-save -t mangle', value: SAVE.split('\n')[3] });
    expect(rules[0]!.source).toBe('iptables');
  });
  it('matches: interfaces, protocol, addresses, ports; "!" negates ports and addresses and drops interfaces and protocols', () => {
    const rules = parse();
    expect(rules.map((r) => [r.ifaces, r.proto, r.addrs])).toEqual([
      [['ens1'], 'tcp', []],
      [[], null, ['-s 10.0.0.0/8', '! -d 10.9.0.0/16']],
      [['ens2'], null, []],
      [[], null, []],
      [[], 'tcp', []],
    ]);
    expect(rules.map((r) => r.ports)).toEqual([
      [{ dir: 'dport', ranges: [[29500, 29510]], negated: false }],
      [{ dir: 'sport', ranges: [[22, 22], [1000, 1010]], negated: false }],
      [{ dir: 'port', ranges: [[5000, 5000]], negated: false }],
      [],
      [
        { dir: 'sport', ranges: [[443, 443]], negated: false },
        // "1000:x" is no range: only 22 is read.
        { dir: 'dport', ranges: [[22, 22]], negated: false },
      ],
    ]);
    const neg = iptablesMarkingRules('*mangle\n-A OUTPUT -p tcp ! --dport 29500 ! --source-ports 1:2 -j DSCP --set-dscp 10', 'ip6tables', ['ip6tables-save']);
    expect(neg[0]).toMatchObject({ source: 'ip6tables', ports: [{ dir: 'dport', ranges: [[29500, 29500]], negated: true }, { dir: 'sport', ranges: [[1, 2]], negated: true }] });
  });
});

describe('the marking inventory', () => {
  const snap = snapshotOf([link('lo', ['127.0.0.1/8']), link('ens1', ['10.0.0.1/24'])]);
  const xt = nft([{ xt: { type: 'target', name: 'DSCP' } }, set(10)]);
  it('no kernel part: nothing known', () => {
    expect(markingInventory(undefined)).toBeNull();
    expect(markingKnown(null)).toBe(false);
    expect(siteIntendedDscp(undefined, new Set())).toBeNull();
  });
  it('each source read, missing (not installed live, not recorded under --root) or unreadable; computed once per kernel part', () => {
    const k = kernelPart(snap, {
      nft: ok(['nft', '-j', 'list', 'ruleset'], 'nft.json', { tables: 1, chains: 1, rules: 2, dscpRules: [nft([set(26)]), xt], xtRules: 0 }),
      iptables: failed(['iptables-save', '-t', 'mangle'], 'ipt.txt', 'spawn ENOENT', true),
      ip6tables: { argv: ['ip6tables-save', '-t', 'mangle'], record: 'ip6.txt', from: 'recorded', ok: false, error: 'not recorded', missing: true },
    });
    const inv = markingInventory(k)!;
    expect(markingInventory(k)).toBe(inv);
    expect(inv.read).toEqual(['nft -j list ruleset']);
    expect(inv.missing).toEqual(['iptables-save: not installed', 'ip6tables-save: not recorded']);
    expect(inv.unreadable).toEqual([]);
    // The xt rule (made by iptables-nft) is not read from nft.
    expect(inv.rules.map((r) => r.dscp)).toEqual([26]);
    expect(markingKnown(inv)).toBe(true);
  });
  it('iptables-nft rules without iptables-save: unreadable, from one such rule on; a failed read says why', () => {
    const with_ = (xtRules: number) =>
      markingInventory(
        kernelPart(snap, {
          nft: ok(['nft', '-j', 'list', 'ruleset'], 'nft.json', { tables: 1, chains: 1, rules: xtRules, dscpRules: [], xtRules }),
          iptables: failed(['iptables-save', '-t', 'mangle'], 'ipt.txt', 'exit 4: Permission denied'),
          ip6tables: failed(['ip6tables-save', '-t', 'mangle'], 'ip6.txt', 'exit 4: Permission denied'),
        }),
      )!;
    expect(with_(0).unreadable.map((u) => u.what)).toEqual(['iptables mangle table', 'ip6tables mangle table']);
    const one = with_(1).unreadable;
    expect(one.map((u) => u.what)).toEqual(['iptables mangle table', 'ip6tables mangle table', 'iptables-nft rules']);
    expect(one[0]!.reason).toBe('`iptables-save -t mangle` failed: exit 4: Permission denied');
    expect(one[2]!.reason).toBe('1 nftables rule(s) made by iptables-nft, and `iptables-save -t mangle` failed: exit 4: Permission denied');
    expect(one[2]!.evidence).toEqual({ kind: 'command', source: 'nft -j list ruleset', value: '1 rules with xt expressions' });
    expect(with_(1).rules).toEqual([]);
  });
  it('iptables and ip6tables rules are read with their source', () => {
    const inv = markingInventory(kernelPart(snap, { iptables: '*mangle\n-A OUTPUT -j DSCP --set-dscp 10', ip6tables: '*mangle\n-A OUTPUT -j DSCP --set-dscp 12' }))!;
    expect(inv.rules.map((r) => [r.source, r.dscp])).toEqual([
      ['iptables', 10],
      ['ip6tables', 12],
    ]);
    expect(inv.read).toEqual(['nft -j list ruleset', 'iptables-save -t mangle', 'ip6tables-save -t mangle']);
  });
});

describe('what the site marks', () => {
  const rule = (hook: string | null, dscp: number | null, ifaces: string[] = []) => ({ ...nftMarkingRule(nft([set(dscp ?? 'x')], { hook })), dscp, ifaces });
  it('egress: output, postrouting, forward and user chains; never prerouting or input', () => {
    expect(['output', 'postrouting', 'forward', null].map((h) => isEgress(rule(h, 1)))).toEqual([true, true, true, true]);
    expect(['prerouting', 'input'].map((h) => isEgress(rule(h, 1)))).toEqual([false, false]);
  });
  it('siteDscps: each egress value once, in numeric order', () => {
    const inv = { rules: [rule('output', 46), rule('output', 10), rule(null, 9), rule('output', 10), rule('prerouting', 8), rule('output', null)], unreadable: [], read: ['x'], missing: [] };
    expect(siteDscps(inv)).toEqual([9, 10, 46]);
  });
  it('intendedDscp: the rules on NCCL\'s NICs decide when there are any (a rule naming one of them counts); else every egress rule; several values: none', () => {
    const nics = new Set(['ens1']);
    const inv = (...rules: ReturnType<typeof rule>[]) => ({ rules, unreadable: [], read: ['x'], missing: [] });
    expect(intendedDscp(inv(rule('output', 26, ['ens1', 'eth0']), rule('output', 10, ['eth0'])), nics)).toBe(26);
    expect(intendedDscp(inv(rule('output', 26, ['eth0']), rule('output', 26)), nics)).toBe(26);
    expect(intendedDscp(inv(rule('output', 26, ['eth0']), rule('output', 10)), nics)).toBeNull();
    // Ingress rules and rules without a value do not count.
    expect(intendedDscp(inv(rule('prerouting', 10, ['ens1']), rule('output', null, ['ens1']), rule('output', 26)), nics)).toBe(26);
    expect(intendedDscp(inv(), nics)).toBeNull();
  });
  it('siteIntendedDscp reads the kernel part', () => {
    const snap = snapshotOf([link('ens1', ['10.0.0.1/24'])]);
    expect(siteIntendedDscp(kernelPart(snap, { iptables: '*mangle\n-A POSTROUTING -o ens1 -j DSCP --set-dscp-class cs3' }), new Set(['ens1']))).toBe(24);
  });
});

describe('localPortRange', () => {
  const range = (r: unknown) => localPortRange(r === 'none' ? undefined : ({ localPortRange: r } as never));
  it('two numbers at the start, blanks between; else the kernel default 32768–60999', () => {
    expect(range('32768\t60999')).toEqual([32768, 60999]);
    expect(range(' 1024  65000\n')).toEqual([1024, 65000]);
    expect(range('x 1 2')).toEqual([32768, 60999]);
    expect(range('1024')).toEqual([32768, 60999]);
    expect(range({ error: 'EACCES' })).toEqual([32768, 60999]);
    expect(range('none')).toEqual([32768, 60999]);
  });
});
