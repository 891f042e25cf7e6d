// Realistic clusters of snapshots for tests and `npm run bench`: each node is
// a copy of a template node's snapshot (a fixture read with `ncclx snapshot
// --root`, full GID tables and kernel state included) with its own hostname,
// MACs, addresses, GIDs and routes — and, for a chosen fraction of nodes, one
// fault of the kinds that make multi-node jobs hang. Subtrees a node does not
// change are shared with the template, so making a node costs little more
// than writing it.

import type { IpRouteJson } from '../model/snapshot/kernel-types.js';
import type { GidEntry, RdmaDevice, RdmaPort } from '../model/snapshot/rdma-types.js';
import type { AddressInfo, NodeSnapshot } from '../model/snapshot/types.js';
import { intToV4, maskOf, v4ToInt } from '../model/linux/ip.js';

export const FAULTS = [
  'missing-rail', // the last rail's RDMA device is absent (driver not loaded, NIC dead)
  'rail-subnet', // rail 3 on another subnet than on the other nodes
  'mtu', // rail 5 at MTU 1500
  'port-down', // rail 6's port DOWN (cable)
  'nccl-version', // another libnccl
  'nccl-setting', // NCCL_IB_TIMEOUT set on this node only
  'gid-index', // NCCL_IB_GID_INDEX=2: a RoCE v1 GID where the others use RoCE v2
  'no-peermem', // nvidia_peermem not loaded: no GPUDirect RDMA
  'no-ipv4', // rail 2's netdev lost its IPv4 address
  'rate', // rail 1 trained at a lower speed
  'bootstrap-name', // the frontend NIC has another name, so NCCL_SOCKET_IFNAME matches nothing
] as const;
export type Fault = (typeof FAULTS)[number];

export interface ClusterSpec {
  nodes: number;
  /** 0–1: the share of nodes with one fault each. */
  faultFraction?: number;
  seed?: number;
  /** Fault kinds to draw from (default: all). */
  faults?: readonly Fault[];
}

/** A small deterministic PRNG (mulberry32): the same seed makes the same cluster. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Which node gets which fault: exactly round(nodes × fraction) faulty nodes, kinds in turn. */
export function faultPlan(spec: ClusterSpec): (Fault | null)[] {
  const n = spec.nodes;
  const kinds = spec.faults ?? FAULTS;
  const faulty = Math.min(n, Math.round(n * (spec.faultFraction ?? 0)));
  const rnd = prng(spec.seed ?? 1);
  const order = Array.from({ length: n }, (_, i) => i);
  // Fisher–Yates on the seed: which nodes are faulty.
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const plan: (Fault | null)[] = new Array(n).fill(null);
  order.slice(0, faulty).forEach((node, k) => (plan[node] = kinds[k % kinds.length]!));
  return plan;
}

const hex2 = (n: number) => (n & 255).toString(16).padStart(2, '0');
const hex4 = (n: number) => (n & 0xffff).toString(16).padStart(4, '0');

/** The EUI-64 interface id of a MAC, as the four last GID groups / fe80:: address groups. */
function eui64(mac: string): [string, string, string, string] {
  const b = mac.split(':').map((x) => parseInt(x, 16));
  const g = [((b[0]! ^ 2) << 8) | b[1]!, (b[2]! << 8) | 0xff, 0xfe00 | b[3]!, (b[4]! << 8) | b[5]!];
  return g.map(hex4) as [string, string, string, string];
}

const linkLocal = (mac: string) => `fe80::${eui64(mac).map((g) => g.replace(/^0+(?=.)/, '')).join(':')}`;
const linkLocalGid = (mac: string) => `fe80:0000:0000:0000:${eui64(mac).join(':')}`;
const v4Gid = (ip: string) => {
  const n = v4ToInt(ip)!;
  return `0000:0000:0000:0000:0000:ffff:${hex4(n >>> 16)}:${hex4(n)}`;
};

interface Iface {
  /** The netdev name. */
  name: string;
  /** Its IPv4 with prefix in the template, and the MAC. */
  address: string;
  prefixlen: number;
  mac: string;
}

export interface TemplateInfo {
  snapshot: NodeSnapshot;
  /** RDMA netdevs with IPv4, in RDMA device order: rail k is rails[k]. */
  rails: Iface[];
  /** The netdev of the main default route (NCCL's bootstrap here), and its gateway. */
  frontend: (Iface & { gateway: string | null }) | null;
}

function ifaceOf(snap: NodeSnapshot, name: string): Iface | null {
  const a = snap.network.addresses.find((x) => x.link === name && x.family === 'AF_INET');
  const l = snap.network.links.find((x) => x.name === name);
  return a && l?.mac ? { name, address: a.address, prefixlen: a.prefixlen, mac: l.mac } : null;
}

export function prepareTemplate(snapshot: NodeSnapshot): TemplateInfo {
  const rails: Iface[] = [];
  for (const d of snapshot.rdma?.devices ?? []) {
    for (const p of d.ports) {
      const nd = p.gids.map((g) => (typeof g.ndev === 'string' ? g.ndev : null)).find((x) => x) ?? d.pciNetdevs[0];
      const f = nd ? ifaceOf(snapshot, nd) : null;
      if (f && !rails.some((r) => r.name === f.name)) rails.push(f);
    }
  }
  const routes = snapshot.kernel?.routes.ok ? (snapshot.kernel.routes.data as IpRouteJson[]) : [];
  const def = routes.find((r) => r.dst === 'default' && r.dev && (r.table === undefined || r.table === 'main'));
  const fe = def?.dev ? ifaceOf(snapshot, def.dev) : null;
  return { snapshot, rails, frontend: fe ? { ...fe, gateway: def?.gateway ?? null } : null };
}

/** Node i's addresses: frontend 172.16.0.0/16, rail k 10.k.0.0/16, host part i + 2 (room for 65,533 nodes and a gateway at .0.1). */
export function nodeAddressing(info: TemplateInfo, i: number): Map<string, Iface & { gateway?: string | null }> {
  const h = i + 2;
  const host = (net: number) => intToV4((net | h) >>> 0);
  const m = new Map<string, Iface & { gateway?: string | null }>();
  if (info.frontend) {
    m.set(info.frontend.name, { name: info.frontend.name, address: host(v4ToInt('172.16.0.0')!), prefixlen: 16, mac: `3c:fd:fe:${hex2(h >> 16)}:${hex2(h >> 8)}:${hex2(h)}`, gateway: info.frontend.gateway ? '172.16.0.1' : null });
  }
  info.rails.forEach((r, k) => {
    m.set(r.name, { name: r.name, address: host(((10 << 24) | (k << 16)) >>> 0), prefixlen: 16, mac: `a0:88:${hex2(k)}:${hex2(h >> 16)}:${hex2(h >> 8)}:${hex2(h)}` });
  });
  return m;
}

const networkText = (ip: string, len: number) => `${intToV4((v4ToInt(ip)! & maskOf(len)) >>> 0)}/${len}`;
const broadcast = (ip: string, len: number) => intToV4(((v4ToInt(ip)! & maskOf(len)) | (~maskOf(len) >>> 0)) >>> 0);

/** Re-address a snapshot: per netdev a new IPv4/prefix and MAC; GIDs, GUIDs and routes follow. */
export function readdress(snap: NodeSnapshot, info: TemplateInfo, to: Map<string, Iface & { gateway?: string | null }>, hostname: string): NodeSnapshot {
  const from = new Map<string, Iface & { gateway?: string | null }>([...info.rails.map((r) => [r.name, r] as const), ...(info.frontend ? [[info.frontend.name, info.frontend] as const] : [])]);
  // Text substitutions for route fields: addresses, networks, broadcasts, gateway.
  const subst = new Map<string, string>();
  const gid = new Map<string, string>();
  for (const [name, t] of to) {
    const f = from.get(name);
    if (!f) continue;
    subst.set(f.address, t.address);
    subst.set(networkText(f.address, f.prefixlen), networkText(t.address, t.prefixlen));
    subst.set(broadcast(f.address, f.prefixlen), broadcast(t.address, t.prefixlen));
    if (f.gateway && t.gateway) subst.set(f.gateway, t.gateway);
    gid.set(v4Gid(f.address), v4Gid(t.address));
    gid.set(linkLocalGid(f.mac), linkLocalGid(t.mac));
  }
  const rs = (s: string | undefined) => (s === undefined ? s : subst.get(s) ?? s);
  const links = snap.network.links.map((l) => (to.has(l.name) ? { ...l, mac: to.get(l.name)!.mac } : l));
  const addresses: AddressInfo[] = snap.network.addresses.map((a) => {
    const t = to.get(a.link);
    if (!t) return a;
    if (a.family === 'AF_INET' && from.get(a.link)?.address === a.address) return { ...a, address: t.address, prefixlen: t.prefixlen };
    if (a.family === 'AF_INET6' && a.scope === 'link') return { ...a, address: linkLocal(t.mac) };
    return a;
  });
  const mapGids = (gids: GidEntry[]): GidEntry[] => gids.map((g) => (typeof g.gid === 'string' && gid.has(g.gid) ? { ...g, gid: gid.get(g.gid)! } : g));
  const devices: RdmaDevice[] | undefined = snap.rdma?.devices.map((d) => {
    const nd = d.pciNetdevs[0];
    const t = nd ? to.get(nd) : undefined;
    const guid = t ? (() => {
      const b = t.mac.split(':');
      return `${b[0]}${b[1]}:${b[2]}03:00${b[3]}:${b[4]}${b[5]}`;
    })() : null;
    return { ...d, ...(guid ? { nodeGuid: guid, sysImageGuid: guid } : {}), ports: d.ports.map((p) => ({ ...p, gids: mapGids(p.gids) })) };
  });
  const kernel = snap.kernel
    ? {
        ...snap.kernel,
        routes: snap.kernel.routes.ok
          ? { ...snap.kernel.routes, data: (snap.kernel.routes.data as IpRouteJson[]).map((r) => ({ ...r, dst: rs(r.dst), prefsrc: rs(r.prefsrc), gateway: rs(r.gateway) })).map(dropUndefined) }
          : snap.kernel.routes,
      }
    : undefined;
  return {
    ...snap,
    host: { ...snap.host, hostname },
    network: { ...snap.network, links, addresses },
    ...(snap.rdma && devices ? { rdma: { ...snap.rdma, devices } } : {}),
    ...(kernel ? { kernel } : {}),
  };
}

function dropUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

function mapPort(snap: NodeSnapshot, netdev: string, f: (p: RdmaPort, d: RdmaDevice) => RdmaPort): NodeSnapshot {
  if (!snap.rdma) return snap;
  const devices = snap.rdma.devices.map((d) => (d.pciNetdevs.includes(netdev) ? { ...d, ports: d.ports.map((p) => f(p, d)) } : d));
  return { ...snap, rdma: { ...snap.rdma, devices } };
}

function setConf(snap: NodeSnapshot, name: string, value: string): NodeSnapshot {
  return { ...snap, env: { ...snap.env, process: { ...snap.env.process, [name]: value } } };
}

/** One fault, applied to a node built from the template. */
export function applyFault(snap: NodeSnapshot, info: TemplateInfo, fault: Fault, addressing: Map<string, Iface>): NodeSnapshot {
  const rail = (k: number) => info.rails[Math.min(k, info.rails.length - 1)]!;
  switch (fault) {
    case 'missing-rail': {
      const last = rail(info.rails.length - 1).name;
      return snap.rdma ? { ...snap, rdma: { ...snap.rdma, devices: snap.rdma.devices.filter((d) => !d.pciNetdevs.includes(last)) } } : snap;
    }
    case 'rail-subnet': {
      const r = rail(3);
      const cur = addressing.get(r.name)!;
      const moved = new Map(addressing);
      moved.set(r.name, { ...cur, address: intToV4((v4ToInt(cur.address)! + (100 << 16)) >>> 0) });
      return readdress(snap, { ...info, rails: info.rails.map((x) => (x.name === r.name ? { ...x, ...cur } : x)), frontend: null }, new Map([[r.name, moved.get(r.name)!]]), snap.host.hostname);
    }
    case 'mtu': {
      const name = rail(5).name;
      const links = snap.network.links.map((l) => (l.name === name ? { ...l, mtu: 1500 } : l));
      const netdevs = snap.rdma ? { ...snap.rdma.netdevs, ...(snap.rdma.netdevs[name] ? { [name]: { ...snap.rdma.netdevs[name]!, mtu: '1500' } } : {}) } : undefined;
      return { ...snap, network: { ...snap.network, links }, ...(snap.rdma && netdevs ? { rdma: { ...snap.rdma, netdevs } } : {}) };
    }
    case 'port-down': {
      const name = rail(6).name;
      const s = mapPort(snap, name, (p) => ({ ...p, state: '1: DOWN', physState: '3: Disabled' }));
      const links = s.network.links.map((l) => (l.name === name ? { ...l, operstate: 'DOWN', flags: l.flags.filter((x) => x !== 'RUNNING' && x !== 'LOWER_UP') } : l));
      return { ...s, network: { ...s.network, links } };
    }
    case 'nccl-version':
      return { ...snap, ncclLibrary: { ...snap.ncclLibrary, candidates: [{ path: '/usr/lib/x86_64-linux-gnu/libnccl.so.2.27.3', version: '2.27.3', via: 'system library directory' }] } };
    case 'nccl-setting':
      return setConf(snap, 'NCCL_IB_TIMEOUT', '23');
    case 'gid-index':
      return setConf(snap, 'NCCL_IB_GID_INDEX', '2');
    case 'no-peermem':
      return snap.rdma
        ? { ...snap, rdma: { ...snap.rdma, peerMem: snap.rdma.peerMem.map((p) => ({ ...p, present: false })), modules: snap.rdma.modules.map((m) => (/peer/.test(m.path) ? { ...m, present: false } : m)) } }
        : snap;
    case 'no-ipv4': {
      const name = rail(2).name;
      const old = addressing.get(name)!;
      const addresses = snap.network.addresses.filter((a) => !(a.link === name && a.family === 'AF_INET'));
      const s = mapPort(snap, name, (p) => ({ ...p, gids: p.gids.map((g) => (g.gid === v4Gid(old.address) ? { index: g.index, gid: '0000:0000:0000:0000:0000:0000:0000:0000', type: { error: 'EINVAL' }, ndev: { error: 'EINVAL' } } : g)) }));
      return { ...s, network: { ...s.network, addresses } };
    }
    case 'rate': {
      const name = rail(1).name;
      return mapPort(snap, name, (p) => ({ ...p, rate: '200 Gb/sec (2X NDR)' }));
    }
    case 'bootstrap-name': {
      if (!info.frontend) return snap;
      const from = info.frontend.name;
      const to = from.replace(/\d+$/, (d) => String(Number(d) + 1)) === from ? `${from}x` : from.replace(/\d+$/, (d) => String(Number(d) + 1));
      const ren = <T extends { name?: string; link?: string; dev?: string }>(o: T): T => ({ ...o, ...(o.name === from ? { name: to } : {}), ...(o.link === from ? { link: to } : {}), ...(o.dev === from ? { dev: to } : {}) });
      const kernel = snap.kernel ? { ...snap.kernel, routes: snap.kernel.routes.ok ? { ...snap.kernel.routes, data: (snap.kernel.routes.data as IpRouteJson[]).map(ren) } : snap.kernel.routes } : undefined;
      return { ...snap, network: { ...snap.network, links: snap.network.links.map(ren), addresses: snap.network.addresses.map(ren) }, ...(kernel ? { kernel } : {}) };
    }
  }
}

export interface NodeOptions {
  /** MASTER_ADDR / MASTER_PORT in each node's environment (a job's view); default: node 0's frontend address. */
  masterAddr?: string | null;
  hostname?: (i: number) => string;
}

export const defaultHostname = (i: number) => `gpu${String(i + 1).padStart(5, '0')}`;

/** Node i of a cluster built from the template, with its fault (if any). */
export function clusterNode(info: TemplateInfo, i: number, fault: Fault | null, o: NodeOptions = {}): NodeSnapshot {
  const addressing = nodeAddressing(info, i);
  const hostname = (o.hostname ?? defaultHostname)(i);
  let snap = readdress(info.snapshot, info, addressing, hostname);
  const master = o.masterAddr === undefined ? (info.frontend ? nodeAddressing(info, 0).get(info.frontend.name)!.address : null) : o.masterAddr;
  if (master) {
    snap = setConf(snap, 'MASTER_ADDR', master);
    snap = setConf(snap, 'MASTER_PORT', '29500');
  }
  if (fault) snap = applyFault(snap, info, fault, addressing);
  return { ...snap, capturedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i % 3600)).toISOString() };
}

export interface MeshOptions {
  /** Prefix length of each link (default 30). */
  linkPrefix?: number;
  /** Put every link inside 10.0.0.0/24 (/30 links NCCL's default /24 cannot tell apart). */
  oneSlash24?: boolean;
  hostname?: (i: number) => string;
}

/**
 * A direct-connect full mesh of n nodes from a template with at least n-1
 * RoCE ports: port j of node i is cabled to its j-th peer; each cable is its
 * own subnet. Ports left over stay without an address.
 */
export function meshNode(info: TemplateInfo, i: number, n: number, o: MeshOptions = {}): NodeSnapshot {
  const len = o.linkPrefix ?? 30;
  const size = 2 ** (32 - len);
  const peers = Array.from({ length: n }, (_, j) => j).filter((j) => j !== i);
  const linkIndex = (a: number, b: number) => {
    const [x, y] = a < b ? [a, b] : [b, a];
    // Pairs in order (0,1), (0,2), …, (1,2), …
    return x * n - (x * (x + 1)) / 2 + (y - x - 1);
  };
  const to = new Map<string, Iface & { gateway?: string | null }>();
  const ports = info.rails;
  peers.forEach((peer, j) => {
    const r = ports[j];
    if (!r) return;
    const li = linkIndex(i, peer);
    const base = o.oneSlash24 ? ((10 << 24) | (li * size)) >>> 0 : ((10 << 24) | ((li + 12) << 8)) >>> 0;
    to.set(r.name, { name: r.name, address: intToV4((base + (i < peer ? 1 : 2)) >>> 0), prefixlen: len, mac: `4c:bb:${hex2(j)}:${hex2(i >> 8)}:${hex2(i)}:0a` });
  });
  if (info.frontend) to.set(info.frontend.name, { name: info.frontend.name, address: intToV4((v4ToInt('10.20.0.0')! | (50 + i)) >>> 0), prefixlen: 24, mac: `4c:bb:47:ff:${hex2(i)}:01`, gateway: info.frontend.gateway ? '10.20.0.1' : null });
  let snap = readdress(info.snapshot, info, to, (o.hostname ?? ((k: number) => `spark-${String.fromCharCode(97 + (k % 26))}${k >= 26 ? Math.floor(k / 26) : ''}`))(i));
  // Ports without a peer: no cable, no carrier, no address.
  for (const r of ports.slice(peers.length)) snap = uncabled(snap, r);
  return snap;
}

function uncabled(snap: NodeSnapshot, r: Iface): NodeSnapshot {
  const s = mapPort(snap, r.name, (p) => ({ ...p, state: '1: DOWN', physState: '3: Disabled', gids: p.gids.map((g) => (g.gid === v4Gid(r.address) ? { index: g.index, gid: '0000:0000:0000:0000:0000:0000:0000:0000', type: { error: 'EINVAL' }, ndev: { error: 'EINVAL' } } : g)) }));
  const links = s.network.links.map((l) => (l.name === r.name ? { ...l, operstate: 'DOWN', flags: l.flags.filter((x) => x !== 'RUNNING' && x !== 'LOWER_UP') } : l));
  const addresses = s.network.addresses.filter((a) => !(a.link === r.name && a.family === 'AF_INET'));
  return { ...s, network: { ...s.network, links, addresses } };
}
