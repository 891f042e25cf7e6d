// DSCP marking as the kernel holds it: nftables and iptables-save rules read
// into one shape, and the DSCP value a site evidently means. tc and netfilter
// only ever see packets of the kernel's IP stack — NCCL's TCP sockets
// (bootstrap, IB out-of-band, NET/Socket); RoCE data never passes through
// them (its class is NCCL_IB_TC = DSCP × 4, docs/nccl/qos.md §1).

import type { Evidence } from '../result/types.js';
import { shJoin } from '../shell/quote.js';
import type { Captured, KernelPart, NftDscpRule } from '../snapshot/kernel-types.js';
import { captureFailure, commandEvidence, commandLine } from './routes.js';
import { append } from '../list.js';

const inventories = new WeakMap<KernelPart, MarkingInventory>();
function cachedInventory(kernel: KernelPart, compute: () => MarkingInventory): MarkingInventory {
  let inv = inventories.get(kernel);
  if (!inv) inventories.set(kernel, (inv = compute()));
  return inv;
}

// ---------------------------------------------------------------------------
// DSCP names

const DSCP_NAMES: Record<string, number> = { ef: 46, va: 44, le: 1 };
for (let x = 0; x <= 7; x++) DSCP_NAMES[`cs${x}`] = 8 * x;
for (let x = 1; x <= 4; x++) for (let y = 1; y <= 3; y++) DSCP_NAMES[`af${x}${y}`] = 8 * x + 2 * y;

/** DSCP from how nft or iptables wrote it: a name (af31, CS3, ef), decimal or 0x hex. */
export function parseDscp(v: unknown): number | null {
  if (typeof v === 'number') return Number.isInteger(v) && v >= 0 && v <= 63 ? v : null;
  if (typeof v !== 'string') return null;
  const t = v.trim().toLowerCase();
  if (t in DSCP_NAMES) return DSCP_NAMES[t]!;
  const n = /^0x[0-9a-f]+$/.test(t) ? parseInt(t, 16) : /^\d+$/.test(t) ? Number(t) : NaN;
  return Number.isInteger(n) && n >= 0 && n <= 63 ? n : null;
}

export function dscpLabel(d: number): string {
  const name = Object.entries(DSCP_NAMES).find(([k, v]) => v === d && k !== 'cs0')?.[0];
  return name ? `${d} (${name.toUpperCase()})` : String(d);
}

// ---------------------------------------------------------------------------
// Marking rules from nftables and iptables-save, in one shape

export interface PortMatch {
  dir: 'dport' | 'sport' | 'port';
  ranges: [number, number][];
  negated: boolean;
}

export interface MarkingRule {
  source: 'nftables' | 'iptables' | 'ip6tables';
  /** Where the rule lives: "inet qos out" or "mangle POSTROUTING". */
  location: string;
  /** Hook or built-in chain; null for a user chain (reached by a jump ncclx does not follow). */
  hook: string | null;
  /** The rule as printed (iptables-save line, or nft expression JSON). */
  text: string;
  dscp: number | null;
  /** How the DSCP was written, for messages. */
  dscpText: string;
  ports: PortMatch[];
  /** Interfaces (oifname / -o; iif as well) the rule is limited to. */
  ifaces: string[];
  /** Address selectors as written (-s/-d, saddr/daddr). */
  addrs: string[];
  /** Layer-4 protocol the rule is limited to (tcp, udp), when it is. */
  proto: string | null;
  evidence: Evidence;
}

function portRanges(v: unknown): [number, number][] {
  if (typeof v === 'number') return [[v, v]];
  if (typeof v === 'string') {
    return v
      .split(',')
      .map((part) => part.split(':').map(Number))
      .filter((p) => p.every((n) => Number.isInteger(n)))
      .map((p) => [p[0]!, p[1] ?? p[0]!] as [number, number]);
  }
  if (v && typeof v === 'object') {
    const o = v as { range?: unknown[]; set?: unknown[] };
    if (Array.isArray(o.range) && o.range.length === 2 && o.range.every((n) => typeof n === 'number')) return [[o.range[0] as number, o.range[1] as number]];
    if (Array.isArray(o.set)) return o.set.flatMap(portRanges);
  }
  return [];
}

/** nftables: the DSCP statement's value and the matches that come before it. */
export function nftMarkingRule(r: NftDscpRule): MarkingRule {
  const ports: PortMatch[] = [];
  const ifaces: string[] = [];
  const addrs: string[] = [];
  let dscp: number | null = null;
  let dscpText = '?';
  let proto: string | null = null;
  for (const e of r.expr as Record<string, unknown>[]) {
    const m = e['match'] as { op?: string; left?: Record<string, Record<string, unknown>>; right?: unknown } | undefined;
    if (m?.left) {
      const negated = m.op === '!=';
      const payload = m.left['payload'];
      const meta = m.left['meta'];
      if (payload && (payload['field'] === 'dport' || payload['field'] === 'sport')) ports.push({ dir: payload['field'] as 'dport' | 'sport', ranges: portRanges(m.right), negated });
      if (payload && (payload['field'] === 'saddr' || payload['field'] === 'daddr')) addrs.push(`${negated ? '!= ' : ''}${payload['field']} ${JSON.stringify(m.right)}`);
      if (payload && (payload['field'] === 'dport' || payload['field'] === 'sport') && payload['protocol'] !== 'th') proto = String(payload['protocol']);
      if (meta && meta['key'] === 'l4proto' && typeof m.right === 'string' && !negated) proto = m.right;
      if (meta && (meta['key'] === 'oifname' || meta['key'] === 'oif' || meta['key'] === 'iifname' || meta['key'] === 'iif') && typeof m.right === 'string' && !negated) ifaces.push(m.right);
    }
    const mangle = e['mangle'] as { key?: { payload?: { field?: string } }; value?: unknown } | undefined;
    if (mangle?.key?.payload?.field === 'dscp') {
      dscp = parseDscp(mangle.value);
      dscpText = typeof mangle.value === 'string' || typeof mangle.value === 'number' ? String(mangle.value) : JSON.stringify(mangle.value);
    }
  }
  const location = `${r.family} ${r.table} ${r.chain}`;
  const text = JSON.stringify(r.expr);
  return {
    source: 'nftables',
    location,
    hook: r.hook,
    text,
    dscp,
    dscpText,
    ports,
    ifaces,
    addrs,
    proto,
    evidence: { kind: 'command', source: 'nft -j list ruleset', value: `${location}${r.handle !== null ? ` handle ${r.handle}` : ''}: ${text}` },
  };
}

/** Split an iptables-save line into words; "quoted comments" stay one word. */
function words(line: string): string[] {
  const out: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|(\S+)/g;
  for (let m = re.exec(line); m; m = re.exec(line)) out.push(m[1] !== undefined ? m[1] : m[2]!);
  return out;
}

const BUILTIN_CHAINS = new Set(['PREROUTING', 'INPUT', 'FORWARD', 'OUTPUT', 'POSTROUTING']);

/** The DSCP / TOS rules of `iptables-save -t mangle` output. */
export function iptablesMarkingRules(text: string, source: 'iptables' | 'ip6tables', argv: string[]): MarkingRule[] {
  const out: MarkingRule[] = [];
  let table = '';
  for (const line of text.split('\n')) {
    if (line.startsWith('*')) table = line.slice(1).trim();
    if (!line.startsWith('-A ')) continue;
    const w = words(line);
    const target = w[w.indexOf('-j') + 1];
    if (w.indexOf('-j') < 0 || (target !== 'DSCP' && target !== 'TOS')) continue;
    const chain = w[1]!;
    const ports: PortMatch[] = [];
    const ifaces: string[] = [];
    const addrs: string[] = [];
    let dscp: number | null = null;
    let dscpText = '?';
    let proto: string | null = null;
    for (let i = 2; i < w.length; i++) {
      const negated = w[i - 1] === '!';
      const a = w[i]!;
      const v = w[i + 1];
      if (v === undefined) break;
      if (a === '--dport' || a === '--destination-port' || a === '--dports' || a === '--destination-ports') ports.push({ dir: 'dport', ranges: portRanges(v), negated });
      else if (a === '--sport' || a === '--source-port' || a === '--sports' || a === '--source-ports') ports.push({ dir: 'sport', ranges: portRanges(v), negated });
      else if (a === '-p' && !negated) proto = v;
      else if (a === '--ports') ports.push({ dir: 'port', ranges: portRanges(v), negated });
      else if ((a === '-o' || a === '-i') && !negated) ifaces.push(v);
      else if (a === '-s' || a === '-d') addrs.push(`${negated ? '! ' : ''}${a} ${v}`);
      else if (a === '--set-dscp') {
        dscp = parseDscp(v);
        dscpText = v;
      } else if (a === '--set-dscp-class') {
        dscp = parseDscp(v);
        dscpText = v;
      } else if (a === '--set-tos') {
        // value[/mask]: the DSCP is the upper six bits, when the mask covers them.
        const [val, mask] = v.split('/').map((x) => Number(x));
        dscpText = `TOS ${v}`;
        if (Number.isInteger(val) && (mask === undefined || ((mask as number) & 0xfc) === 0xfc)) dscp = (val! & 0xff) >> 2;
      }
    }
    out.push({
      source,
      location: `${table} ${chain}`,
      hook: BUILTIN_CHAINS.has(chain) ? chain.toLowerCase() : null,
      text: line,
      dscp,
      dscpText,
      ports,
      ifaces,
      addrs,
      proto,
      evidence: { kind: 'command', source: shJoin(argv), value: line },
    });
  }
  return out;
}

export interface MarkingInventory {
  rules: MarkingRule[];
  /** Sources that could not be read and matter (not merely "tool not installed"). */
  unreadable: { what: string; reason: string; evidence: Evidence }[];
  /** Sources read (for the ok result's evidence). */
  read: string[];
  /** Sources not installed (live) or not recorded (--root): "nft: not installed". */
  missing: string[];
}

export function markingInventory(kernel: KernelPart | undefined): MarkingInventory | null {
  if (!kernel) return null;
  return cachedInventory(kernel, () => {
    const inv: MarkingInventory = { rules: [], unreadable: [], read: [], missing: [] };
    const note = (c: Captured<unknown>, what: string) => {
      if (c.ok) inv.read.push(commandLine(c));
      else if (c.missing) inv.missing.push(`${c.argv[0]}: ${c.from === 'live' ? 'not installed' : 'not recorded'}`);
      else inv.unreadable.push({ what, reason: captureFailure(c), evidence: commandEvidence(c, c.error) });
    };
    note(kernel.nft, 'nftables');
    note(kernel.iptablesMangle, 'iptables mangle table');
    note(kernel.ip6tablesMangle, 'ip6tables mangle table');
    if (kernel.nft.ok) {
      append(inv.rules, kernel.nft.data.dscpRules.filter((r) => !r.expr.some((e) => e && typeof e === 'object' && 'xt' in e)).map(nftMarkingRule));
      // iptables-nft rules show in nft only as opaque `xt` targets; without iptables-save they cannot be read.
      if (kernel.nft.data.xtRules > 0 && !kernel.iptablesMangle.ok) {
        inv.unreadable.push({
          what: 'iptables-nft rules',
          reason: `${kernel.nft.data.xtRules} nftables rule(s) made by iptables-nft, and ${captureFailure(kernel.iptablesMangle)}`,
          evidence: commandEvidence(kernel.nft, `${kernel.nft.data.xtRules} rules with xt expressions`),
        });
      }
    }
    if (kernel.iptablesMangle.ok) append(inv.rules, iptablesMarkingRules(kernel.iptablesMangle.data, 'iptables', kernel.iptablesMangle.argv));
    if (kernel.ip6tablesMangle.ok) append(inv.rules, iptablesMarkingRules(kernel.ip6tablesMangle.data, 'ip6tables', kernel.ip6tablesMangle.argv));
    return inv;
  });
}

/** Whether any marking source could be read: otherwise "no DSCP marked" is not known. */
export const markingKnown = (inv: MarkingInventory | null): boolean => !!inv && inv.read.length > 0;

/** Ingress-only hooks never mark what this node sends. */
export const isEgress = (r: MarkingRule) => r.hook === null || ['output', 'postrouting', 'forward'].includes(r.hook);

/** DSCP values the site marks on egress. */
export function siteDscps(inv: MarkingInventory): number[] {
  return [...new Set(inv.rules.filter((r) => isEgress(r) && r.dscp !== null).map((r) => r.dscp!))].sort((a, b) => a - b);
}

/**
 * The one DSCP value the site evidently means for NCCL's NICs: from rules on
 * `nics` (the RDMA netdevs and NCCL's socket links) if any, else from all
 * egress rules; null when several values compete (then ncclx does not guess).
 */
export function intendedDscp(inv: MarkingInventory, nics: Set<string>): number | null {
  const egress = inv.rules.filter((r) => isEgress(r) && r.dscp !== null);
  const onNics = egress.filter((r) => r.ifaces.some((i) => nics.has(i)));
  const values = [...new Set((onNics.length ? onNics : egress).map((r) => r.dscp!))];
  return values.length === 1 ? values[0]! : null;
}

/** The DSCP the site marks for these NICs, or null when unknown or ambiguous (`ncclx env` derives NCCL_IB_TC from it). */
export function siteIntendedDscp(kernel: KernelPart | undefined, nics: Set<string>): number | null {
  const inv = markingInventory(kernel);
  return inv && markingKnown(inv) ? intendedDscp(inv, nics) : null;
}

/** ip_local_port_range, or the kernel default when it could not be read. */
export function localPortRange(kernel: KernelPart | undefined): [number, number] {
  const r = kernel?.localPortRange;
  const m = typeof r === 'string' ? /^(\d+)\s+(\d+)/.exec(r.trim()) : null;
  return m ? [Number(m[1]), Number(m[2])] : [32768, 60999];
}
