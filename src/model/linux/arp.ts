// The kernel's multi-rail ARP model. When two or more RDMA netdevs share an
// IPv4 subnet, Linux by default answers ARP for any local address on any NIC
// and sources every reply from the first connected route, so a peer learns the
// wrong MAC for a rail (NVIDIA/nccl#1269, #1109).
//
// The kernel combines conf/all and conf/<if> (include/linux/inetdevice.h;
// Documentation/networking/ip-sysctl.rst): arp_announce, arp_ignore and
// rp_filter use max(all, if); arp_filter is on when either is (all OR if).
// arp_filter and strict rp_filter both ask "would I route back to the peer
// through this NIC?", which only source-based policy routing answers "yes"
// for every rail; so the routing lookup is simulated here from ip rule/route.
// Pure: everything comes from the snapshot. Results are cached per snapshot
// object (snapshots are never mutated).

import { parseIPv4, parseV4Prefix, prefixContains, prefixText, type V4Prefix } from './ip.js';
import type { Evidence, Severity } from '../result/types.js';
import { CONF_KEYS, type ConfKey, type IpRouteJson, type IpRuleJson, type KernelPart, type ProcRead } from '../snapshot/kernel-types.js';
import type { AddressInfo, NodeSnapshot } from '../snapshot/types.js';
import { rdmaNetdevs, type RdmaNetdev } from './rdma-netdevs.js';
import { captureFailure, commandEvidence, isMainTable, routeDevs } from './routes.js';
import { append } from '../list.js';

export const CONF_DIR = '/proc/sys/net/ipv4/conf';

const cache = new WeakMap<NodeSnapshot, Map<string, unknown>>();
function cached<T>(snapshot: NodeSnapshot, key: string, compute: () => T): T {
  let m = cache.get(snapshot);
  if (!m) cache.set(snapshot, (m = new Map()));
  if (!m.has(key)) m.set(key, compute());
  return m.get(key) as T;
}


/** How the kernel combines conf/all/<key> with conf/<if>/<key>. */
export const COMBINE: Record<ConfKey, 'max' | 'or'> = { arp_announce: 'max', arp_ignore: 'max', rp_filter: 'max', arp_filter: 'or' };

export function combine(key: ConfKey, all: number, iface: number): number {
  return COMBINE[key] === 'or' ? (all !== 0 || iface !== 0 ? 1 : 0) : Math.max(all, iface);
}

export interface EffectiveValue {
  key: ConfKey;
  all: number;
  iface: number;
  effective: number;
}

function parseProc(r: ProcRead | undefined): number | string {
  if (r === undefined) return 'not read';
  if (typeof r !== 'string') return r.error;
  const n = Number.parseInt(r.trim(), 10);
  return Number.isNaN(n) ? `unparsable value '${r}'` : n;
}

/** The value the kernel applies on `netdev`, or why it cannot be known. */
export function effectiveValue(kernel: KernelPart, netdev: string, key: ConfKey): EffectiveValue | { error: string } {
  const all = parseProc(kernel.conf['all']?.[key]);
  const iface = parseProc(kernel.conf[netdev]?.[key]);
  if (typeof all !== 'number') return { error: `${CONF_DIR}/all/${key}: ${all}` };
  if (typeof iface !== 'number') return { error: `${CONF_DIR}/${netdev}/${key}: ${iface}` };
  return { key, all, iface, effective: combine(key, all, iface) };
}

/** Why conf/all cannot be read for these keys, or null. */
export function allConfError(kernel: KernelPart, keys: ConfKey[]): string | null {
  for (const key of keys) {
    const v = parseProc(kernel.conf['all']?.[key]);
    if (typeof v !== 'number') return `${CONF_DIR}/all/${key}: ${v}`;
  }
  return null;
}

export function confEvidence(netdev: string, v: EffectiveValue): Evidence[] {
  return [
    { kind: 'file', source: `${CONF_DIR}/all/${v.key}`, value: String(v.all) },
    { kind: 'file', source: `${CONF_DIR}/${netdev}/${v.key}`, value: `${v.iface} (effective ${v.effective} = ${COMBINE[v.key] === 'or' ? 'all OR if' : 'max(all, if)'})` },
  ];
}

/** `sysctl -w` with slash-separated keys: interface names may contain dots (eth0.100). */
export function sysctlArgv(settings: [string, ConfKey, number][]): string[] {
  return ['sysctl', '-w', ...settings.map(([ifname, key, v]) => `net/ipv4/conf/${ifname}/${key}=${v}`)];
}

// ---------------------------------------------------------------------------
// Which RDMA netdevs share a subnet

export interface Member {
  netdev: string;
  ports: RdmaNetdev[];
  addr: AddressInfo;
}

export interface SharedSubnet {
  /** The widest prefix of the group (prefixes may differ: a /20 and a /24 overlap). */
  subnet: string;
  members: Member[];
}

/** RDMA netdevs whose IPv4 subnets overlap, grouped; only groups with two or more netdevs. */
export function sharedSubnets(snapshot: NodeSnapshot): SharedSubnet[] {
  return cached(snapshot, 'sharedSubnets', () => {
    const ports = rdmaNetdevs(snapshot);
    const byNetdev = new Map<string, RdmaNetdev[]>();
    for (const p of ports) byNetdev.set(p.netdev, [...(byNetdev.get(p.netdev) ?? []), p]);
    const items: { m: Member; prefix: V4Prefix }[] = [];
    for (const [netdev, list] of byNetdev) {
      for (const addr of snapshot.network.addresses) {
        if (addr.link !== netdev || addr.family !== 'AF_INET') continue;
        items.push({ m: { netdev, ports: list, addr }, prefix: { bytes: parseIPv4(addr.address)!, len: addr.prefixlen } });
      }
    }
    // Union of overlapping prefixes: two subnets overlap when one contains the other.
    const parent = items.map((_, i) => i);
    const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i]!)));
    for (let i = 0; i < items.length; i++) {
      for (let j = i + 1; j < items.length; j++) {
        const a = items[i]!.prefix;
        const b = items[j]!.prefix;
        if (prefixContains(a, b) || prefixContains(b, a)) parent[find(i)] = find(j);
      }
    }
    const groups = new Map<number, typeof items>();
    items.forEach((it, i) => groups.set(find(i), [...(groups.get(find(i)) ?? []), it]));
    const out: SharedSubnet[] = [];
    for (const g of groups.values()) {
      if (new Set(g.map((x) => x.m.netdev)).size < 2) continue;
      const widest = g.reduce((w, x) => (x.prefix.len < w.prefix.len ? x : w));
      out.push({ subnet: prefixText(widest.prefix), members: g.map((x) => x.m) });
    }
    return out;
  });
}

/** Netdevs of the shared groups, once each with the addresses they hold in a group. */
export function memberNetdevs(groups: SharedSubnet[]): { netdev: string; addrs: AddressInfo[]; group: SharedSubnet }[] {
  const out = new Map<string, { netdev: string; addrs: AddressInfo[]; group: SharedSubnet }>();
  for (const g of groups) {
    for (const m of g.members) {
      const e = out.get(m.netdev) ?? { netdev: m.netdev, addrs: [], group: g };
      e.addrs.push(m.addr);
      out.set(m.netdev, e);
    }
  }
  return [...out.values()];
}

// ---------------------------------------------------------------------------
// The kernel's routing decision for traffic sourced from a NIC address

export interface RouteDecision {
  /** The device the kernel would use for a peer in the subnet, null when the lookup drops it or finds nothing. */
  dev: string | null;
  rule: IpRuleJson | null;
  route: IpRouteJson | null;
  /** Why the simulation stopped without an answer it trusts. */
  unsure: string | null;
}

const SELECTORS = ['iif', 'oif', 'fwmark', 'ipproto', 'sport', 'dport', 'tos', 'dsfield', 'uidrange', 'l3mdev', 'tun_id'];

function lookupTable(routes: IpRouteJson[], table: string, subnet: V4Prefix): IpRouteJson | null {
  const inTable = routes.filter((r) => (table === 'main' ? isMainTable(r) : r.table === table) && routeFamilyV4(r));
  let best: { r: IpRouteJson; len: number; metric: number } | null = null;
  for (const r of inTable) {
    const dst = parseV4Prefix(r.dst);
    if (!dst || !prefixContains(dst, subnet)) continue;
    const metric = typeof r.metric === 'number' ? r.metric : 0;
    // Longest prefix first, then lowest metric; ties keep the kernel's listing order.
    if (!best || dst.len > best.len || (dst.len === best.len && metric < best.metric)) best = { r, len: dst.len, metric };
  }
  return best?.r ?? null;
}

function routeFamilyV4(r: IpRouteJson): boolean {
  return !(r.dst ?? '').includes(':') && !(r.gateway ?? '').includes(':');
}

/**
 * Which device the kernel picks for a packet from `src` to a peer in `subnet`
 * (the lookup arp_filter and rp_filter make): rules in priority order, each
 * table by longest prefix then metric.
 */
export function routeFrom(rules: IpRuleJson[], routes: IpRouteJson[], src: AddressInfo, subnet: V4Prefix): RouteDecision {
  const ip = parseIPv4(src.address)!;
  const sorted = [...rules].sort((a, b) => (a.priority ?? 0) - (b.priority ?? 0));
  for (const rule of sorted) {
    if (rule.not || SELECTORS.some((k) => k in rule)) continue;
    if (rule.src !== undefined && rule.src !== 'all') {
      const p = parseV4Prefix(rule.srclen !== undefined ? `${rule.src}/${rule.srclen}` : rule.src);
      if (!p || !prefixContains(p, { bytes: ip, len: 32 })) continue;
    }
    if (rule.dst !== undefined && rule.dst !== 'all') {
      const d = parseV4Prefix(typeof rule['dstlen'] === 'number' ? `${rule.dst}/${rule['dstlen']}` : String(rule.dst));
      if (!d || !prefixContains(d, subnet)) continue;
    }
    if (rule.action !== undefined) {
      if (['blackhole', 'unreachable', 'prohibit'].includes(rule.action)) return { dev: null, rule, route: null, unsure: null };
      if (rule.action === 'nop') continue;
      return { dev: null, rule, route: null, unsure: `rule action '${rule.action}' is not simulated` };
    }
    if (rule.table === undefined || rule.table === 'local') continue;
    const route = lookupTable(routes, rule.table, subnet);
    if (!route) continue;
    if (route.type !== undefined && route.type !== 'unicast') return { dev: null, rule, route, unsure: null };
    const devs = routeDevs(route);
    if (devs.length !== 1) return { dev: devs[0] ?? null, rule, route, unsure: devs.length > 1 ? 'multipath route: the kernel hashes flows over several devices' : 'route without device' };
    return { dev: devs[0]!, rule, route, unsure: null };
  }
  return { dev: null, rule: null, route: null, unsure: null };
}

export function decisionEvidence(kernel: KernelPart, d: RouteDecision): Evidence[] {
  const ev: Evidence[] = [];
  if (d.rule) ev.push(commandEvidence(kernel.rules, JSON.stringify(d.rule)));
  if (d.route) ev.push(commandEvidence(kernel.routes, JSON.stringify(d.route)));
  return ev;
}

/** Per member address: does traffic from it go back out through its own NIC? Memoised per run. */
export function routeDecisions(snapshot: NodeSnapshot): Map<string, RouteDecision> | { error: string } {
  return cached(snapshot, 'decisions', () => {
    const kernel = snapshot.kernel;
    if (!kernel) return { error: 'no kernel part' };
    if (!kernel.rules.ok) return { error: captureFailure(kernel.rules) };
    if (!kernel.routes.ok) return { error: captureFailure(kernel.routes) };
    const out = new Map<string, RouteDecision>();
    for (const g of sharedSubnets(snapshot)) {
      const subnet = parseV4Prefix(g.subnet)!;
      for (const m of g.members) out.set(m.addr.address, routeFrom(kernel.rules.data, kernel.routes.data, m.addr, subnet));
    }
    return out;
  });
}

/** Unused table ids from 100 on, for the remediation's per-NIC tables. */
function freeTables(kernel: KernelPart, n: number): number[] {
  const used = new Set<string>();
  if (kernel.rules.ok) for (const r of kernel.rules.data) if (r.table) used.add(r.table);
  if (kernel.routes.ok) for (const r of kernel.routes.data) if (r.table) used.add(r.table);
  const out: number[] = [];
  for (let t = 100; out.length < n; t++) if (!used.has(String(t))) out.push(t);
  return out;
}

/** One RDMA netdev of a shared subnet, as the policy routing remediation sees it. */
export interface RoutingNeed {
  netdev: string;
  group: SharedSubnet;
  addrs: AddressInfo[];
  /** Its addresses whose traffic the kernel sends out through another device. */
  wrong: AddressInfo[];
  /** Why the routing simulation cannot tell for those addresses, or null. */
  unsure: string | null;
  /** The table the remediation gives it: the next unused id from 100, for netdevs with wrong addresses and a sure answer. */
  table: number | null;
}

/** Per member netdev: is its traffic routed back through itself, and which table fixes it. ARP-004 and `ncclx fix` share it, so their tables agree. */
export function routingNeeds(snapshot: NodeSnapshot): RoutingNeed[] | { error: string } {
  return cached(snapshot, 'routingNeeds', () => {
    const dec = routeDecisions(snapshot);
    if ('error' in dec) return dec;
    const members = memberNetdevs(sharedSubnets(snapshot));
    const tables = freeTables(snapshot.kernel!, members.length);
    let next = 0;
    return members.map(({ netdev, addrs, group }) => {
      const wrong = addrs.filter((a) => dec.get(a.address)?.dev !== netdev);
      const unsure = wrong.map((a) => dec.get(a.address)!.unsure).find((u) => u) ?? null;
      const table = wrong.length > 0 && !unsure ? tables[next++]! : null;
      return { netdev, group, addrs, wrong, unsure, table };
    });
  });
}


/**
 * The commands that give a netdev its source-based policy routing (ARP-004's
 * remediation, and the prerequisite ARP-002's arp_filter=1 carries): the route
 * first, so the rule never points at an empty table (`ncclx fix` applies them
 * in this order too). Null when the netdev needs none or the answer is unsure.
 */
export function policyRoutingCommands(need: RoutingNeed): string[][] | null {
  if (need.wrong.length === 0 || need.unsure || need.table === null) return null;
  const table = String(need.table);
  return [
    ['ip', 'route', 'replace', need.group.subnet, 'dev', need.netdev, 'src', need.wrong[0]!.address, 'table', table],
    ...need.wrong.map((a) => ['ip', 'rule', 'add', 'from', a.address, 'lookup', table]),
  ];
}

/** arp_announce, arp_ignore, arp_filter, rp_filter and routing all fine for this netdev. */
export function memberHealthy(snapshot: NodeSnapshot, netdev: string): boolean {
  const kernel = snapshot.kernel;
  if (!kernel) return false;
  for (const key of CONF_KEYS) {
    const v = effectiveValue(kernel, netdev, key);
    if ('error' in v) return false;
    if (key === 'arp_announce' && v.effective !== 2) return false;
    if (key === 'arp_ignore' && v.effective !== 1 && v.effective !== 2) return false;
    if (key === 'arp_filter' && v.effective !== 1) return false;
  }
  const d = routeDecisions(snapshot);
  if ('error' in d) return false;
  const addrs = sharedSubnets(snapshot).flatMap((g) => g.members.filter((m) => m.netdev === netdev).map((m) => m.addr));
  return addrs.every((a) => d.get(a.address)?.dev === netdev);
}

export interface ArpSettings {
  problems: string[];
  /** The writes that make arp_announce=2, arp_ignore=1|2 and arp_filter=1 effective on the netdev. */
  settings: [string, ConfKey, number][];
  severity: Severity;
  evidence: Evidence[];
}

/** What ARP-002 finds on one netdev and the sysctl writes that fix it (shared with `ncclx fix`). */
export function arpSettings(kernel: KernelPart, netdev: string): ArpSettings | { unreadable: string; evidence: Evidence[] } {
  const evidence: Evidence[] = [];
  const problems: string[] = [];
  const settings: [string, ConfKey, number][] = [];
  let severity: Severity = 'ok';
  const raise = (s: Severity) => {
    if (s === 'error' || (s === 'warn' && severity !== 'error')) severity = s;
  };
  for (const key of ['arp_announce', 'arp_ignore', 'arp_filter'] as const) {
    const v = effectiveValue(kernel, netdev, key);
    if ('error' in v) return { unreadable: v.error, evidence };
    append(evidence, confEvidence(netdev, v));
    if (key === 'arp_announce' && v.effective !== 2) {
      problems.push(`arp_announce=${v.effective}: ARP requests may carry another NIC's address, so peers cache that address with this NIC's MAC`);
      // max(all, if): a higher `all` (no value above 2 exists) cannot be the cause; the interface value is.
      settings.push([netdev, key, 2]);
      raise('error');
    }
    if (key === 'arp_ignore' && v.effective !== 1 && v.effective !== 2) {
      problems.push(
        v.effective === 8 ? 'arp_ignore=8: this NIC answers no ARP request at all' : `arp_ignore=${v.effective}: this NIC answers ARP for addresses of the other NICs`,
      );
      // max(all, if): a high `all` value has to come down too.
      if (v.all > 2) settings.push(['all', key, 1]);
      settings.push([netdev, key, 1]);
      raise('error');
    }
    if (key === 'arp_filter' && v.effective !== 1) {
      problems.push('arp_filter=0: replies are not limited to the NIC the kernel would route back through');
      settings.push([netdev, key, 1]);
      raise('warn');
    }
  }
  return { problems, settings, severity, evidence };
}
