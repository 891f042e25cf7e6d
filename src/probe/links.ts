// Links and addresses as getifaddrs() shows them to NCCL.
// Source of truth: `ip -j -d addr show` (iproute2 JSON), which keeps the
// kernel's per-link address order. os.networkInterfaces() hides links that
// are not up and running, so it is only a last resort (with a warning).

import { networkInterfaces } from 'node:os';
import type { AddressInfo, LinkFlag, LinkInfo, NetworkPart, ProbeWarning } from '../model/snapshot/types.js';
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

/** Parse `ip -j -d addr show` into links and addresses in getifaddrs() order. */
export function parseIpAddrJson(text: string): NetworkPart {
  const raw = JSON.parse(text) as IpLink[];
  if (!Array.isArray(raw)) throw new Error('ip -j addr: expected a JSON array');
  const links: LinkInfo[] = raw.map((l) => ({
    ifindex: l.ifindex,
    name: l.ifname,
    kind: l.linkinfo?.info_kind ?? null,
    linkType: l.link_type ?? null,
    master: l.master ?? null,
    mtu: l.mtu ?? null,
    mac: l.address ?? null,
    operstate: (l.operstate ?? 'UNKNOWN').toUpperCase(),
    flags: getifaddrsFlags(l.flags ?? []),
  }));
  // getifaddrs(): every IPv4 address of every link (ifindex order), then every IPv6.
  const byIndex = [...raw].sort((a, b) => a.ifindex - b.ifindex);
  const addresses: AddressInfo[] = [];
  for (const fam of ['inet', 'inet6'] as const) {
    for (const l of byIndex) {
      for (const a of l.addr_info ?? []) {
        if (a.family !== fam || typeof a.local !== 'string') continue;
        const v6 = fam === 'inet6';
        const linkLocal = v6 && /^fe[89ab]/i.test(a.local);
        addresses.push({
          name: !v6 && a.label ? a.label : l.ifname,
          link: l.ifname,
          ifindex: l.ifindex,
          family: v6 ? 'AF_INET6' : 'AF_INET',
          address: a.local,
          prefixlen: a.prefixlen ?? (v6 ? 128 : 32),
          scope: String(a.scope ?? 'global'),
          // glibc sets sin6_scope_id to the link's index for link-local addresses.
          scopeId: linkLocal ? l.ifindex : 0,
          flags: ADDR_FLAG_KEYS.filter((k) => a[k] === true),
        });
      }
    }
  }
  return { source: 'iproute2', links, addresses };
}

const ARPHRD: Record<string, string> = { '1': 'ether', '32': 'infiniband', '772': 'loopback', '65534': 'none', '776': 'sit', '768': 'ipip', '778': 'gre' };

/** Links from /sys/class/net when no address source exists (fixture without recorded ip output). */
export function linksFromSysfs(root: Root): LinkInfo[] {
  const links: LinkInfo[] = [];
  for (const name of root.list('/sys/class/net')) {
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
    const ifindex = Number(root.readTrim(`${base}/ifindex`) ?? '0');
    links.push({
      ifindex,
      name,
      kind: devtype ?? (root.exists(`${base}/bonding`) ? 'bond' : root.exists(`${base}/bridge`) ? 'bridge' : null),
      linkType: ARPHRD[root.readTrim(`${base}/type`) ?? ''] ?? null,
      master: masterLink ? masterLink.split('/').pop()! : null,
      mtu: Number(root.readTrim(`${base}/mtu`) ?? 'NaN') || null,
      mac: root.readTrim(`${base}/address`),
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
      const part = parseIpAddrJson(r.stdout);
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
  const links = linksFromSysfs(root);
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
