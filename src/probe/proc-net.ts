// The network as the kernel shows it without iproute2: a container image
// often has no `ip`, `tc`, `nft` or `iptables`, but /proc and /sys are there.
//
//   /proc/net/dev          every link of the network namespace
//   /sys/class/net/<if>/   ifindex, flags, operstate, carrier, mtu, address
//   /proc/net/if_inet6     every IPv6 address: link, prefix length, scope, flags
//   /proc/net/fib_trie     local IPv4 addresses (the Local table's /32 host entries)
//   /proc/net/route        IPv4 main-table routes; a link's prefix routes say
//                          which link holds a local IPv4 address and its prefix
//   /proc/net/ipv6_route   IPv6 routes
//
// getifaddrs() order (what NCCL walks) is not in any of these files: the
// kernel's netlink dump lists every IPv4 address link by link, then every
// IPv6 one, and fib_trie is sorted by address. Node's os.networkInterfaces()
// is getifaddrs() itself (libuv), but lists only links that are UP and
// RUNNING; so the order comes from it for those links, and from ifindex (the
// dump's link order) for the others. Limits, documented in docs/snapshot.md:
// policy-routing tables other than main and rules are not in /proc; qdiscs
// are not either; several IPv4 addresses on a link that is not running are
// put in numeric order, and two links on one IPv4 subnet cannot be told apart
// for an address of a link that is not running.
//
// Pure parsers first (tested on text), then the assembly that reads files.

import type { AddressInfo, LinkFlag, LinkInfo, NetworkPart } from '../model/snapshot/types.js';
import type { IpRouteJson } from '../model/snapshot/kernel-types.js';
import { formatIPv6, subnetOf } from '../model/linux/ip.js';
import type { Root } from './root.js';

export interface Inet6Entry {
  address: string;
  ifindex: number;
  prefixlen: number;
  scope: string;
  flags: string[];
  dev: string;
}

// IFA_F_* (include/uapi/linux/if_addr.h) as iproute2 names them.
const IFA_FLAGS: [number, string][] = [
  [0x01, 'temporary'], [0x02, 'nodad'], [0x04, 'optimistic'], [0x08, 'dadfailed'], [0x10, 'home'], [0x20, 'deprecated'], [0x40, 'tentative'],
];

/** IPV6_ADDR_* scope bits of if_inet6's fourth column, named as iproute2 names scopes. */
function inet6Scope(v: number): string {
  const s = v & 0x00f0;
  if (s === 0x10) return 'host';
  if (s === 0x20) return 'link';
  if (s === 0x40) return 'site';
  return 'global';
}

function hexToIPv6(hex: string): string | null {
  if (!/^[0-9a-f]{32}$/i.test(hex)) return null;
  const bytes = new Uint8Array(16);
  for (let i = 0; i < 16; i++) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return formatIPv6(bytes);
}

/** /proc/net/if_inet6: "address ifindex plen scope flags name", all hex but the name. */
export function parseIfInet6(text: string): Inet6Entry[] {
  const out: Inet6Entry[] = [];
  for (const line of text.split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f.length < 6) continue;
    const address = hexToIPv6(f[0]!);
    if (!address) continue;
    const flags = parseInt(f[4]!, 16);
    out.push({ address, ifindex: parseInt(f[1]!, 16), prefixlen: parseInt(f[2]!, 16), scope: inet6Scope(parseInt(f[3]!, 16)), flags: IFA_FLAGS.filter(([b]) => flags & b).map(([, n]) => n), dev: f[5]! });
  }
  return out;
}

/** /proc/net/dev: link names in the kernel's list order. */
export function parseProcNetDev(text: string): string[] {
  return text
    .split('\n')
    .slice(2)
    .map((l) => /^\s*([^:\s]+):/.exec(l)?.[1])
    .filter((n): n is string => !!n);
}

/** The local IPv4 addresses in /proc/net/fib_trie: leaves of the Local table marked "/32 host LOCAL". */
export function parseFibTrieLocal(text: string): string[] {
  const out: string[] = [];
  let local = false;
  let leaf: string | null = null;
  for (const line of text.split('\n')) {
    if (/^\S/.test(line)) {
      local = /^Local:/.test(line);
      continue;
    }
    if (!local) continue;
    const l = /\|--\s+(\d+\.\d+\.\d+\.\d+)\s*$/.exec(line);
    if (l) {
      leaf = l[1]!;
      continue;
    }
    if (leaf && /\/32 host LOCAL/.test(line) && !out.includes(leaf)) out.push(leaf);
  }
  return out;
}

/** A main-table route as /proc/net/route or ipv6_route lists it (RTF_* flags). */
export interface ProcRoute {
  dev: string;
  dst: string;
  prefixlen: number;
  gateway: string | null;
  metric: number;
  flags: number;
}

const RTF_UP = 0x1;
const RTF_GATEWAY = 0x2;
const RTF_REJECT = 0x200;
const RTF_LOCAL = 0x80000000;

/** A little-endian hex IPv4 word from /proc/net/route. */
function le32(hex: string): string {
  const n = parseInt(hex, 16) >>> 0;
  return [n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, n >>> 24].join('.');
}

function maskLen(hex: string): number {
  let n = parseInt(hex, 16) >>> 0;
  let len = 0;
  while (n) {
    len += n & 1;
    n >>>= 1;
  }
  return len;
}

/** /proc/net/route: the IPv4 main table (Iface Destination Gateway Flags RefCnt Use Metric Mask …). */
export function parseProcRoute(text: string): ProcRoute[] {
  const out: ProcRoute[] = [];
  for (const line of text.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length < 8 || !/^[0-9A-Fa-f]{8}$/.test(f[1]!)) continue;
    const flags = parseInt(f[3]!, 16);
    if (!(flags & RTF_UP)) continue;
    out.push({ dev: f[0]!, dst: le32(f[1]!), prefixlen: maskLen(f[7]!), gateway: flags & RTF_GATEWAY ? le32(f[2]!) : null, metric: Number(f[6]), flags });
  }
  return out;
}

/** /proc/net/ipv6_route: dst plen src splen nexthop metric refcnt use flags dev (all tables the kernel lists there). */
export function parseIpv6Route(text: string): ProcRoute[] {
  const out: ProcRoute[] = [];
  for (const line of text.split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f.length < 10) continue;
    const dst = hexToIPv6(f[0]!);
    const hop = hexToIPv6(f[4]!);
    if (!dst || !hop) continue;
    const flags = parseInt(f[8]!, 16);
    // The local table's entries (RTF_LOCAL) are the addresses themselves, not routes `ip route show` prints.
    if (!(flags & RTF_UP) || flags & RTF_REJECT || (flags & RTF_LOCAL) !== 0) continue;
    out.push({ dev: f[9]!, dst, prefixlen: parseInt(f[1]!, 16), gateway: flags & RTF_GATEWAY ? hop : null, metric: parseInt(f[5]!, 16), flags });
  }
  return out;
}

/** The main-table routes as `ip -j route show` prints them (dst "default" or a/len, dev, gateway, metric), IPv4 then IPv6. */
export function routesAsIproute(v4: ProcRoute[], v6: ProcRoute[]): IpRouteJson[] {
  const out: IpRouteJson[] = [];
  for (const r of v4) {
    const dst = r.prefixlen === 0 ? 'default' : r.prefixlen === 32 ? r.dst : `${r.dst}/${r.prefixlen}`;
    out.push({ dst, ...(r.gateway ? { gateway: r.gateway } : { scope: 'link' }), dev: r.dev, ...(r.metric ? { metric: r.metric } : {}) });
  }
  for (const r of v6) {
    // ipv6_route lists the local and multicast tables too: keep what `ip -6 route show` (main) shows.
    if (r.dev === 'lo' && r.prefixlen === 128) continue;
    if (r.dst.startsWith('ff') && r.prefixlen === 8) continue;
    const dst = r.prefixlen === 0 ? 'default' : r.prefixlen === 128 ? r.dst : `${r.dst}/${r.prefixlen}`;
    out.push({ dst, ...(r.gateway ? { gateway: r.gateway } : {}), dev: r.dev, metric: r.metric });
  }
  return out;
}

function v4Int(a: string): number {
  return a.split('.').reduce((n, x) => ((n << 8) | Number(x)) >>> 0, 0);
}

/** The link whose directly connected main-table route holds `addr` (longest prefix first), or null when none or two links tie. */
export function linkOfLocalV4(addr: string, routes: ProcRoute[]): { dev: string; prefixlen: number } | { ambiguous: string[] } | null {
  const a = v4Int(addr);
  const direct = routes.filter((r) => r.gateway === null && r.prefixlen > 0);
  let best: ProcRoute[] = [];
  for (const r of direct) {
    const mask = r.prefixlen === 32 ? 0xffffffff : ~(0xffffffff >>> r.prefixlen) >>> 0;
    if (((a & mask) >>> 0) !== ((v4Int(r.dst) & mask) >>> 0)) continue;
    if (!best.length || r.prefixlen > best[0]!.prefixlen) best = [r];
    else if (r.prefixlen === best[0]!.prefixlen && !best.some((b) => b.dev === r.dev)) best.push(r);
  }
  if (best.length === 0) return null;
  if (best.length > 1) return { ambiguous: best.map((b) => b.dev) };
  return { dev: best[0]!.dev, prefixlen: best[0]!.prefixlen };
}

// ---------------------------------------------------------------------------
// Assembly

export interface NodeIfaddr {
  address: string;
  netmask: string;
  family: 'IPv4' | 'IPv6';
  cidr: string | null;
  scopeid?: number;
}

export interface ProcNetworkInput {
  root: Root;
  /** /proc/net, or /proc/PID/net for another process's namespace. */
  procNet: string;
  /** Links from sysfs, when that sysfs belongs to the same network namespace; else null. */
  sysfsLinks: LinkInfo[] | null;
  /** os.networkInterfaces() when it was taken in that namespace (ncclx's own), else null. */
  ifaddrs: Record<string, NodeIfaddr[] | undefined> | null;
}

export interface ProcNetwork {
  part: NetworkPart;
  /** What this view cannot show, one phrase each. */
  limits: string[];
  routes: { v4: ProcRoute[]; v6: ProcRoute[] } | null;
}

/** The kernel makes an IPv4 address secondary when an earlier address of its link is in the same subnet. */
function markSecondaries(v4: AddressInfo[]): void {
  for (let i = 0; i < v4.length; i++) {
    const a = v4[i]!;
    const subnet = subnetOf(a.address, a.prefixlen);
    if (v4.slice(0, i).some((b) => b.link === a.link && b.prefixlen === a.prefixlen && subnetOf(b.address, b.prefixlen) === subnet)) a.flags = [...a.flags, 'secondary'];
  }
}

const prefixOf = (a: NodeIfaddr, v6: boolean) => Number(a.cidr?.split('/')[1] ?? (v6 ? 128 : 32));

/** Links, addresses (in getifaddrs() order as far as these sources tell it) and routes from /proc and /sys. */
export function networkFromProc(input: ProcNetworkInput): ProcNetwork {
  const { root, procNet } = input;
  const limits: string[] = [];
  const names = parseProcNetDev(root.readTrim(`${procNet}/dev`) ?? '');
  const inet6 = parseIfInet6(root.readTrim(`${procNet}/if_inet6`) ?? '');
  const v4Local = parseFibTrieLocal(root.read(`${procNet}/fib_trie`).ok ? root.readTrim(`${procNet}/fib_trie`)! : '');
  const r4 = root.readTrim(`${procNet}/route`);
  const r6 = root.readTrim(`${procNet}/ipv6_route`);
  const v4Routes = parseProcRoute(r4 ?? '');
  const v6Routes = parseIpv6Route(r6 ?? '');

  // Links: sysfs when it is this namespace's, else the names /proc/net/dev lists, flags unknown.
  let links: LinkInfo[];
  if (input.sysfsLinks) {
    links = input.sysfsLinks;
  } else {
    const index = new Map<string, number>();
    for (const e of inet6) index.set(e.dev, e.ifindex);
    links = names.map((name, i) => ({
      ifindex: index.get(name) ?? 0,
      name,
      kind: null,
      linkType: name === 'lo' ? 'loopback' : null,
      master: null,
      mtu: null,
      mac: null,
      operstate: 'UNKNOWN',
      flags: (name === 'lo' ? ['UP', 'LOOPBACK', 'RUNNING'] : ['UP', 'RUNNING']) as LinkFlag[],
      // Unknown ifindexes keep /proc/net/dev's order after the known ones.
      ...(index.has(name) ? {} : { order: 100000 + i }),
    }));
    if (names.length) limits.push(`the link flags of ${names.join(', ')} could not be read (no sysfs of this network namespace): assumed UP and RUNNING`);
    links = links.sort((a, b) => (a.ifindex || 1e9) - (b.ifindex || 1e9)).map(({ order: _o, ...l }: LinkInfo & { order?: number }) => l);
  }
  const byName = new Map(links.map((l) => [l.name, l]));
  const running = (l: LinkInfo) => l.flags.includes('UP') && l.flags.includes('RUNNING');

  const v4: AddressInfo[] = [];
  const v6: AddressInfo[] = [];
  const fromIfaddrs = new Set<string>();
  if (input.ifaddrs) {
    // getifaddrs() order, regrouped: Node keys entries by name in order of first appearance.
    for (const [name, list] of Object.entries(input.ifaddrs)) {
      const linkName = name.split(':')[0]!;
      const link = byName.get(linkName) ?? byName.get(name);
      if (!link) continue;
      fromIfaddrs.add(link.name);
      for (const a of list ?? []) {
        const six = a.family === 'IPv6';
        const addr = six ? a.address.split('%')[0]! : a.address;
        const e6 = six ? inet6.find((x) => x.address === addr && x.dev === link.name) : undefined;
        const info: AddressInfo = {
          name: six ? link.name : name,
          link: link.name,
          ifindex: link.ifindex,
          family: six ? 'AF_INET6' : 'AF_INET',
          address: addr,
          prefixlen: prefixOf(a, six),
          scope: six ? (e6?.scope ?? (a.scopeid ? 'link' : 'global')) : link.flags.includes('LOOPBACK') ? 'host' : 'global',
          scopeId: six && /^fe[89ab]/i.test(addr) ? link.ifindex : 0,
          flags: e6?.flags ?? [],
        };
        (six ? v6 : v4).push(info);
      }
    }
  }
  // Links getifaddrs() did not show through Node (not UP and RUNNING), in ifindex order.
  const rest = [...links].sort((a, b) => a.ifindex - b.ifindex).filter((l) => !fromIfaddrs.has(l.name));
  const ambiguous: string[] = [];
  for (const link of rest) {
    for (const addr of v4Local.filter((a) => !v4.some((x) => x.address === a))) {
      const owner = linkOfLocalV4(addr, v4Routes);
      if (owner && 'ambiguous' in owner) {
        if (owner.ambiguous.includes(link.name) && !ambiguous.includes(addr)) ambiguous.push(addr);
        continue;
      }
      const loop = /^127\./.test(addr);
      if ((owner?.dev ?? (loop ? 'lo' : null)) !== link.name) continue;
      v4.push({ name: link.name, link: link.name, ifindex: link.ifindex, family: 'AF_INET', address: addr, prefixlen: owner?.prefixlen ?? 8, scope: loop ? 'host' : 'global', scopeId: 0, flags: [] });
    }
    for (const e of inet6.filter((x) => x.dev === link.name)) {
      v6.push({ name: link.name, link: link.name, ifindex: link.ifindex, family: 'AF_INET6', address: e.address, prefixlen: e.prefixlen, scope: e.scope, scopeId: /^fe[89ab]/i.test(e.address) ? link.ifindex : 0, flags: e.flags });
    }
  }
  markSecondaries(v4);
  if (rest.some((l) => !l.flags.includes('UP'))) limits.push(`IPv4 addresses of links that are down (${rest.filter((l) => !l.flags.includes('UP')).map((l) => l.name).join(', ')}) are not in /proc (they have no local route)`);
  if (ambiguous.length) limits.push(`the link of ${ambiguous.join(', ')} cannot be told (two links have a route to its subnet)`);
  if (rest.some((l) => !running(l)) && input.ifaddrs) limits.push(`the addresses of links that are not running (${rest.filter((l) => !running(l)).map((l) => l.name).join(', ')}) come from /proc in ifindex order; several IPv4 addresses on one of them are in numeric order, not necessarily getifaddrs() order`);
  if (!input.ifaddrs) limits.push('the order of several addresses on one link is not known from /proc (getifaddrs() order is per link, ifindex order between links)');
  if (r4 === null) limits.push(`${procNet}/route could not be read`);
  limits.push('routing tables other than main, policy-routing rules and qdiscs are not shown in /proc');
  return { part: { source: 'proc', links, addresses: [...v4, ...v6] }, limits, routes: r4 === null && r6 === null ? null : { v4: v4Routes, v6: v6Routes } };
}
