// The NodeSnapshot: everything ncclx knows about one node, as plain JSON.
// Probes fill it (src/probe), pure rules read it (src/nccl, src/checks).
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

export type NetworkSource = 'iproute2' | 'recorded-iproute2' | 'sysfs' | 'os.networkInterfaces';

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

export interface LibraryCandidate {
  path: string;
  version: string | null;
  /** How the path was found: ldconfig, /usr/lib…, cuda, conda, site-packages. */
  via: string;
}

export interface NcclLibraryPart {
  /** Every libnccl found, first = the one the dynamic loader most likely uses. */
  candidates: LibraryCandidate[];
  searched: string[];
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
}
