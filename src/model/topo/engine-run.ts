// One NCCL initialisation's topology, from an NCCL_TOPO_FILE to its graphs:
// the file as NCCL's loader reads it (xml.cc ncclTopoXmlLoadSystem refuses a
// <system> whose version is not 1), every GPU a local rank and every <net>
// a network device (engine.ts fillAndTrim), then init.cc's order —
// ncclTopoGetSystemFromXml, ncclTopoComputePaths, ncclTopoTrimSystem for a
// job of `nodes` nodes laid out like this one, ncclTopoComputePaths again,
// ncclTopoSearchInit, ncclTopoCompute for the ring, tree, CollNet and
// NVLS graphs (those init.cc computes: channels.ts graphsComputed), and the
// channels NCCL ends with (channels.ts finalChannels). Pure.

import { strtoll0 } from '../nccl/cint.js';
import { fillAndTrim, NcclInitError, NT, PT, PT_NAMES, systemFromXml, type GSystem } from './engine.js';
import { checkGdr, computePaths, intermediateRank, localNet, trimSystem, DEFAULT_PATH_ENV, type PathEnv } from './engine-paths.js';
import { compute, newGraph, PATTERN, searchInit, type SearchEnv, type TopoGraph } from './search.js';
import { collnetEnabled, finalChannels, graphsComputed, intParam, type FinalChannels, type GraphsComputed } from './channels.js';
import type { TopoProfile } from '../nccl/versions.js';
import { minOf } from '../list.js';
import type { XmlNode } from './xml-read.js';

/** The graphs init.cc computes, in NCCL_GRAPH_DUMP_FILE's order. */
export const GRAPH_IDS = { ring: 0, tree: 1, collnetDirect: 4, collnetChain: 2, nvls: 3 } as const;

export interface EngineInput {
  /** The parsed <system> element. */
  system: XmlNode;
  /** Nodes in the job, each laid out like this one (1: no network in the graphs). */
  nodes: number;
  /** NCCL variables as the job sets them. */
  vars: Record<string, string | undefined>;
  profile: TopoProfile;
  /** A CollNet plugin is loaded (default: assumed when NCCL_COLLNET_ENABLE asks for CollNet; channels.ts graphsComputed). */
  collnetPlugin?: boolean;
  /** Run the graph search (default true); without it `graphs` is empty. */
  search?: boolean;
}

export interface EngineChannel {
  /** The NET device the channel enters and leaves by (-1 when none). */
  net: [number, number];
  /** The ranks of the channel in order (NVLS: the head only is meaningful). */
  ranks: number[];
}

export interface EngineGraph {
  id: number;
  pattern: number;
  crossNic: number;
  nChannels: number;
  bwIntra: number;
  bwInter: number;
  latencyInter: number;
  typeIntra: string;
  typeInter: string;
  sameChannels: number;
  nHops: number;
  channels: EngineChannel[];
}

export interface EngineResult {
  inter: number;
  nvs: number;
  maxBw: number;
  totalBw: number;
  gpus: { rank: number; dev: number; sm: number; gdr: number; busid: string }[];
  nets: { dev: number; name: string; bw: number; port: number; gdr: number; localGpu: number }[];
  /** gpuNet[g][n]: GPU g (system order) to NET n: path, hops, GPUDirect RDMA (write, read) and the rank that proxies it. */
  gpuNet: { type: string; bw: number; hops: number; gdr: boolean; gdrRead: boolean; proxy: number }[][];
  gpuGpu: { type: string; bw: number; hops: number }[][];
  /** localNets[g][c]: the NET device GPU g's channel c uses (ncclTopoGetLocalNet), c = 0..3. */
  localNets: number[][];
  graphs: EngineGraph[];
  /** Which optional graphs init.cc computes, and why (with the search). */
  computed: GraphsComputed | null;
  /** The collective channels after ncclTopoPostset, each with its ring and NICs (with the search). */
  channels: FinalChannels | null;
}

/** ncclGetLevel: NCCL_<disable>=1 is LOC, else a path name of this release or an old integer level; null when unset or not understood. */
export function ncclGetLevel(vars: Record<string, string | undefined>, disableVar: string | null, levelVar: string): number | null {
  const dis = disableVar ? vars[disableVar] : undefined;
  if (dis !== undefined && Number(BigInt.asIntN(32, strtoll0(dis).value)) === 1) return PT.LOC;
  const s = vars[levelVar];
  if (s === undefined) return null;
  const i = PT_NAMES.indexOf(s as (typeof PT_NAMES)[number]);
  if (i >= 0 && i <= PT.SYS) return i;
  if (/^[0-9]/.test(s)) {
    const old = [PT.LOC, PT.PIX, PT.PXB, PT.PHB, PT.SYS, PT.SYS];
    const v = Number(BigInt.asIntN(32, strtoll0(s).value));
    return old[Math.min(Math.max(v, 0), old.length - 1)]!;
  }
  return null;
}

/** An int64 NCCL parameter. */
const param = (vars: Record<string, string | undefined>, name: string, d: number): number => intParam(vars, name, d, 64);

/** The variables the path rules and the search read, parsed as NCCL parses them. */
export function searchEnv(vars: Record<string, string | undefined>, profile: TopoProfile): SearchEnv {
  const policy = vars['NCCL_NETDEVS_POLICY'];
  let netDevsPolicy: PathEnv['netDevsPolicy'] = 'AUTO';
  if (policy !== undefined) {
    if (policy.toUpperCase() === 'ALL') netDevsPolicy = 'ALL';
    else if (policy.slice(0, 4).toUpperCase() === 'MAX:' && parseInt(policy.slice(4), 10) > 0) netDevsPolicy = parseInt(policy.slice(4), 10);
  }
  return {
    ...DEFAULT_PATH_ENV,
    p2pLevel: ncclGetLevel(vars, 'NCCL_P2P_DISABLE', 'NCCL_P2P_LEVEL'),
    gdrLevel: ncclGetLevel(vars, null, 'NCCL_NET_GDR_LEVEL'),
    gdrRead: param(vars, 'NCCL_NET_GDR_READ', -2),
    gdrC2c: param(vars, 'NCCL_NET_GDR_C2C', profile.gdrC2cDefault),
    pxnDisable: param(vars, 'NCCL_PXN_DISABLE', 0),
    pxnC2c: param(vars, 'NCCL_PXN_C2C', profile.pxnC2cDefault),
    nvbDisable: param(vars, 'NCCL_NVB_DISABLE', 0),
    netDevsPolicy,
    crossNic: param(vars, 'NCCL_CROSS_NIC', 2),
  };
}

/** ncclTopoXmlLoadSystem's version check: anything but version 1 fails NCCL's initialisation. */
export function checkXmlVersion(system: XmlNode): void {
  const v = system.attrs['version'];
  if (v === undefined) throw new NcclInitError('Attribute version of node system not found', 'ncclInternalError');
  const n = Number(BigInt.asIntN(32, strtoll0(v).value));
  if (n !== 1) throw new NcclInitError(`XML Topology has wrong version ${n}, 1 needed`, 'ncclInvalidUsage');
}

function graphOut(g: TopoGraph, ngpus: number): EngineGraph {
  const channels: EngineChannel[] = [];
  for (let c = 0; c < g.nChannels; c++) channels.push({ net: [g.inter[2 * c]!, g.inter[2 * c + 1]!], ranks: g.intra.slice(c * ngpus, (c + 1) * ngpus) });
  return { id: g.id, pattern: g.pattern, crossNic: g.crossNic, nChannels: g.nChannels, bwIntra: g.bwIntra, bwInter: g.bwInter, latencyInter: g.latencyInter, typeIntra: PT_NAMES[g.typeIntra] ?? '?', typeInter: PT_NAMES[g.typeInter] ?? '?', sameChannels: g.sameChannels, nHops: g.nHops, channels };
}

/** Whether a CollNet plugin is loaded: as the caller says, else assumed when NCCL_COLLNET_ENABLE asks for CollNet. */
const collnetPluginOf = (input: EngineInput): boolean => input.collnetPlugin ?? collnetEnabled(input.vars, input.profile);

/** The system NCCL builds for rank 0 of the job, paths computed and trimmed. */
export function engineSystem(input: EngineInput): { sys: GSystem; env: SearchEnv } {
  checkXmlVersion(input.system);
  const env = searchEnv(input.vars, input.profile);
  const sys = systemFromXml(fillAndTrim(input.system, collnetPluginOf(input)), input.profile);
  computePaths(sys, env);
  trimSystem(sys, 0, sys.nodes[NT.GPU]!.length * input.nodes);
  computePaths(sys, env);
  searchInit(sys);
  return { sys, env };
}

/** Everything the oracle records, computed by ncclx's engine. */
export function runEngine(input: EngineInput): EngineResult {
  const { sys, env } = engineSystem(input);
  const gpus = sys.nodes[NT.GPU]!;
  const nets = sys.nodes[NT.NET]!;
  const name = (t: number) => PT_NAMES[t] ?? '?';
  const n = gpus.length;
  const search = input.search !== false;
  // The NETs as the system has them before the search, which takes bandwidth off them and (2.22.3, NVLS) may not give it all back.
  const netsOut = nets.map((n) => ({ dev: n.net!.dev, name: n.net!.name, bw: n.net!.bw, port: n.net!.port, gdr: n.net!.gdr, localGpu: n.net!.localGpu }));
  // init.cc initTransportsRank: the ring may take MAXCHANNELS/2 channels (ncclTopoDupChannels doubles up to that), CollNet direct and NVLS MAXCHANNELS.
  const maxChannels = input.profile.maxChannels;
  const ring = newGraph(GRAPH_IDS.ring, PATTERN.RING, 1, maxChannels / 2, n);
  if (search) compute(sys, ring, env);
  const tree = newGraph(GRAPH_IDS.tree, PATTERN.BALANCED_TREE, ring.nChannels, ring.nChannels, n);
  if (search) compute(sys, tree, env);
  const computed = graphsComputed(input.vars, input.profile, n, collnetPluginOf(input));
  const chain = newGraph(GRAPH_IDS.collnetChain, PATTERN.TREE, ring.nChannels, ring.nChannels, n, 1);
  const direct = newGraph(GRAPH_IDS.collnetDirect, PATTERN.COLLNET_DIRECT, 1, maxChannels, n, 1);
  if (search && computed.collnet) {
    compute(sys, chain, env);
    // Before 2.22.3 CollNet has the chain graph only (TopoProfile.search.collnetDirect).
    if (input.profile.search.collnetDirect) compute(sys, direct, env);
  }
  const nvls = newGraph(GRAPH_IDS.nvls, PATTERN.NVLS, 1, maxChannels, n);
  if (search && computed.nvls) compute(sys, nvls, env);
  const ccMin = minOf(gpus.map((g) => g.gpu!.sm));
  const channels = search ? finalChannels({ profile: input.profile, vars: input.vars, nodes: input.nodes, ngpus: n, ccMin, ring, tree, chain: computed.collnet ? chain : null }) : null;
  return {
    inter: sys.inter,
    nvs: sys.nodes[NT.NVS]!.length,
    maxBw: sys.maxBw,
    totalBw: sys.totalBw,
    gpus: gpus.map((g) => ({ rank: g.gpu!.rank, dev: g.gpu!.dev, sm: g.gpu!.sm, gdr: g.gpu!.gdr, busid: Number((g.gpu!.parent ?? g).id.split('/')[0]).toString(16) })),
    nets: netsOut,
    gpuNet: gpus.map((g) => nets.map((_, n) => {
      const p = g.paths[NT.NET]![n]!;
      return { type: name(p.type), bw: p.bw, hops: p.list.length, gdr: checkGdr(sys, g.gpu!.rank, n, false, env), gdrRead: checkGdr(sys, g.gpu!.rank, n, true, env), proxy: intermediateRank(sys, g.gpu!.rank, n) };
    })),
    gpuGpu: gpus.map((g) => gpus.map((_, h) => {
      const p = g.paths[NT.GPU]![h]!;
      return { type: name(p.type), bw: p.bw, hops: p.list.length };
    })),
    localNets: gpus.map((g) => [0, 1, 2, 3].map((c) => (nets.length ? nets[localNet(sys, g.gpu!.rank, c, env)]!.net!.dev : -1))),
    graphs: search ? [ring, tree, direct, chain, nvls].map((g) => graphOut(g, gpus.length)) : [],
    computed: search ? computed : null,
    channels,
  };
}
