// NCCL's graph search (NVIDIA/nccl src/graph/search.cc ncclTopoSearchInit,
// ncclTopoCompute and what it calls): the rings, trees, NVLS and CollNet
// graphs of one node, their channels (GPU order by rank) and the NET each
// channel enters and leaves by, found exactly as NCCL finds them — the
// same candidate orders, the same bandwidth bookkeeping in 32-bit floats,
// and the same "timeout", which counts search steps, not time. Pure.

import { MAXCHANNELS, NT, PT, CPU_ARCH, CPU_VENDOR, type GLink, type GNode, type GPath, type GSystem } from './engine.js';
import { getLocal, localNet, type PathEnv } from './engine-paths.js';
import { minOf } from '../list.js';
import type { SearchRules } from '../nccl/versions.js';

const f32 = Math.fround;

export const PATTERN = { BALANCED_TREE: 1, SPLIT_TREE: 2, TREE: 3, RING: 4, NVLS: 5, COLLNET_DIRECT: 6 } as const;

export interface TopoGraph {
  id: number;
  pattern: number;
  crossNic: number;
  collNet: number;
  minChannels: number;
  maxChannels: number;
  nChannels: number;
  bwIntra: number;
  bwInter: number;
  latencyInter: number;
  typeIntra: number;
  typeInter: number;
  sameChannels: number;
  nHops: number;
  /** intra[c * ngpus + i]: the rank at position i of channel c. */
  intra: number[];
  /** inter[2c], inter[2c + 1]: the NET (device number) channel c enters and leaves by. */
  inter: number[];
}

/** What the search reads besides the graph: NCCL_CROSS_NIC and the path environment. */
export interface SearchEnv extends PathEnv {
  crossNic: number;
}

const TIMEOUT = { SEARCH: 1 << 14, TREE: 1 << 14, SAME: 1 << 8 };
const FORCED = { NONE: 0, PCI: 1, REPLAY: 2 };
const MAX_NVLS_ARITY = 32;
const MAX_DIRECT_ARITY = 7;

const SPEED = {
  intra: [40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0],
  inter: [48.0, 30.0, 28.0, 24.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.4, 1.2, 0.24, 0.12],
  sm90Intra: [60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 11.0, 6.0, 3.0],
  sm90Inter: [48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0, 6.0, 3.0, 2.4, 1.2, 0.24, 0.12],
  /** Before 2.21.5 sm 90's intra-node array lacks 11, before 2.19.1 50 too; before 2.19.3 the inter-node one lacks 22 (SearchRules). */
  sm90IntraBefore2215: [60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 6.0, 3.0],
  sm90IntraBefore2191: [60.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 6.0, 3.0],
  sm90InterBefore2193: [48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 20.0, 17.5, 15.0, 12.0, 6.0, 3.0, 2.4, 1.2, 0.24, 0.12],
  sm100Intra: [90.0, 80.0, 70.0, 60.0, 50.0, 45.0, 40.0, 30.0, 24.0, 20.0, 19.0, 18.0],
  sm100Inter: [96.0, 86.0, 80.0, 48.0, 45.1, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0, 6.0, 3.0, 2.4, 1.2, 0.24, 0.12],
  /** Before 2.30.3. */
  sm100IntraV1: [90.0, 80.0, 70.0, 60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 19.0, 18.0],
  sm100InterV1: [96.0, 48.0, 45.1, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0, 6.0, 3.0, 2.4, 1.2, 0.24, 0.12],
};

/** C roundf: half away from zero. */
const roundf = (x: number) => (x < 0 ? -Math.round(-x) : Math.round(x));
/** SUB_ROUND: a − b rounded to 1/1000, in floats. */
const subRound = (a: number, b: number) => f32(roundf(f32(f32(a - b) * 1000)) / 1000);

/** The node a GPU's PCI and NVLinks start at: its DEV (≥ 2.30.3) or itself. */
const devOf = (g: GNode): GNode => g.gpu?.parent ?? g;
const smOf = (n: GNode): number => (n.dev ? n.dev.sm : n.gpu ? n.gpu.sm : 0);

interface Ctx {
  sys: GSystem;
  env: SearchEnv;
  /** The release's search.cc differences. */
  rules: SearchRules;
  gpus: GNode[];
  nets: GNode[];
  /** selectNets answers by (typeInter, gpu): paths do not change during a search, only link bandwidths. */
  netLists: Map<string, number[]>;
  /** sortedCandidates by (GPU, NET). */
  sorted: Map<string, Score[]>;
  /** NET index by device number. */
  netByDev: Map<number, number>;
}

function getMaxBw(sys: GSystem, node: GNode, type: number): number {
  let max = 0;
  for (const p of node.paths[type] ?? []) if (p.list.length) max = Math.max(max, p.bw);
  return max;
}
function getTotalBw(node: GNode): number {
  let nvl = 0;
  let pci = 0;
  for (const l of node.links) {
    if (l.type === 1) nvl = f32(nvl + l.bw);
    if (l.type === 4) pci = l.bw;
  }
  return Math.max(pci, nvl);
}

/** ncclTopoSearchInit: the per-channel bandwidth ceiling (maxBw) and a GPU's total (totalBw). */
export function searchInit(sys: GSystem): void {
  sys.maxBw = 0;
  sys.totalBw = 0;
  const inter = sys.inter;
  if (inter === 0 && sys.nodes[NT.GPU]!.length === 1) {
    sys.maxBw = 5000;
    if (sys.profile.singleGpuBw) sys.totalBw = 5000;
    return;
  }
  const devs = sys.profile.devNodes ? sys.nodes[NT.DEV]! : sys.nodes[NT.GPU]!;
  for (const d of devs) {
    sys.maxBw = Math.max(sys.maxBw, getMaxBw(sys, d, inter ? NT.NET : sys.profile.devNodes ? NT.DEV : NT.GPU));
    sys.totalBw = Math.max(sys.totalBw, getTotalBw(d));
  }
}

/** findRevLink: the link back from `to` to `from` (before 2.19.1 the first, whatever its type). */
function findRevLink(from: GNode, to: GNode, type: number, typed: boolean): GLink {
  const l = to.links.find((x) => x.rem === from && (!typed || x.type === type));
  if (!l) throw new Error(`Could not find rev link for ${from.id} -> ${to.id}`);
  return l;
}

/** followPath: take `bw` off every link of the path (the first maxSteps); the step it stopped at when one lacks it. */
function followPath(path: GPath, start: GNode, maxSteps: number, bw: number, rules: SearchRules): number {
  const typed = rules.revLinkTyped;
  let pciBw = bw;
  for (const link of path.list) {
    const node = link.rem;
    if (node.type === NT.CPU && path.type === PT.PHB && start.type === NT.GPU && node.cpu!.arch === CPU_ARCH.X86 && node.cpu!.vendor === CPU_VENDOR.INTEL) pciBw = f32(f32(bw * 6) / 5);
  }
  let node = start;
  for (let step = 0; step < maxSteps; step++) {
    const link = path.list[step]!;
    let rev: GLink | null = null;
    const fw = link.type === 4 ? pciBw : bw;
    let revBw = 0;
    const rem = link.rem;
    if ((rem.type === NT.DEV || (rem.type === NT.GPU && !rem.gpu!.parent)) && smOf(rem) < 80 && start.type !== NT.GPU) {
      rev ??= findRevLink(node, rem, link.type, typed);
      revBw = f32(revBw + f32(fw / 8));
    }
    if (rem.type === NT.CPU && (rem.cpu!.arch === CPU_ARCH.POWER || !typed) && link.type === 1) {
      rev ??= findRevLink(node, rem, link.type, typed);
      revBw = f32(revBw + fw);
    }
    if (link.bw < fw || (revBw && rev!.bw < revBw)) return step;
    link.bw = subRound(link.bw, fw);
    if (revBw) rev!.bw = subRound(rev!.bw, revBw);
    node = rem;
  }
  return maxSteps;
}

function nodeAt(ctx: Ctx, type: number, index: number): GNode {
  return ctx.sys.nodes[type]![index]!;
}

/** ncclTopoFollowPath: the destination when the path is of an allowed type and has the bandwidth (which it then carries), else null. */
function followTo(ctx: Ctx, graph: TopoGraph, type1: number, index1: number, type2: number, index2: number, mult: number): GNode | null {
  const node2 = nodeAt(ctx, type2, index2);
  if (type1 === -1) return node2;
  const node1 = nodeAt(ctx, type1, index1);
  const path = node1.paths[type2]![index2]!;
  const revPath = node2.paths[type1]![index1]!;
  if (ctx.rules.followEmptyPath && path.list.length === 0) return node2;
  const intra = (type1 === NT.GPU || type1 === NT.NVS) && (type2 === NT.GPU || type2 === NT.NVS);
  let bw = intra ? graph.bwIntra : graph.bwInter;
  const type = intra ? graph.typeIntra : graph.typeInter;
  if (path.type >= PT.DIS) return null;
  if (mult === 1 && path.type > type) return null;
  if (mult === 1 && (graph.pattern === PATTERN.BALANCED_TREE || graph.pattern === PATTERN.TREE || graph.pattern === PATTERN.SPLIT_TREE) && revPath.type > type) return null;
  bw = f32(bw * mult);
  const count = path.list.length;
  const step = followPath(path, node1, count, bw, ctx.rules);
  if (step < count) {
    followPath(path, node1, step, -bw, ctx.rules);
    return null;
  }
  graph.nHops = Math.trunc(f32(graph.nHops + f32(mult * count)));
  return node2;
}

/** gpuPciBw: the GPU's PCI link bandwidth, the smaller direction, as an int. */
function gpuPciBw(g: GNode): number {
  const dev = devOf(g);
  for (const l of dev.links) {
    if (l.type !== 4) continue;
    const back = l.rem.links.find((x) => x.rem === dev);
    if (back) return Math.trunc(Math.min(l.bw, back.bw));
  }
  return -1;
}

interface Score {
  g: number;
  startIndex: number;
  intraNhops: number;
  intraBw: number;
  interNhops: number;
  interPciBw: number;
  interBw: number;
}

const cmpScore = (a: Score, b: Score) => b.interBw - a.interBw || b.interPciBw - a.interPciBw || a.interNhops - b.interNhops || b.intraBw - a.intraBw || a.intraNhops - b.intraNhops || a.startIndex - b.startIndex;

const netIndex = (ctx: Ctx, dev: number) => ctx.netByDev.get(dev) ?? -1;

/**
 * The GPUs reachable from GPU `start`, best first by ncclTopoSearchNextGpuSort's
 * score (with `net`'s paths when sorting for the network). Paths do not change
 * during a search, so their part of the score is computed once; the GPU's PCI
 * link bandwidth (interPciBw) is read live, as NCCL reads it, because the
 * search takes bandwidth off that link. The GPUs a channel already uses are
 * filtered out by the caller (the score is a total order, so filtering after
 * sorting is the same as before).
 */
function sortedCandidates(ctx: Ctx, start: number, net: number): Score[] {
  const key = `${start}/${net}`;
  let list = ctx.sorted.get(key);
  if (!list) {
    const ngpus = ctx.gpus.length;
    const paths = ctx.gpus[start]!.paths[NT.GPU]!;
    const netPaths = net >= 0 ? ctx.nets[net]!.paths[NT.GPU]! : null;
    list = [];
    for (let i = 1; i < ngpus; i++) {
      const g = (start + i) % ngpus;
      if (paths[g]!.list.length === 0) continue;
      list.push({
        g,
        startIndex: i,
        intraNhops: paths[g]!.list.length,
        intraBw: Math.trunc(paths[g]!.bw),
        interNhops: netPaths ? netPaths[g]!.list.length : 0,
        interPciBw: 0,
        interBw: netPaths ? Math.trunc(netPaths[g]!.bw) : 0,
      });
    }
    if (!netPaths) list.sort(cmpScore);
    ctx.sorted.set(key, list);
  }
  if (net < 0) return list;
  for (const s of list) s.interPciBw = gpuPciBw(ctx.gpus[s.g]!);
  return list.slice().sort(cmpScore);
}

/** ncclTopoSearchNextGpuSort: the GPUs to try next from `gpu`, best first. */
function nextGpuSort(ctx: Ctx, graph: TopoGraph, gpu: GNode, sortNet: number): number[] {
  const ngpus = ctx.gpus.length;
  const start = ctx.gpus.indexOf(gpu);
  const scores = sortedCandidates(ctx, start, sortNet ? netIndex(ctx, graph.inter[graph.nChannels * 2]!) : -1).filter((s) => !ctx.gpus[s.g]!.used.has(graph.nChannels));
  const sameIntra = scores.every((s) => s.intraBw === scores[0]!.intraBw && s.intraNhops === scores[0]!.intraNhops);
  let next = sortNet === -1 && sameIntra ? scores.map((s) => s.g).reverse() : scores.map((s) => s.g);
  const neighbours = ctx.rules.nvsNeighbours;
  if (ctx.sys.nodes[NT.NVS]!.length && neighbours !== 'none') {
    // NVSwitches prefer a limited set of peers: neighbours first, and (≥ 2.21.5) only them.
    const prev = (start - 1 + ngpus) % ngpus;
    const nxt = (start + 1) % ngpus;
    let first = graph.pattern === PATTERN.RING ? [nxt, prev] : graph.pattern === PATTERN.SPLIT_TREE || graph.pattern === PATTERN.BALANCED_TREE ? [prev, nxt] : [nxt];
    if (neighbours === 'only' && nxt === prev && first.length === 2) first = [first[0]!];
    let real = 0;
    for (const f of first) {
      const i = next.indexOf(f);
      if (i < 0) continue;
      next = [f, ...next.slice(0, i), ...next.slice(i + 1)];
      real++;
    }
    return neighbours === 'only' ? next.slice(0, real) : next;
  }
  return next;
}

function replayGpu(ctx: Ctx, graph: TopoGraph, step: number): number {
  const ngpus = ctx.gpus.length;
  const rank = graph.intra[(graph.nChannels - 1) * ngpus + step + 1];
  return ctx.gpus.findIndex((g) => g.gpu!.rank === rank);
}

function copyGraph(to: TopoGraph, from: TopoGraph): void {
  Object.assign(to, from, { intra: from.intra.slice(), inter: from.inter.slice() });
}

function tryGpu(ctx: Ctx, graph: TopoGraph, save: TopoGraph, step: number, backToNet: number, backToFirstRank: number, forced: number, time: { t: number }, type: number, index: number, g: number): void {
  const gpu = followTo(ctx, graph, type, index, NT.GPU, g, 1);
  if (!gpu) return;
  const flag = graph.nChannels;
  toggle(gpu, flag);
  recGpu(ctx, graph, save, gpu, step, backToNet, backToFirstRank, forced, time);
  toggle(gpu, flag);
  followTo(ctx, graph, type, index, NT.GPU, g, -1);
}
function toggle(g: GNode, c: number): void {
  if (g.used.has(c)) g.used.delete(c);
  else g.used.add(c);
}

function tryCollnetDirect(ctx: Ctx, graph: TopoGraph, save: TopoGraph, g: number, ngpus: number, time: { t: number }): void {
  const count = ctx.gpus.length;
  const mul = f32(1 / (count - 1));
  let fwd = 0;
  let bwd = 0;
  let gpu: GNode | null = null;
  do gpu = followTo(ctx, graph, NT.GPU, g, NT.GPU, fwd, mul);
  while (gpu && ++fwd < count);
  if (gpu) {
    do gpu = followTo(ctx, graph, NT.GPU, bwd, NT.GPU, g, mul);
    while (gpu && ++bwd < count);
    if (gpu) {
      let step = 1;
      for (let i = 0; i < ngpus; i++) if (i !== g) graph.intra[graph.nChannels * ngpus + step++] = ctx.gpus[i]!.gpu!.rank;
      recGpu(ctx, graph, save, null, ngpus, -1, -1, 0, time);
    }
    while (bwd) followTo(ctx, graph, NT.GPU, --bwd, NT.GPU, g, -mul);
  }
  while (fwd) followTo(ctx, graph, NT.GPU, g, NT.GPU, --fwd, -mul);
}

function tryNvls(ctx: Ctx, graph: TopoGraph, save: TopoGraph, g: number, ngpus: number, time: { t: number }): void {
  const count = ctx.gpus.length;
  let d0 = 0;
  let gpu: GNode | null;
  do {
    gpu = followTo(ctx, graph, NT.NVS, 0, NT.GPU, d0, d0 === g ? 2 : 1);
    d0++;
  } while (gpu && d0 < count);
  if (!gpu) d0--;
  else {
    let d1 = 0;
    let nvs: GNode | null;
    do {
      nvs = followTo(ctx, graph, NT.GPU, d1, NT.NVS, 0, d1 === g ? 2 : 1);
      d1++;
    } while (nvs && d1 < count);
    if (!nvs) d1--;
    else recGpu(ctx, graph, save, null, ngpus, -1, -1, 0, time);
    while (d1) {
      d1--;
      followTo(ctx, graph, NT.GPU, d1, NT.NVS, 0, d1 === g ? -2 : -1);
    }
  }
  while (d0) {
    d0--;
    followTo(ctx, graph, NT.NVS, 0, NT.GPU, d0, d0 === g ? -2 : -1);
  }
}

/** ncclTopoCompareGraphs: whether `graph` is better than the saved one. */
function better(ctx: Ctx, graph: TopoGraph, ref: TopoGraph): boolean {
  if (graph.nChannels < graph.minChannels) return false;
  if (graph.pattern === PATTERN.NVLS) {
    let copy = graph.nChannels > ref.nChannels && graph.nChannels <= ctx.gpus.length;
    if (ctx.rules.nvlsCompareBw && f32(graph.nChannels * graph.bwInter) > f32(ref.nChannels * ref.bwInter)) copy = true;
    return copy;
  }
  // Before 2.20.3 a graph that crosses NICs needs 15 % more to win (crossNic bonus).
  const bonus = ctx.rules.crossNic === 'flag' || ctx.rules.crossNic === 'param';
  const target = bonus ? f32(1.0 - (ref.crossNic - graph.crossNic) * 0.15) : 1;
  const a = f32(graph.nChannels * graph.bwIntra);
  const b = f32(f32(ref.nChannels * ref.bwIntra) * target);
  if (a > b) return true;
  if (a < b) return false;
  return graph.pattern === ref.pattern && graph.crossNic === ref.crossNic && graph.nHops < ref.nHops;
}

/** ncclTopoPrefNetsChannelFirst: each GPU's local NETs by channel, in GPU order, each once. */
function prefNets(ctx: Ctx, gpu: number): number[] {
  const out: number[] = [];
  for (let g = 0; g < ctx.gpus.length; g++) {
    if (gpu !== -1 && gpu !== g) continue;
    const locals: number[] = [];
    for (let c = 0; c < MAXCHANNELS; c++) {
      const n = localNet(ctx.sys, ctx.gpus[g]!.gpu!.rank, c, ctx.env);
      if (locals.length > 0 && n === locals[0]) break;
      locals.push(n);
    }
    for (const n of locals) if (!out.includes(n)) out.push(n);
  }
  return out;
}

/** ncclTopoSelectNets: the preferred NETs, then (policy allowing) the others by path type up to typeInter. */
function selectNets(ctx: Ctx, typeInter: number, gpu: number): number[] {
  const key = `${typeInter}/${gpu}`;
  let list = ctx.netLists.get(key);
  if (!list) ctx.netLists.set(key, (list = selectNetsOnce(ctx, typeInter, gpu)));
  return list;
}
function selectNetsOnce(ctx: Ctx, typeInter: number, gpu: number): number[] {
  const nets = prefNets(ctx, gpu);
  const policy = ctx.sys.profile.netDevsPolicy ? ctx.env.netDevsPolicy : 'AUTO';
  let max = typeof policy === 'number' ? policy : 0;
  if (gpu === -1) max *= ctx.gpus.length;
  if (typeof policy !== 'number') max = 640;
  if (nets.length >= max) return nets;
  for (let t = 0; t <= typeInter; t++) {
    for (let g = 0; g < ctx.gpus.length; g++) {
      if (gpu !== -1 && gpu !== g) continue;
      const paths = ctx.gpus[g]!.paths[NT.NET]!;
      for (let n = 0; n < ctx.nets.length && (!ctx.rules.selectNetsCap || n < ctx.sys.profile.maxChannels); n++) {
        if (paths[n]!.type !== t) continue;
        if (!nets.includes(n)) nets.push(n);
        if (nets.length >= max) return nets;
      }
    }
  }
  return nets;
}

/** ncclTopoSearchCheckNet: whether NET n may close a channel that started at `start`. */
function checkNet(ctx: Ctx, graph: TopoGraph, start: GNode, n: number, step: number): boolean {
  const net = ctx.nets[n]!;
  if (graph.pattern === PATTERN.TREE && net !== start) return false;
  const odd = graph.nChannels & 1 && net.net!.dev !== graph.inter[(graph.nChannels - 1) * 2];
  if (ctx.rules.crossNic !== 'ring-alternate') {
    // Before 2.23.4 any crossNic but 1 keeps the start NET's ASIC and port; from 2.20.3 crossNic alternates too.
    if (graph.crossNic !== 1 && (net.net!.asic !== start.net!.asic || net.net!.port !== start.net!.port)) return false;
    if (ctx.rules.crossNic === 'alternate' && graph.crossNic && odd) return false;
  } else if (graph.pattern === PATTERN.RING && graph.crossNic === 2) {
    if (odd) return false;
  } else if (graph.crossNic === 0) {
    if (net.net!.asic !== start.net!.asic || net.net!.port !== start.net!.port) return false;
  }
  if (graph.pattern === PATTERN.BALANCED_TREE && step !== 0 && net.net!.dev !== graph.inter[graph.nChannels * 2 + 1]) return false;
  return true;
}

function recGpu(ctx: Ctx, graph: TopoGraph, save: TopoGraph, gpu: GNode | null, step: number, backToNet: number, backToFirstRank: number, forced: number, time: { t: number }): void {
  if (time.t <= 0) return;
  time.t--;
  const ngpus = ctx.gpus.length;
  if (step === ngpus) {
    graph.nChannels++;
    if (better(ctx, graph, save)) {
      copyGraph(save, graph);
      if (graph.nChannels === graph.maxChannels) time.t = -1;
    }
    if (graph.nChannels < graph.maxChannels) searchRec(ctx, graph, save, time);
    graph.nChannels--;
    return;
  }
  graph.intra[graph.nChannels * ngpus + step] = gpu!.gpu!.rank;
  const g = ctx.gpus.indexOf(gpu!);
  if (step === backToNet) {
    if (!ctx.sys.inter) return;
    const start = ctx.nets[netIndex(ctx, graph.inter[graph.nChannels * 2]!)]!;
    for (const n of selectNets(ctx, graph.typeInter, g)) {
      if (!checkNet(ctx, graph, start, n, step)) continue;
      let nextBackToNet = -1;
      const saveBw = graph.bwInter;
      if (graph.pattern === PATTERN.BALANCED_TREE) {
        if (step === 0) nextBackToNet = 1;
        graph.bwInter = f32(graph.bwInter / 2);
      }
      const net = followTo(ctx, graph, NT.GPU, g, NT.NET, n, 1);
      graph.bwInter = saveBw;
      if (!net) continue;
      graph.inter[graph.nChannels * 2 + 1] = net.net!.dev;
      recGpu(ctx, graph, save, gpu, step, nextBackToNet, backToFirstRank, forced, time);
      if (graph.pattern === PATTERN.BALANCED_TREE) graph.bwInter = f32(graph.bwInter / 2);
      followTo(ctx, graph, NT.GPU, g, NT.NET, n, -1);
      graph.bwInter = saveBw;
    }
  } else if (graph.pattern === PATTERN.NVLS) {
    tryNvls(ctx, graph, save, g, ngpus, time);
  } else if (graph.pattern === PATTERN.COLLNET_DIRECT) {
    tryCollnetDirect(ctx, graph, save, g, ngpus, time);
  } else if (step < ngpus - 1) {
    let next: number[];
    if (forced === FORCED.PCI) next = [step + 1];
    else if (forced === FORCED.REPLAY) next = [replayGpu(ctx, graph, step)];
    else next = nextGpuSort(ctx, graph, gpu!, backToNet === -1 ? 0 : backToNet === step + 1 ? 1 : -1);
    for (const n of next) tryGpu(ctx, graph, save, step + 1, backToNet, backToFirstRank, forced, time, NT.GPU, g, n);
  } else if (step === backToFirstRank) {
    const p = ctx.gpus.findIndex((x) => x.gpu!.rank === graph.intra[graph.nChannels * ngpus]);
    const first = followTo(ctx, graph, NT.GPU, g, NT.GPU, p, 1);
    if (first) {
      recGpu(ctx, graph, save, first, step + 1, backToNet, -1, forced, time);
      followTo(ctx, graph, NT.GPU, g, NT.GPU, p, -1);
    }
  } else {
    recGpu(ctx, graph, save, gpu, ngpus, -1, -1, forced, time);
  }
}

function recNet(ctx: Ctx, graph: TopoGraph, save: TopoGraph, backToNet: number, backToFirstRank: number, time: { t: number }): void {
  const rules = ctx.rules;
  const bw = Math.trunc(graph.bwInter);
  const nets = selectNets(ctx, graph.typeInter, -1);
  const heads = graph.pattern === PATTERN.NVLS || graph.pattern === PATTERN.COLLNET_DIRECT;
  let found = false;
  for (let i = 0; i < nets.length; i++) {
    if (heads && (found || (rules.nvlsHeads === 'first-net' && i > 0))) break;
    const n = nets[rules.netRotation ? (graph.nChannels + i) % nets.length : i]!;
    const net = ctx.nets[n]!;
    if (graph.collNet && net.net!.coll === 0) continue;
    if (net.net!.bw < bw) continue;
    if (startsElsewhere(ctx, graph, net)) continue;
    graph.inter[graph.nChannels * 2] = net.net!.dev;
    graph.latencyInter = net.net!.latency;
    const sameAsic = ctx.nets.filter((x) => x.net!.asic === net.net!.asic && x.net!.port === net.net!.port);
    for (const x of sameAsic) x.net!.bw = f32(x.net!.bw - bw);
    let skipRestore = false;
    if (heads && rules.nvlsHeads === 'every-net') {
      // Before 2.19.1 every NET tries the same head, NET number nChannels's local GPU, reached without a path.
      if (graph.nChannels < nets.length) {
        const gpu = ctx.nets[nets[graph.nChannels]!]!.net!.localGpu;
        if (gpu !== -1) tryGpu(ctx, graph, save, 0, backToNet, backToFirstRank, 0, time, -1, -1, gpu);
      }
    } else if (heads) {
      if (graph.nChannels < nets.length) {
        const gpu = net.net!.localGpu;
        const dup = gpu !== -1 && rules.nvlsHeads !== 'first-net' && isHead(ctx, graph, gpu);
        // 2.22.3 skips a duplicate head's NET before giving its bandwidth back.
        if (dup && rules.nvlsHeads === 'found') skipRestore = true;
        else if (gpu !== -1 && !dup) tryGpu(ctx, graph, save, 0, backToNet, backToFirstRank, 0, time, NT.NET, n, gpu);
        found = rules.nvlsHeads === 'found' ? !dup : gpu !== -1 && !dup;
      }
    } else if (!ctx.sys.profile.netLocalGpuStart) {
      startFromBestGpus(ctx, graph, save, n, bw, backToNet, backToFirstRank, time);
    } else if (graph.nChannels > 0 && graph.sameChannels === 1) {
      tryGpu(ctx, graph, save, 0, backToNet, backToFirstRank, FORCED.REPLAY, time, NT.NET, n, replayGpu(ctx, graph, -1));
    } else {
      if (graph.nChannels === 0 && ctx.sys.nodes[NT.NVS]!.length === 0) {
        // The PCI order first, as a reference, on its own small budget.
        const t = { t: 1 << 10 };
        tryGpu(ctx, graph, save, 0, backToNet, backToFirstRank, FORCED.PCI, t, NT.NET, n, 0);
        if (t.t === -1) time.t = -1;
      }
      const lg = net.net!.localGpu;
      if (lg !== -1) tryGpu(ctx, graph, save, 0, backToNet, backToFirstRank, 0, time, NT.NET, n, lg);
      const { locals, type } = getLocal(ctx.sys, NT.NET, n, NT.GPU);
      // NCCL skips the rest of this NET here, and with it giving the bandwidth back.
      if (type === PT.DIS) skipRestore = true;
      else for (const g of locals) if (g !== lg) tryGpu(ctx, graph, save, 0, backToNet, backToFirstRank, 0, time, NT.NET, n, g);
    }
    if (!skipRestore) for (const x of sameAsic) x.net!.bw = f32(x.net!.bw + bw);
  }
}

/** Whether GPU g already heads one of the graph's channels. */
function isHead(ctx: Ctx, graph: TopoGraph, g: number): boolean {
  const rank = ctx.gpus[g]!.gpu!.rank;
  for (let c = 0; c < graph.nChannels; c++) if (graph.intra[c * ctx.gpus.length] === rank) return true;
  return false;
}

/** With crossNic alternating (2.20.3: any crossNic; ≥ 2.23.4: rings with 2), an odd channel starts at the NET the previous one ended at. */
function startsElsewhere(ctx: Ctx, graph: TopoGraph, net: GNode): boolean {
  const mode = ctx.rules.crossNic;
  const alternates = mode === 'alternate' ? graph.crossNic !== 0 : mode === 'ring-alternate' && graph.pattern === PATTERN.RING && graph.crossNic === 2;
  return alternates && (graph.nChannels & 1) === 1 && net.net!.dev !== graph.inter[(graph.nChannels - 1) * 2 + 1];
}

/** Before 2.27.5: replay the last channel, then (first channel, or different channels allowed) the PCI order and every GPU of best bandwidth, then fewest hops, from NET n, in turn from the channel's index. */
function startFromBestGpus(ctx: Ctx, graph: TopoGraph, save: TopoGraph, n: number, bw: number, backToNet: number, backToFirstRank: number, time: { t: number }): void {
  if (graph.nChannels > 0) tryGpu(ctx, graph, save, 0, backToNet, backToFirstRank, FORCED.REPLAY, time, NT.NET, n, replayGpu(ctx, graph, -1));
  if (graph.nChannels !== 0 && graph.sameChannels !== 0) return;
  const rules = ctx.rules;
  // The PCI order first, as a reference, on its own small budget (from 2.19.3 not with NVSwitches).
  if (graph.nChannels === 0 && (!rules.pciRefSkipsNvs || ctx.sys.nodes[NT.NVS]!.length === 0)) {
    const t = { t: 1 << 10 };
    tryGpu(ctx, graph, save, 0, backToNet, backToFirstRank, FORCED.PCI, t, NT.NET, n, 0);
    if (t.t === -1) time.t = -1;
  }
  const paths = ctx.nets[n]!.paths[NT.GPU]!;
  let maxBw = 0;
  let minHops = 0xfffffff;
  paths.forEach((p) => {
    if (p.bw > maxBw) {
      maxBw = p.bw;
      minHops = p.list.length;
    } else if (p.bw === maxBw && (p.list.length > 0 || !rules.minHopsReachable) && p.list.length < minHops) minHops = p.list.length;
  });
  if (maxBw < bw) return;
  const ngpus = ctx.gpus.length;
  const best = (g: number) => paths[g]!.bw === maxBw && paths[g]!.list.length === minHops;
  if (rules.netRotation) {
    for (let i = 0; i < ngpus; i++) {
      const g = (graph.nChannels + i) % ngpus;
      if (best(g)) tryGpu(ctx, graph, save, 0, backToNet, backToFirstRank, 0, time, NT.NET, n, g);
    }
    return;
  }
  // Before 2.19.1: in GPU order, first the GPUs whose PCI link has bandwidth left, then the others.
  for (const usedLink of [false, true]) {
    for (let g = 0; g < ngpus; g++) if (best(g) && (gpuPciBw(ctx.gpus[g]!) <= 0) === usedLink) tryGpu(ctx, graph, save, 0, backToNet, backToFirstRank, 0, time, NT.NET, n, g);
  }
}

function searchParams(ctx: Ctx, pattern: number): { backToNet: number; backToFirstRank: number } {
  const n = ctx.gpus.length;
  if (ctx.sys.inter) return { backToNet: pattern === PATTERN.RING ? n - 1 : pattern === PATTERN.SPLIT_TREE ? 1 : 0, backToFirstRank: -1 };
  return { backToNet: -1, backToFirstRank: pattern === PATTERN.RING ? n - 1 : -1 };
}

function searchRec(ctx: Ctx, graph: TopoGraph, save: TopoGraph, time: { t: number }): void {
  const { backToNet, backToFirstRank } = searchParams(ctx, graph.pattern);
  if (ctx.sys.inter) {
    recNet(ctx, graph, save, backToNet, backToFirstRank, time);
    return;
  }
  if (graph.pattern === PATTERN.NVLS) {
    tryGpu(ctx, graph, save, 0, backToNet, backToFirstRank, 0, time, -1, -1, graph.nChannels);
    return;
  }
  if (graph.nChannels === 0) tryGpu(ctx, graph, save, 0, backToNet, backToFirstRank, FORCED.PCI, time, -1, -1, 0);
  else tryGpu(ctx, graph, save, 0, backToNet, backToFirstRank, FORCED.REPLAY, time, -1, -1, replayGpu(ctx, graph, -1));
  if (graph.sameChannels === 0 || graph.nChannels === 0) for (let g = 0; g < ctx.gpus.length; g++) tryGpu(ctx, graph, save, 0, backToNet, backToFirstRank, 0, time, -1, -1, g);
}

function gpuPathRange(ctx: Ctx, type: number): { min: number; max: number } {
  let min: number = PT.SYS;
  let max: number = PT.LOC;
  ctx.gpus.forEach((gpu, i) => {
    const paths = gpu.paths[type];
    if (!paths) return;
    for (let j = 0; j < ctx.sys.nodes[type]!.length; j++) {
      if (type === NT.GPU && i === j) continue;
      min = Math.min(min, paths[j]!.type);
      max = Math.max(max, paths[j]!.type);
    }
  });
  return { min, max };
}

/** ncclTopoSplitNvLink: two NVLink domains joined by something slower. */
function splitNvLink(ctx: Ctx): boolean {
  const n = ctx.gpus.length;
  const domain = ctx.gpus.map((_, g) => g);
  for (let g = 0; g < n; g++) for (let p = g + 1; p < n; p++) if (ctx.gpus[g]!.paths[NT.GPU]![p]!.type === PT.NVL) domain[p] = domain[g]!;
  const count = new Array<number>(n).fill(0);
  for (const d of domain) count[d]!++;
  return count.filter((c) => c > 1).length === 2;
}

/** ncclTopoDupChannels: fast graphs get their channels twice at half the bandwidth. */
function dupChannels(graph: TopoGraph, ccMin: number, ngpus: number): void {
  if (graph.nChannels === 0 || graph.pattern === PATTERN.NVLS || graph.bwIntra < 25.0) return;
  if (ccMin > 80 && graph.bwIntra < 50.0 && graph.nChannels > 4) return;
  const dup = Math.min(graph.nChannels * 2, graph.maxChannels);
  for (let i = 0; i < (dup - graph.nChannels) * ngpus; i++) graph.intra[graph.nChannels * ngpus + i] = graph.intra[i]!;
  for (let i = 0; i < (dup - graph.nChannels) * 2; i++) graph.inter[graph.nChannels * 2 + i] = graph.inter[i]!;
  const div = Math.ceil(dup / graph.nChannels);
  graph.bwIntra = f32(graph.bwIntra / div);
  graph.bwInter = f32(graph.bwInter / div);
  graph.nChannels = dup;
}

/**
 * The crossNic step of ncclTopoCompute's first pass: true when the search runs again crossing NICs;
 * otherwise the next search's crossNic is reset. `crossNic` is what the pattern allows of NCCL_CROSS_NIC.
 */
function retryCrossNic(rules: SearchRules, crossNic: number, tmp: TopoGraph, pattern: number): boolean {
  if (rules.crossNic === 'flag') {
    // Before 2.19.1: retry (crossNic 1) from 0, else back to 0.
    const retry = crossNic !== 0 && tmp.crossNic === 0;
    tmp.crossNic = retry ? crossNic : 0;
    return retry;
  }
  const patternRetries = rules.crossNic !== 'ring-alternate' || pattern === PATTERN.RING || pattern === PATTERN.BALANCED_TREE;
  if (crossNic === 2 && tmp.crossNic === 0 && patternRetries) {
    // ≥ 2.23.4 the retry keeps 2 (rings alternate NETs); before, 1.
    tmp.crossNic = rules.crossNic === 'ring-alternate' ? 2 : 1;
    return true;
  }
  tmp.crossNic = crossNic === 1 ? 1 : 0;
  return false;
}

/** A graph to search, for a node of `ngpus` GPUs. */
export function newGraph(id: number, pattern: number, minChannels: number, maxChannels: number, ngpus: number, collNet = 0): TopoGraph {
  return { id, pattern, crossNic: 0, collNet, minChannels, maxChannels, nChannels: 0, bwIntra: 0, bwInter: 0, latencyInter: 0, typeIntra: 0, typeInter: 0, sameChannels: 0, nHops: 0, intra: new Array<number>(MAXCHANNELS * Math.max(1, ngpus)).fill(0), inter: new Array<number>(MAXCHANNELS * 2).fill(0) };
}

/** ncclTopoCompute: search `graph` (its id, pattern and channel bounds set) on the system. */
export function compute(sys: GSystem, graph: TopoGraph, env: SearchEnv): void {
  const gpus = sys.nodes[NT.GPU]!;
  const nets = sys.nodes[NT.NET]!;
  const rules = sys.profile.search;
  const ctx: Ctx = { sys, env, rules, gpus, nets, netLists: new Map(), sorted: new Map(), netByDev: new Map(nets.map((n, i) => [n.net!.dev, i])) };
  const devs = sys.profile.devNodes ? sys.nodes[NT.DEV]! : gpus;
  const ccMin = minOf(devs.map(smOf));
  const ngpus = gpus.length;
  const ndevs = devs.length;
  const p = graph.pattern;
  const crossNicPatterns = ctx.nets.length > 1 && (p === PATTERN.RING || p === PATTERN.BALANCED_TREE || p === PATTERN.SPLIT_TREE);
  // Before 2.19.1 any non-zero NCCL_CROSS_NIC allows the crossNic retry (as 1), and the graph keeps the value itself but 2.
  const flagMode = rules.crossNic === 'flag';
  const crossNic = flagMode ? (crossNicPatterns && env.crossNic ? 1 : 0) : crossNicPatterns ? env.crossNic : 0;
  graph.crossNic = flagMode ? (env.crossNic === 2 ? 0 : env.crossNic) : crossNic === 1 ? 1 : 0;
  graph.bwIntra = graph.bwInter = 0;
  graph.latencyInter = 0;
  const pr = sys.profile;
  let minTypeIntra: number = PT.LOC;
  let minTypeInter: number = PT.PIX;
  let maxTypeIntra: number = PT.SYS;
  let maxTypeInter: number = PT.SYS;
  if (!pr.searchTypeRanges) minTypeIntra = ngpus === 1 ? PT.LOC : PT.NVL;
  else {
    if (ngpus > 1) ({ min: minTypeIntra, max: maxTypeIntra } = gpuPathRange(ctx, NT.GPU));
    if (sys.inter) {
      ({ min: minTypeInter, max: maxTypeInter } = gpuPathRange(ctx, NT.NET));
      maxTypeIntra = maxTypeInter;
    }
  }
  // The next path type this release has (it may lack C2C and P2C).
  const nextType = (t: number) => pr.pathTypes.find((x) => x > t) ?? PT.NET;
  if (sys.profile.ampereInterSys && ccMin < 90) maxTypeInter = PT.SYS;
  graph.typeIntra = minTypeIntra;
  graph.typeInter = minTypeInter;
  graph.nChannels = 0;
  const trySame = p === PATTERN.NVLS ? 0 : 1;
  graph.sameChannels = trySame;
  const cpu = sys.nodes[NT.CPU]![0]!.cpu!;
  if (p === PATTERN.NVLS && (sys.nodes[NT.NVS]!.length === 0 || ccMin < 90)) return;
  if (p === PATTERN.NVLS && rules.nvlsMaxGpus) graph.maxChannels = pr.searchArity ? Math.min(MAX_NVLS_ARITY, ngpus) : ngpus;
  if (p === PATTERN.COLLNET_DIRECT) graph.maxChannels = pr.searchArity ? Math.min(MAX_DIRECT_ARITY + 1, ngpus) : ngpus;
  if (ngpus === 1 && graph.pattern !== PATTERN.RING) graph.pattern = PATTERN.TREE;
  if (sys.inter === 0 && graph.pattern === PATTERN.NVLS) {
    if (!rules.nvlsMaxGpus) graph.maxChannels = ngpus;
    graph.minChannels = graph.maxChannels;
  }
  if (pr.splitNvLink && graph.pattern === PATTERN.RING && splitNvLink(ctx) && graph.maxChannels >= 2 && graph.minChannels === 1) graph.minChannels = 2;

  const tmp = newGraph(0, 0, 0, 0, ngpus);
  copyGraph(tmp, graph);
  const v2 = sys.profile.sm100SpeedsV2;
  const sm100 = pr.sm100Speeds && ccMin >= 100;
  const sm90Intra = rules.sm90Intra11 ? SPEED.sm90Intra : rules.sm90Intra50 ? SPEED.sm90IntraBefore2215 : SPEED.sm90IntraBefore2191;
  const sm90Inter = rules.sm90Inter22 ? SPEED.sm90Inter : SPEED.sm90InterBefore2193;
  const speeds = (sys.inter === 0 ? (sm100 ? (v2 ? SPEED.sm100Intra : SPEED.sm100IntraV1) : ccMin >= 90 ? sm90Intra : SPEED.intra) : sm100 ? (v2 ? SPEED.sm100Inter : SPEED.sm100InterV1) : ccMin >= 90 ? sm90Inter : SPEED.inter).map(f32);
  const nspeeds = speeds.length;
  let pass = 1;
  let si = 0;
  const maxBw = sys.maxBw;
  let totalBw = sys.totalBw;
  // Before 2.21.5 one GPU is scaled too, by 1/0 (TopoProfile.singleGpuBw).
  const scale = sys.profile.singleGpuBw ? ndevs > 1 && graph.pattern !== PATTERN.RING : ndevs === 1 || graph.pattern !== PATTERN.RING;
  if (scale) totalBw = f32(totalBw * ((ndevs * 1.0) / (ndevs - 1)));
  while ((speeds[si]! > maxBw || f32(speeds[si]! * graph.minChannels) > totalBw) && si < nspeeds - 1) si++;
  tmp.bwIntra = tmp.bwInter = speeds[si]!;
  let globalTimeout = rules.globalTimeout;
  const time = { t: 0 };

  for (;;) {
    // search:
    time.t = tmp.sameChannels ? TIMEOUT.SAME : tmp.pattern === PATTERN.TREE ? TIMEOUT.TREE : TIMEOUT.SEARCH;
    tmp.nChannels = 0;
    globalTimeout -= time.t;
    searchRec(ctx, tmp, graph, time);
    let done = time.t === -1 || f32(graph.nChannels * graph.bwInter) >= sys.totalBw;
    if (!done && pass === 1) {
      if (tmp.sameChannels === 1 && !(rules.amdSameChannels && cpu.arch === CPU_ARCH.X86 && cpu.vendor === CPU_VENDOR.AMD && tmp.typeIntra === PT.SYS)) {
        tmp.sameChannels = 0;
        continue;
      }
      tmp.sameChannels = trySame;
      if (time.t !== -1) globalTimeout += time.t;
      else globalTimeout = rules.globalTimeout;
      if (globalTimeout < 0 && graph.nChannels) done = true;
      if (!done) {
        if (ccMin >= 90 && tmp.pattern === PATTERN.BALANCED_TREE) {
          tmp.pattern = PATTERN.TREE;
          continue;
        }
        tmp.pattern = graph.pattern;
        const maxIntra = sys.inter ? tmp.typeInter : maxTypeIntra;
        if (tmp.typeIntra < maxIntra && (graph.nChannels === 0 || tmp.typeIntra < graph.typeIntra)) {
          tmp.typeIntra = nextType(tmp.typeIntra);
          if (tmp.typeIntra < PT.DIS) continue;
        }
        tmp.typeIntra = minTypeIntra;
        if (sys.inter && tmp.typeInter < maxTypeInter && (graph.nChannels === 0 || tmp.typeInter < graph.typeInter || tmp.typeInter < PT.PXN)) {
          tmp.typeInter = nextType(tmp.typeInter);
          if (tmp.typeInter < PT.DIS) continue;
        }
        tmp.typeInter = minTypeInter;
        if (retryCrossNic(rules, crossNic, tmp, graph.pattern)) continue;
        if (si < nspeeds - 1 && (graph.nChannels === 0 || f32(speeds[si + 1]! / graph.bwInter) > 0.49)) {
          tmp.bwInter = tmp.bwIntra = speeds[++si]!;
          continue;
        }
        si = 0;
        while (speeds[si]! > maxBw && si < nspeeds - 1) si++;
        tmp.bwIntra = tmp.bwInter = speeds[si]!;
      }
    }
    // done:
    if (pass === 1) {
      time.t = -1;
      if (rules.dupAfterPass1) dupChannels(graph, ccMin, ngpus);
      copyGraph(tmp, graph);
      si = 0;
      while (speeds[si]! > graph.bwInter && si < nspeeds - 1) si++;
      tmp.bwIntra = tmp.bwInter = speeds[si]!;
      tmp.minChannels = graph.nChannels;
      pass = 2;
    }
    if (pass === 2 && rules.pass2 !== 'merged') {
      // Before 2.19.3: bwIntra up for trees (and before 2.19.1 NVLS), then (2.19.1) bwInter up for NVLS.
      const nvlsApart = rules.pass2 === 'trees-then-nvls';
      if (time.t !== 0 && graph.pattern !== PATTERN.RING && !(nvlsApart && graph.pattern === PATTERN.NVLS) && tmp.bwIntra === graph.bwIntra && tmp.bwIntra < f32(tmp.bwInter * 2) && si > 0) {
        tmp.bwIntra = speeds[--si]!;
        continue;
      }
      time.t = -1;
      copyGraph(tmp, graph);
      pass = nvlsApart ? 3 : 4;
    }
    if (pass === 3) {
      if (time.t !== 0 && graph.pattern === PATTERN.NVLS && tmp.bwInter === graph.bwInter && tmp.bwInter < f32(tmp.bwIntra * 2) && si > 0) {
        tmp.minChannels = tmp.maxChannels = graph.nChannels;
        tmp.bwInter = speeds[--si]!;
        continue;
      }
      time.t = -1;
      copyGraph(tmp, graph);
    }
    if (pass === 2) {
      if (time.t !== 0 && si > 0) {
        if (graph.pattern === PATTERN.RING) {
          tmp.bwIntra = tmp.bwInter = speeds[--si]!;
          continue;
        } else if (graph.pattern === PATTERN.NVLS && tmp.bwInter === graph.bwInter && tmp.bwInter < f32(tmp.bwIntra * 2)) {
          tmp.minChannels = tmp.maxChannels = graph.nChannels;
          tmp.bwInter = speeds[--si]!;
          continue;
        } else if (tmp.bwIntra === graph.bwIntra && tmp.bwIntra < f32(tmp.bwInter * 2)) {
          tmp.bwIntra = speeds[--si]!;
          continue;
        }
      }
      time.t = -1;
      copyGraph(tmp, graph);
    }
    break;
  }

  if (graph.nChannels === 0 && graph.collNet === 0 && graph.pattern !== PATTERN.NVLS) {
    for (let i = 0; i < ngpus; i++) graph.intra[i] = gpus[i]!.gpu!.rank;
    if (!sys.profile.fallbackSelectNets) {
      // Before 2.29.2: NET 0 both ways, everything SYS at 0.1 GB/s.
      graph.inter[0] = graph.inter[1] = 0;
      graph.bwIntra = graph.bwInter = f32(0.1);
      graph.typeIntra = graph.typeInter = PT.SYS;
      graph.nChannels = 1;
      return; // bwIntra 0.1: nothing to double
    }
    graph.bwIntra = f32(0.1);
    graph.typeIntra = PT.SYS;
    const first = selectNets(ctx, -1, 0);
    const last = selectNets(ctx, -1, ngpus - 1);
    graph.inter[0] = first.length ? ctx.nets[first[0]!]!.net!.dev : -1;
    graph.inter[1] = last.length ? ctx.nets[last[0]!]!.net!.dev : -1;
    if (graph.inter[0] !== -1 && graph.inter[1] !== -1) {
      graph.bwInter = f32(0.1);
      graph.typeInter = PT.SYS;
    } else {
      graph.inter[0] = graph.inter[1] = -1;
      graph.bwInter = 0;
      graph.typeInter = PT.DIS;
    }
    graph.nChannels = 1;
  }
  // Before 2.19.3 the channels are doubled last (rules.dupAfterPass1).
  if (!rules.dupAfterPass1) dupChannels(graph, ccMin, ngpus);
}
