// The NodeSnapshot: everything ncclx knows about one node, as plain JSON.
// Probes fill it (src/probe), pure rules read it (src/model, src/checks).
// The zod schema that validates a snapshot file lives in ./schema.ts and is
// loaded only when a file is read, so the live path stays cheap.

import type { KernelPart } from './kernel-types.js';
import type { PciPart } from './pci.js';
import type { RdmaPart } from './rdma-types.js';

export const SNAPSHOT_SCHEMA_VERSION = 1;

/** Link flags as getifaddrs() reports them in ifa_flags. */
export type LinkFlag =
  | 'UP'
  | 'BROADCAST'
  | 'DEBUG'
  | 'LOOPBACK'
  | 'POINTOPOINT'
  | 'NOTRAILERS'
  | 'RUNNING'
  | 'NOARP'
  | 'PROMISC'
  | 'ALLMULTI'
  | 'MASTER'
  | 'SLAVE'
  | 'MULTICAST'
  | 'PORTSEL'
  | 'AUTOMEDIA'
  | 'DYNAMIC'
  | 'LOWER_UP'
  | 'DORMANT'
  | 'ECHO';

export interface LinkInfo {
  ifindex: number;
  name: string;
  /** rtnl link kind (veth, bridge, bond, vlan, macvlan, vxlan, …) or null for a plain device. */
  kind: string | null;
  /** ARPHRD type as iproute2 names it: ether, loopback, infiniband, none, … */
  linkType: string | null;
  master: string | null;
  mtu: number | null;
  mac: string | null;
  /** Kernel operstate, upper case: UP, DOWN, UNKNOWN, LOWERLAYERDOWN, DORMANT, NOTPRESENT, TESTING. */
  operstate: string;
  /** getifaddrs() flags, RUNNING included (it is not in /sys/class/net/X/flags). */
  flags: LinkFlag[];
  /** /sys/class/net/<if>/speed in Mb/s; null when unreadable or not positive (absent in older snapshots). */
  speedMbps?: number | null;
  /** realpath of /sys/class/net/<if>/device (the NIC's PCI function), null without one (absent in older snapshots). */
  device?: string | null;
}

export type Family = 'AF_INET' | 'AF_INET6';

export interface AddressInfo {
  /** The name getifaddrs() reports: the IPv4 label (eth0:1) when there is one, else the link name. */
  name: string;
  /** The link that carries the address. */
  link: string;
  ifindex: number;
  family: Family;
  /** Numeric address, no prefix length, no %scope. */
  address: string;
  prefixlen: number;
  /** host, link, global, site, or a number. */
  scope: string;
  /** sin6_scope_id: the ifindex for IPv6 link-local addresses, else 0. */
  scopeId: number;
  /** Address flags as iproute2 reports them (secondary, tentative, dadfailed, deprecated, …). */
  flags: string[];
}

/** Where links and addresses came from; `proc`: /proc/net and /sys without iproute2 (src/probe/proc-net.ts). */
export type NetworkSource = 'iproute2' | 'recorded-iproute2' | 'sysfs' | 'os.networkInterfaces' | 'proc';

export interface NetworkPart {
  source: NetworkSource;
  links: LinkInfo[];
  /** Every address, in getifaddrs() order: all IPv4 of all links, then all IPv6. */
  addresses: AddressInfo[];
}

export interface HostResolution {
  /** getaddrinfo(AF_UNSPEC, SOCK_STREAM) answers, in resolver order. */
  addresses: { address: string; family: Family }[];
  error: string | null;
  /** Set when the model assumed the answer instead of reading it (`localhost` not looked up): what it assumed. */
  assumed?: string;
}

export type ConfRole = 'NCCL_CONF_FILE' | 'home-passwd' | 'home-env' | 'etc';

export interface ConfFileRecord {
  /** Path as NCCL would open it (not prefixed by --root). */
  path: string;
  role: ConfRole;
  /** File content, or null when it could not be read. */
  content: string | null;
  /** Why it could not be read (ENOENT, EACCES, …), or null. */
  error: string | null;
}

export interface EnvPart {
  process: Record<string, string>;
  confFiles: ConfFileRecord[];
  home: { passwd: string | null; env: string | null };
}

/** Where a candidate's version was read: NCCL's own "NCCL version …" string in the binary, else its file name, the wheel's dist-info, conda's metadata or dpkg. */
export type VersionFrom = 'binary' | 'file name' | 'dist-info' | 'conda-meta' | 'dpkg';

/**
 * Who loads a library: `process` (mapped by the process, --pid), `preload`
 * (named in LD_PRELOAD: every program started with that environment binds
 * NCCL's symbols to it first, PyTorch included), `pytorch` (the NCCL torch's
 * libtorch_cuda.so loads, or carries), `loader` (what ld.so finds for
 * libnccl.so.2: a program linked with -lnccl, e.g. nccl-tests).
 */
export type LoadedBy = 'process' | 'preload' | 'pytorch' | 'loader';

export interface LibraryCandidate {
  path: string;
  version: string | null;
  /** How the path was found: ldconfig, /usr/lib…, cuda, conda, site-packages. */
  via: string;
  /** Where `version` was read (absent in older snapshots). */
  versionFrom?: VersionFrom | null;
  /** NCCL's version string as the binary states it, e.g. "NCCL version 2.28.9+cuda12.9". */
  versionText?: string | null;
  loadedBy?: LoadedBy[];
  /** How the loading was decided, one line per LoadedBy entry. */
  loadNotes?: string[];
  /** NCCL linked into this library (an older libtorch_cuda.so), not a libnccl.so. */
  static?: boolean;
}

/** A Python environment examined for the job's NCCL (src/probe/python.ts). */
export interface PythonEnvInfo {
  /** --python, python3 on PATH, VIRTUAL_ENV, CONDA_PREFIX. */
  via: string;
  interpreter: string;
  /** The interpreter after symlinks. */
  real: string | null;
  /** sys.prefix: the virtual environment, or the installation. */
  prefix: string;
  venv: boolean;
  /** X.Y */
  version: string | null;
  /** site-packages directories in sys.path order. */
  sitePackages: string[];
  /** torch's package directory, when torch is installed here. */
  torch?: string | null;
  note: string | null;
}

export interface NcclLibraryPart {
  /** Every libnccl found, first = the one the dynamic loader most likely uses. */
  candidates: LibraryCandidate[];
  searched: string[];
  /** The Python environments examined (absent in older snapshots). */
  pythons?: PythonEnvInfo[];
  /** What the search could not settle (an unreadable libtorch_cuda.so, a pyenv shim …). */
  notes?: string[];
}

export interface HostPart {
  hostname: string;
  os: string | null;
  kernel: string | null;
  arch: string | null;
  /** Where the facts came from: systeminformation, or node:os when it was unavailable. */
  source: string;
}

export interface ProbeWarning {
  source: string;
  message: string;
}

/** A net plugin library as ncclx read it (src/probe/net-plugin.ts). */
export interface NetPluginLib {
  path: string;
  /** What the library says it is: aws-ofi-nccl, gIB, GPUDirectTCPX, FasTrak (TCPXO), nccl-rdma-sharp-plugins (HPC-X); null when it does not say. */
  product: string | null;
  /** Its version, where the library states one. */
  version: string | null;
  /** The names its ncclNet_t may carry: what NCCL_NET must equal (case-insensitive). */
  netNames: string[];
  /** The ncclNetPlugin_vN symbols it exports. */
  apis: number[];
  /** Why it could not be read. */
  error: string | null;
}

export interface NetPluginLookup {
  /** The name NCCL passes to dlopen (libnccl-net.so, libnccl-net-X.so, X). */
  name: string;
  /** Where the dynamic loader finds it (for the NCCL library that asks), or null. */
  path: string | null;
  /** How: LD_LIBRARY_PATH, DT_RUNPATH, ld.so.cache, system directory, path. */
  step: string | null;
}

/** The net plugins NCCL may load (absent in older snapshots). */
export interface NetPluginPart {
  /** Every name any release may dlopen for this NCCL_NET_PLUGIN (environment and conf files), with where each is found. */
  lookups: NetPluginLookup[];
  /** The libraries found, read. */
  libraries: NetPluginLib[];
  /** Plugins installed in well-known directories the loader does not search. */
  elsewhere: NetPluginLib[];
  /** The NCCL library whose RPATH/RUNPATH the search used. */
  asker: string | null;
  /** --pid: the plugin library the process has mapped. */
  mapped: string | null;
}

/** Who read the node and with what (absent in older snapshots): what an `unknown` result's "to know" may ask for. */
export interface ReaderPart {
  /** The reader's uid (0: root). */
  uid: number | null;
  /** Tools on PATH when the node was read live: ip, tc, nft, iptables-save, ip6tables-save, nsenter. */
  tools: Record<string, boolean>;
}

/** Set by --pid: the process whose view this is (src/probe/process.ts). */
export interface ProcessView {
  pid: number;
  /** Its command line, shortened. */
  command: string;
  /** Its root (/proc/PID/root) is not ncclx's: another mount namespace, or a chroot. */
  ownRoot: boolean;
  /** Its network namespace (net:[inode]) and whether it is ncclx's own. */
  netns: string | null;
  sameNetns: boolean;
  /** How its links and addresses were read: `nsenter … ip`, its own namespace, or /proc/PID/net. */
  networkFrom: string;
}

export interface NodeSnapshot {
  schemaVersion: typeof SNAPSHOT_SCHEMA_VERSION;
  tool: { name: 'ncclx'; version: string };
  capturedAt: string;
  /** The root the files were read under ("/" on a live node). */
  root: string;
  host: HostPart;
  network: NetworkPart;
  env: EnvPart;
  /** Host names (NCCL_COMM_ID, MASTER_ADDR) resolved at capture time. */
  resolutions: Record<string, HostResolution>;
  ncclLibrary: NcclLibraryPart;
  warnings: ProbeWarning[];
  /** /sys/class/infiniband and what the IB transport depends on (src/probe/rdma.ts); absent in older snapshots. */
  rdma?: RdmaPart;
  /** ARP/rp_filter sysctls, policy routing, routes, qdiscs and DSCP marking (src/probe/kernel.ts); absent in older snapshots. */
  kernel?: KernelPart;
  /** Network and GPU PCI functions (src/probe/pci.ts), for topology checks; absent in older snapshots. */
  pci?: PciPart;
  reader?: ReaderPart;
  netPlugins?: NetPluginPart;
  /** --pid: the process this snapshot is the view of. */
  process?: ProcessView;
  /** Set when the snapshot was read from a file (--snapshot); never written. */
  loadedFrom?: string;
}
