// A remediation's commands (argument arrays, as the doctor prints them) applied
// to the model of the kernel: the node as it is after a person pastes exactly
// those lines, so checks/verify.ts can run every check on it before the
// remediation is shown — the kernel twin of model/snapshot/with-env.ts.
//
// Only the command forms ncclx itself writes are modelled: sysctl writes of
// /proc/sys/net/ipv4/conf, `ip route replace|add`, `ip rule add`, `ip link set
// mtu`, `tc qdisc del … root` and the nft DSCP marking table. Anything else
// (modprobe, ulimit, sed on a file) is not a change ncclx can model:
// `applyCommands` returns null and the remediation is shown unchecked, as
// before.

import { append, minOf } from '../list.js';
import type { ConfKey, IpRouteJson, IpRuleJson, KernelPart, NftDscpRule } from '../snapshot/kernel-types.js';
import { CONF_KEYS } from '../snapshot/kernel-types.js';
import type { NodeSnapshot } from '../snapshot/types.js';

/** One modelled change. */
type Change =
  | { kind: 'conf'; ifname: string; key: ConfKey; value: number }
  | { kind: 'route'; route: IpRouteJson; replace: boolean }
  | { kind: 'rule'; rule: IpRuleJson }
  | { kind: 'mtu'; dev: string; mtu: number }
  | { kind: 'qdisc-del'; dev: string }
  | { kind: 'nft-table'; family: string; table: string }
  | { kind: 'nft-chain'; family: string; table: string; chain: string; hook: string | null }
  | { kind: 'nft-rule'; rule: NftDscpRule };

/** `name value` pairs after a fixed prefix: `dev X src Y table T`. */
function options(words: string[]): Map<string, string> | null {
  if (words.length % 2 !== 0) return null;
  const m = new Map<string, string>();
  for (let i = 0; i < words.length; i += 2) m.set(words[i]!, words[i + 1]!);
  return m;
}

function sysctl(argv: string[]): Change[] | null {
  if (argv[1] !== '-w' && argv[1] !== '-qw') return null;
  const out: Change[] = [];
  for (const w of argv.slice(2)) {
    const m = /^net\/ipv4\/conf\/(.+)\/([a-z_]+)=(\d+)$/.exec(w);
    if (!m || !(CONF_KEYS as readonly string[]).includes(m[2]!)) return null;
    out.push({ kind: 'conf', ifname: m[1]!, key: m[2] as ConfKey, value: Number(m[3]) });
  }
  return out.length ? out : null;
}

function ip(argv: string[]): Change[] | null {
  const [, obj, verb, ...rest] = argv;
  if (obj === 'route' && (verb === 'replace' || verb === 'add') && rest.length >= 3) {
    const o = options(rest.slice(1));
    if (!o || !o.get('dev') || [...o.keys()].some((k) => !['dev', 'src', 'table'].includes(k))) return null;
    const table = o.get('table');
    const route: IpRouteJson = { dst: rest[0]!, dev: o.get('dev')!, scope: 'link', ...(o.get('src') ? { prefsrc: o.get('src') } : {}), ...(table && table !== 'main' ? { table } : {}) };
    return [{ kind: 'route', route, replace: verb === 'replace' }];
  }
  if (obj === 'rule' && verb === 'add') {
    const o = options(rest);
    const table = o?.get('lookup') ?? o?.get('table');
    if (!o || !o.get('from') || !table || [...o.keys()].some((k) => !['from', 'lookup', 'table', 'priority', 'pref'].includes(k))) return null;
    const prio = o.get('priority') ?? o.get('pref');
    return [{ kind: 'rule', rule: { ...(prio ? { priority: Number(prio) } : {}), src: o.get('from')!, table } }];
  }
  if (obj === 'link' && verb === 'set' && rest[0] === 'dev' && rest.length === 4 && rest[2] === 'mtu' && /^\d+$/.test(rest[3]!)) {
    return [{ kind: 'mtu', dev: rest[1]!, mtu: Number(rest[3]) }];
  }
  return null;
}

function tc(argv: string[]): Change[] | null {
  if (argv.length === 6 && argv[1] === 'qdisc' && argv[2] === 'del' && argv[3] === 'dev' && argv[5] === 'root') return [{ kind: 'qdisc-del', dev: argv[4]! }];
  return null;
}

/** nft's own double quotes around a name (qos.ts nftString writes them). */
const nftName = (s: string) => (/^".*"$/.test(s) ? s.slice(1, -1).replace(/\\(["\\])/g, '$1') : s);

function nft(argv: string[]): Change[] | null {
  const [, verb, what, family, table, ...rest] = argv;
  if (verb !== 'add' || !family || !table) return null;
  if (what === 'table' && rest.length === 0) return [{ kind: 'nft-table', family, table }];
  if (what === 'chain' && rest.length === 2) {
    const hook = /\bhook (\w+)\b/.exec(rest[1]!)?.[1] ?? null;
    return [{ kind: 'nft-chain', family, table, chain: rest[0]!, hook }];
  }
  // rule <chain> oifname <if> meta l4proto tcp ip dscp set <n>: the marking rule ncclx writes.
  if (what === 'rule' && rest.length === 10 && rest[1] === 'oifname' && rest.slice(3, 9).join(' ') === 'meta l4proto tcp ip dscp set' && /^\d+$/.test(rest[9]!)) {
    const expr = [
      { match: { op: '==', left: { meta: { key: 'oifname' } }, right: nftName(rest[2]!) } },
      { match: { op: '==', left: { meta: { key: 'l4proto' } }, right: 'tcp' } },
      { mangle: { key: { payload: { protocol: 'ip', field: 'dscp' } }, value: Number(rest[9]) } },
    ];
    return [{ kind: 'nft-rule', rule: { family, table, chain: rest[0]!, handle: null, hook: null, expr } }];
  }
  return null;
}

/** The changes these commands make, or null when one of them is not a change ncclx models. */
export function kernelChanges(commands: string[][]): Change[] | null {
  const out: Change[] = [];
  for (const argv of commands) {
    const c = argv[0] === 'sysctl' ? sysctl(argv) : argv[0] === 'ip' ? ip(argv) : argv[0] === 'tc' ? tc(argv) : argv[0] === 'nft' ? nft(argv) : null;
    if (!c) return null;
    append(out, c);
  }
  return out;
}

function apply(snap: NodeSnapshot, k: KernelPart, c: Change): { snap: NodeSnapshot; k: KernelPart } {
  switch (c.kind) {
    case 'conf': {
      const cur = k.conf[c.ifname];
      // Writing a key of a link that does not exist fails; the model keeps the node as it was.
      if (!cur && c.ifname !== 'all' && c.ifname !== 'default') return { snap, k };
      return { snap, k: { ...k, conf: { ...k.conf, [c.ifname]: { ...cur!, [c.key]: String(c.value) } } } };
    }
    case 'route': {
      if (!k.routes.ok) return { snap, k };
      const same = (r: IpRouteJson) => r.dst === c.route.dst && (r.table ?? 'main') === (c.route.table ?? 'main');
      const rest = c.replace ? k.routes.data.filter((r) => !same(r)) : k.routes.data;
      // A host route in the main table is what `ip route get <that address>` answers from then on (no source given,
      // so no `from` rule matches, and nothing in main is more specific): the recorded answer for it changes too.
      const host = c.route.table === undefined ? /^(.+)\/(32|128)$/.exec(c.route.dst ?? '')?.[1] : undefined;
      const routeTargets = host
        ? k.routeTargets.map((t) => (t.address === host && t.route ? { ...t, route: { argv: t.route.argv, record: t.route.record, from: t.route.from, ok: true as const, data: [{ dst: host, dev: c.route.dev, ...(c.route.prefsrc ? { prefsrc: c.route.prefsrc } : {}) }] } } : t))
        : k.routeTargets;
      return { snap, k: { ...k, routes: { ...k.routes, data: [c.route, ...rest] }, routeTargets } };
    }
    case 'rule': {
      if (!k.rules.ok) return { snap, k };
      // Without a priority the kernel puts the rule just below the lowest non-local one.
      const prio = c.rule.priority ?? Math.min(minOf(k.rules.data.map((r) => r.priority ?? 0).filter((p) => p > 0)), 32766) - 1;
      const rules = [...k.rules.data, { ...c.rule, priority: prio }].sort((a, b) => (a.priority ?? 0) - (b.priority ?? 0));
      return { snap, k: { ...k, rules: { ...k.rules, data: rules } } };
    }
    case 'mtu': {
      const links = snap.network.links.map((l) => (l.name === c.dev ? { ...l, mtu: c.mtu } : l));
      const nd = snap.rdma?.netdevs[c.dev];
      const rdma = snap.rdma && nd ? { ...snap.rdma, netdevs: { ...snap.rdma.netdevs, [c.dev]: { ...nd, mtu: String(c.mtu) } } } : snap.rdma;
      return { snap: { ...snap, network: { ...snap.network, links }, ...(rdma ? { rdma } : {}) }, k };
    }
    case 'qdisc-del': {
      if (!k.qdiscs.ok) return { snap, k };
      return { snap, k: { ...k, qdiscs: { ...k.qdiscs, data: k.qdiscs.data.filter((q) => q.dev !== c.dev) } } };
    }
    case 'nft-table':
      return { snap, k };
    case 'nft-chain':
      return { snap, k };
    case 'nft-rule': {
      if (!k.nft.ok) return { snap, k };
      return { snap, k: { ...k, nft: { ...k.nft, data: { ...k.nft.data, dscpRules: [...k.nft.data.dscpRules, c.rule] } } } };
    }
  }
}

/**
 * The node after these commands, in the model; null when a command is not one
 * ncclx models (the remediation then cannot be checked here). Chains get
 * their hook from the `nft add chain` that precedes the rule, as nft lists it.
 */
export function applyCommands(snapshot: NodeSnapshot, commands: string[][]): NodeSnapshot | null {
  const changes = kernelChanges(commands);
  if (!changes || !snapshot.kernel) return null;
  let snap = snapshot;
  let k = snapshot.kernel;
  const hooks = new Map(changes.flatMap((c) => (c.kind === 'nft-chain' ? [[`${c.family}\0${c.table}\0${c.chain}`, c.hook] as const] : [])));
  for (const c of changes) {
    const cc = c.kind === 'nft-rule' ? { ...c, rule: { ...c.rule, hook: hooks.get(`${c.rule.family}\0${c.rule.table}\0${c.rule.chain}`) ?? null } } : c;
    ({ snap, k } = apply(snap, k, cc));
  }
  return { ...snap, kernel: k };
}
