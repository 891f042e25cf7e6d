// What each fix operation is, in words and commands: the pure half of an
// operation (src/fix/ops.ts does the reading, writing and checking). The plan
// printer, the TUI preview and the apply engine all describe operations with
// these, so what is shown is what runs.

import { createHash } from 'node:crypto';
import { shJoin, shQuote } from '../shell/quote.js';
import type { MarkSelector, OpSpec } from './types.js';

export type Spec<K extends OpSpec['kind']> = Extract<OpSpec, { kind: K }>;

export const contentDigest = (s: string) => createHash('sha256').update(s).digest('hex');

/** A here-document whose delimiter cannot occur in the body. */
export function heredoc(prefix: string, body: string): string {
  let delim = 'NCCLX_EOF';
  while (body.split('\n').includes(delim)) delim += '_';
  return `${prefix} <<'${delim}'\n${body}${body.endsWith('\n') ? '' : '\n'}${delim}`;
}

export function ruleArgs(op: Spec<'ip-rule'>): string[] {
  return ['from', op.from, 'lookup', String(op.table), ...(op.priority !== undefined ? ['priority', String(op.priority)] : [])];
}

export const routeArgv = (op: Spec<'ip-route'>) => ['ip', '-4', 'route', 'replace', op.dst, 'dev', op.dev, 'src', op.src, 'table', String(op.table)];

export interface MarkRule {
  family: 4 | 6;
  /** The selectors of one rule (one of each kind at most: kinds AND, values OR). */
  parts: MarkSelector[];
  /** A tag carried in the rule's comment, so ncclx recognises its own rules. */
  tag: string;
}

/** Selectors of one kind OR together, different kinds AND: one rule per combination, and per IP family. */
export function markRules(selectors: MarkSelector[], dscp: number, ipv6 = true): MarkRule[] {
  const kinds = [...new Set(selectors.map((s) => s.by))];
  let combos: MarkSelector[][] = [[]];
  for (const k of kinds) combos = combos.flatMap((c) => selectors.filter((s) => s.by === k).map((s) => [...c, s]));
  const out: MarkRule[] = [];
  for (const parts of combos) {
    const fams = new Set(parts.filter((p): p is Extract<MarkSelector, { by: 'daddr' }> => p.by === 'daddr').map((p) => p.family));
    if (fams.size > 1) continue; // an IPv4 and an IPv6 destination at once matches nothing
    const families: (4 | 6)[] = fams.size ? [...fams] : ipv6 ? [4, 6] : [4];
    for (const family of families) {
      const tag = `ncclx:${contentDigest(JSON.stringify({ family, parts, dscp })).slice(0, 12)}`;
      out.push({ family, parts, tag });
    }
  }
  return out;
}

// nft's quoted strings end at the next double quote; there is no escape.
export const nftQuotable = (s: string) => !s.includes('"') && !/[\r\n]/.test(s);

function nftRule(r: MarkRule, dscp: number): string {
  const words: string[] = [];
  for (const p of r.parts) {
    if (p.by === 'oif') words.push(`oifname "${p.iface}"`);
    else if (p.by === 'daddr') words.push(`${p.family === 4 ? 'ip' : 'ip6'} daddr ${p.prefix}`);
    else if (p.by === 'uid') words.push(`meta skuid ${p.uid}`);
    else if (p.by === 'cgroup') {
      const path = p.path.replace(/^\/+|\/+$/g, '');
      words.push(`socket cgroupv2 level ${path.split('/').length} "${path}"`);
    } else words.push(`tcp ${p.dir} ${p.lo === p.hi ? p.lo : `${p.lo}-${p.hi}`}`);
  }
  if (!r.parts.some((p) => p.by === 'ports')) words.push('meta l4proto tcp');
  words.push(`${r.family === 4 ? 'ip' : 'ip6'} dscp set ${dscp}`, `comment "${r.tag}"`);
  return words.join(' ');
}

export function nftScript(op: Spec<'nft-mark'>): string {
  const rules = markRules(op.selectors, op.dscp).map((r) => `\t\t${nftRule(r, op.dscp)}`);
  // "table" then "delete table" in one transaction: replaces an older ncclx table atomically, or creates it.
  return [
    `table inet ${op.table}`,
    `delete table inet ${op.table}`,
    `table inet ${op.table} {`,
    '\tchain output {',
    '\t\ttype filter hook output priority mangle; policy accept;',
    ...rules,
    '\t}',
    '}',
    '',
  ].join('\n');
}

// iptables-restore splits on blanks and honours double quotes.
export const iptQuotable = (s: string) => !/["\s]/.test(s);

function iptRule(chain: string, r: MarkRule, dscp: number): string {
  const a: string[] = ['-A', chain];
  for (const p of r.parts) {
    if (p.by === 'oif') a.push('-o', p.iface);
    else if (p.by === 'daddr') a.push('-d', p.prefix);
    else if (p.by === 'uid') a.push('-m', 'owner', '--uid-owner', String(p.uid));
    else if (p.by === 'cgroup') a.push('-m', 'cgroup', '--path', p.path);
  }
  a.push('-p', 'tcp');
  for (const p of r.parts) if (p.by === 'ports') a.push('-m', 'tcp', `--${p.dir}`, p.lo === p.hi ? String(p.lo) : `${p.lo}:${p.hi}`);
  a.push('-m', 'comment', '--comment', r.tag, '-j', 'DSCP', '--set-dscp', String(dscp));
  return a.join(' ');
}

export const IPT = { 4: { cmd: 'iptables', restore: 'iptables-restore' }, 6: { cmd: 'ip6tables', restore: 'ip6tables-restore' } } as const;

export function iptFamilies(op: Spec<'iptables-mark'>): (4 | 6)[] {
  return [...new Set(markRules(op.selectors, op.dscp, op.ipv6).map((r) => r.family))].sort();
}

export function iptRestoreInput(op: Spec<'iptables-mark'>, family: 4 | 6): string {
  const rules = markRules(op.selectors, op.dscp, op.ipv6).filter((r) => r.family === family);
  // `:CHAIN` under --noflush creates the chain, or empties it if an older ncclx apply left it.
  return ['*mangle', `:${op.chain} - [0:0]`, ...rules.map((r) => iptRule(op.chain, r, op.dscp)), 'COMMIT', ''].join('\n');
}

/** The class that marked packets go to. */
export const fastClass = (op: Spec<'qdisc'>) => (op.scheduler === 'prio' ? '1:1' : '1:10');

/**
 * The root qdisc the qdisc-priority fix installs: htb with handle 1: and
 * default class 1:20 (tc prints it as "default": "0x20"), or any qdisc the
 * model's end state marks as ncclx's. A prio root cannot be told from someone
 * else's by the qdisc alone, so it is not claimed.
 */
export function isOwnQdisc(q: { kind: string; handle?: string; options?: Record<string, unknown> }): boolean {
  if (q.options?.['ncclx'] === true) return true;
  return q.kind === 'htb' && q.handle === '1:' && String(q.options?.['default']) === '0x20';
}

export function qdiscArgv(op: Spec<'qdisc'>): string[][] {
  const dev = op.dev;
  const tos = `0x${(op.dscp << 2).toString(16).padStart(2, '0')}`;
  const out: string[][] = [];
  if (op.scheduler === 'prio') {
    out.push(['tc', 'qdisc', 'replace', 'dev', dev, 'root', 'handle', '1:', 'prio']);
  } else {
    const r = op.rateMbit!;
    // Marked traffic may take the whole link; the rest is guaranteed a tenth and borrows what is left.
    out.push(
      ['tc', 'qdisc', 'replace', 'dev', dev, 'root', 'handle', '1:', 'htb', 'default', '20'],
      ['tc', 'class', 'add', 'dev', dev, 'parent', '1:', 'classid', '1:1', 'htb', 'rate', `${r}mbit`, 'ceil', `${r}mbit`],
      ['tc', 'class', 'add', 'dev', dev, 'parent', '1:1', 'classid', '1:10', 'htb', 'rate', `${Math.max(1, Math.floor(r * 0.9))}mbit`, 'ceil', `${r}mbit`, 'prio', '0', 'quantum', '60000'],
      ['tc', 'class', 'add', 'dev', dev, 'parent', '1:1', 'classid', '1:20', 'htb', 'rate', `${Math.max(1, Math.floor(r * 0.1))}mbit`, 'ceil', `${r}mbit`, 'prio', '1', 'quantum', '60000'],
    );
  }
  out.push(
    ['tc', 'filter', 'add', 'dev', dev, 'parent', '1:', 'protocol', 'ip', 'prio', '1', 'u32', 'match', 'ip', 'dsfield', tos, '0xfc', 'flowid', fastClass(op)],
    ['tc', 'filter', 'add', 'dev', dev, 'parent', '1:', 'protocol', 'ipv6', 'prio', '2', 'u32', 'match', 'ip6', 'priority', tos, '0xfc', 'flowid', fastClass(op)],
  );
  return out;
}


interface Description<S extends OpSpec> {
  /** One line: what the operation does. */
  text(op: S): string;
  /** The commands and file writes, quoted for pasting (each entry runs as one command). */
  commands(op: S): string[];
  /** Programs it runs. */
  tools(op: S): string[];
}

const DESCRIPTIONS: { [K in OpSpec['kind']]: Description<Spec<K>> } = {
  sysctl: {
    text: (op) => `sysctl ${op.key} = ${op.value}`,
    commands: (op) => [shJoin(['sysctl', '-w', `${op.key}=${op.value}`])],
    tools: () => [],
  },
  file: {
    text: (op) => `write ${op.path} (${op.what})`,
    commands: (op) => [heredoc(`cat > ${shQuote(op.path)}`, op.content)],
    tools: () => [],
  },
  'ip-rule': {
    text: (op) => `policy rule: from ${op.from} lookup table ${op.table}`,
    commands: (op) => [shJoin(['ip', '-4', 'rule', 'add', ...ruleArgs(op)])],
    tools: () => ['ip'],
  },
  'ip-route': {
    text: (op) => `route ${op.dst} dev ${op.dev} src ${op.src} in table ${op.table}`,
    commands: (op) => [shJoin(routeArgv(op))],
    tools: () => ['ip'],
  },
  'nft-mark': {
    text: (op) => `nftables table inet ${op.table}: DSCP ${op.dscp} on ${markRules(op.selectors, op.dscp).length} rule(s)`,
    commands: (op) => [heredoc('nft -f -', nftScript(op))],
    tools: () => ['nft'],
  },
  'iptables-mark': {
    text: (op) => `iptables mangle chain ${op.chain}: DSCP ${op.dscp} on ${markRules(op.selectors, op.dscp, op.ipv6).length} rule(s)`,
    commands: (op) =>
      iptFamilies(op).flatMap((f) => {
        const { cmd, restore } = IPT[f];
        return [
          heredoc(`${restore} -w --noflush`, iptRestoreInput(op, f)),
          `${shJoin([cmd, '-w', '-t', 'mangle', '-C', 'OUTPUT', '-j', op.chain])} 2>/dev/null || ${shJoin([cmd, '-w', '-t', 'mangle', '-A', 'OUTPUT', '-j', op.chain])}`,
        ];
      }),
    tools: (op) => iptFamilies(op).flatMap((f) => [IPT[f].cmd, IPT[f].restore]),
  },
  qdisc: {
    text: (op) => `root qdisc ${op.scheduler} on ${op.dev}: DSCP ${op.dscp} first${op.scheduler === 'htb' ? ` (link ${op.rateMbit} Mbit/s)` : ''}`,
    commands: (op) => qdiscArgv(op).map(shJoin),
    tools: () => ['tc'],
  },
};

const describe = (op: OpSpec) => DESCRIPTIONS[op.kind] as Description<OpSpec>;
export const opText = (op: OpSpec) => describe(op).text(op);
export const commandsFor = (op: OpSpec) => describe(op).commands(op);
export const toolsFor = (op: OpSpec) => describe(op).tools(op);
