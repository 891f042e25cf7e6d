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

function readGids(root: Root, portDir: string): { gidCount: number; gids: GidEntry[] } {
  const names = root.list(`${portDir}/gids`).filter((n) => /^\d+$/.test(n)).sort(byNumber);
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

function readPort(root: Root, devDir: string, port: number, gids: boolean): RdmaPort {
  const dir = `${devDir}/ports/${port}`;
  return {
    port,
    state: sysfs(root, `${dir}/state`),
    physState: sysfs(root, `${dir}/phys_state`),
    linkLayer: sysfs(root, `${dir}/link_layer`),
    rate: sysfs(root, `${dir}/rate`),
    lid: sysfs(root, `${dir}/lid`),
    ...(gids ? readGids(root, dir) : { gidCount: 0, gids: [] }),
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
    if (dev) out.set(dev, u);
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
  const master = root.readlink(`${base}/master`);
  const slaves = root.read(`${base}/bonding/slaves`);
  return {
    name,
    present,
    operstate: sysfs(root, `${base}/operstate`),
    carrier: sysfs(root, `${base}/carrier`),
    mtu: sysfs(root, `${base}/mtu`),
    devPort: sysfs(root, `${base}/dev_port`),
    devId: sysfs(root, `${base}/dev_id`),
    master: master ? lastComponent(master) : null,
    bondSlaves: slaves.ok ? slaves.value.trim().split(/\s+/).filter(Boolean) : null,
  };
}

function readMemlock(root: Root): MemlockLimit {
  const r = root.read('/proc/self/limits');
  if (!r.ok) return { soft: null, hard: null, error: r.error };
  const m = /^Max locked memory\s+(\S+)\s+(\S+)/m.exec(r.value);
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
export function probeRdma(root: Root, o: { gids?: boolean } = {}): RdmaPart {
  const gids = o.gids ?? true;
  const classPresent = root.isDir(IB_CLASS);
  const uverbs = uverbsMap(root);
  const devices: RdmaDevice[] = [];
  const netdevNames = new Set<string>();
  for (const name of root.list(IB_CLASS).sort(naturalCompare)) {
    const dir = `${IB_CLASS}/${name}`;
    const device = readDeviceLink(root, dir);
    const pci = device.realpath && device.subsystem === 'pci' ? readPci(root, device.realpath) : null;
    const pciNetdevs = root.list(`${dir}/device/net`);
    const ports = root
      .list(`${dir}/ports`)
      .filter((n) => /^\d+$/.test(n))
      .sort(byNumber)
      .map((p) => readPort(root, dir, Number(p), gids));
    for (const n of pciNetdevs) netdevNames.add(n);
    for (const p of ports) for (const g of p.gids) if (typeof g.ndev === 'string' && g.ndev) netdevNames.add(g.ndev);
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
  const netdevs: Record<string, NetdevFacts> = {};
  const queue = [...netdevNames];
  while (queue.length) {
    const n = queue.shift()!;
    if (netdevs[n]) continue;
    const f = readNetdev(root, n);
    netdevs[n] = f;
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
    devInfiniband: { known: root.isDir('/dev'), present: root.isDir('/dev/infiniband'), entries: root.list('/dev/infiniband') },
    memlock: readMemlock(root),
    container: detectContainer(root),
  };
}
