// What each kind of operation does: read the current state, tell whether the
// change is already in place, apply it, verify it from the kernel, undo it
// from what was read, and check the undo. Every command is an argument array;
// `commands()` prints the same thing shell-quoted for pasting.

import { commandsFor, fastClass, IPT, iptFamilies, iptRestoreInput, markRules, nftScript, opText, qdiscArgv, routeArgv, ruleArgs, toolsFor, contentDigest as sha256, type Spec } from '../model/fix/describe.js';
import type { OpSpec } from '../model/fix/types.js';
import { parseDscp } from '../model/linux/dscp.js';
import { shJoin } from '../model/shell/quote.js';
import type { Host } from './host.js';

export class OpError extends Error {}

export interface OpHandler<S extends OpSpec> {
  /** The state before: what undo restores. Throws OpError when it cannot be read or must not be touched. */
  read(op: S, host: Host): unknown;
  inPlace(op: S, before: unknown): boolean;
  apply(op: S, host: Host, before: unknown): void;
  /** null when the kernel now holds what was planned, else what differs. */
  verify(op: S, host: Host): string | null;
  undo(op: S, host: Host, before: unknown): void;
  /** null when the state is back to `before`, else what differs. */
  restored(op: S, host: Host, before: unknown): string | null;
}

const must = (host: Host, argv: string[], input?: string): string => {
  const r = host.run(argv, input);
  if (!r.ok) throw new OpError(`${shJoin(argv)}: ${r.error}`);
  return r.stdout;
};

// ---------------------------------------------------------------------------
// sysctl, through /proc/sys

const sysctl: OpHandler<Spec<'sysctl'>> = {
  read(op, host) {
    const v = host.read(`/proc/sys/${op.key}`);
    if (v === null) throw new OpError(`/proc/sys/${op.key} does not exist (is the interface gone?)`);
    return v.trim();
  },
  inPlace: (op, before) => before === op.value,
  apply(op, host) {
    try {
      host.writeInPlace(`/proc/sys/${op.key}`, `${op.value}\n`);
    } catch (e) {
      throw new OpError(`writing /proc/sys/${op.key}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
  },
  verify(op, host) {
    const now = host.read(`/proc/sys/${op.key}`)?.trim();
    return now === op.value ? null : `/proc/sys/${op.key} reads ${now ?? 'nothing (gone)'}, not ${op.value}`;
  },
  undo(op, host, before) {
    host.writeInPlace(`/proc/sys/${op.key}`, `${String(before)}\n`);
  },
  restored(op, host, before) {
    const now = host.read(`/proc/sys/${op.key}`)?.trim();
    return now === before ? null : `/proc/sys/${op.key} reads ${now ?? 'nothing'}, was ${String(before)}`;
  },
};

// ---------------------------------------------------------------------------
// Whole files (sysctl.d drop-in, nccl.conf)

interface FileBefore {
  content: string | null;
  mode: number | null;
}

const file: OpHandler<Spec<'file'>> = {
  read(op, host): FileBefore {
    const content = host.read(op.path);
    const digest = content === null ? null : sha256(content);
    // Merged from what the file held when the plan was made: never overwrite edits made since.
    if (digest !== op.expect && content !== op.content) {
      throw new OpError(`${op.path} changed since the plan was made (${content === null ? 'now missing' : 'different content'}); plan again`);
    }
    return { content, mode: host.mode(op.path) };
  },
  inPlace: (op, before) => (before as FileBefore).content === op.content,
  apply(op, host, before) {
    try {
      host.write(op.path, op.content, (before as FileBefore).mode ?? op.mode);
    } catch (e) {
      throw new OpError(`writing ${op.path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
  },
  verify: (op, host) => (host.read(op.path) === op.content ? null : `${op.path} does not hold the planned content`),
  undo(op, host, before) {
    const b = before as FileBefore;
    if (b.content === null) host.remove(op.path);
    else host.write(op.path, b.content, b.mode ?? op.mode);
  },
  restored(op, host, before) {
    const b = before as FileBefore;
    return host.read(op.path) === b.content ? null : `${op.path} is not back to its previous ${b.content === null ? 'absence' : 'content'}`;
  },
};

// ---------------------------------------------------------------------------
// Policy routing

interface RuleJson {
  priority?: number;
  src?: string;
  srclen?: number;
  table?: string;
  [k: string]: unknown;
}

function rulePresent(op: Spec<'ip-rule'>, host: Host): boolean {
  const rules = JSON.parse(must(host, ['ip', '-j', '-4', 'rule', 'show']) || '[]') as RuleJson[];
  return rules.some(
    (r) =>
      r.src === op.from &&
      (r.srclen === undefined || r.srclen === 32) &&
      r.table === String(op.table) &&
      (op.priority === undefined || r.priority === op.priority) &&
      !['iif', 'oif', 'fwmark', 'dst', 'not', 'tos', 'dsfield', 'ipproto', 'sport', 'dport', 'uidrange'].some((k) => k in r),
  );
}

const ipRule: OpHandler<Spec<'ip-rule'>> = {
  read: (op, host) => ({ present: rulePresent(op, host) }),
  inPlace: (_op, before) => (before as { present: boolean }).present,
  apply(op, host) {
    must(host, ['ip', '-4', 'rule', 'add', ...ruleArgs(op)]);
  },
  verify: (op, host) => (rulePresent(op, host) ? null : `ip rule shows no 'from ${op.from} lookup ${op.table}'`),
  undo(op, host, before) {
    if ((before as { present: boolean }).present) return;
    if (rulePresent(op, host)) must(host, ['ip', '-4', 'rule', 'del', ...ruleArgs(op)]);
  },
  restored: (op, host, before) => (rulePresent(op, host) === (before as { present: boolean }).present ? null : `rule 'from ${op.from} lookup ${op.table}' is still there`),
};

interface RouteJson {
  dst?: string;
  dev?: string;
  gateway?: string;
  prefsrc?: string;
  metric?: number;
  scope?: string;
  protocol?: string;
  type?: string;
}

const sameDst = (a: string | undefined, b: string) => a === b || (b.endsWith('/32') && a === b.slice(0, -3));

function tableRoute(op: Spec<'ip-route'>, host: Host): RouteJson | null {
  const r = host.run(['ip', '-j', '-4', 'route', 'show', 'table', String(op.table)]);
  // An empty table does not exist for the kernel: that is "no route", not an error.
  if (!r.ok) {
    if (/does not exist/i.test(r.error)) return null;
    throw new OpError(`ip -j -4 route show table ${op.table}: ${r.error}`);
  }
  const routes = JSON.parse(r.stdout || '[]') as RouteJson[];
  return routes.find((x) => sameDst(x.dst, op.dst) && (x.type === undefined || x.type === 'unicast')) ?? null;
}

const routeMatches = (op: Spec<'ip-route'>, r: RouteJson | null) => !!r && r.dev === op.dev && r.prefsrc === op.src && !r.gateway;

function routeSame(a: RouteJson | null, b: RouteJson | null): boolean {
  if (!a || !b) return a === b;
  return a.dev === b.dev && a.gateway === b.gateway && a.prefsrc === b.prefsrc && (a.metric ?? 0) === (b.metric ?? 0);
}

const ipRoute: OpHandler<Spec<'ip-route'>> = {
  read: (op, host) => ({ route: tableRoute(op, host) }),
  inPlace: (op, before) => routeMatches(op, (before as { route: RouteJson | null }).route),
  apply(op, host) {
    must(host, routeArgv(op));
  },
  verify: (op, host) => (routeMatches(op, tableRoute(op, host)) ? null : `table ${op.table} has no route ${op.dst} dev ${op.dev} src ${op.src}`),
  undo(op, host, before) {
    const b = (before as { route: RouteJson | null }).route;
    if (!b) {
      if (tableRoute(op, host)) must(host, ['ip', '-4', 'route', 'del', op.dst, 'table', String(op.table)]);
      return;
    }
    must(host, [
      'ip', '-4', 'route', 'replace', op.dst,
      ...(b.gateway ? ['via', b.gateway] : []),
      ...(b.dev ? ['dev', b.dev] : []),
      ...(b.prefsrc ? ['src', b.prefsrc] : []),
      ...(b.metric !== undefined ? ['metric', String(b.metric)] : []),
      ...(b.scope ? ['scope', b.scope] : []),
      ...(b.protocol ? ['proto', b.protocol] : []),
      'table', String(op.table),
    ]);
  },
  restored: (op, host, before) => (routeSame(tableRoute(op, host), (before as { route: RouteJson | null }).route) ? null : `table ${op.table}: route ${op.dst} differs from before`),
};

// ---------------------------------------------------------------------------
// DSCP marking rules, shared by nft and iptables

interface NftBefore {
  exists: boolean;
  text: string;
  tags: string[];
  dscps: (number | null)[];
  hooked: boolean;
}

function nftRead(op: Spec<'nft-mark'>, host: Host): NftBefore {
  const j = host.run(['nft', '-j', 'list', 'table', 'inet', op.table]);
  if (!j.ok) {
    if (/No such file or directory|does not exist/i.test(j.error)) return { exists: false, text: '', tags: [], dscps: [], hooked: false };
    throw new OpError(`nft -j list table inet ${op.table}: ${j.error}`);
  }
  const items = (JSON.parse(j.stdout) as { nftables: Record<string, Record<string, unknown>>[] }).nftables;
  const tags: string[] = [];
  const dscps: (number | null)[] = [];
  let hooked = false;
  for (const it of items) {
    const chain = it['chain'];
    if (chain && chain['name'] === 'output' && chain['hook'] === 'output') hooked = true;
    const rule = it['rule'];
    if (!rule) continue;
    tags.push(String(rule['comment'] ?? ''));
    const expr = (rule['expr'] as Record<string, { key?: { payload?: { field?: string } }; value?: unknown }>[]) ?? [];
    const m = expr.find((e) => e['mangle']?.key?.payload?.field === 'dscp')?.['mangle'];
    dscps.push(m ? parseDscp(m.value) : null);
  }
  const text = must(host, ['nft', 'list', 'table', 'inet', op.table]);
  return { exists: true, text, tags, dscps, hooked };
}

function nftMatches(op: Spec<'nft-mark'>, b: NftBefore): string | null {
  if (!b.exists) return `table inet ${op.table} does not exist`;
  if (!b.hooked) return `table inet ${op.table} has no output chain on the output hook`;
  const want = markRules(op.selectors, op.dscp).map((r) => r.tag).sort();
  const have = [...b.tags].sort();
  if (JSON.stringify(want) !== JSON.stringify(have)) return `table inet ${op.table} holds ${have.length} rule(s), not the ${want.length} planned`;
  if (b.dscps.some((d) => d !== op.dscp)) return `a rule in table inet ${op.table} does not set DSCP ${op.dscp}`;
  return null;
}

const nftMark: OpHandler<Spec<'nft-mark'>> = {
  read: (op, host) => nftRead(op, host),
  inPlace: (op, before) => nftMatches(op, before as NftBefore) === null,
  apply(op, host) {
    must(host, ['nft', '-f', '-'], nftScript(op));
  },
  verify: (op, host) => nftMatches(op, nftRead(op, host)),
  undo(op, host, before) {
    const b = before as NftBefore;
    if (b.exists) must(host, ['nft', '-f', '-'], `table inet ${op.table}\ndelete table inet ${op.table}\n${b.text}`);
    else if (nftRead(op, host).exists) must(host, ['nft', 'delete', 'table', 'inet', op.table]);
  },
  restored(op, host, before) {
    const b = before as NftBefore;
    const now = nftRead(op, host);
    if (!b.exists) return now.exists ? `table inet ${op.table} is still there` : null;
    return now.text === b.text ? null : `table inet ${op.table} differs from before`;
  },
};

// ---------------------------------------------------------------------------
// iptables fallback: a mangle chain of ncclx's own, jumped to from OUTPUT

interface IptState {
  exists: boolean;
  /** `-A` lines of the chain as `-S` prints them. */
  lines: string[];
  jump: boolean;
  /**
   * iptables-nft creates the nftables table `ip mangle` (`ip6 mangle`) on first use
   * and leaves it behind, empty; whether it was there, so rollback can remove it. null: not nft-backed.
   */
  nftTable?: boolean | null;
}

function nftMangle(family: 4 | 6, host: Host): { exists: boolean; rules: number } | null {
  const r = host.run(['nft', '-j', 'list', 'table', family === 4 ? 'ip' : 'ip6', 'mangle']);
  if (!r.ok) return /No such file or directory/i.test(r.error) ? { exists: false, rules: 0 } : null;
  try {
    const items = (JSON.parse(r.stdout) as { nftables: Record<string, unknown>[] }).nftables;
    return { exists: true, rules: items.filter((x) => 'rule' in x).length };
  } catch {
    return null;
  }
}

function iptRead(op: Spec<'iptables-mark'>, family: 4 | 6, host: Host): IptState {
  const { cmd } = IPT[family];
  // The whole table, not `-S CHAIN`: iptables-nft reports a missing chain as "incompatible".
  const r = host.run([cmd, '-w', '-t', 'mangle', '-S']);
  if (!r.ok) throw new OpError(`${cmd} -t mangle -S: ${r.error}`);
  const all = r.stdout.split('\n');
  const nftBacked = host.run([cmd, '--version']).stdout.includes('nf_tables');
  return {
    exists: all.includes(`-N ${op.chain}`),
    lines: all.filter((l) => l.startsWith(`-A ${op.chain} `)),
    jump: all.includes(`-A OUTPUT -j ${op.chain}`),
    nftTable: nftBacked ? (nftMangle(family, host)?.exists ?? null) : null,
  };
}

const tagsOf = (lines: string[]) => lines.map((l) => /--comment "?(ncclx:[0-9a-f]+)"?/.exec(l)?.[1] ?? '').sort();

function iptMatches(op: Spec<'iptables-mark'>, states: Record<number, IptState>): string | null {
  for (const f of iptFamilies(op)) {
    const s = states[f]!;
    const { cmd } = IPT[f];
    if (!s.exists) return `${cmd}: chain ${op.chain} does not exist`;
    if (!s.jump) return `${cmd}: OUTPUT does not jump to ${op.chain}`;
    const want = markRules(op.selectors, op.dscp, op.ipv6).filter((r) => r.family === f).map((r) => r.tag).sort();
    if (JSON.stringify(tagsOf(s.lines)) !== JSON.stringify(want)) return `${cmd}: chain ${op.chain} holds other rules than planned`;
    const hex = `0x${op.dscp.toString(16).padStart(2, '0')}`;
    if (s.lines.some((l) => !l.includes(`--set-dscp ${hex}`) && !l.includes(`--set-dscp ${op.dscp} `))) return `${cmd}: a rule in ${op.chain} sets another DSCP`;
  }
  return null;
}

const readAll = (op: Spec<'iptables-mark'>, host: Host): Record<number, IptState> => Object.fromEntries(iptFamilies(op).map((f) => [f, iptRead(op, f, host)]));

const iptablesMark: OpHandler<Spec<'iptables-mark'>> = {
  read: (op, host) => readAll(op, host),
  inPlace: (op, before) => iptMatches(op, before as Record<number, IptState>) === null,
  apply(op, host, before) {
    for (const f of iptFamilies(op)) {
      const { cmd, restore } = IPT[f];
      must(host, [restore, '-w', '--noflush'], iptRestoreInput(op, f));
      if (!(before as Record<number, IptState>)[f]!.jump) must(host, [cmd, '-w', '-t', 'mangle', '-A', 'OUTPUT', '-j', op.chain]);
    }
  },
  verify: (op, host) => iptMatches(op, readAll(op, host)),
  undo(op, host, before) {
    for (const f of iptFamilies(op)) {
      const { cmd, restore } = IPT[f];
      const b = (before as Record<number, IptState>)[f]!;
      const now = iptRead(op, f, host);
      if (!b.jump && now.jump) must(host, [cmd, '-w', '-t', 'mangle', '-D', 'OUTPUT', '-j', op.chain]);
      if (!b.exists) {
        if (now.exists) {
          must(host, [cmd, '-w', '-t', 'mangle', '-F', op.chain]);
          must(host, [cmd, '-w', '-t', 'mangle', '-X', op.chain]);
        }
      } else {
        must(host, [restore, '-w', '--noflush'], ['*mangle', `:${op.chain} - [0:0]`, ...b.lines, 'COMMIT', ''].join('\n'));
      }
      // The empty table iptables-nft created for us goes too, never one with rules in it.
      if (b.nftTable === false && nftMangle(f, host)?.rules === 0) must(host, ['nft', 'delete', 'table', f === 4 ? 'ip' : 'ip6', 'mangle']);
    }
  },
  restored(op, host, before) {
    for (const f of iptFamilies(op)) {
      const b = (before as Record<number, IptState>)[f]!;
      const now = iptRead(op, f, host);
      if (now.exists !== b.exists || now.jump !== b.jump || JSON.stringify(now.lines) !== JSON.stringify(b.lines)) return `${IPT[f].cmd}: chain ${op.chain} differs from before`;
    }
    return null;
  },
};

// ---------------------------------------------------------------------------
// Root priority qdisc

interface QdiscJson {
  kind: string;
  handle?: string;
  root?: boolean;
}

function rootQdisc(dev: string, host: Host): QdiscJson | null {
  const r = host.run(['tc', '-j', 'qdisc', 'show', 'dev', dev]);
  if (!r.ok) throw new OpError(`tc qdisc show dev ${dev}: ${r.error}`);
  const list = JSON.parse(r.stdout || '[]') as QdiscJson[];
  return list.find((q) => q.root) ?? null;
}

function qdiscOurs(op: Spec<'qdisc'>, host: Host): string | null {
  const root = rootQdisc(op.dev, host);
  if (!root || root.kind !== op.scheduler || root.handle !== '1:') return `root qdisc of ${op.dev} is ${root ? `${root.kind} ${root.handle ?? ''}` : 'none'}, not ${op.scheduler} 1:`;
  const f = host.run(['tc', '-j', 'filter', 'show', 'dev', op.dev, 'parent', '1:']);
  if (!f.ok) return `tc filter show dev ${op.dev}: ${f.error}`;
  const filters = JSON.parse(f.stdout || '[]') as { protocol?: string; options?: { flowid?: string; match?: { value?: string } } }[];
  const tos = (op.dscp << 2).toString(16);
  const has = (proto: string) => filters.some((x) => x.protocol === proto && x.options?.flowid === fastClass(op) && (x.options.match?.value ?? '').startsWith(tos));
  return has('ip') && has('ipv6') ? null : `${op.dev}: the DSCP ${op.dscp} filters to ${fastClass(op)} are missing`;
}

const qdisc: OpHandler<Spec<'qdisc'>> = {
  read(op, host) {
    const root = rootQdisc(op.dev, host);
    if (qdiscOurs(op, host) === null) return { root, ours: true };
    // Only a root the kernel attached itself (handle 0:) can be restored exactly, by deleting ours.
    const kind = root?.kind ?? 'none';
    if (root && root.handle !== '0:') throw new OpError(`${op.dev}: root qdisc is ${root.kind} ${root.handle}, configured by someone; ncclx will not replace it (it could not restore it exactly on rollback)`);
    if (kind !== op.replaces && !(kind === 'none' && op.replaces === 'noqueue')) throw new OpError(`${op.dev}: root qdisc is ${kind} now, the plan was made for ${op.replaces}; plan again`);
    return { root, ours: false };
  },
  inPlace: (_op, before) => (before as { ours: boolean }).ours,
  apply(op, host) {
    for (const argv of qdiscArgv(op)) must(host, argv);
  },
  verify: (op, host) => qdiscOurs(op, host),
  undo(op, host) {
    const root = rootQdisc(op.dev, host);
    // Deleting the root makes the kernel attach its default again (noqueue, pfifo_fast, fq_codel or mq).
    if (root && root.handle !== '0:') must(host, ['tc', 'qdisc', 'del', 'dev', op.dev, 'root']);
  },
  restored(op, host, before) {
    const b = (before as { root: QdiscJson | null }).root;
    const now = rootQdisc(op.dev, host);
    return (now?.kind ?? null) === (b?.kind ?? null) && (now?.handle ?? null) === (b?.handle ?? null) ? null : `root qdisc of ${op.dev} is ${now?.kind ?? 'none'}, was ${b?.kind ?? 'none'}`;
  },
};

const HANDLERS: { [K in OpSpec['kind']]: OpHandler<Spec<K>> } = {
  sysctl,
  file,
  'ip-rule': ipRule,
  'ip-route': ipRoute,
  'nft-mark': nftMark,
  'iptables-mark': iptablesMark,
  qdisc,
};

export function handler(op: OpSpec): OpHandler<OpSpec> {
  return HANDLERS[op.kind] as OpHandler<OpSpec>;
}

export { commandsFor, opText, toolsFor };
