// What `ncclx compare` knows about each node (NodeFacts: small, plain data a
// worker thread sends back instead of the megabyte snapshot) and what it
// reports about all of them (CompareReport, docs/compare-json.md).

import type { GdrStatus } from '../nccl/gdr.js';
import type { CheckResult } from '../result/types.js';
import type { IpRouteJson, IpRuleJson } from '../snapshot/kernel-types.js';

export type { GdrStatus };

/** What kind of GID a rail ends on, for people and for comparing nodes. */
export type GidKind = 'IPv4' | 'IPv6' | 'link-local' | 'unset' | 'unreadable';

export interface GidFacts {
  /** auto, explicit, fixed-default, ib-flid, ib-lid (src/model/nccl/gid.ts). */
  mode: string;
  outcome: 'index' | 'failure' | 'indeterminate' | 'not-used';
  index: number | null;
  /** Every index NCCL could end with, when the outcome is indeterminate. */
  candidates: number[];
  /** RoCE v1 / RoCE v2 / IB, or why the type is unknown. */
  type: string | null;
  kind: GidKind | null;
  /** Short text of the GID (::ffff:10.0.0.12). */
  address: string | null;
  ipv4: string | null;
  /** Why there is no single index (failure or indeterminate). */
  why: string | null;
}

/** One RDMA port of one node. */
export interface PortFacts {
  /** `dev:port`, the form NCCL_IB_HCA takes. */
  hca: string;
  dev: string;
  port: number;
  netdev: string | null;
  /** The netdev's first IPv4 address with its prefix, e.g. 10.0.3.12/24. */
  ipv4: string | null;
  /** Its network, e.g. 10.0.3.0/24. */
  subnet: string | null;
  mtu: number | null;
  rate: string | null;
  rateGbps: number | null;
  /** InfiniBand, Ethernet (RoCE), or what sysfs said (Unknown for EFA), null when unreadable. */
  linkLayer: string | null;
  /** ACTIVE, DOWN, INIT, …; null when unreadable. */
  state: string | null;
  active: boolean | null;
  /** NCCL's device index [i] with the node's current settings, null when NCCL does not use the port. */
  ncclIndex: number | null;
  usedByNccl: boolean | null;
  /** NCCL's decision, in words. */
  reason: string;
  gid: GidFacts | null;
  /** What rails compare: `RoCE v2 IPv4`, `RoCE v1 link-local`, `IB`, or `(failure)` / `(indeterminate)`. */
  gidLabel: string | null;
  /** The RDMA candidate rule (CAND-001) for the port's netdev; null when the port has no netdev. */
  candidate: { kept: boolean; reason: string } | null;
  /** The device is a bond (RoCE LAG). */
  bond: boolean;
}


export interface TargetFacts {
  variable: 'NCCL_COMM_ID' | 'MASTER_ADDR';
  value: string;
  /** environment, a conf file, or the compare flag. */
  origin: string;
  host: string;
  /** The IPv4/IPv6 address, or null when it could not be known here. */
  address: string | null;
  unresolved: string | null;
  /** How the node's kernel routes to it: recorded `ip route get`, or replayed from `ip route`/`ip rule`. */
  route: { how: 'ip route get' | 'replayed'; dev: string | null; gateway: string | null; note: string | null } | null;
  /** The node's own value when a compare flag replaced it (MASTER_ADDR=172.16.0.2 under --master-addr gpu00001). */
  replaced?: string;
}

export interface BootstrapFacts {
  /** The name NCCL prints (an alias label such as eth0:1 when it has one). */
  iface: string | null;
  link: string | null;
  address: string | null;
  prefixlen: number | null;
  subnet: string | null;
  stage: string | null;
  /** NCCL fails to find one (its WARN), or ncclx cannot predict it. */
  error: string | null;
  indeterminate: string | null;
}

export interface NodeFacts {
  file: string;
  host: string;
  nccl: {
    /** 2.28.3, ncclx-2.30. */
    version: string;
    source: string;
    /** Nothing told which version: the newest known release was assumed. */
    assumed: boolean;
    profile: string;
    /** ≥ 2.30.7: NCCL_IB_SUBNET_AWARE_ROUTING exists. */
    subnetAwareRouting: boolean;
  };
  /** Effective NCCL_* variables (environment over conf files) and where each came from. */
  settings: Record<string, { value: string; origin: string }>;
  bootstrap: BootstrapFacts;
  targets: TargetFacts[];
  transport: { status: string; network: string; why: string };
  /** NCCL NET devices (after virtual-NIC fusion): the count NCCL compares across ranks. */
  netDevices: number;
  /** Every RDMA port, in RDMA device order. */
  ports: PortFacts[];
  /** `verdict`: the doctor's GPUDirect RDMA verdict in a few words (topo/gdr-verdict.ts). */
  gdr: { status: GdrStatus; summary: string; verdict: string };
  /** The node's own non-loopback addresses (who owns the NCCL_COMM_ID / MASTER_ADDR host). */
  localAddresses: string[];
  /** IPv4 policy rules and routes (no local table), to replay the route to another node's address; null when not captured. */
  routing: { rules: IpRuleJson[]; routes: IpRouteJson[] } | null;
  /** Problems the probe recorded on the node (snapshot.warnings). */
  probeWarnings: number;
  /** GPU → first-channel NIC and PCIe links below their maximum (ncclx topo); null without a PCI topology. */
  topo: import('../topo/system.js').GpuNicMap | null;
}

/** A value and the nodes that have it. The most common value lists no nodes: it is every node not listed elsewhere. */
export interface ValueGroup<T = string | number | null> {
  value: T;
  count: number;
  nodes: string[] | null;
}

/** A compare result: a doctor result plus the nodes it is about. */
export interface CompareFinding extends CheckResult {
  nodes: string[];
}

export interface SkippedInput {
  file: string;
  problem: string;
}
