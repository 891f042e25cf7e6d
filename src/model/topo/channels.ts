// What NCCL does with its graphs after the search: which graphs init.cc
// computes at all (initTransportsRank: CollNet with a CollNet plugin and
// NCCL_COLLNET_ENABLE, NVLS with NCCL_NVLS_ENABLE and enough GPUs), and the
// collective channels it ends with (init.cc, then graph/connect.cc
// ncclTopoPostset): the ring and tree keep the channels both have, every
// channel is doubled, CollNet and sm ≥ 90 add more, NCCL_MAX_NCHANNELS /
// NCCL_MAX_CTAS keep the first ones and NCCL_MIN_NCHANNELS / NCCL_MIN_CTAS
// copy them again. Each final channel runs the ring it was copied from, and
// takes its NICs from the ring graph's channel of its own index modulo the
// graph's channels (search.cc ncclTopoGetNetDev), which is not always the
// ring it runs. Pure. NCCL_ALGO is read by the tuner only (tuning.cc), after
// the graphs are computed: it changes which algorithm runs, not which graphs
// or channels exist.

import { strtoll0 } from '../nccl/cint.js';
import type { TopoProfile } from '../nccl/versions.js';

type Vars = Record<string, string | undefined>;

/** An NCCL integer parameter (ncclLoadParam: strtoll base 0, the default when unset or out of range), as the int (or int64) NCCL keeps. */
export function intParam(vars: Vars, name: string, d: number, bits: 32 | 64 = 32): number {
  const s = vars[name];
  if (s === undefined || s === '') return d;
  const r = strtoll0(s);
  return r.overflow ? d : Number(BigInt.asIntN(bits, r.value));
}

/** Which of the optional graphs initTransportsRank computes, and why. */
export interface GraphsComputed {
  /** CollNet chain and direct (ids 2 and 4). */
  collnet: boolean;
  /** NVLS (id 3); its search still needs an NVSwitch and sm ≥ 90. */
  nvls: boolean;
  reasons: string[];
}

/** NCCL_COLLNET_ENABLE as the release reads it: exactly "1" before 2.27.3, any non-zero integer from 2.27.3. */
export function collnetEnabled(vars: Vars, profile: TopoProfile): boolean {
  const v = vars['NCCL_COLLNET_ENABLE'];
  if (v === undefined) return false;
  if (!profile.collnetEnableInt) return v === '1';
  return intParam(vars, 'NCCL_COLLNET_ENABLE', 0) !== 0;
}

/**
 * The graphs init.cc computes besides the ring and the tree. CollNet needs a
 * CollNet plugin (collNetSupport); ncclx cannot see which plugin the job loads,
 * so one is assumed when NCCL_COLLNET_ENABLE asks for CollNet, unless the caller
 * knows better. NVLS (ncclNvlsInit) needs NCCL_NVLS_ENABLE not 0, more than two
 * GPUs in the node (two from 2.28.7), and CUDA multicast, assumed available.
 */
export function graphsComputed(vars: Vars, profile: TopoProfile, ngpus: number, collnetPlugin?: boolean): GraphsComputed {
  const reasons: string[] = [];
  const asked = collnetEnabled(vars, profile);
  const plugin = collnetPlugin ?? asked;
  const collnet = asked && plugin;
  if (vars['NCCL_COLLNET_ENABLE'] !== undefined && !asked) reasons.push(`NCCL_COLLNET_ENABLE=${vars['NCCL_COLLNET_ENABLE']} does not enable CollNet (${profile.collnetEnableInt ? 'it is 0' : 'only "1" does before 2.27.3'}): no CollNet graphs`);
  else if (asked && !plugin) reasons.push('NCCL_COLLNET_ENABLE asks for CollNet but no CollNet plugin is loaded: no CollNet graphs');
  else if (collnet) reasons.push('NCCL_COLLNET_ENABLE: CollNet chain and direct graphs computed (a CollNet network plugin assumed loaded)');
  const nvlsEnable = intParam(vars, 'NCCL_NVLS_ENABLE', 2);
  const minGpus = profile.nvlsTwoGpus ? 2 : 3;
  let nvls = true;
  if (nvlsEnable === 0) {
    nvls = false;
    reasons.push('NCCL_NVLS_ENABLE=0: no NVLS graph');
  } else if (ngpus < minGpus) {
    nvls = false;
    reasons.push(`${ngpus} GPU${ngpus === 1 ? '' : 's'} in the node: NVLS needs ${minGpus} or more (ncclNvlsInit${profile.nvlsTwoGpus ? '' : ', before 2.28.7'}): no NVLS graph`);
  }
  return { collnet, nvls, reasons };
}

/** The graph parts the channel logic reads. */
export interface ChannelGraph {
  nChannels: number;
  bwIntra: number;
  bwInter: number;
  /** intra[c * ngpus + i]: rank i of channel c. */
  intra: number[];
  /** inter[2c], inter[2c + 1]: the NETs channel c enters and leaves by. */
  inter: number[];
}

export interface FinalChannel {
  /** The ring graph channel whose GPU order this channel runs. */
  ring: number;
  /** Node 0's ranks in ring order (one node: from rank 0). */
  ranks: number[];
  /** The NET devices ncclTopoGetNetDev gives the rank receiving from the previous node and the one sending to the next (null within one node). */
  net: [number, number] | null;
}

export interface FinalChannels {
  /** The channels the ring and the tree both found. */
  searched: number;
  /** comm->nChannels after ncclTopoPostset (= collChannels). */
  nChannels: number;
  /** Whether CollNet stays on after the all-gather (chain found, nodes ≥ NCCL_COLLNET_NODE_THRESHOLD). */
  collnet: boolean;
  /** Each step that changed the count, in NCCL's order. */
  steps: string[];
  list: FinalChannel[];
}

export interface ChannelInput {
  profile: TopoProfile;
  vars: Vars;
  nodes: number;
  ngpus: number;
  /** The smallest compute capability of the job's GPUs (comm->minCompCap). */
  ccMin: number;
  ring: ChannelGraph;
  tree: { nChannels: number };
  /** The CollNet chain graph, when computed. */
  chain: ChannelGraph | null;
}

/** ncclMinNchannels / ncclMaxNchannels (connect.cc): NCCL_M*_NCHANNELS over the old NCCL_M*_NRINGS, bounded by MAXCHANNELS. */
function userChannelBounds(vars: Vars, maxChannels: number): { min: number; max: number } {
  let min = 0;
  if (intParam(vars, 'NCCL_MIN_NRINGS', -2) !== -2) min = intParam(vars, 'NCCL_MIN_NRINGS', -2);
  if (intParam(vars, 'NCCL_MIN_NCHANNELS', -2) !== -2) min = intParam(vars, 'NCCL_MIN_NCHANNELS', -2);
  min = Math.max(0, Math.min(min, maxChannels));
  let max = maxChannels;
  if (intParam(vars, 'NCCL_MAX_NRINGS', -2) !== -2) max = intParam(vars, 'NCCL_MAX_NRINGS', -2);
  if (intParam(vars, 'NCCL_MAX_NCHANNELS', -2) !== -2) max = intParam(vars, 'NCCL_MAX_NCHANNELS', -2);
  max = Math.max(1, Math.min(max, maxChannels));
  return { min, max };
}

/** The communicator's minCTAs / maxCTAs (init.cc parseCommConfig): 1 and MAXCHANNELS unless NCCL_MIN/MAX_CTAS say (a value ≤ 0 is ignored from 2.25.1), each capped at MAXCHANNELS, the minimum at most the maximum. */
export function ctaBounds(vars: Vars, profile: TopoProfile): { minCTAs: number; maxCTAs: number } {
  const UNDEF = -2147483648;
  const take = (name: string, d: number) => {
    const v = intParam(vars, name, UNDEF);
    if (v === UNDEF) return d;
    return profile.ctasPositiveOnly && v <= 0 ? d : v;
  };
  let minCTAs = Math.min(take('NCCL_MIN_CTAS', 1), profile.maxChannels);
  const maxCTAs = Math.min(take('NCCL_MAX_CTAS', profile.maxChannels), profile.maxChannels);
  if (minCTAs > maxCTAs) minCTAs = maxCTAs;
  return { minCTAs, maxCTAs };
}

/** The collective channels NCCL ends with, each with its ring and NICs (init.cc after the search, connect.cc ncclTopoPostset). */
export function finalChannels(input: ChannelInput): FinalChannels {
  const { profile, vars, nodes, ngpus, ring } = input;
  const MAX = profile.maxChannels;
  const steps: string[] = [];
  const searched = Math.min(ring.nChannels, input.tree.nChannels);
  // src[c]: the ring channel final channel c runs (copyChannels copies channel c − start).
  let src = Array.from({ length: searched }, (_, c) => c);
  const copyTo = (end: number) => {
    const start = src.length;
    for (let c = start; c < end; c++) src.push(src[c - start]!);
  };
  if (searched !== ring.nChannels) steps.push(`the ring and the tree keep the channels both found: ${searched}`);
  copyTo(Math.min(MAX, searched * 2));
  steps.push(`every channel doubled: ${src.length}`);
  const threshold = intParam(vars, 'NCCL_COLLNET_NODE_THRESHOLD', 2);
  const collnet = !!input.chain && input.chain.nChannels > 0 && nodes >= threshold;
  if (input.chain && !collnet) steps.push(input.chain.nChannels === 0 ? 'CollNet off: the chain graph found no channel' : `CollNet off: ${nodes} node${nodes === 1 ? '' : 's'}, below NCCL_COLLNET_NODE_THRESHOLD (${threshold})`);
  if (collnet && input.chain!.bwIntra > input.chain!.bwInter && ngpus > 1) {
    copyTo(Math.min(MAX, src.length + Math.trunc(src.length / 2)));
    steps.push(`CollNet: half as many again to fill the node's bandwidth: ${src.length}`);
  }
  const sm90 = profile.channelDoubleSm90Plus ? input.ccMin >= 90 : input.ccMin === 90;
  const room = profile.sm90DoubleBelow16 ? src.length < 16 : 2 * src.length <= MAX;
  if (sm90 && nodes > 1 && ring.bwIntra > 45.0 && room) {
    copyTo(2 * src.length);
    steps.push(`sm ${input.ccMin}, more than one node, ring at ${Math.round(ring.bwIntra * 10) / 10} GB/s: doubled again: ${src.length}`);
  }
  const user = userChannelBounds(vars, MAX);
  const cta = ctaBounds(vars, profile);
  // Before 2.25.1 NCCL_MAX_CTAS=0 is taken: no channel at all (a negative one is treated as 0 here).
  const keep = Math.max(0, Math.min(user.max, src.length, cta.maxCTAs));
  if (keep < src.length) {
    src = src.slice(0, keep);
    steps.push(`NCCL_MAX_NCHANNELS / NCCL_MAX_CTAS: the first ${keep}`);
  }
  const want = Math.max(user.min, cta.minCTAs);
  if (want > src.length) {
    copyTo(want);
    steps.push(`NCCL_MIN_NCHANNELS / NCCL_MIN_CTAS: copied up to ${want}`);
  }
  return { searched, nChannels: src.length, collnet, steps, list: src.map((s, c) => channelOf(input, s, c, searched)) };
}

/** Final channel c running ring channel s: node 0's ranks, and the NICs ncclTopoGetNetDev reads from graph channel c mod the graph's channels. */
function channelOf(input: ChannelInput, s: number, c: number, graphChannels: number): FinalChannel {
  const { ngpus, ring, nodes } = input;
  const order = ring.intra.slice(s * ngpus, (s + 1) * ngpus);
  if (nodes === 1) {
    const at = order.indexOf(0);
    return { ring: s, ranks: at > 0 ? [...order.slice(at), ...order.slice(0, at)] : order, net: null };
  }
  const g = c % graphChannels;
  const head = ring.intra[g * ngpus];
  const nic = (rank: number) => ring.inter[g * 2 + (head === rank ? 0 : 1)]!;
  return { ring: s, ranks: order, net: [nic(order[0]!), nic(order[ngpus - 1]!)] };
}
