// Links and addresses as getifaddrs() shows them to NCCL.
// Source of truth: `ip -j -d addr show` (iproute2 JSON), which keeps the
// kernel's per-link address order. os.networkInterfaces() hides links that
// are not up and running, so it is only a last resort (with a warning).

import { networkInterfaces } from 'node:os';
import type { AddressInfo, LinkFlag, LinkInfo, NetworkPart, ProbeWarning } from '../model/snapshot/types.js';
import { BOUNDS, clip, firstOf, intIn, plausibleName } from './bound.js';
import type { Root } from './root.js';
import type { Runner } from './runner.js';
import { networkFromProc, parseProcNetDev } from './proc-net.js';

export const IP_ADDR_COMMAND = { argv: ['ip', '-j', '-d', 'addr', 'show'], record: 'ip-addr.json' } as const;

const KNOWN_FLAGS = new Set<LinkFlag>([
  'UP', 'BROADCAST', 'DEBUG', 'LOOPBACK', 'POINTOPOINT', 'NOTRAILERS', 'RUNNING', 'NOARP', 'PROMISC',
  'ALLMULTI', 'MASTER', 'SLAVE', 'MULTICAST', 'PORTSEL', 'AUTOMEDIA', 'DYNAMIC', 'LOWER_UP', 'DORMANT', 'ECHO',
]);

interface IpAddrInfo {
  family?: string;
  local?: string;
  prefixlen?: number;
  scope?: string | number;
  label?: string;
  [flag: string]: unknown;
}

interface IpLink {
  ifindex: number;
  ifname: string;
  flags?: string[];
  mtu?: number;
  operstate?: string;
  link_type?: string;
  address?: string;
  master?: string;
  linkinfo?: { info_kind?: string; info_slave_kind?: string };
  addr_info?: IpAddrInfo[];
}

/** IFF_RUNNING: iproute2 prints NO-CARRIER exactly when a link is UP without RUNNING. */
function getifaddrsFlags(ipFlags: string[]): LinkFlag[] {
  const out = ipFlags.filter((f): f is LinkFlag => KNOWN_FLAGS.has(f as LinkFlag));
  if (ipFlags.includes('UP') && !ipFlags.includes('NO-CARRIER')) out.push('RUNNING');
  return out;
}

const ADDR_FLAG_KEYS = ['secondary', 'temporary', 'tentative', 'dadfailed', 'deprecated', 'optimistic', 'noprefixroute', 'home', 'nodad', 'mngtmpaddr', 'stable-privacy'];

/** A link as the kernel could report it: an ifindex, a name of at most 15 characters (a recorded file can hold anything). */
function plausibleLink(l: unknown): l is IpLink {
  const x = l as IpLink;
  return !!x && typeof x === 'object' && intIn(x.ifindex, 0, 0x7fff_ffff) && plausibleName(x.ifname, BOUNDS.ifname);
}

/** An address as the kernel could report it: text of an address, a prefix length of its family. */
function plausibleAddress(a: IpAddrInfo, v6: boolean): boolean {
  return typeof a.local === 'string' && a.local.length > 0 && a.local.length <= 64 && (a.prefixlen === undefined || intIn(a.prefixlen, 0, v6 ? 128 : 32)) && (a.label === undefined || plausibleName(a.label, BOUNDS.ifname));
}

/**
 * Parse `ip -j -d addr show` into links and addresses in getifaddrs() order.
 * Entries no kernel prints (a 30 MB name, prefix length 1e9) and those past the
 * bounds of a snapshot are dropped, each kind with one warning.
 */
export function parseIpAddrJson(text: string, warnings?: ProbeWarning[]): NetworkPart {
  const parsed = JSON.parse(text) as unknown;
  if (!Array.isArray(parsed)) throw new Error('ip -j addr: expected a JSON array');
  const raw = firstOf(parsed.filter(plausibleLink), BOUNDS.links, 'links', 'network', warnings);
  if (raw.length < Math.min(parsed.length, BOUNDS.links)) warnings?.push({ source: 'network', message: `${parsed.length - raw.length} links with no valid ifindex or name (1 to ${BOUNDS.ifname} characters): left out` });
  const links: LinkInfo[] = raw.map((l) => ({
    ifindex: l.ifindex,
    name: l.ifname,
    kind: l.linkinfo?.info_kind ?? null,
    linkType: l.link_type ?? null,
    master: plausibleName(l.master, BOUNDS.ifname) ? l.master : null,
    mtu: intIn(l.mtu, 0, 0x7fff_ffff) ? l.mtu : null,
    mac: typeof l.address === 'string' && l.address.length <= 256 ? l.address : null,
    operstate: typeof l.operstate === 'string' && l.operstate.length <= 64 ? l.operstate.toUpperCase() : 'UNKNOWN',
    flags: getifaddrsFlags(Array.isArray(l.flags) ? l.flags.filter((f): f is string => typeof f === 'string') : []),
  }));
  // getifaddrs(): every IPv4 address of every link (ifindex order), then every IPv6.
  const byIndex = [...raw].sort((a, b) => a.ifindex - b.ifindex);
  const addresses: AddressInfo[] = [];
  let implausible = 0;
  let past = 0;
  for (const fam of ['inet', 'inet6'] as const) {
    for (const l of byIndex) {
      for (const a of Array.isArray(l.addr_info) ? l.addr_info : []) {
        if (!a || a.family !== fam) continue;
        const v6 = fam === 'inet6';
        if (!plausibleAddress(a, v6)) {
          implausible++;
          continue;
        }
        if (addresses.length >= BOUNDS.addresses) {
          past++;
          continue;
        }
        const linkLocal = v6 && /^fe[89ab]/i.test(a.local!);
        addresses.push({
          name: !v6 && a.label ? a.label : l.ifname,
          link: l.ifname,
          ifindex: l.ifindex,
          family: v6 ? 'AF_INET6' : 'AF_INET',
          address: a.local!,
          prefixlen: a.prefixlen ?? (v6 ? 128 : 32),
          scope: String(a.scope ?? 'global').slice(0, 64),
          // glibc sets sin6_scope_id to the link's index for link-local addresses.
          scopeId: linkLocal ? l.ifindex : 0,
          flags: ADDR_FLAG_KEYS.filter((k) => a[k] === true),
        });
      }
    }
  }
  if (implausible) warnings?.push({ source: 'network', message: `${implausible} addresses with no valid address, prefix length or label: left out` });
  if (past) warnings?.push({ source: 'network', message: `${BOUNDS.addresses + past} addresses: only the first ${BOUNDS.addresses} are read (a bound of every snapshot, docs/snapshot.md "Limits")` });
  return { source: 'iproute2', links, addresses };
}

const ARPHRD: Record<string, string> = { '1': 'ether', '32': 'infiniband', '772': 'loopback', '65534': 'none', '776': 'sit', '768': 'ipip', '778': 'gre' };

/** Links from /sys/class/net when no address source exists (fixture without recorded ip output). */
export function linksFromSysfs(root: Root, warnings?: ProbeWarning[]): LinkInfo[] {
  const links: LinkInfo[] = [];
  for (const name of firstOf(root.list('/sys/class/net').filter((n) => plausibleName(n, BOUNDS.ifname)), BOUNDS.links, 'links', 'network', warnings)) {
    const base = `/sys/class/net/${name}`;
    const flagsHex = root.readTrim(`${base}/flags`);
    const flagsNum = flagsHex ? parseInt(flagsHex, 16) : 0;
    const operstate = (root.readTrim(`${base}/operstate`) ?? 'unknown').toUpperCase();
    const names: [number, LinkFlag][] = [
      [0x1, 'UP'], [0x2, 'BROADCAST'], [0x8, 'LOOPBACK'], [0x10, 'POINTOPOINT'], [0x80, 'NOARP'], [0x100, 'PROMISC'],
      [0x200, 'ALLMULTI'], [0x400, 'MASTER'], [0x800, 'SLAVE'], [0x1000, 'MULTICAST'],
    ];
    const flags: LinkFlag[] = names.filter(([bit]) => flagsNum & bit).map(([, n]) => n);
    const carrier = root.readTrim(`${base}/carrier`) === '1';
    if (carrier) flags.push('LOWER_UP');
    // The kernel's IFF_RUNNING: admin up and operationally up (or unknown).
    if (flags.includes('UP') && (operstate === 'UP' || operstate === 'UNKNOWN')) flags.push('RUNNING');
    const uevent = root.readTrim(`${base}/uevent`) ?? '';
    const devtype = /^DEVTYPE=(.+)$/m.exec(uevent)?.[1] ?? null;
    const masterLink = root.readlink(`${base}/master`);
    const n = Number(root.readTrim(`${base}/ifindex`) ?? '0');
    const ifindex = intIn(n, 0, 0x7fff_ffff) ? n : 0;
    links.push({
      ifindex,
      name,
      kind: devtype ?? (root.exists(`${base}/bonding`) ? 'bond' : root.exists(`${base}/bridge`) ? 'bridge' : null),
      linkType: ARPHRD[root.readTrim(`${base}/type`) ?? ''] ?? null,
      master: masterLink && plausibleName(masterLink.split('/').pop(), BOUNDS.ifname) ? masterLink.split('/').pop()! : null,
      mtu: intIn(Number(root.readTrim(`${base}/mtu`) ?? 'NaN'), 1, 0x7fff_ffff) ? Number(root.readTrim(`${base}/mtu`)) : null,
      mac: clip(root.readTrim(`${base}/address`) ?? '', 256) || null,
      operstate,
      flags,
    });
  }
  return links.sort((a, b) => a.ifindex - b.ifindex);
}

/**
 * What NCCL's socket transport reads per interface (NCCL v2.30.7 src/transport/net_socket.cc, the device
 * properties): /sys/class/net/<if>/speed (unreadable or ≤ 0: NCCL assumes 10 Gb/s) and the realpath of
 * /sys/class/net/<if>/device, which places the NIC in the topology. `sysRoot`'s sysfs must show the links' namespace.
 */
export function withSysfsFacts(sysRoot: Root, part: NetworkPart): NetworkPart {
  for (const l of part.links) {
    const base = `/sys/class/net/${l.name}`;
    if (!sysRoot.exists(base)) continue;
    const speed = Number(sysRoot.readTrim(`${base}/speed`) ?? 'NaN');
    l.speedMbps = Number.isInteger(speed) && speed > 0 ? speed : null;
    l.device = sysRoot.exists(`${base}/device`) ? sysRoot.realpath(`${base}/device`) : null;
  }
  return part;
}

export function probeNetwork(root: Root, runner: Runner, warnings: ProbeWarning[]): NetworkPart {
  return withSysfsFacts(root, readNetwork(root, runner, warnings));
}

function readNetwork(root: Root, runner: Runner, warnings: ProbeWarning[]): NetworkPart {
  const r = runner.run(IP_ADDR_COMMAND);
  if (r.ok) {
    try {
      const part = parseIpAddrJson(r.stdout, warnings);
      return { ...part, source: r.from === 'recorded' ? 'recorded-iproute2' : 'iproute2' };
    } catch (e) {
      warnings.push({ source: 'network', message: `cannot parse ip -j addr output: ${(e as Error).message}` });
    }
  } else if (!root.isLive) {
    warnings.push({ source: 'network', message: r.error });
  }
  // Without iproute2: /proc/net and /sys (src/probe/proc-net.ts); getifaddrs() through node:os on the node itself.
  if (root.isLive || root.exists('/proc/net/dev')) {
    const net = networkFromProc({ root, procNet: '/proc/net', sysfsLinks: sysfsOfThisNamespace(root, parseProcNetDev(root.readTrim('/proc/net/dev') ?? '')), ifaddrs: root.isLive ? networkInterfaces() : null });
    const why = r.ok ? "'ip -j -d addr show' printed what ncclx cannot read" : root.isLive ? `iproute2 'ip' is not available (${r.error})` : `no recorded 'ip -j -d addr show' output under ${root.dir}/commands/ip-addr.json`;
    warnings.push({ source: 'network', message: `${why}: links from /sys/class/net, addresses from ${root.isLive ? 'getifaddrs() (node:os) and ' : ''}/proc/net (${net.limits.join('; ')})` });
    return net.part;
  }
  const links = linksFromSysfs(root, warnings);
  warnings.push({ source: 'network', message: `no recorded 'ip -j -d addr show' output under ${root.dir}/commands/ip-addr.json: links come from sysfs and no addresses are known` });
  return { source: 'sysfs', links, addresses: [] };
}

/** /sys/class/net's links under `sysRoot` when that sysfs shows the namespace whose /proc/net/dev lists `names`, else null. */
export function sysfsOfThisNamespace(sysRoot: Root, names: string[]): LinkInfo[] | null {
  const sys = linksFromSysfs(sysRoot);
  if (names.length === 0) return sys.length ? sys : null;
  const same = names.length === sys.length && names.every((n) => sys.some((l) => l.name === n));
  return same ? sys : null;
}
