// What each fix operation is, in words and commands (src/model/fix/describe.ts),
// in process: the exact commands a person pastes and the tools they need.
// Expected text is written out by hand.
import { describe, expect, it } from 'vitest';
import { commandsFor, contentDigest, fastClass, heredoc, iptFamilies, iptQuotable, iptRestoreInput, isOwnQdisc, markRules, nftQuotable, nftScript, opText, qdiscArgv, toolsFor } from '../../src/model/fix/describe.js';
import type { OpSpec } from '../../src/model/fix/types.js';

type Op<K extends OpSpec['kind']> = Extract<OpSpec, { kind: K }>;
const nft = (selectors: Op<'nft-mark'>['selectors'], dscp = 46): Op<'nft-mark'> => ({ kind: 'nft-mark', table: 'ncclx_qos', dscp, selectors });
const ipt = (selectors: Op<'iptables-mark'>['selectors'], ipv6 = true): Op<'iptables-mark'> => ({ kind: 'iptables-mark', chain: 'NCCLX_QOS', dscp: 46, selectors, ipv6 });

describe('heredoc', () => {
  it('a delimiter the body does not hold, and a final newline', () => {
    expect(heredoc('cat > f', 'a=1')).toBe("cat > f <<'NCCLX_EOF'\na=1\nNCCLX_EOF");
    expect(heredoc('cat > f', 'a=1\n')).toBe("cat > f <<'NCCLX_EOF'\na=1\nNCCLX_EOF");
    expect(heredoc('x', 'NCCLX_EOF\nNCCLX_EOF_\n')).toBe("x <<'NCCLX_EOF__'\nNCCLX_EOF\nNCCLX_EOF_\nNCCLX_EOF__");
    // Only a whole line ends the document: the word inside a line is harmless.
    expect(heredoc('x', 'say NCCLX_EOF')).toBe("x <<'NCCLX_EOF'\nsay NCCLX_EOF\nNCCLX_EOF");
  });
  it('the digest is sha256 in hex', () => {
    expect(contentDigest('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });
});

describe('sysctl, file, rule and route operations', () => {
  it('sysctl', () => {
    const op: OpSpec = { kind: 'sysctl', key: 'net/ipv4/conf/r$d;(0/arp_ignore', value: '1' };
    expect(opText(op)).toBe('sysctl net/ipv4/conf/r$d;(0/arp_ignore = 1');
    expect(commandsFor(op)).toEqual(["sysctl -w 'net/ipv4/conf/r$d;(0/arp_ignore=1'"]);
    expect(toolsFor(op)).toEqual([]);
  });
  it('file', () => {
    const op: OpSpec = { kind: 'file', path: '/etc/sysctl.d/90 ncclx.conf', content: 'a = 1\n', mode: 0o644, expect: null, what: 'sysctl drop-in' };
    expect(opText(op)).toBe('write /etc/sysctl.d/90 ncclx.conf (sysctl drop-in)');
    expect(commandsFor(op)).toEqual(["cat > '/etc/sysctl.d/90 ncclx.conf' <<'NCCLX_EOF'\na = 1\nNCCLX_EOF"]);
    expect(toolsFor(op)).toEqual([]);
  });
  it('ip rule, with and without a priority', () => {
    const op: OpSpec = { kind: 'ip-rule', from: '10.0.0.2', table: 100 };
    expect(opText(op)).toBe('policy rule: from 10.0.0.2 lookup table 100');
    expect(commandsFor(op)).toEqual(['ip -4 rule add from 10.0.0.2 lookup 100']);
    expect(commandsFor({ ...op, priority: 90 })).toEqual(['ip -4 rule add from 10.0.0.2 lookup 100 priority 90']);
    expect(toolsFor(op)).toEqual(['ip']);
  });
  it('ip route', () => {
    const op: OpSpec = { kind: 'ip-route', dst: '10.0.0.0/24', dev: 'ens2', src: '10.0.0.2', table: 100 };
    expect(opText(op)).toBe('route 10.0.0.0/24 dev ens2 src 10.0.0.2 in table 100');
    expect(commandsFor(op)).toEqual(['ip -4 route replace 10.0.0.0/24 dev ens2 src 10.0.0.2 table 100']);
    expect(toolsFor(op)).toEqual(['ip']);
  });
});

describe('marking rules', () => {
  it('kinds AND, values OR; both IP families unless a destination says one', () => {
    const r = markRules([{ by: 'oif', iface: 'a' }, { by: 'oif', iface: 'b' }, { by: 'uid', uid: 0 }], 46);
    expect(r.map((x) => [x.family, x.parts.map((p) => JSON.stringify(p)).join(' ')])).toEqual([
      [4, '{"by":"oif","iface":"a"} {"by":"uid","uid":0}'],
      [6, '{"by":"oif","iface":"a"} {"by":"uid","uid":0}'],
      [4, '{"by":"oif","iface":"b"} {"by":"uid","uid":0}'],
      [6, '{"by":"oif","iface":"b"} {"by":"uid","uid":0}'],
    ]);
    expect(markRules([{ by: 'oif', iface: 'a' }], 46, false).map((x) => x.family)).toEqual([4]);
    expect(markRules([{ by: 'daddr', prefix: 'fd00::/8', family: 6 }], 46).map((x) => x.family)).toEqual([6]);
    expect(markRules([{ by: 'daddr', prefix: '10.0.0.0/8', family: 4 }, { by: 'daddr', prefix: 'fd00::/8', family: 6 }], 46).map((x) => x.family)).toEqual([4, 6]);
  });
  it('each rule carries a tag of its content: the same rule, the same tag', () => {
    const [a] = markRules([{ by: 'oif', iface: 'a' }], 46, false);
    expect(a!.tag).toMatch(/^ncclx:[0-9a-f]{12}$/);
    expect(markRules([{ by: 'oif', iface: 'a' }], 46, false)[0]!.tag).toBe(a!.tag);
    expect(markRules([{ by: 'oif', iface: 'a' }], 26, false)[0]!.tag).not.toBe(a!.tag);
    expect(a!.tag).toBe(`ncclx:${contentDigest(JSON.stringify({ family: 4, parts: [{ by: 'oif', iface: 'a' }], dscp: 46 })).slice(0, 12)}`);
  });
  it('what nft and iptables-restore can carry', () => {
    expect(nftQuotable('eth0')).toBe(true);
    expect(nftQuotable('e"0')).toBe(false);
    expect(nftQuotable('e\n0')).toBe(false);
    expect(nftQuotable('e\r0')).toBe(false);
    expect(iptQuotable('e$x;(1')).toBe(true);
    expect(iptQuotable('e 0')).toBe(false);
    expect(iptQuotable('e"0')).toBe(false);
    expect(iptQuotable('e\t0')).toBe(false);
  });
});

describe('nftables', () => {
  it('one table replaced atomically; each selector kind in nft\'s words', () => {
    const op = nft([
      { by: 'oif', iface: 'ens1' },
      { by: 'daddr', prefix: '10.0.0.0/8', family: 4 },
      { by: 'uid', uid: 1000 },
      { by: 'cgroup', path: '/slurm/job_1/' },
      { by: 'ports', lo: 29500, hi: 29500, dir: 'dport' },
    ]);
    const [rule] = markRules(op.selectors, 46);
    expect(nftScript(op)).toBe(
      [
        'table inet ncclx_qos',
        'delete table inet ncclx_qos',
        'table inet ncclx_qos {',
        '\tchain output {',
        '\t\ttype filter hook output priority mangle; policy accept;',
        `\t\toifname "ens1" ip daddr 10.0.0.0/8 meta skuid 1000 socket cgroupv2 level 2 "slurm/job_1" tcp dport 29500 ip dscp set 46 comment "${rule!.tag}"`,
        '\t}',
        '}',
        '',
      ].join('\n'),
    );
    expect(opText(op)).toBe('nftables table inet ncclx_qos: DSCP 46 on 1 rule(s)');
    expect(commandsFor(op)).toEqual([heredoc('nft -f -', nftScript(op))]);
    expect(toolsFor(op)).toEqual(['nft']);
  });
  it('without a port selector the rule is for TCP; a port range reads lo-hi; IPv6 rules set ip6 dscp', () => {
    const lines = nftScript(nft([{ by: 'ports', lo: 1000, hi: 2000, dir: 'sport' }], 26)).split('\n').filter((l) => l.startsWith('\t\ttcp'));
    expect(lines.map((l) => l.replace(/ comment .*/, ''))).toEqual(['\t\ttcp sport 1000-2000 ip dscp set 26', '\t\ttcp sport 1000-2000 ip6 dscp set 26']);
    const plain = nftScript(nft([{ by: 'oif', iface: 'e' }])).split('\n').filter((l) => l.startsWith('\t\toifname'));
    expect(plain.map((l) => l.replace(/ comment .*/, ''))).toEqual(['\t\toifname "e" meta l4proto tcp ip dscp set 46', '\t\toifname "e" meta l4proto tcp ip6 dscp set 46']);
    expect(nftScript(nft([{ by: 'daddr', prefix: 'fd00::/8', family: 6 }]))).toContain('ip6 daddr fd00::/8 meta l4proto tcp ip6 dscp set 46');
  });
});

describe('iptables', () => {
  it('a chain of ncclx\'s own, per family, hooked into OUTPUT once', () => {
    const op = ipt([{ by: 'oif', iface: 'ens1' }, { by: 'uid', uid: 0 }, { by: 'ports', lo: 1, hi: 9, dir: 'dport' }]);
    expect(iptFamilies(op)).toEqual([4, 6]);
    const [r4] = markRules(op.selectors, 46, true);
    expect(iptRestoreInput(op, 4)).toBe(['*mangle', ':NCCLX_QOS - [0:0]', `-A NCCLX_QOS -o ens1 -m owner --uid-owner 0 -p tcp -m tcp --dport 1:9 -m comment --comment ${r4!.tag} -j DSCP --set-dscp 46`, 'COMMIT', ''].join('\n'));
    expect(commandsFor(op)).toEqual([
      heredoc('iptables-restore -w --noflush', iptRestoreInput(op, 4)),
      'iptables -w -t mangle -C OUTPUT -j NCCLX_QOS 2>/dev/null || iptables -w -t mangle -A OUTPUT -j NCCLX_QOS',
      heredoc('ip6tables-restore -w --noflush', iptRestoreInput(op, 6)),
      'ip6tables -w -t mangle -C OUTPUT -j NCCLX_QOS 2>/dev/null || ip6tables -w -t mangle -A OUTPUT -j NCCLX_QOS',
    ]);
    expect(toolsFor(op)).toEqual(['iptables', 'iptables-restore', 'ip6tables', 'ip6tables-restore']);
    expect(opText(op)).toBe('iptables mangle chain NCCLX_QOS: DSCP 46 on 2 rule(s)');
  });
  it('IPv4 only without ipv6; a destination and a cgroup in iptables\' words; one port without a range', () => {
    const op = ipt([{ by: 'daddr', prefix: '10.0.0.0/8', family: 4 }, { by: 'cgroup', path: '/job' }, { by: 'ports', lo: 7, hi: 7, dir: 'sport' }], false);
    expect(iptFamilies(op)).toEqual([4]);
    expect(iptRestoreInput(op, 4).split('\n')[2]).toMatch(/^-A NCCLX_QOS -d 10\.0\.0\.0\/8 -m cgroup --path \/job -p tcp -m tcp --sport 7 -m comment --comment ncclx:[0-9a-f]{12} -j DSCP --set-dscp 46$/);
    expect(iptRestoreInput(op, 6)).toBe('*mangle\n:NCCLX_QOS - [0:0]\nCOMMIT\n');
  });
});

describe('qdiscs', () => {
  const htb: Op<'qdisc'> = { kind: 'qdisc', dev: 'ens1', scheduler: 'htb', dscp: 46, rateMbit: 1000, replaces: 'mq' };
  it('htb: a link class, marked traffic at 90 % with priority, the rest at 10 %; filters on the DSCP bits', () => {
    expect(qdiscArgv(htb)).toEqual([
      ['tc', 'qdisc', 'replace', 'dev', 'ens1', 'root', 'handle', '1:', 'htb', 'default', '20'],
      ['tc', 'class', 'add', 'dev', 'ens1', 'parent', '1:', 'classid', '1:1', 'htb', 'rate', '1000mbit', 'ceil', '1000mbit'],
      ['tc', 'class', 'add', 'dev', 'ens1', 'parent', '1:1', 'classid', '1:10', 'htb', 'rate', '900mbit', 'ceil', '1000mbit', 'prio', '0', 'quantum', '60000'],
      ['tc', 'class', 'add', 'dev', 'ens1', 'parent', '1:1', 'classid', '1:20', 'htb', 'rate', '100mbit', 'ceil', '1000mbit', 'prio', '1', 'quantum', '60000'],
      ['tc', 'filter', 'add', 'dev', 'ens1', 'parent', '1:', 'protocol', 'ip', 'prio', '1', 'u32', 'match', 'ip', 'dsfield', '0xb8', '0xfc', 'flowid', '1:10'],
      ['tc', 'filter', 'add', 'dev', 'ens1', 'parent', '1:', 'protocol', 'ipv6', 'prio', '2', 'u32', 'match', 'ip6', 'priority', '0xb8', '0xfc', 'flowid', '1:10'],
    ]);
    expect(opText(htb)).toBe('root qdisc htb on ens1: DSCP 46 first (link 1000 Mbit/s)');
    expect(toolsFor(htb)).toEqual(['tc']);
    expect(commandsFor(htb)[0]).toBe('tc qdisc replace dev ens1 root handle 1: htb default 20');
  });
  it('a slow link keeps at least 1 Mbit/s per class; a small DSCP is two hex digits', () => {
    const slow = qdiscArgv({ ...htb, rateMbit: 5, dscp: 2 });
    expect(slow[2]!.slice(10, 12)).toEqual(['rate', '4mbit']);
    expect(slow[3]!.slice(10, 12)).toEqual(['rate', '1mbit']);
    expect(qdiscArgv({ ...htb, rateMbit: 1 })[3]!.slice(10, 12)).toEqual(['rate', '1mbit']);
    expect(slow[4]!.slice(-4)).toEqual(['0x08', '0xfc', 'flowid', '1:10']);
  });
  it('prio: one qdisc, marked traffic to band 1:1', () => {
    const prio: Op<'qdisc'> = { ...htb, scheduler: 'prio', rateMbit: undefined };
    expect(fastClass(prio)).toBe('1:1');
    expect(fastClass(htb)).toBe('1:10');
    expect(qdiscArgv(prio).map((a) => a.join(' '))).toEqual([
      'tc qdisc replace dev ens1 root handle 1: prio',
      'tc filter add dev ens1 parent 1: protocol ip prio 1 u32 match ip dsfield 0xb8 0xfc flowid 1:1',
      'tc filter add dev ens1 parent 1: protocol ipv6 prio 2 u32 match ip6 priority 0xb8 0xfc flowid 1:1',
    ]);
    expect(opText(prio)).toBe('root qdisc prio on ens1: DSCP 46 first');
  });
  it('ncclx\'s own root: its htb (handle 1:, default 0x20), or what the model marked', () => {
    expect(isOwnQdisc({ kind: 'htb', handle: '1:', options: { default: '0x20' } })).toBe(true);
    expect(isOwnQdisc({ kind: 'htb', handle: '1:', options: { default: '0x10' } })).toBe(false);
    expect(isOwnQdisc({ kind: 'htb', handle: '2:', options: { default: '0x20' } })).toBe(false);
    expect(isOwnQdisc({ kind: 'prio', handle: '1:', options: { default: '0x20' } })).toBe(false);
    expect(isOwnQdisc({ kind: 'prio', handle: '1:', options: { ncclx: true } })).toBe(true);
    expect(isOwnQdisc({ kind: 'htb', handle: '1:' })).toBe(false);
  });
});
