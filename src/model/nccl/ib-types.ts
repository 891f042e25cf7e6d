// The shapes of `ncclx ib` as data (docs/ib-json.md): every RDMA device and
// port, whether NCCL's IB transport uses it and why, the GID index it picks.
// Built by ib-report.ts, judged by ib-findings.ts, rendered by report/ib-text.ts.

import type { Finding } from '../result/types.js';
import type { RdmaDevice, RdmaPart, SysfsRead } from '../snapshot/rdma-types.js';
import type { GidOutcome, GidSelection } from './gid.js';
import type { IbSelection, PortTrace } from './ib.js';

export interface NetdevView {
  name: string;
  /** How the port was tied to it: gid_attrs/ndevs, device/net (dev_port), or a bond master. */
  via: string;
  /** Exists in this network namespace. */
  present: boolean;
  operstate: string | null;
  mtu: number | null;
  master: string | null;
  ipv4: string[];
  ipv6: string[];
}

export interface PortReport {
  port: number;
  state: string | null;
  physState: string | null;
  linkLayer: string | null;
  rate: string | null;
  rateGbps: number | null;
  lid: string | null;
  /** The files as read (text or { error }), for evidence. */
  sysfs: { state: SysfsRead; physState: SysfsRead; linkLayer: SysfsRead; rate: SysfsRead };
  netdevs: NetdevView[];
  /** The first netdev, its first IPv4 (with prefix) and MTU. */
  netdev: string | null;
  ipv4: string | null;
  mtu: number | null;
  /** Largest RoCE MTU the netdev MTU allows (RoCE only). */
  roceMtu: number | null;
  usedByNccl: boolean | null;
  reason: string;
  ncclIndex: number | null;
  netDevice: number | null;
  gidIndex: number | null;
  /** The chosen GID as sysfs prints it, its short form, and its IPv4 when IPv4-mapped. */
  gid: string | null;
  gidAddress: string | null;
  gidIPv4: string | null;
  gidType: string | null;
  gidNetdev: string | null;
  /** How the index was chosen; `einvalReads` lists entries whose types file NCCL read and got EINVAL (tolerated ≥ 2.26.2). */
  gidSelection: { mode: GidSelection['mode']; outcome: GidOutcome; einvalReads: number[] } | null;
  /** Table length, configured (non-zero) entries, and configured entries whose type cannot be read. */
  gidTable: { length: number; configured: number; unreadableTypes: number };
  trace: PortTrace[];
}

export interface DeviceReport {
  name: string;
  nodeType: string | null;
  fwVer: string | null;
  nodeGuid: string | null;
  hcaType: string | null;
  boardId: string | null;
  bond: { members: string[]; netdev: string | null } | null;
  device: { kind: RdmaDevice['device']['kind']; link: string | null; realpath: string | null; subsystem: string | null; pciPath: string | null; pciPathIsPci: boolean };
  pci: { bdf: string; vendor: string | null; device: string | null; class: string | null; numaNode: string | null; linkSpeed: string | null; linkWidth: string | null } | null;
  uverbs: string | null;
  ports: PortReport[];
}

export interface IbReport {
  ncclVersion: string;
  profile: string;
  versionSource: string;
  /** Set when the version is newer than the newest modelled release. */
  versionBeyondModel: import('./versions.js').VersionBeyond | null;
  host: string;
  inputs: Record<string, { value: string | null; source: string }>;
  transport: IbSelection['transport'] & { oob: { interface: string | null; address: string | null; stage: string | null } };
  ncclDevices: IbSelection['devices'];
  netDevices: IbSelection['netDevices'];
  merge: IbSelection['merge'];
  devices: DeviceReport[];
  environment: {
    peerMem: { path: string; present: boolean; checkedByThisVersion: boolean }[];
    devInfiniband: RdmaPart['devInfiniband'] | null;
    memlock: RdmaPart['memlock'] | null;
    container: RdmaPart['container'] | null;
  };
  findings: Finding[];
  warnings: string[];
}
