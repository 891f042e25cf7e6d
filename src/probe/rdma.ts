// Read /sys/class/infiniband and its surroundings into the snapshot's RDMA
// part. Files only (never libibverbs), every read through the Root, and a read
// that fails is kept as its errno: a container's EINVAL on gid_attrs/types is
// evidence NCCL reacts to, not something to drop.

import type {
  FoldedPath,
  GidEntry,
  MemlockLimit,
  NetdevFacts,
  PathPresence,
  PciFunction,
  RdmaDevice,
  RdmaDeviceLink,
  RdmaPart,
  RdmaPort,
  SysfsRead,
} from '../model/snapshot/rdma-types.js';
import type { ProbeWarning } from '../model/snapshot/types.js';
import { BOUNDS, firstOf, plausibleName } from './bound.js';
import type { Root } from './root.js';

export const IB_CLASS = '/sys/class/infiniband';

/** Every peer-memory path any NCCL version checks (docs/nccl/gdr.md). */
export const PEER_MEM_PATHS = [
  '/sys/kernel/mm/memory_peers/nv_mem/version',
  '/sys/kernel/mm/memory_peers/nvidia-peermem/version',
  '/sys/kernel/mm/memory_peers/nv_mem_nc/version',
  '/sys/module/nvidia_peermem/version',
];

const MODULES = ['/sys/module/nvidia_peermem', '/sys/module/nv_peer_mem', '/sys/module/ib_uverbs', '/sys/module/mlx5_ib'];

function sysfs(root: Root, p: string): SysfsRead {
  const r = root.read(p);
  return r.ok ? r.value.replace(/\n$/, '') : { error: r.error };
}

const byNumber = (a: string, b: string) => Number(a) - Number(b);

const ZERO_GID = '0000:0000:0000:0000:0000:0000:0000:0000';
const UNSET_ATTR: SysfsRead = { error: 'EINVAL' };

function readGids(root: Root, portDir: string, warnings: ProbeWarning[] | undefined): { gidCount: number; gids: GidEntry[] } {
  const listed = root.list(`${portDir}/gids`).filter((n) => /^\d+$/.test(n)).sort(byNumber);
  // A port lists gids/0 … gids/<gid_tbl_len - 1>, at most 256: an entry past that (a copied file, an edited tree) is no GID entry.
  const names = listed.filter((n) => Number(n) < BOUNDS.gidTable);
  if (names.length < listed.length) warnings?.push({ source: 'rdma', message: `${portDir}/gids: ${listed.filter((n) => Number(n) >= BOUNDS.gidTable).slice(0, 3).join(', ')}${listed.length - names.length > 3 ? ', …' : ''} ignored: a port's GID table has at most ${BOUNDS.gidTable} entries (gid_tbl_len)` });
  const typesDir = `${portDir}/gid_attrs/types`;
  const ndevsDir = `${portDir}/gid_attrs/ndevs`;
  // The kernel lists types/ndevs for every entry; without gid_attrs at all (EFA, a partial capture) nothing is read.
  const attrs = root.isDir(`${portDir}/gid_attrs`);
  const gone: SysfsRead = { error: 'ENOENT' };
  const gids: GidEntry[] = names.map((n) => {
    const gid = sysfs(root, `${portDir}/gids/${n}`);
    // An unset entry (all zeros) is not a valid GID: the kernel answers EINVAL for its attributes
    // (ib_core gid_attr show → rdma_get_gid_attr). Most of a 255-entry table is unset; not opening
    // those two files per entry halves the reads on a large node.
    if (attrs && gid === ZERO_GID) return { index: Number(n), gid, type: UNSET_ATTR, ndev: UNSET_ATTR };
    return {
      index: Number(n),
      gid,
      type: attrs ? sysfs(root, `${typesDir}/${n}`) : gone,
      ndev: attrs ? sysfs(root, `${ndevsDir}/${n}`) : gone,
    };
  });
  return { gidCount: names.length, gids };
}

function readPort(root: Root, devDir: string, port: number, gids: boolean, warnings: ProbeWarning[] | undefined): RdmaPort {
  const dir = `${devDir}/ports/${port}`;
  return {
    port,
    state: sysfs(root, `${dir}/state`),
    physState: sysfs(root, `${dir}/phys_state`),
    linkLayer: sysfs(root, `${dir}/link_layer`),
    rate: sysfs(root, `${dir}/rate`),
    lid: sysfs(root, `${dir}/lid`),
    ...(gids ? readGids(root, dir, warnings) : { gidCount: 0, gids: [] }),
  };
}

/**
 * NCCL folds the last characters of the device realpath (§2.3). The three
 * variants a version can use are resolved here, because whether the folded
 * path exists and is PCI is a file-system fact the pure model cannot compute.
 */
export function foldVariants(real: string): { mergeVfs: string; functionOnly: string; lowDigit: string } {
  const set = (s: string, fromEnd: number, c: string) => (s.length >= fromEnd ? s.slice(0, s.length - fromEnd) + c + s.slice(s.length - fromEnd + 1) : s);
  const fn = set(real, 1, '0');
  return { mergeVfs: set(set(fn, 3, '0'), 4, '0'), functionOnly: fn, lowDigit: set(fn, 3, '0') };
}

function lastComponent(p: string | null): string | null {
  if (!p) return null;
  const parts = p.split('/').filter(Boolean);
  return parts[parts.length - 1] ?? null;
}

function readDeviceLink(root: Root, devDir: string): RdmaDeviceLink {
  const p = `${devDir}/device`;
  const symlink = root.isSymlink(p);
  const exists = root.exists(p);
  const kind: RdmaDeviceLink['kind'] = symlink ? 'symlink' : !exists ? 'missing' : root.isDir(p) ? 'directory' : 'other';
  const real = exists ? root.realpath(p) : null;
  const subsystem = real ? lastComponent(root.realpath(`${real}/subsystem`)) : null;
  const folded = real
    ? (Object.entries(foldVariants(real)) as [FoldedPath['variant'], string][]).map(([variant, path]) => ({
        variant,
        path,
        exists: root.exists(path),
        subsystem: lastComponent(root.realpath(`${path}/subsystem`)),
      }))
    : [];
  return { kind, link: symlink ? root.readlink(p) : null, realpath: real, subsystem, folded };
}

function readPci(root: Root, real: string): PciFunction {
  const a = (n: string) => sysfs(root, `${real}/${n}`);
  return {
    bdf: lastComponent(real) ?? real,
    class: a('class'),
    vendor: a('vendor'),
    device: a('device'),
    subsystemVendor: a('subsystem_vendor'),
    subsystemDevice: a('subsystem_device'),
    numaNode: a('numa_node'),
    currentLinkSpeed: a('current_link_speed'),
    currentLinkWidth: a('current_link_width'),
    maxLinkSpeed: a('max_link_speed'),
    maxLinkWidth: a('max_link_width'),
  };
}

/** uverbsN → ibdev, so a missing /dev/infiniband/uverbsN can be tied to its HCA. */
function uverbsMap(root: Root): Map<string, string> {
  const out = new Map<string, string>();
  for (const u of root.list('/sys/class/infiniband_verbs')) {
    const dev = root.readTrim(`/sys/class/infiniband_verbs/${u}/ibdev`);
    if (dev && u.length <= 64) out.set(dev, u);
  }
  return out;
}

function readNetdev(root: Root, name: string): NetdevFacts {
  const base = `/sys/class/net/${name}`;
  const present = root.exists(base);
  if (!present) {
    const gone = { error: 'ENOENT' };
    return { name, present, operstate: gone, carrier: gone, mtu: gone, devPort: gone, devId: gone, master: null, bondSlaves: null };
  }
  const master = lastComponent(root.readlink(`${base}/master`));
  const slaves = root.read(`${base}/bonding/slaves`);
  return {
    name,
    present,
    operstate: sysfs(root, `${base}/operstate`),
    carrier: sysfs(root, `${base}/carrier`),
    mtu: sysfs(root, `${base}/mtu`),
    devPort: sysfs(root, `${base}/dev_port`),
    devId: sysfs(root, `${base}/dev_id`),
    master: plausibleName(master, BOUNDS.ifname) ? master : null,
    bondSlaves: slaves.ok ? slaves.value.trim().split(/\s+/).filter((n) => plausibleName(n, BOUNDS.ifname)) : null,
  };
}

function readMemlock(root: Root): MemlockLimit {
  const r = root.read('/proc/self/limits');
  if (!r.ok) return { soft: null, hard: null, error: r.error };
  const m = /^Max locked memory\s+(\S{1,64})\s+(\S{1,64})(?:\s|$)/m.exec(r.value);
  if (!m) return { soft: null, hard: null, error: 'no "Max locked memory" line in /proc/self/limits' };
  return { soft: m[1]!, hard: m[2]!, error: null };
}

function detectContainer(root: Root): RdmaPart['container'] {
  const evidence: string[] = [];
  for (const f of ['/.dockerenv', '/run/.containerenv']) if (root.exists(f)) evidence.push(f);
  const cg = root.readTrim('/proc/1/cgroup');
  const m = cg ? /(docker|kubepods|containerd|libpod|lxc|crio)/.exec(cg) : null;
  if (m) evidence.push(`/proc/1/cgroup mentions ${m[1]}`);
  return { detected: evidence.length > 0, evidence };
}

/** Natural order (mlx5_2 before mlx5_10), the order libibverbs usually lists devices in. (Not localeCompare: ICU costs ~40 ms to load.) */
export function naturalCompare(a: string, b: string): number {
  const ta = a.match(/\d+|\D+/g) ?? [];
  const tb = b.match(/\d+|\D+/g) ?? [];
  for (let i = 0; i < Math.min(ta.length, tb.length); i++) {
    const x = ta[i]!;
    const y = tb[i]!;
    if (x === y) continue;
    const nx = /^\d/.test(x);
    const ny = /^\d/.test(y);
    if (nx && ny) return Number(x) - Number(y) || x.length - y.length;
    if (nx !== ny) return nx ? -1 : 1;
    const lx = x.toLowerCase();
    const ly = y.toLowerCase();
    if (lx !== ly) return lx < ly ? -1 : 1;
  }
  return ta.length - tb.length || (a < b ? 1 : a > b ? -1 : 0);
}

/**
 * The RDMA part. `gids: false` reads devices and ports but no GID table: what
 * `explain` needs to tell "NET/IB : Using …" from "No device found." cheaply.
 */
export function probeRdma(root: Root, o: { gids?: boolean; warnings?: ProbeWarning[] } = {}): RdmaPart {
  const gids = o.gids ?? true;
  const warnings = o.warnings;
  const classPresent = root.isDir(IB_CLASS);
  const uverbs = uverbsMap(root);
  const devices: RdmaDevice[] = [];
  const netdevNames = new Set<string>();
  // The kernel's bounds (src/model/snapshot/limits.ts): device names, devices and ports in all, port numbers.
  const named = root.list(IB_CLASS).filter((n) => plausibleName(n, BOUNDS.rdmaDevice));
  let portsLeft = BOUNDS.rdmaPortsTotal;
  for (const name of firstOf(named.sort(naturalCompare), BOUNDS.rdmaDevices, 'RDMA devices', 'rdma', warnings)) {
    const dir = `${IB_CLASS}/${name}`;
    const device = readDeviceLink(root, dir);
    const pci = device.realpath && device.subsystem === 'pci' ? readPci(root, device.realpath) : null;
    const pciNetdevs = firstOf(root.list(`${dir}/device/net`).filter((n) => plausibleName(n, BOUNDS.ifname)), BOUNDS.netdevsPerFunction, `netdevs of ${name}'s PCI function`, 'rdma', warnings);
    const numbers = root
      .list(`${dir}/ports`)
      .filter((n) => /^\d+$/.test(n) && Number(n) <= BOUNDS.portNumber)
      .sort(byNumber);
    const ports = firstOf(numbers, portsLeft, `ports (with those of the devices before ${name})`, 'rdma', warnings).map((p) => readPort(root, dir, Number(p), gids, warnings));
    portsLeft -= ports.length;
    for (const n of pciNetdevs) netdevNames.add(n);
    for (const p of ports) for (const g of p.gids) if (typeof g.ndev === 'string' && plausibleName(g.ndev, BOUNDS.ifname)) netdevNames.add(g.ndev);
    devices.push({
      name,
      classEntryIsSymlink: root.isSymlink(dir),
      nodeType: sysfs(root, `${dir}/node_type`),
      fwVer: sysfs(root, `${dir}/fw_ver`),
      nodeGuid: sysfs(root, `${dir}/node_guid`),
      sysImageGuid: sysfs(root, `${dir}/sys_image_guid`),
      hcaType: sysfs(root, `${dir}/hca_type`),
      boardId: sysfs(root, `${dir}/board_id`),
      device,
      pci,
      pciNetdevs,
      uverbs: uverbs.get(name) ?? null,
      ports,
    });
  }
  // Bonds: follow masters and members one level, so a LAG shows its members.
  // Each netdev is read once, and no more of them than a node has links (a queue walked by index: shift() is linear).
  const netdevs: Record<string, NetdevFacts> = {};
  const queue = [...netdevNames];
  let read = 0;
  for (let i = 0; i < queue.length && read < BOUNDS.links; i++) {
    const n = queue[i]!;
    if (netdevs[n]) continue;
    const f = readNetdev(root, n);
    netdevs[n] = f;
    read++;
    if (f.master && !netdevs[f.master]) queue.push(f.master);
    for (const s of f.bondSlaves ?? []) if (!netdevs[s]) queue.push(s);
  }
  const presence = (p: string): PathPresence => ({ path: p, present: root.exists(p) });
  return {
    classPresent,
    devices,
    netdevs,
    peerMem: PEER_MEM_PATHS.map(presence),
    modules: MODULES.map(presence),
    sysModuleKnown: root.isDir('/sys/module'),
    devInfiniband: { known: root.isDir('/dev'), present: root.isDir('/dev/infiniband'), entries: firstOf(root.list('/dev/infiniband'), 4 * BOUNDS.rdmaDevices, '/dev/infiniband entries', 'rdma', warnings) },
    memlock: readMemlock(root),
    container: detectContainer(root),
  };
}
