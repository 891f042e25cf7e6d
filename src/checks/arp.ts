// Multi-rail ARP checks. When two or more RDMA netdevs share an IPv4 subnet,
// Linux by default answers ARP for any local address on any NIC and sources
// every reply from the first connected route, so a peer learns the wrong MAC
// for a rail: its RoCE frames go to another port, are dropped, and the QP
// fails with IBV_WC_RETRY_EXC_ERR (status 12) — NVIDIA/nccl#1269, #1109.
//
// The kernel combines conf/all and conf/<if> (include/linux/inetdevice.h;
// Documentation/networking/ip-sysctl.rst): arp_announce, arp_ignore and
// rp_filter use max(all, if); arp_filter is on when either is (all OR if).
// arp_filter and strict rp_filter both ask "would I route back to the peer
// through this NIC?", which only source-based policy routing answers "yes"
// for every rail; so the routing lookup is simulated here from ip rule/route.

import { parseIPv4 } from '../nccl/ip.js';
import { shJoin } from '../report/quote.js';
import { CONF_KEYS, type ConfKey, type IpRouteJson, type IpRuleJson, type KernelPart, type ProcRead } from '../snapshot/kernel-types.js';
import type { AddressInfo } from '../snapshot/types.js';
import { rdmaNetdevs, rdmaUnknownReason, type RdmaNetdev } from './rdma-netdevs.js';
import {
  captureFailure,
  commandEvidence,
  isMainTable,
  NO_KERNEL_PART,
  parseV4Prefix,
  prefixContains,
  prefixText,
  routeDevs,
  type V4Prefix,
} from './routing.js';
import { result, unknownResult } from './result.js';
import type { Check, CheckContext, CheckResult, Evidence, Severity } from './types.js';

const CONF_DIR = '/proc/sys/net/ipv4/conf';

export const WHY_ARP =
  'With several RDMA netdevs in one subnet, Linux answers ARP for any local address on any NIC; a peer then learns the wrong MAC for a rail, its RoCE frames are dropped, and the QP fails with IBV_WC_RETRY_EXC_ERR (status 12).';

// ---------------------------------------------------------------------------
// The kernel's combination rule

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
function allConfError(kernel: KernelPart, keys: ConfKey[]): string | null {
  for (const key of keys) {
    const v = parseProc(kernel.conf['all']?.[key]);
    if (typeof v !== 'number') return `${CONF_DIR}/all/${key}: ${v}`;
  }
  return null;
}

function confEvidence(netdev: string, v: EffectiveValue): Evidence[] {
  return [
    { kind: 'file', source: `${CONF_DIR}/all/${v.key}`, value: String(v.all) },
    { kind: 'file', source: `${CONF_DIR}/${netdev}/${v.key}`, value: `${v.iface} (effective ${v.effective} = ${COMBINE[v.key] === 'or' ? 'all OR if' : 'max(all, if)'})` },
  ];
}

/** `sysctl -w` with slash-separated keys: interface names may contain dots (eth0.100). */
export function sysctlCommand(settings: [string, ConfKey, number][]): string {
  return shJoin(['sysctl', '-w', ...settings.map(([ifname, key, v]) => `net/ipv4/conf/${ifname}/${key}=${v}`)]);
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
export function sharedSubnets(ctx: CheckContext): SharedSubnet[] {
  return ctx.memo('arp.sharedSubnets', () => {
    const ports = rdmaNetdevs(ctx.snapshot);
    const byNetdev = new Map<string, RdmaNetdev[]>();
    for (const p of ports) byNetdev.set(p.netdev, [...(byNetdev.get(p.netdev) ?? []), p]);
    const items: { m: Member; prefix: V4Prefix }[] = [];
    for (const [netdev, list] of byNetdev) {
      for (const addr of ctx.snapshot.network.addresses) {
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

/** Common preamble: null when the check can go on, else its only result. */
function preconditions(ctx: CheckContext, what: string, needKernel: boolean): CheckResult | null {
  const noRdma = rdmaUnknownReason(ctx.snapshot);
  if (noRdma) return unknownResult(what, noRdma);
  if (rdmaNetdevs(ctx.snapshot).length === 0) return result('ok', 'no RDMA netdevs: multi-rail ARP does not apply', [], '');
  if (sharedSubnets(ctx).length === 0) return result('ok', 'no two RDMA netdevs share an IPv4 subnet', [], '');
  if (needKernel && !ctx.snapshot.kernel) return unknownResult(what, NO_KERNEL_PART);
  return null;
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

function decisionEvidence(kernel: KernelPart, d: RouteDecision): Evidence[] {
  const ev: Evidence[] = [];
  if (d.rule) ev.push(commandEvidence(kernel.rules, JSON.stringify(d.rule)));
  if (d.route) ev.push(commandEvidence(kernel.routes, JSON.stringify(d.route)));
  return ev;
}

/** Per member address: does traffic from it go back out through its own NIC? Memoised per run. */
function decisions(ctx: CheckContext): Map<string, RouteDecision> | { error: string } {
  return ctx.memo('arp.decisions', () => {
    const kernel = ctx.snapshot.kernel!;
    if (!kernel.rules.ok) return { error: captureFailure(kernel.rules) };
    if (!kernel.routes.ok) return { error: captureFailure(kernel.routes) };
    const out = new Map<string, RouteDecision>();
    for (const g of sharedSubnets(ctx)) {
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
export function routingNeeds(ctx: CheckContext): RoutingNeed[] | { error: string } {
  return ctx.memo('arp.routingNeeds', () => {
    const dec = decisions(ctx);
    if ('error' in dec) return dec;
    const members = memberNetdevs(sharedSubnets(ctx));
    const tables = freeTables(ctx.snapshot.kernel!, members.length);
    let next = 0;
    return members.map(({ netdev, addrs, group }) => {
      const wrong = addrs.filter((a) => dec.get(a.address)?.dev !== netdev);
      const unsure = wrong.map((a) => dec.get(a.address)!.unsure).find((u) => u) ?? null;
      const table = wrong.length > 0 && !unsure ? tables[next++]! : null;
      return { netdev, group, addrs, wrong, unsure, table };
    });
  });
}

// ---------------------------------------------------------------------------
// The checks

const sharedSubnet: Check = {
  id: 'ARP-001',
  title: 'RDMA netdevs on one IPv4 subnet',
  family: 'arp',
  run(ctx) {
    const pre = preconditions(ctx, 'RDMA netdev subnets', false);
    if (pre) return pre;
    return sharedSubnets(ctx).map((g) => {
      const netdevs = [...new Set(g.members.map((m) => m.netdev))];
      const ev: Evidence[] = g.members.map((m) => ({
        kind: 'value',
        source: `${m.ports.map((p) => `${p.dev}:${p.port}`).join(', ')} → ${m.netdev}`,
        value: `${m.addr.address}/${m.addr.prefixlen}`,
      }));
      const healthy = ctx.snapshot.kernel ? netdevs.every((n) => memberHealthy(ctx, n)) : false;
      return result(
        healthy ? 'info' : 'warn',
        `${netdevs.length} RDMA netdevs share ${g.subnet}: ${netdevs.join(', ')}${healthy ? ' (ARP, rp_filter and policy routing are set up for it)' : ' — see ARP-002..ARP-004'}`,
        ev,
        `${WHY_ARP} One subnet per rail avoids the problem entirely; otherwise every NIC needs the ARP sysctls and source-based policy routing.`,
        null,
        healthy ? [] : ['arp-sysctl', 'policy-routing'],
      );
    });
  },
};

/** arp_announce, arp_ignore, arp_filter, rp_filter and routing all fine for this netdev. */
function memberHealthy(ctx: CheckContext, netdev: string): boolean {
  const kernel = ctx.snapshot.kernel!;
  for (const key of CONF_KEYS) {
    const v = effectiveValue(kernel, netdev, key);
    if ('error' in v) return false;
    if (key === 'arp_announce' && v.effective !== 2) return false;
    if (key === 'arp_ignore' && v.effective !== 1 && v.effective !== 2) return false;
    if (key === 'arp_filter' && v.effective !== 1) return false;
  }
  const d = decisions(ctx);
  if ('error' in d) return false;
  const addrs = sharedSubnets(ctx).flatMap((g) => g.members.filter((m) => m.netdev === netdev).map((m) => m.addr));
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
    evidence.push(...confEvidence(netdev, v));
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

const arpSysctls: Check = {
  id: 'ARP-002',
  title: 'arp_announce=2, arp_ignore=1, arp_filter=1 on RDMA netdevs sharing a subnet',
  family: 'arp',
  run(ctx) {
    const pre = preconditions(ctx, 'ARP sysctls', true);
    if (pre) return pre;
    const kernel = ctx.snapshot.kernel!;
    // conf/all unreadable (no /proc/sys in a fixture, a hardened /proc): one answer, not one per rail.
    const allUnreadable = allConfError(kernel, ['arp_announce', 'arp_ignore', 'arp_filter']);
    if (allUnreadable) return unknownResult('ARP sysctls', allUnreadable);
    const out: CheckResult[] = [];
    const good: string[] = [];
    const dec = decisions(ctx);
    for (const { netdev, addrs } of memberNetdevs(sharedSubnets(ctx))) {
      const need = arpSettings(kernel, netdev);
      if ('unreadable' in need) {
        out.push(unknownResult(`ARP sysctls of ${netdev}`, need.unreadable, need.evidence));
        continue;
      }
      const { problems, settings, severity, evidence: ev } = need;
      if (problems.length === 0) {
        good.push(netdev);
        continue;
      }
      // arp_filter=1 answers only where the route back leaves through this NIC: it needs policy routing.
      const routed = 'error' in dec ? false : addrs.every((a) => dec.get(a.address)?.dev === netdev);
      const fixIds = ['arp-sysctl', ...(settings.some(([, k]) => k === 'arp_filter') && !routed ? ['policy-routing'] : [])];
      out.push(
        result(
          severity,
          `${netdev}: ${problems.join('; ')}`,
          ev,
          `${WHY_ARP}${fixIds.includes('policy-routing') ? ' arp_filter=1 also needs the per-NIC policy routing of ARP-004 first, or this NIC stops answering for its own address.' : ''}`,
          sysctlCommand(settings),
          fixIds,
        ),
      );
    }
    if (good.length) out.unshift(result('ok', `arp_announce=2, arp_ignore=1 or 2, arp_filter=1 in effect on ${good.join(', ')}`, [], ''));
    return out;
  },
};

const rpFilter: Check = {
  id: 'ARP-003',
  title: 'rp_filter is loose (2) unless each NIC has policy routing',
  family: 'arp',
  run(ctx) {
    const pre = preconditions(ctx, 'rp_filter', true);
    if (pre) return pre;
    const kernel = ctx.snapshot.kernel!;
    const allUnreadable = allConfError(kernel, ['rp_filter']);
    if (allUnreadable) return unknownResult('rp_filter', allUnreadable);
    const out: CheckResult[] = [];
    const good: string[] = [];
    for (const { netdev, addrs } of memberNetdevs(sharedSubnets(ctx))) {
      const v = effectiveValue(kernel, netdev, 'rp_filter');
      if ('error' in v) {
        out.push(unknownResult(`rp_filter of ${netdev}`, v.error));
        continue;
      }
      const ev = confEvidence(netdev, v);
      if (v.effective !== 1) {
        good.push(`${netdev} (rp_filter=${v.effective})`);
        continue;
      }
      const dec = decisions(ctx);
      if ('error' in dec) {
        out.push(unknownResult(`strict rp_filter on ${netdev}`, dec.error, ev));
        continue;
      }
      const wrong = addrs.filter((a) => dec.get(a.address)?.dev !== netdev);
      if (wrong.length === 0) {
        good.push(`${netdev} (strict, routed back through itself)`);
        continue;
      }
      for (const a of wrong) ev.push(...decisionEvidence(kernel, dec.get(a.address)!));
      const via = wrong.map((a) => `${a.address} → ${dec.get(a.address)?.dev ?? 'nothing'}`).join(', ');
      out.push(
        result(
          'error',
          `${netdev}: strict rp_filter=1, but the kernel routes this NIC's traffic back through another device (${via})`,
          ev,
          'Strict reverse-path filtering drops packets, ARP requests included, that arrive on a NIC other than the one the kernel would reply through; without source-based policy routing that is every rail but one, so peers cannot resolve this NIC and its QPs time out.',
          sysctlCommand([[netdev, 'rp_filter', 2]]),
          ['rp-filter', 'policy-routing'],
        ),
      );
    }
    if (good.length) out.unshift(result('ok', `rp_filter safe on ${good.join(', ')}`, [], ''));
    return out;
  },
};

const policyRoutingCheck: Check = {
  id: 'ARP-004',
  title: 'Source-based policy routing for each RDMA netdev sharing a subnet',
  family: 'arp',
  run(ctx) {
    const pre = preconditions(ctx, 'policy routing', true);
    if (pre) return pre;
    const kernel = ctx.snapshot.kernel!;
    const dec = decisions(ctx);
    const needs = routingNeeds(ctx);
    if ('error' in dec) return unknownResult('policy routing', dec.error);
    if ('error' in needs) return unknownResult('policy routing', needs.error);
    const out: CheckResult[] = [];
    const good: string[] = [];
    needs.forEach(({ netdev, addrs, group, wrong, unsure, table: t }) => {
      if (wrong.length === 0) {
        const d = dec.get(addrs[0]!.address)!;
        good.push(`${netdev} (${d.rule && d.rule.table !== 'main' ? `table ${d.rule.table}` : 'main table'})`);
        return;
      }
      const ev: Evidence[] = wrong.flatMap((a) => decisionEvidence(kernel, dec.get(a.address)!));
      if (unsure) {
        out.push(unknownResult(`policy routing of ${netdev}`, unsure, ev));
        return;
      }
      const af = effectiveValue(kernel, netdev, 'arp_filter');
      const arpFilterOn = !('error' in af) && af.effective === 1;
      if (!('error' in af)) ev.push(...confEvidence(netdev, af));
      const table = String(t);
      const cmds = wrong.flatMap((a) => [
        shJoin(['ip', 'rule', 'add', 'from', a.address, 'lookup', table]),
        shJoin(['ip', 'route', 'replace', group.subnet, 'dev', netdev, 'src', a.address, 'table', table]),
      ]);
      const via = wrong.map((a) => `${a.address} → ${dec.get(a.address)!.dev ?? 'no route'}`).join(', ');
      out.push(
        result(
          arpFilterOn ? 'error' : 'warn',
          `${netdev}: no source-based policy routing; traffic from its address leaves through another device (${via})${arpFilterOn ? ', and with arp_filter=1 this NIC does not answer ARP for its own address' : ''}`,
          ev,
          arpFilterOn
            ? 'arp_filter=1 answers an ARP request only if the reply would leave through the NIC that received it; without `ip rule from <ip> lookup <table>` the reply routes through the first rail, so nobody answers for this NIC and its QPs fail with IBV_WC_RETRY_EXC_ERR (status 12).'
            : 'Without `ip rule from <ip> lookup <table>` every rail replies and sends through the first connected route, so socket traffic collapses onto one NIC (NVIDIA/nccl#1269), arp_filter=1 cannot be used and strict rp_filter drops this rail.',
          cmds.join(' && '),
          ['policy-routing'],
        ),
      );
    });
    if (good.length) out.unshift(result('ok', `traffic from each address leaves through its own NIC: ${good.join(', ')}`, [], ''));
    return out;
  },
};

export const arpChecks: Check[] = [sharedSubnet, arpSysctls, rpFilter, policyRoutingCheck];
