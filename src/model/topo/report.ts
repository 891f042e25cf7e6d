// `ncclx topo` as data: the GPU ↔ NIC matrix of NCCL path types, which NIC
// each GPU's channels use, GPUDirect RDMA per pair and why, and the findings
// (TOPO-010…014). Built on system.ts (NCCL's graph) and the IB model (which
// ports NCCL keeps under NCCL_IB_HCA). Pure.

import { append } from '../list.js';
import { advise } from '../result/build.js';
import type { Finding } from '../result/types.js';
import { effectiveEnv, withFlags } from '../nccl/conf.js';
import { atoi, parseNcclInt, strtoll0 } from '../nccl/cint.js';
import { gdrLevelNames, gdrReadiness } from '../nccl/gdr.js';
import { nonIbNetDevices } from './net-devices.js';
import { distanceFindings, gpuGdrOf, gpuRanges } from './gdr-verdict.js';
import { ibModel } from '../nccl/ib-report.js';
import { chooseVersion } from '../nccl/version-choice.js';
import { profileFor, versionString, type Profile, type VersionBeyond } from '../nccl/versions.js';
import type { NodeSnapshot } from '../snapshot/types.js';
import { readsMemo, snapshotMemo } from '../snapshot/memo.js';
import type { IbSelection, NcclIbDevice } from '../nccl/ib.js';
import { buildSystem, pathsTo, effectivePaths, fuseNets, gpuNicMap, type GpuNicMap, type NetFusion, linkDegraded, localNetFor, localNets, p2pNetFor, parentChain, PATH, PATH_NAMES, type LocalNetRule, type MirrorRule, type P2pTerms, type Path, type PathName, type PxnRule, type TopoRules, type TopoSystem } from './system.js';
import { topoXml, type NodeFacts, type TopoXml } from './xml.js';
import { gpuFacts } from './gpu-facts.js';
import { parseXml, topoFromXml, type TopoFromXml, type XmlNode } from './xml-read.js';
import { checkXmlVersion, runEngine, type EngineGraph } from './engine-run.js';
import { loadCrash, NcclInitError } from './engine.js';
import { topoProfileFor } from '../nccl/versions.js';
import type { TopoFunction, TopoPart } from '../snapshot/topo-types.js';

export interface TopoOverrides {
  /** A topology XML to model as NCCL_TOPO_FILE (--topo-file): its name and text. */
  topoFile?: { path: string; text: string };
  ncclVersion?: string;
  /** NCCL_IB_HCA to model. */
  hca?: string;
  /** NCCL_NET_GDR_LEVEL to model. */
  gdrLevel?: string;
  /** Model NCCL_PXN_DISABLE=1. */
  pxnDisable?: boolean;
  /**
   * false: leave NCCL's graph search out (graphs null, GPU ↔ GPU paths from
   * the PCI model). The doctor's checks read no graph, and verifying advice
   * builds the report under hundreds of environments per node.
   */
  graphs?: false;
}

export interface LinkState {
  maxSpeed: string | null;
  maxWidth: number | null;
  currentSpeed: string | null;
  currentWidth: number | null;
  /** Running below what the device and its slot support. */
  degraded: boolean;
}

export interface TopoGpu {
  /** CUDA index in PCI order (CUDA_DEVICE_ORDER=PCI_BUS_ID, the usual order on uniform nodes). */
  index: number;
  bdf: string;
  numaNode: number | null;
  /** NCCL's parent chain up to the CPU, e.g. ['0000:18:00.0', 'CPU 0']. */
  parents: string[];
  link: LinkState | null;
  /** `nvidia-smi nvlink -s`: the active links, their summed speed, the inactive ones; null without that output. */
  nvlinks: NvlinkState | null;
}

export interface NvlinkState {
  active: number;
  gbps: number;
  inactive: number[];
}

export interface TopoNic {
  /** NCCL's IB device index (`[i]` in NET/IB : Using). */
  index: number;
  device: string;
  port: number;
  bdf: string | null;
  numaNode: number | null;
  parents: string[];
  link: LinkState | null;
  rateGbps: number | null;
  /** A virtual NIC (NIC fusion, ≥ 2.24.3): the physical devices fused into it; empty for a physical NIC. */
  members: { index: number; device: string; port: number }[];
}

export interface GdrDecision {
  enabled: boolean | null;
  /** The path type compared, the level it is compared with. */
  distance: PathName;
  level: PathName;
  levelSource: string;
  why: string;
  /** The line NCCL prints (and at which level) for this decision, in this version's wording and numbering. */
  log: string;
}

export interface TopoPair {
  gpu: number;
  /** PXN: the NVLink peer GPU that relays to the NIC, else null. */
  relay: number | null;
  /** The NIC index of each channel's NET (channel 0 first), as ncclTopoGetLocalNet picks it. */
  nic: number | null;
  channelNics: number[];
  path: PathName | null;
  bwGBs: number | null;
  /** NICs tied for best (bandwidth, then path type). */
  localNics: number[];
  gdr: GdrDecision | null;
}

/** One graph of NCCL's search (search.cc ncclTopoCompute), as NCCL_GRAPH_DUMP_FILE shows it. */
export interface TopoGraphReport {
  name: 'ring' | 'tree' | 'nvls' | 'collnetDirect' | 'collnetChain';
  id: number;
  /** NCCL's pattern: RING, BALANCED_TREE, SPLIT_TREE, TREE, NVLS, COLLNET_DIRECT. */
  pattern: string;
  nChannels: number;
  bwIntra: number;
  bwInter: number;
  typeIntra: string;
  typeInter: string;
  crossNic: number;
  /** Each channel: its GPUs by index (= rank) in order, and the NET devices it enters and leaves by (null within one node). */
  channels: { gpus: number[]; nics: [number, number] | null }[];
}

/** The collective channels NCCL runs after the search (channels.ts finalChannels): the doubling, CollNet, sm ≥ 90, NCCL_MIN/MAX_NCHANNELS, NCCL_MIN/MAX_CTAS. */
export interface TopoChannelsReport {
  /** The channels the ring and the tree both found. */
  searched: number;
  /** The collective channels NCCL runs (comm->nChannels). */
  nChannels: number;
  /** CollNet stays on (its chain graph found, enough nodes). */
  collnet: boolean;
  /** Each step that set the count, in NCCL's order. */
  steps: string[];
  /** Each channel: the ring graph channel whose GPU order it runs, the GPUs of one node in ring order, and the NETs it enters and leaves by (ncclTopoGetNetDev: the ring graph's channel of the same index modulo its channels; null within one node). */
  list: { ring: number; gpus: number[]; nics: [number, number] | null }[];
}

/** NCCL's graph search on this topology, for a job of `nodes` nodes laid out like this one. */
export interface TopoJobGraphs {
  nodes: number;
  /** The graphs NCCL computes (NVLS with NCCL_NVLS_ENABLE, enough GPUs, NVSwitch and sm ≥ 90; CollNet with NCCL_COLLNET_ENABLE, a CollNet plugin assumed). */
  graphs: TopoGraphReport[];
  /** Why an optional graph (CollNet, NVLS) is or is not computed. */
  graphNotes: string[];
  channels: TopoChannelsReport | null;
}

export interface TopoGraphs {
  /** What the search ran on (the topology file). */
  source: string;
  /** The NET devices the search numbers channels with: NCCL's device index and name. */
  nets: { dev: number; name: string }[];
  jobs: TopoJobGraphs[];
}

export interface TopoReport {
  ncclVersion: string;
  versionSource: string;
  versionBeyondModel: VersionBeyond | null;
  host: string;
  /** null when the snapshot has no topology (older snapshot, no /sys). */
  unavailable: string | null;
  gpus: TopoGpu[];
  nics: TopoNic[];
  /** matrix[g][n]: NCCL's path type from GPU g to NIC n, and its bandwidth in GB/s. */
  matrix: { path: PathName; bwGBs: number }[][];
  pairs: TopoPair[];
  /**
   * p2p[g][d]: the NIC (an index into nics) GPU g's first point-to-point
   * channel uses to reach a peer whose device index is d on another node laid
   * out like this one, and the GPU that proxies it (g, or a PXN relay).
   */
  p2p: { nic: number | null; proxy: number }[][];
  /** gpuPaths[g][h]: NCCL's path type and bandwidth from GPU g to GPU h. */
  gpuPaths: { path: PathName; bwGBs: number }[][];
  /** NCCL's graph search (rings, trees, CollNet, NVLS) with each channel's NICs, and the channels NCCL runs; null with the reason in `graphsUnavailable`. */
  graphs: TopoGraphs | null;
  graphsUnavailable: string | null;
  findings: Finding[];
  notes: string[];
}

/** NVIDIA GPUs attached to a Grace CPU over NVLink-C2C, by PCI device id (GH200, GB200, GB10): how ncclx tells C2C without NVML. */
const C2C_GPUS = new Set(['0x2342', '0x2348', '0x2941', '0x2e12']);

/** Distance numbers NCCL prints, by version (docs/nccl/gdr.md). */
function distanceNumber(p: PathName, profile: Profile): number {
  return topoProfileFor(profile.version).logPathOrder.indexOf(p);
}

/**
 * ncclGetLevel (paths.cc): a case-sensitive path name this version knows, or
 * an integer of the old numbering (first character a digit, strtol base 0,
 * 0 LOC 1 PIX 2 PXB 3 PHB 4+ SYS); anything else is ignored (null).
 */
export function ncclLevel(raw: string | undefined, profile: Profile): { level: PathName; legacy: boolean } | null {
  if (raw === undefined) return null;
  if (gdrLevelNames(profile).includes(raw)) return { level: raw as PathName, legacy: false };
  if (!/^\d/.test(raw)) return null;
  const old = strtoll0(raw).value;
  return { level: (['LOC', 'PIX', 'PXB', 'PHB', 'SYS'] as const)[old > 4n ? 4 : Number(old)]!, legacy: true };
}

/**
 * NCCL_NET_GDR_LEVEL as ncclGetLevel reads it; unset or ignored, the default:
 * PXB, and from 2.29.2 P2C when NCCL_NET_GDR_C2C is on (`gdrC2c`).
 */
export function gdrLevel(raw: string | undefined, profile: Profile, gdrC2c = false): { level: PathName; source: string } {
  const l = ncclLevel(raw, profile);
  if (l) return { level: l.level, source: l.legacy ? `NCCL_NET_GDR_LEVEL=${raw} (legacy integer → ${l.level})` : `NCCL_NET_GDR_LEVEL=${raw}` };
  const p2c = gdrC2c && topoProfileFor(profile.version).gdrC2cRule === 'p2c-level';
  const dflt = p2c ? 'default with NCCL_NET_GDR_C2C' : 'default';
  if (raw === undefined) return { level: p2c ? 'P2C' : 'PXB', source: dflt };
  return { level: p2c ? 'P2C' : 'PXB', source: `${dflt} (NCCL_NET_GDR_LEVEL=${raw} is not a level this NCCL knows: ignored)` };
}

/** Whether ncclTopoCheckGdr counts a C2C GPU's CPU-side NIC as C2C (2.26.2–2.28.x with NCCL_NET_GDR_C2C); from 2.29.2 the default level is P2C instead. */
export function gdrCountsC2c(profile: Profile, gdrC2c: boolean): boolean {
  return gdrC2c && topoProfileFor(profile.version).gdrC2cRule !== 'p2c-level';
}

/**
 * ncclGetLevel("NCCL_P2P_DISABLE", "NCCL_P2P_LEVEL"): NCCL_P2P_DISABLE equal
 * to 1 (strtol base 0) is LOC, else NCCL_P2P_LEVEL as a level; null when
 * neither applies (the release's default by CPU, PXB or SYS, which every
 * NVLink pair is within).
 */
export function p2pLevel(vars: Record<string, string | undefined>, profile: Profile): PathName | null {
  const disable = vars['NCCL_P2P_DISABLE'];
  if (disable !== undefined && strtoll0(disable).value === 1n) return 'LOC';
  return ncclLevel(vars['NCCL_P2P_LEVEL'], profile)?.level ?? null;
}

/** GPU i's NVLinks in `nvidia-smi nvlink -s` (same PCI order as ncclx's GPU indexes), or null. */
function nvlinkState(topo: TopoPart, i: number): NvlinkState | null {
  const g = topo.nvlinkStatus?.gpus.find((x) => x.index === i);
  if (!g) return null;
  const active = g.links.filter((l) => l.gbps !== null);
  return { active: active.length, gbps: Math.round(active.reduce((s, l) => s + l.gbps!, 0) * 1000) / 1000, inactive: g.links.filter((l) => l.gbps === null).map((l) => l.link) };
}

/** A GPU lowers its link speed when idle (and ncclx reads it idle): for GPUs only a narrower width counts. */
function linkState(f: TopoFunction | undefined, gpu = false): LinkState | null {
  if (!f) return null;
  return { maxSpeed: f.maxLinkSpeed, maxWidth: f.maxLinkWidth, currentSpeed: f.currentLinkSpeed, currentWidth: f.currentLinkWidth, degraded: linkDegraded(f, gpu) };
}

const name = (t: number) => PATH_NAMES[t] ?? 'DIS';

const PATTERN_NAMES: Record<number, string> = { 1: 'BALANCED_TREE', 2: 'SPLIT_TREE', 3: 'TREE', 4: 'RING', 5: 'NVLS', 6: 'COLLNET_DIRECT' };
const GRAPH_NAMES: Record<number, TopoGraphReport['name']> = { 0: 'ring', 1: 'tree', 2: 'collnetChain', 3: 'nvls', 4: 'collnetDirect' };

/** The graph engine on the topology file NCCL reads, for jobs of 1 and 2 nodes: the graphs and the GPU ↔ GPU paths, or why not. */
export function fileGraphs(
  system: XmlNode,
  source: string,
  vars: Record<string, string | undefined>,
  profile: Profile,
): { graphs: TopoGraphs; gpuPaths: { path: PathName; bwGBs: number }[][] } | { unavailable: string; gpuPaths?: { path: PathName; bwGBs: number }[][] } {
  const tp = topoProfileFor(profile.version);
  let jobs: { nodes: number; r: ReturnType<typeof runEngine> }[];
  try {
    // Without the search only the one-node job's paths are shown: the two-node job is not built.
    jobs = (tp.searchModelled ? [1, 2] : [1]).map((nodes) => ({ nodes, r: runEngine({ system, nodes, vars, profile: tp, search: tp.searchModelled }) }));
  } catch (e) {
    if (e instanceof NcclInitError) return { unavailable: `${source}: ${e.message} (NCCL fills it from NVML or the network plugin on the node, which ncclx does not read)` };
    throw e;
  }
  const first = jobs[0]!.r;
  if (!first.gpus.length) return { unavailable: `${source} has no <gpu> element: NCCL fills the GPUs from NVML on the node, which ncclx does not read` };
  // The engine's GPUs are in the file's order; ranks are PCI order, the report's GPU indexes.
  const byRank = [...first.gpus.keys()].sort((a, b) => first.gpus[a]!.rank - first.gpus[b]!.rank);
  const gpuPaths = byRank.map((i) => byRank.map((j) => ({ path: first.gpuGpu[i]![j]!.type as PathName, bwGBs: Math.round(first.gpuGpu[i]![j]!.bw * 10) / 10 })));
  if (!tp.searchModelled) return { gpuPaths, unavailable: `ncclx models NCCL's graph search from 2.18.5 (held to NCCL's own code at 2.18.5, 2.23.4, 2.27.7 and 2.30.7); NCCL ${versionString(profile.version)}'s is older and differs, so its rings and trees are not shown; its paths and bandwidths are` };
  const graph = (g: EngineGraph, inter: boolean): TopoGraphReport => ({
    name: GRAPH_NAMES[g.id] ?? 'ring',
    id: g.id,
    pattern: PATTERN_NAMES[g.pattern] ?? String(g.pattern),
    nChannels: g.nChannels,
    bwIntra: Math.round(g.bwIntra * 1000) / 1000,
    bwInter: Math.round(g.bwInter * 1000) / 1000,
    typeIntra: g.typeIntra,
    typeInter: g.typeInter,
    crossNic: g.crossNic,
    channels: g.channels.map((c) => ({ gpus: g.id === 3 ? c.ranks.slice(0, 1) : c.ranks, nics: inter ? c.net : null })),
  });
  return {
    gpuPaths,
    graphs: {
      source,
      nets: jobs[1]!.r.nets.map((n) => ({ dev: n.dev, name: n.name })),
      jobs: jobs.map(({ nodes, r }) => ({
        nodes,
        graphs: r.graphs.filter((g) => g.nChannels > 0 || g.id <= 1).map((g) => graph(g, r.inter === 1)),
        graphNotes: r.computed?.reasons ?? [],
        channels: r.channels && { searched: r.channels.searched, nChannels: r.channels.nChannels, collnet: r.channels.collnet, steps: r.channels.steps, list: r.channels.list.map((c) => ({ ring: c.ring, gpus: c.ranks, nics: r.inter === 1 ? c.net : null })) },
      })),
    },
  };
}

/**
 * The distance ncclTopoCheckGdr compares with the level: a NIC behind the CPU
 * of a C2C GPU counts as C2C when NCCL_NET_GDR_C2C is on (P2C from 2.27.3; in
 * 2.26, PHB from a GPU whose CPU path is C2C).
 */
export function gdrDistance(type: number, c2cGpu: boolean, gdrC2c: boolean, p2c: boolean): number {
  if (!gdrC2c) return type;
  if (p2c ? type === PATH.P2C : type === PATH.PHB && c2cGpu) return PATH.C2C;
  return type;
}

/** ncclTopoCheckGdr for a pair (read = 0): the NIC side supports it and the distance is within the level. */
export function gdrPairOk(nicGdr: boolean | null, level: PathName, c2c: { gpu: (g: number) => boolean; on: boolean; p2c: boolean } = { gpu: () => false, on: false, p2c: false }): (g: number, n: number, type: number) => boolean {
  return (g, _n, type) => nicGdr !== false && gdrDistance(type, c2c.gpu(g), c2c.on, c2c.p2c) <= PATH[level];
}

/** The NIC side of GPUDirect RDMA as the doctor and ncclx ib judge it: true, false, or null when unknown. */
export function nicGdrSupport(status: string): boolean | null {
  return status === 'peer-memory' || status === 'dma-buf' ? true : status === 'disabled' ? false : null;
}

/** PXN by release and NCCL_PXN_DISABLE (an NCCL_PARAM integer, strtoll base 0; 1 disables). */
export function pxnRule(profile: Profile, disable: string | undefined): PxnRule {
  const mode = topoProfileFor(profile.version).pxnMode;
  if (mode === 'none' || parseNcclInt(disable, 0).value === 1) return 'none';
  return mode;
}

/**
 * NVB by release (paths.cc ncclTopoSetPaths): none before 2.8.3 (a GPU is
 * never an intermediate step); from 2.8.3 one NVLink hop through a GPU;
 * from 2.9.9 NCCL_NVB_DISABLE (an NCCL_PARAM integer, any non-zero value)
 * turns it off.
 */
export function nvbRule(profile: Profile, disable: string | undefined): boolean {
  const tp = topoProfileFor(profile.version);
  if (!tp.nvb) return false;
  return !tp.nvbDisableParam || parseNcclInt(disable, 0).value === 0;
}

/** ncclTopoGetNetDev's point-to-point terms for this release and environment (system.ts P2pTerms). */
export function p2pTerms(profile: Profile, vars: Record<string, string | undefined>, rules: TopoRules, gdrOk: (g: number, n: number, type: number) => boolean): P2pTerms {
  const tp = topoProfileFor(profile.version);
  return {
    mode: tp.pxnMode === 'none' ? 'none' : tp.pxnMode === 'local-gpu' ? 'local-gpu' : 'peer-netdev',
    crossNic: parseNcclInt(vars['NCCL_CROSS_NIC'], 2).value,
    pxnLevel: rules.pxn === 'none' ? 0 : parseNcclInt(vars['NCCL_P2P_PXN_LEVEL'], 2).value,
    // search.cc took NCCL_PXN_C2C into its point-to-point check from 2.27.6.
    pxnType: tp.p2pPxnC2c ? rules.pxnType : PATH.PXB,
    relayGdr: tp.pxnRelayGdr ? gdrOk : null,
    p2pLevel: rules.p2pLevel,
    localRule: rules.local,
  };
}

/** What the point-to-point NIC rule is under these terms, in words. */
function p2pRuleText(t: P2pTerms, pxnDisabled: boolean): string {
  if (t.mode === 'none') return '< 2.12.7: each GPU\'s own NIC';
  const settings = `NCCL_CROSS_NIC=${t.crossNic}, ${pxnDisabled ? 'PXN disabled' : `NCCL_P2P_PXN_LEVEL=${t.pxnLevel}`}`;
  const peerNic = t.mode === 'peer-netdev' ? 'the NIC the peer itself uses' : 'the NIC of the local GPU with the peer\'s index';
  const rule =
    t.pxnLevel === 2 ? `${peerNic}, relayed over NVLink by ${t.mode === 'peer-netdev' ? 'the first local GPU whose NIC it is' : 'that NIC\'s GPU'} when it can${t.crossNic === 0 ? ', else still that NIC' : ', else this GPU\'s own NIC'}`
    : t.pxnLevel === 1 ? `${peerNic} when this GPU reaches it within PXN${t.crossNic === 0 ? ', else still that NIC' : ', else this GPU\'s own NIC'}`
    : t.crossNic === 0 ? peerNic
    : 'this GPU\'s own NIC';
  return `${settings}: ${rule}`;
}

/** Which ncclTopoGetLocalNet this release has (system.ts LocalNetRule), under NCCL_NETDEVS_POLICY (≥ 2.28.3). */
export function localNetRule(profile: Profile, netdevsPolicy?: string): LocalNetRule {
  const tp = topoProfileFor(profile.version);
  if (tp.localNetSpread !== 'mirror') return tp.localNetSpread;
  if (!tp.netDevsPolicy) return 'mirror';
  return { modGpus: tp.localNetModGpus, netsPerGpu: netDevsPolicy(netdevsPolicy) };
}

/** NCCL_NETDEVS_POLICY as getNetDevsPolicyOnce reads it: AUTO or ALL (any case), MAX:n with atoi(n) > 0; anything else AUTO. */
export function netDevsPolicy(raw: string | undefined): MirrorRule['netsPerGpu'] {
  if (raw === undefined) return 'AUTO';
  if (raw.toUpperCase() === 'ALL') return 'ALL';
  if (raw.slice(0, 4).toUpperCase() === 'MAX:') {
    const n = atoi(raw.slice(4));
    if (n > 0) return n;
  }
  return 'AUTO';
}

/** NCCL's system for this node: the IB devices NCCL keeps (under --hca) placed on the PCI tree. */
function systemOf(snapshot: NodeSnapshot, topo: TopoPart, o: TopoOverrides, rules: TopoRules, profile: Profile, fileNets: Map<string, string> | null = null, netSpeeds?: Map<string, number>): { ib: ReturnType<typeof ibModel> | null; sys: TopoSystem } {
  const ib = snapshot.rdma ? ibModel(snapshot, { ncclVersion: o.ncclVersion, hca: o.hca }) : null;
  const used = ib?.selection.transport.used ? ib.selection : null;
  // Not IB: the socket transport's interfaces or a plugin's devices are NCCL's NETs (model/topo/net-devices.ts).
  const devices = placedByFile(used?.devices ?? nonIbNetDevices(snapshot, o.ncclVersion)?.devices ?? [], fileNets, netSpeeds);
  return { ib, sys: fuseNets(buildSystem(topo, devices, rules), netFusion(used, profile), topo) };
}

/** The NETs NCCL fuses, as ncclx ib's mergeDevices decides them (one decision for both commands). */
export function netFusion(selection: Pick<IbSelection, 'devices' | 'merge'> | null, profile: Profile): NetFusion {
  if (!selection) return { fused: [], physical: 0, mode: 'none' };
  const fused = selection.merge.groups.filter((g) => g.merged);
  return { fused: fused.map((g) => g.members), homes: fused.map((g) => g.home), forced: fused.filter((g) => g.forced).length, unplaced: selection.merge.unplaced, physical: selection.devices.length, mode: profile.vnicMode };
}

/** A NIC the topology file places sits where the file says (NCCL finds its <net> there and reads no /sys). */
function placedByFile(devices: NcclIbDevice[], nets: Map<string, string> | null, speeds?: Map<string, number>): NcclIbDevice[] {
  // The file's speed wins over the port's rate, as NCCL keeps a <net> attribute the file already has.
  const rate = (d: NcclIbDevice) => (speeds?.has(d.dev) ? speeds.get(d.dev)! / 1000 : d.rateGbps);
  return nets ? devices.map((d) => (nets.has(d.dev) ? { ...d, pciPath: `/topology-file/${nets.get(d.dev)}`, pciPathIsPci: true, rateGbps: rate(d) } : d)) : devices;
}

/**
 * The topology NCCL builds when NCCL_TOPO_FILE (or --topo-file) names an XML:
 * the file's tree first, and /sys for what it does not hold. Null when no file
 * applies; `note` says what happened to it.
 */
export interface TopoFileUse {
  topo: TopoPart;
  nets: Map<string, string> | null;
  /** The file's <net speed>, Mb/s, by name. */
  netSpeeds?: Map<string, number>;
  note: string | null;
  /** The file's <system>, as parsed (for the graph engine). */
  system?: XmlNode;
  /** NCCL refuses the file and its initialisation fails (xml.cc ncclTopoXmlLoadSystem), or its loader crashes (SIGSEGV): the WARN and the result. */
  refused?: { source: string; warn: string; result: string };
}

export function withTopoFile(topo: TopoPart, vars: Record<string, string | undefined>, o: TopoOverrides, profile?: Profile): TopoFileUse {
  const wanted = o.topoFile ?? (vars['NCCL_TOPO_FILE'] ? (topo.topoFiles?.find((f) => f.path === vars['NCCL_TOPO_FILE']) ?? { path: vars['NCCL_TOPO_FILE']!, text: null, error: 'not read when the snapshot was taken' }) : null);
  if (!wanted) return { topo, nets: null, note: null };
  const source = o.topoFile ? `--topo-file ${wanted.path}` : `NCCL_TOPO_FILE=${wanted.path}`;
  if (wanted.text === null) return { topo, nets: null, note: `${source}: ${'error' in wanted ? wanted.error : 'unreadable'}; NCCL says "Could not open XML topology file" and detects from /sys` };
  let parsed: TopoFromXml;
  let system: XmlNode;
  try {
    system = parseXml(wanted.text, source);
  } catch (e) {
    if (o.topoFile) throw e;
    return { topo, nets: null, note: `${source}: ${e instanceof Error ? e.message : String(e)}` };
  }
  try {
    checkXmlVersion(system);
  } catch (e) {
    if (!(e instanceof NcclInitError)) throw e;
    return { topo, nets: null, note: `${source}: NCCL refuses it ("${e.message}") and its initialisation fails (${e.result})`, refused: { source, warn: e.message, result: e.result } };
  }
  const crash = profile ? loadCrash(system, topoProfileFor(profile.version)) : null;
  if (crash) return { topo, nets: null, note: `${source}: NCCL ${versionString(profile!.version)} crashes loading it (${crash.message})`, refused: { source, warn: crash.message, result: crash.result } };
  try {
    parsed = topoFromXml(system, source);
  } catch (e) {
    if (o.topoFile) throw e;
    return { topo, nets: null, note: `${source}: ${e instanceof Error ? e.message : String(e)}` };
  }
  const x = parsed.topo;
  const have = new Set(x.functions.map((f) => f.bdf));
  const merged: TopoPart = {
    ...topo,
    functions: [...x.functions, ...topo.functions.filter((f) => !have.has(f.bdf))],
    gpus: [...new Set([...x.gpus, ...topo.gpus])].sort(),
    numaNodes: [...topo.numaNodes, ...x.numaNodes.filter((n) => !topo.numaNodes.some((m) => m.id === n.id))],
    cpu: x.cpu.vendor || x.cpu.arch ? x.cpu : topo.cpu,
    nvlink: x.nvlink ?? topo.nvlink ?? null,
  };
  const extra = topo.gpus.filter((g) => !x.gpus.includes(g));
  return { topo: merged, nets: parsed.nets, netSpeeds: parsed.netSpeeds, system, note: `${source}: the PCI tree of the file (${x.gpus.length} GPU(s), ${parsed.nets.size} NIC(s))${extra.length ? `; ${extra.join(', ')} from /sys` : ''}${parsed.notes.length ? `; ${parsed.notes.join('; ')}` : ''}` };
}

/** The topology rules of this release under these variables: one place for topo, the doctor and compare. */
export function topoRules(profile: Profile, vars: Record<string, string | undefined>, topo: TopoPart): TopoRules {
  const tp = topoProfileFor(profile.version);
  const c2cGpus = new Set(topo.functions.filter((f) => topo.gpus.includes(f.bdf) && C2C_GPUS.has((f.device ?? '').toLowerCase())).map((f) => f.bdf));
  return {
    local: localNetRule(profile, vars['NCCL_NETDEVS_POLICY']),
    pxn: pxnRule(profile, vars['NCCL_PXN_DISABLE']),
    pxnType: tp.pxnC2cParam && parseNcclInt(vars['NCCL_PXN_C2C'], tp.pxnC2cDefault).value !== 0 ? PATH.P2C : PATH.PXB,
    c2c: { gpus: c2cGpus, link: tp.c2cLinks ? tp.c2cLinkType : 'none' },
    p2c: tp.p2cPaths,
    bcm: tp.bcmGen5 ? 'gen4+gen5' : tp.bcmGen4 ? 'gen4' : 'none',
    nvb: nvbRule(profile, vars['NCCL_NVB_DISABLE']),
    pxnAvoid: tp.pxnAvoid === 'PXN' ? PATH.PXN : PATH.PXB,
    pxnRelayGdr: !tp.pxnRelayGdr ? 'none' : parseNcclInt(vars['NCCL_NET_GDR_READ'], -2).value === 0 ? 'forbidden' : 'required',
    p2pLevel: ((l) => (l ? PATH[l] : null))(p2pLevel(vars, profile)),
    pathTypeFirst: tp.pathTypeFirst,
  };
}

/** ncclTopoCheckGdr's C2C rule: NCCL_NET_GDR_C2C, an NCCL_PARAM integer (default 0 in 2.26, 1 from 2.27.3; absent before 2.26). */
export function netGdrC2c(profile: Profile, vars: Record<string, string | undefined>): boolean {
  const tp = topoProfileFor(profile.version);
  if (!tp.gdrC2cParam) return false;
  return parseNcclInt(vars['NCCL_NET_GDR_C2C'], tp.gdrC2cDefault).value !== 0;
}

const MAX_SEARCH_GPUS = 32;
const SYS_SOURCE = 'the topology NCCL builds on this node (/sys, with the GPUs\' NVML facts from their PCI ids and nvidia-smi)';

/** The graph engine on the <system> NCCL builds from /sys and NVML (ncclTopoGetSystem), or why ncclx cannot build it. */
function sysGraphs(topo: TopoPart, sys: TopoSystem, facts: NodeFacts, vars: Record<string, string | undefined>, profile: Profile): ReturnType<typeof fileGraphs> {
  const unknown = facts.gpus.filter((g) => g.sm === null);
  if (unknown.length) {
    const dev = new Map(topo.functions.map((f) => [f.bdf, f.device]));
    return { unavailable: `the compute capability of ${unknown.map((g) => `GPU ${g.dev} (${g.bdf}, device ${dev.get(g.bdf) ?? '?'})`).join(', ')} is not known to ncclx (it reads it from the PCI device id, else from nvidia-smi --query-gpu=compute_cap, which gave none here), so the <system> NCCL builds from NVML cannot be rebuilt; an NCCL topology file with <gpu sm=…> (--topo-file, NCCL_TOPO_FILE) gives it` };
  }
  // A bound of ncclx's, not NCCL's: no node has more GPUs than this (an 8- or
  // 16-GPU HGX board; 4 per Grace tray), and the search's time grows with the
  // cube of the GPUs (a 640-GPU snapshot did not finish in a minute).
  if (facts.gpus.length > MAX_SEARCH_GPUS) return { unavailable: `${facts.gpus.length} GPUs in one node: ncclx runs NCCL's graph search on at most ${MAX_SEARCH_GPUS}` };
  const xml = topoXml(topo, sys, facts).xml;
  return sysGraphsMemo(`${JSON.stringify(profile.version)}\n${xml}`, vars, (seen) => fileGraphs(parseXml(xml, SYS_SOURCE), SYS_SOURCE, seen, profile));
}

// The doctor verifies its advice under hundreds of environments per node
// (src/checks/verify.ts), each building this report: the search is a pure
// function of the XML, the release and the dozen variables it reads, so an
// environment that changes none of them reuses the answer (snapshot/memo.ts).
const sysGraphsMemo = readsMemo<ReturnType<typeof fileGraphs>>({ keys: 64, perKey: 256 });

/**
 * GPUDirect RDMA of the NICs NCCL places: the IB transport's readiness, and
 * never on the socket transport, which moves host memory only (NCCL_PTR_HOST).
 * One answer for the report's paths and the XML `topo --xml` writes.
 */
function nicGdrOf(snapshot: NodeSnapshot, ib: ReturnType<typeof ibModel> | null, ncclVersion: string | undefined, readiness: ReturnType<typeof gdrReadiness>): { socketNets: boolean; nicGdr: boolean | null } {
  const socketNets = !ib?.selection.transport.used && nonIbNetDevices(snapshot, ncclVersion)?.kind === 'socket';
  return { socketNets, nicGdr: socketNets ? false : nicGdrSupport(readiness.status) };
}

/** The topology as an NCCL_TOPO_FILE, or why there is none. */
export function topoFile(snapshot: NodeSnapshot, o: TopoOverrides = {}): TopoXml | { unavailable: string } {
  const topo = snapshot.pci?.topology;
  if (!topo) return { unavailable: 'this snapshot has no PCI topology (taken by an older ncclx, or /sys was not readable)' };
  const profile = profileFor(chooseVersion(o.ncclVersion, snapshot).version);
  const vars = effectiveEnv(snapshot.env, profile).vars;
  const { ib, sys } = systemOf(snapshot, topo, o, topoRules(profile, vars, topo), profile);
  return topoXml(topo, sys, { gpus: gpuFacts(topo), gdr: nicGdrOf(snapshot, ib, o.ncclVersion, gdrReadiness(snapshot.rdma, profile, vars)).nicGdr });
}

/** The variables `ncclx topo`'s flags set, with the flag that sets each: one list for the report and for checking its advice. */
export function topoFlags(o: TopoOverrides): [name: string, value: string | undefined, flag: string][] {
  return [
    ['NCCL_IB_HCA', o.hca, '--hca'],
    ['NCCL_NET_GDR_LEVEL', o.gdrLevel, '--gdr-level'],
    ['NCCL_PXN_DISABLE', o.pxnDisable ? '1' : undefined, '--pxn-disable'],
  ];
}

// The doctor builds the report once per environment and kernel change it
// verifies advice under (src/checks/verify.ts): remembered per node
// (snapshot/memo.ts). The kernel part is left out of the key: no module this
// report reaches reads it, so a kernel remediation's run reuses the report.
const reportMemo = snapshotMemo<TopoReport>(['kernel'], (s) => s.pci ?? s.network);

export function topoReport(snapshot: NodeSnapshot, o: TopoOverrides = {}): TopoReport {
  return reportMemo(snapshot, o, () => buildTopoReport(snapshot, o));
}

function buildTopoReport(snapshot: NodeSnapshot, o: TopoOverrides): TopoReport {
  const choice = chooseVersion(o.ncclVersion, snapshot);
  const profile = profileFor(choice.version);
  const tp = topoProfileFor(profile.version);
  const base = {
    ncclVersion: versionString(choice.version),
    versionSource: choice.source,
    versionBeyondModel: choice.beyond,
    host: snapshot.host.hostname,
  };
  const topo0 = snapshot.pci?.topology;
  const none = { gpus: [], nics: [], matrix: [], pairs: [], p2p: [], gpuPaths: [], graphs: null };
  if (!topo0) return { ...base, ...none, unavailable: 'this snapshot has no PCI topology (taken by an older ncclx, or /sys was not readable)', graphsUnavailable: 'no topology', findings: [], notes: [] };
  // No GPU: nothing to place (and the IB model is not built for it).
  if (topo0.gpus.length === 0 && !o.topoFile && !topo0.topoFiles?.length) return { ...base, ...none, unavailable: null, graphsUnavailable: 'no NVIDIA GPU', findings: [], notes: ['no NVIDIA GPU on this node: no GPU ↔ NIC path to model'] };
  const env = withFlags(effectiveEnv(snapshot.env, profile), topoFlags(o));
  const file = withTopoFile(topo0, env.vars, o, profile);
  if (file.refused) {
    const f = file.refused;
    return {
      ...base,
      ...none,
      unavailable: null,
      graphsUnavailable: 'NCCL does not initialise',
      findings: [
        f.result === 'SIGSEGV'
          ? { id: 'TOPO-015', severity: 'error', message: `${f.source}: NCCL ${base.ncclVersion} crashes loading this topology file (${f.warn}): every process dies in communicator initialisation and the job does not start`, remediation: advise('Use an NCCL release whose walk from a GPU to its CPU never turns back (2.26.2 or later); the same tree read from /sys crashes the same way, so unsetting NCCL_TOPO_FILE does not help') }
          : { id: 'TOPO-015', severity: 'error', message: `${f.source}: NCCL refuses this topology file ("${f.warn}") and every communicator's initialisation fails with ${f.result}: the job does not start`, remediation: advise('Write the file as <system version="1"> (the only version NCCL reads; `ncclx topo --xml` writes one), or unset NCCL_TOPO_FILE') },
      ],
      notes: [file.note ?? ''],
    };
  }
  const topo = file.topo;
  const fns = new Map(topo.functions.map((f) => [f.bdf, f]));
  const rules = topoRules(profile, env.vars, topo);
  const { ib, sys } = systemOf(snapshot, topo, o, rules, profile, file.nets, file.netSpeeds);
  const rule = rules.local;
  const gdrC2c = netGdrC2c(profile, env.vars);
  const { level, source: levelSource } = gdrLevel(env.vars['NCCL_NET_GDR_LEVEL'], profile, gdrC2c);
  const readiness = gdrReadiness(snapshot.rdma, profile, env.vars);
  const { socketNets, nicGdr } = nicGdrOf(snapshot, ib, o.ncclVersion, readiness);
  // P2C, PXN through NVLink peers, then pairs without GPUDirect RDMA routed through the GPU's CPU: the paths the NIC choice sees.
  const c2cGpu = (g: number) => rules.c2c.gpus.has(sys.gpus[g]!.bdf!);
  const countsC2c = gdrCountsC2c(profile, gdrC2c);
  const gdrOk = gdrPairOk(nicGdr, level, { gpu: c2cGpu, on: countsC2c, p2c: rules.p2c });
  const { direct, matrix, relay, diverted } = effectivePaths(sys, rules, gdrOk);
  const chain = (key: string) => parentChain(sys.parents, key);
  const gpus: TopoGpu[] = sys.gpus.map((g, i) => ({ index: i, bdf: g.bdf!, numaNode: fns.get(g.bdf!)?.numaNode ?? null, parents: chain(`GPU:${g.bdf}`), link: linkState(fns.get(g.bdf!), true), nvlinks: nvlinkState(topo, i) }));
  const nics: TopoNic[] = sys.nets.map((n) => {
    const d = n.ib!;
    const nicNode = n.links.find((l) => l.type === 'NET')!.rem;
    const bdf = nicNode.bdf;
    const members = (n.members ?? []).map((m) => ({ index: m.index, device: m.dev, port: m.port }));
    return { index: d.index, device: d.dev, port: d.port, bdf, numaNode: bdf ? (fns.get(bdf)?.numaNode ?? (nicNode.numa !== null ? Number(nicNode.numa) : null)) : null, parents: bdf ? chain(`NIC:${bdf}`) : ['first CPU (no PCI path)'], link: bdf ? linkState(fns.get(bdf)) : null, rateGbps: d.rateGbps, members };
  });
  const terms = p2pTerms(profile, env.vars, rules, gdrOk);
  const p2p = gpus.map((g) => gpus.map((d) => p2pNetFor(sys, matrix, relay, g.index, d.index, 0, terms)));
  const pairs: TopoPair[] = gpus.map((g) => {
    const row = matrix[g.index]!;
    const local = localNets(row);
    const nic = localNetFor(matrix, g.index, g.index, 0, rule);
    const channelNics = [...new Set([0, 1, 2, 3].map((c) => localNetFor(matrix, g.index, g.index, c, rule)).filter((x): x is number => x !== null))];
    if (nic === null) return { gpu: g.index, relay: null, nic: null, channelNics: [], path: null, bwGBs: null, localNics: [], gdr: null };
    const p: Path = row[nic]!;
    // GPUDirect RDMA is decided on the direct path (the diverted one exists because it is off); through a PXN relay, on the relay GPU's.
    const via = relay.get(`${g.index},${nic}`);
    const rawDistance = direct[via ?? g.index]![nic]!.type;
    // NCCL_NET_GDR_C2C: a NIC behind a C2C GPU's CPU is compared as C2C.
    const compared = gdrDistance(rawDistance, c2cGpu(via ?? g.index), countsC2c, rules.p2c);
    const distance = name(compared) as PathName;
    const within = compared <= PATH[level];
    const numbers = `distance ${distanceNumber(distance, profile)} ${within ? '<=' : '>'} ${distanceNumber(level, profile)}`;
    const where = tp.gdrLogWhere;
    const gdr: GdrDecision = {
      enabled: nicGdr === false ? false : within ? (nicGdr === null ? null : true) : false,
      distance,
      level,
      levelSource,
      why:
        nicGdr === false
          ? socketNets ? 'the socket transport moves host memory only: no GPUDirect RDMA' : `the NIC side cannot do GPUDirect RDMA: no peer-memory path NCCL ${base.ncclVersion} checks, and no DMA-BUF`
          : !within
            ? `the path GPU ${g.index} → ${nics[nic]!.device} is ${distance}, beyond ${level} (${levelSource})`
            : nicGdr === null
              ? `within ${level}, but ncclx has no RDMA data to tell whether the NIC side supports it`
              : `${via !== undefined ? `through GPU ${via} (PXN), whose path is ${name(rawDistance)}` : `the path is ${name(rawDistance)}`}${compared !== rawDistance ? ' (counted as C2C: NCCL_NET_GDR_C2C)' : ''}, within ${level} (${levelSource}); NIC side: ${readiness.status === 'peer-memory' ? 'peer memory' : 'DMA-BUF'}`,
      log: `GPU Direct RDMA ${within && nicGdr !== false ? 'Enabled' : 'Disabled'} for GPU ${g.index} / HCA ${nics[nic]!.index} (${numbers}) — ${where}`,
    };
    return { gpu: g.index, relay: via ?? null, nic, channelNics, path: name(p.type) as PathName, bwGBs: Math.round(p.bw * 10) / 10, localNics: local.nets, gdr };
  });
  const findings: Finding[] = [];
  // GPUDirect RDMA off by distance: one finding per path type listing its GPUs (gdr-verdict.ts, shared with the doctor and compare).
  if (nicGdr !== false) append(findings, distanceFindings(gpuGdrOf(pairs, gpus, nics), levelSource));
  // GPUs funnelled into one NIC while another carries no GPU's channel 0.
  const used = new Map<number, number[]>();
  for (const p of pairs) if (p.nic !== null) used.set(p.nic, [...(used.get(p.nic) ?? []), p.gpu]);
  const idle = nics.filter((n) => !used.has(n.index));
  for (const [nic, gs] of used) {
    if (gs.length > 1 && idle.length > 0 && gpus.length <= nics.length) {
      findings.push({
        id: 'TOPO-011',
        severity: 'warn',
        message: `GPUs ${gs.join(', ')} all use ${nics[nic]!.device} first while ${idle.map((n) => n.device).join(', ')} ${idle.length === 1 ? 'carries' : 'carry'} no GPU's first channel: the rails are not aligned with the GPUs`,
        remediation: advise('Check the PCIe placement (each GPU should share a switch with its own NIC) and NCCL_IB_HCA (a NIC left out moves GPUs onto their neighbours)'),
      });
    }
  }
  // Links below their maximum: NICs first, then GPUs (an idle GPU may lower its speed, never its width).
  const links = [
    ...nics.map((n) => ({ what: `${n.device} (${n.bdf})`, link: n.link, gpu: false })),
    ...gpus.map((g) => ({ what: `GPU ${g.index} (${g.bdf})`, link: g.link, gpu: true })),
  ];
  for (const { what, link, gpu } of links) {
    if (!link?.degraded) continue;
    findings.push({
      id: 'TOPO-012',
      severity: 'warn',
      message: `${what} runs at ${link.currentSpeed ?? '?'} x${link.currentWidth ?? '?'} but supports ${link.maxSpeed ?? '?'} x${link.maxWidth ?? '?'}${gpu ? ': its PCIe link is narrower than the slot (a riser or slot problem), and NCCL, which reads max_link_*, does not see it' : ': its PCIe link trained down, and NCCL, which reads max_link_*, does not see it'}`,
      remediation: advise(gpu ? 'Reseat the GPU or check its riser and slot; `nvidia-smi -q | grep -A2 "Link Width"` confirms it' : 'Reseat the card or check the slot, riser and BIOS PCIe settings; `lspci -vv -s <bdf> | grep LnkSta` confirms it'),
    });
  }
  // NVLinks down: NCCL builds its graph from the active links only (NVML link state), so the GPU's NVLink bandwidth drops, and with none left it has no NVLink at all.
  for (const g of gpus) {
    const n = g.nvlinks;
    if (!n || n.inactive.length === 0) continue;
    const total = n.active + n.inactive.length;
    findings.push({
      id: 'TOPO-014',
      severity: 'warn',
      message: `GPU ${g.index} (${g.bdf}): ${n.inactive.length} of its ${total} NVLinks ${n.inactive.length === 1 ? 'is' : 'are'} inactive (link ${n.inactive.join(', ')})${n.active === 0 ? ': NCCL sees no NVLink on it, so its peers reach it over PCIe and no PXN goes through it' : `: NCCL counts the ${n.active} active ones only, so its NVLink bandwidth is ${n.active}/${total} of what it should be`}`,
      remediation: advise('Check the links with `nvidia-smi nvlink -e -i <gpu>` (error counters) and `nvidia-smi -q -d NVLINK`; on NVSwitch systems check nvidia-fabricmanager; a reset (`nvidia-smi -r -i <gpu>`) or the GPU\'s replacement restores them'),
    });
  }
  // Across sockets: one finding listing every GPU whose nearest NIC is on the other side.
  // A socket NIC moves host memory whatever its place: NET-010 / NET-001 say what matters there.
  const across = socketNets ? [] : pairs.filter((p) => p.path === 'SYS');
  if (across.length) {
    findings.push({
      id: 'TOPO-013',
      severity: 'warn',
      message: `${across.length === 1 ? `GPU ${across[0]!.gpu}'s nearest NIC is` : `The nearest NICs of GPUs ${gpuRanges(across.map((p) => p.gpu))} are`} across the CPU interconnect (SYS): ${across.map((p) => `GPU ${p.gpu} → ${nics[p.nic!]!.device}`).join(', ')}; every byte ${across.length === 1 ? 'it sends' : 'they send'} crosses sockets`,
      remediation: advise('Put a NIC on each GPU\'s NUMA node, or check that NCCL_IB_HCA does not leave out the local one'),
    });
  }
  // The IB model's own placement findings, the same words as `ncclx ib` and the doctor (one decision): an RDMA device off the PCI tree (IB-011),
  // a vNIC over ports on different point-to-point subnets (IB-035), NICs off the PCI tree and NET 0 (IB-036), a vNIC NCCL cannot place (IB-037) or never reads (IB-038).
  // A socket-transport NIC off the PCI tree (a VM's virtio NIC) has no finding: NCCL hangs it off the first CPU and sockets never use GPUDirect RDMA (buildSystem's note says where it went).
  if (ib) for (const f of ib.report.findings) if (['IB-011', 'IB-035', 'IB-036', 'IB-037', 'IB-038', 'IB-039'].includes(f.id)) findings.push(f);
  // NCCL's graph search, on the topology file or on the <system> NCCL builds from /sys; the PCI model's GPU ↔ GPU paths where it does not run.
  const fg = o.graphs === false ? { unavailable: 'the graph search is not run for the doctor\'s checks, which read none of it (ncclx topo shows it)' } : file.system ? fileGraphs(file.system, o.topoFile ? `--topo-file ${o.topoFile.path}` : `NCCL_TOPO_FILE=${env.vars['NCCL_TOPO_FILE']}`, env.vars, profile) : sysGraphs(topo, sys, { gpus: gpuFacts(topo), gdr: nicGdr }, env.vars, profile);
  const gpuPaths = 'gpuPaths' in fg && fg.gpuPaths && fg.gpuPaths.length === gpus.length ? fg.gpuPaths : pciGpuPaths(sys);
  return {
    ...base,
    unavailable: null,
    gpus,
    nics,
    matrix: matrix.map((row) => row.map((p) => ({ path: name(p.type) as PathName, bwGBs: Math.round(p.bw * 10) / 10 }))),
    pairs,
    p2p,
    gpuPaths,
    graphs: 'graphs' in fg ? fg.graphs : null,
    graphsUnavailable: 'unavailable' in fg ? fg.unavailable : null,
    findings,
    notes: [
      ...(file.note ? [file.note] : []),
      ...sys.notes,
      ...(ib?.selection.transport.used ? [] : [nonIbNetDevices(snapshot, o.ncclVersion)?.note ?? (ib ? `the IB transport is not used (${ib.selection.transport.why}) and no other network's devices are known: no NIC is placed` : 'no RDMA data: no NIC is placed')]),
      ...(topo.nvlink ? [`NVLinks from ${topo.nvlink.source}${relay.size ? `: ${relay.size} GPU → NIC path(s) go through an NVLink peer (PXN)` : ''}`] : ['without NVLink data (nvidia-smi topo -m) ncclx models PCIe paths only: no PXN']),
      ...(topo.nvlink && rules.pxn !== 'none' && rules.p2pLevel !== null && rules.p2pLevel < PATH.NVL ? [`${env.vars['NCCL_P2P_DISABLE'] !== undefined && p2pLevel({ NCCL_P2P_DISABLE: env.vars['NCCL_P2P_DISABLE'] }, profile) ? `NCCL_P2P_DISABLE=${env.vars['NCCL_P2P_DISABLE']}` : `NCCL_P2P_LEVEL=${env.vars['NCCL_P2P_LEVEL']}`} sends every GPU pair through the CPU (ncclTopoCheckP2p): no GPU reaches another over NVLink, so no PXN`] : []),
      ...(topo.nvlink && rules.pxn !== 'none' && rules.pxnRelayGdr === 'forbidden' ? [`NCCL_NET_GDR_READ=0: a PXN relay must read from its GPU over GPUDirect RDMA (≥ 2.30.3), so no PXN`] : []),
      ...(topo.nvlinkStatus ? [`NVLink states from ${topo.nvlinkStatus.source}: ${gpus.filter((g) => g.nvlinks).map((g) => `GPU ${g.index} ${g.nvlinks!.active} active${g.nvlinks!.inactive.length ? `, ${g.nvlinks!.inactive.length} inactive` : ''}`).join('; ')}`] : []),
      `point-to-point NICs are ncclTopoGetNetDev's (${p2pRuleText(terms, rules.pxn === 'none' && tp.pxnMode !== 'none')}), for a peer on a node laid out like this one`,
      'GPU indexes are in PCI bus order (CUDA_DEVICE_ORDER=PCI_BUS_ID)',
      ...(diverted ? [`${diverted} GPU → NIC path(s) without GPUDirect RDMA: NCCL routes them through the GPU's CPU, so they show (and are chosen) as PHB or worse`] : []),
      `the NIC per GPU is ncclTopoGetLocalNet's choice (${typeof rule === 'object' ? `≥ 2.18.5: CUDA index${rule.modGpus ? ' modulo the GPUs sharing the NICs (2.30.7),' : ''} bit-mirrored over the local NICs, channels spread over ${rule.netsPerGpu === 'AUTO' ? 'its share of them' : rule.netsPerGpu === 'ALL' ? 'all of them (NCCL_NETDEVS_POLICY=ALL)' : `at most ${rule.netsPerGpu} (NCCL_NETDEVS_POLICY=MAX:${rule.netsPerGpu})`}` : rule === 'mirror' ? '≥ 2.18.5: CUDA index bit-mirrored over the local NICs, channels spread' : rule === 'mask' ? '2.18.1–2.18.3: GPUs with the same local NICs take them in turn' : tp.pxnMode !== 'none' ? '< 2.18.1: CUDA index modulo the local NICs' : '< 2.12.7: the caller\'s round-robin index, modelled as the CUDA index'}): point-to-point starts from it (see the point-to-point NICs), and so does NCCL's graph search, whose ring and tree channels (the graphs, with their NICs) may pair NICs differently`,
    ],
  };
}

/** GPU ↔ GPU paths of the PCI model (NVLinks from nvidia-smi), in the report's GPU order. */
function pciGpuPaths(sys: TopoSystem): { path: PathName; bwGBs: number }[][] {
  // pathsTo(h) holds every node's path to h: the column of h.
  const to = sys.gpus.map((h) => pathsTo(sys, h));
  return sys.gpus.map((g) => sys.gpus.map((_, h) => {
    const p = to[h]!.get(g)!;
    return { path: name(p.type) as PathName, bwGBs: Math.round(p.bw * 10) / 10 };
  }));
}

/** compare's GPU → NIC facts for a node, under the same rules and GPUDirect RDMA judgement as `ncclx topo`. */
export function topoFacts(topo0: TopoPart, devices0: NcclIbDevice[], profile: Profile, vars: Record<string, string | undefined>, gdrStatus: string, fusion: NetFusion = { fused: [], physical: devices0.length, mode: 'none' }): GpuNicMap {
  // NCCL_TOPO_FILE applies here as in `ncclx topo` (a file that cannot be read or parsed leaves /sys).
  const file = withTopoFile(topo0, vars, {}, profile);
  const topo = file.topo;
  const devices = placedByFile(devices0, file.nets, file.netSpeeds);
  const rules = topoRules(profile, vars, topo);
  const gpuIndex = (g: number) => rules.c2c.gpus.has(topo.gpus[g] ?? '');
  const gdrC2c = netGdrC2c(profile, vars);
  const ok = gdrPairOk(nicGdrSupport(gdrStatus), gdrLevel(vars['NCCL_NET_GDR_LEVEL'], profile, gdrC2c).level, { gpu: gpuIndex, on: gdrCountsC2c(profile, gdrC2c), p2c: rules.p2c });
  return gpuNicMap(topo, devices, rules, ok, fusion);
}
