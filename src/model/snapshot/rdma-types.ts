// The RDMA part of a NodeSnapshot: /sys/class/infiniband and what NCCL's IB
// transport depends on around it, read from files only (no verbs library), so
// it is the same on a live node, a fixture tree and a copied snapshot.
//
// Every sysfs value is a SysfsRead: the text (trailing newline removed), or
// `{ error }` with the errno name when the read failed. ENOENT means the file
// is absent — "unknown", never "down". EINVAL is what sysfs answers for GID
// entries that are unset or not visible from a container's namespace.

/** A file's text, or why it could not be read (ENOENT, EINVAL, EACCES, …). */
export type SysfsRead = string | { error: string };

export interface PciFunction {
  /** Last component of the realpath, e.g. 0000:17:00.1 (lower case, as sysfs names it). */
  bdf: string;
  class: SysfsRead;
  vendor: SysfsRead;
  device: SysfsRead;
  subsystemVendor: SysfsRead;
  subsystemDevice: SysfsRead;
  numaNode: SysfsRead;
  currentLinkSpeed: SysfsRead;
  currentLinkWidth: SysfsRead;
  maxLinkSpeed: SysfsRead;
  maxLinkWidth: SysfsRead;
}

export interface RdmaDeviceLink {
  /** What `/sys/class/infiniband/<dev>/device` is: a symlink (normal), a plain directory (some sandboxes), missing, or something else. */
  kind: 'symlink' | 'directory' | 'missing' | 'other';
  /** The symlink text, when it is one. */
  link: string | null;
  /** realpath() of the entry (node path), or null when it cannot be resolved. */
  realpath: string | null;
  /** Last component of realpath(<device>/subsystem): `pci` for a PCI function; null when unresolvable. */
  subsystem: string | null;
  /** The realpath after NCCL's folding (§2.3), per folding variant, and what its `subsystem` resolves to. */
  folded: FoldedPath[];
}

export interface FoldedPath {
  /** mergeVfs: function and both device digits (NCCL_IB_MERGE_VFS=1, ≥ 2.18.1); functionOnly: =0; lowDigit: ≤ 2.17. */
  variant: 'mergeVfs' | 'functionOnly' | 'lowDigit';
  path: string;
  exists: boolean;
  subsystem: string | null;
}

export interface GidEntry {
  index: number;
  /** `gids/<i>`: 8 groups of 4 hex digits; unset entries read as all zeros. */
  gid: SysfsRead;
  /** `gid_attrs/types/<i>`: `IB/RoCE v1`, `RoCE v2`; EINVAL for unset or invisible entries. */
  type: SysfsRead;
  /** `gid_attrs/ndevs/<i>`: the netdev the entry was derived from; EINVAL when none. */
  ndev: SysfsRead;
}

export interface RdmaPort {
  port: number;
  /** e.g. `4: ACTIVE`, `1: DOWN`. */
  state: SysfsRead;
  /** e.g. `5: LinkUp`, `3: Disabled`. */
  physState: SysfsRead;
  /** `InfiniBand`, `Ethernet`, or `Unknown` (EFA, iWARP on some drivers). */
  linkLayer: SysfsRead;
  /** e.g. `400 Gb/sec (4X NDR)`, `10 Gb/sec (4X)`. */
  rate: SysfsRead;
  /** Hex, e.g. `0x1a`; 0x0 on RoCE. */
  lid: SysfsRead;
  /** Number of entries listed under `gids/` (the kernel lists the whole table). */
  gidCount: number;
  /** Every entry listed under `gids/`, in index order. */
  gids: GidEntry[];
}

export interface RdmaDevice {
  /** The verbs name, e.g. mlx5_0, mlx5_bond_0, rocep1s0f0, efa_0. */
  name: string;
  /** Whether /sys/class/infiniband/<dev> itself is a symlink into /sys/devices (it is on a normal kernel). */
  classEntryIsSymlink: boolean;
  nodeType: SysfsRead;
  fwVer: SysfsRead;
  nodeGuid: SysfsRead;
  sysImageGuid: SysfsRead;
  hcaType: SysfsRead;
  boardId: SysfsRead;
  device: RdmaDeviceLink;
  /** The PCI function behind `device`, when it resolves to one. */
  pci: PciFunction | null;
  /** Names under `device/net/` (the netdevs of that PCI function). */
  pciNetdevs: string[];
  /** The uverbs char device for this HCA (from /sys/class/infiniband_verbs/uverbs<N>/ibdev), e.g. uverbs0. */
  uverbs: string | null;
  ports: RdmaPort[];
}

export interface NetdevFacts {
  name: string;
  /** Whether /sys/class/net/<name> exists in this view (a netdev of another namespace does not). */
  present: boolean;
  operstate: SysfsRead;
  /** /sys/class/net/<name>/carrier, what ibdev2netdev reads for Up/Down (absent in snapshots before it was recorded). */
  carrier?: SysfsRead;
  mtu: SysfsRead;
  /** dev_port: which port of a multi-port device (0-based). */
  devPort: SysfsRead;
  /** dev_id (hex): older drivers number ports here. */
  devId: SysfsRead;
  /** The master (bond, bridge) this netdev is enslaved to, from the `master` link. */
  master: string | null;
  /** Member netdevs when this is a bond (bonding/slaves). */
  bondSlaves: string[] | null;
}

export interface PathPresence {
  path: string;
  present: boolean;
}

export interface MemlockLimit {
  /** `/proc/self/limits` "Max locked memory": bytes, or "unlimited". */
  soft: string | null;
  hard: string | null;
  /** Why it is unknown, when it is. */
  error: string | null;
}

export interface RdmaPart {
  /** Whether /sys/class/infiniband exists at all. */
  classPresent: boolean;
  devices: RdmaDevice[];
  /** Facts about every netdev the devices point at (device/net, gid ndevs, bond members). */
  netdevs: Record<string, NetdevFacts>;
  /** GPUDirect RDMA peer-memory files (which of them a version checks is in the profile). */
  peerMem: PathPresence[];
  /** /sys/module/<name> for nvidia_peermem, nv_peer_mem, ib_uverbs, mlx5_ib. */
  modules: PathPresence[];
  /** Whether /sys/module exists under this root at all (a fixture may not have captured it). */
  sysModuleKnown: boolean;
  /** /dev/infiniband and its entries (uverbsN, rdma_cm); `known` is false when the root has no /dev at all (not captured). */
  devInfiniband: { known: boolean; present: boolean; entries: string[] };
  memlock: MemlockLimit;
  /** Files that say "this is a container" (/.dockerenv, /run/.containerenv, a container cgroup). */
  container: { detected: boolean; evidence: string[] };
}
