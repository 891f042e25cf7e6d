// The paths NCCL computes on its topology graph (NVIDIA/nccl src/graph/paths.cc
// ncclTopoSetPaths, ncclTopoComputePaths, ncclTopoCheckP2p, ncclTopoCheckGdr,
// ncclTopoGetIntermediateRank, ncclTopoTrimSystem; topo.cc ncclTopoGetLocal,
// ncclTopoGetLocalNet, ncclTopoGetLocalGpu): breadth-first from every node
// of a type, then the P2P, C2C, PXN and GPUDirect RDMA rewrites, in NCCL's
// order. Pure.

import { LOC_BW, LT, MAXCHANNELS, NT, PT, CPU_ARCH, CPU_VENDOR, type GLink, type GNode, type GPath, type GSystem } from './engine.js';

const f32 = Math.fround;

/** The environment the path rules read, parsed as NCCL parses it. */
export interface PathEnv {
  /** NCCL_P2P_LEVEL / NCCL_P2P_DISABLE as ncclGetLevel reads them (a PT value), or null. */
  p2pLevel: number | null;
  /** NCCL_NET_GDR_LEVEL as ncclGetLevel reads it, or null. */
  gdrLevel: number | null;
  /** NCCL_NET_GDR_READ (default -2). */
  gdrRead: number;
  /** NCCL_NET_GDR_C2C (default 1). */
  gdrC2c: number;
  /** NCCL_PXN_DISABLE. */
  pxnDisable: number;
  /** NCCL_PXN_C2C (default 1). */
  pxnC2c: number;
  /** NCCL_NVB_DISABLE. */
  nvbDisable: number;
  /** NCCL_NETDEVS_POLICY: 'AUTO', 'ALL' or MAX:n as n. */
  netDevsPolicy: 'AUTO' | 'ALL' | number;
}

export const DEFAULT_PATH_ENV: PathEnv = { p2pLevel: null, gdrLevel: null, gdrRead: -2, gdrC2c: 1, pxnDisable: 0, pxnC2c: 1, nvbDisable: 0, netDevsPolicy: 'AUTO' };

const disPath = (): GPath => ({ type: PT.DIS, bw: 0, list: [] });

function pathsOf(node: GNode, type: number, count: number): GPath[] {
  let p = node.paths[type];
  if (!p) {
    p = Array.from({ length: count }, disPath);
    node.paths[type] = p;
  }
  return p;
}

/** ncclTopoSetPaths: every node's path to `base` (type, bandwidth, links), breadth-first. */
export function setPaths(sys: GSystem, base: GNode, env: PathEnv): void {
  const bt = base.type;
  const list = sys.nodes[bt]!;
  const bi = list.indexOf(base);
  const count = list.length;
  const p = sys.profile;
  const basePath = pathsOf(base, bt, count)[bi]!;
  basePath.list = [];
  basePath.bw = LOC_BW;
  basePath.type = PT.LOC;
  const maxLen = bt === NT.GPU ? 2 : 1;
  const baseDev = bt === NT.GPU ? (base.gpu!.parent ?? base) : base;
  let nodes: GNode[] = [base];
  while (nodes.length) {
    const next: GNode[] = [];
    for (const node of nodes) {
      const path = pathsOf(node, bt, count)[bi]!;
      for (const link of node.links) {
        const rem = link.rem;
        const remPath = pathsOf(rem, bt, count)[bi]!;
        const bw = Math.min(path.bw, link.bw);
        if (p.devNodes) {
          // Only through a DEV: to its own GPU, or one NVLink hop on to another DEV (NVB).
          if (node !== baseDev && node.type === NT.DEV && (link.type !== LT.LOC || rem.type !== NT.GPU) && (env.nvbDisable || link.type !== LT.NVL || rem.type !== NT.DEV || path.list.length > maxLen)) continue;
        } else if (node !== base && node.type === NT.GPU) {
          // Through a GPU only one NVLink hop from the start, on to another GPU (NVB), when NVB exists.
          if (!p.nvb || env.nvbDisable || link.type !== LT.NVL || rem.type !== NT.GPU || path.list.length > 1) continue;
        }
        let type = link.type === LT.NET ? LT.LOC : link.type;
        if (node.type === NT.PCI && rem.type === NT.PCI) type = PT.PXB;
        if (link.type === LT.PCI && (node.type === NT.CPU || rem.type === NT.CPU)) type = PT.PHB;
        if (p.devNodes ? node.type === NT.DEV && path.type === PT.NVL && type === PT.NVL && path.list.length === maxLen : node.type === NT.GPU && path.type === PT.NVL && type === PT.NVL) type = PT.NVB;
        type = Math.max(path.type, type);
        const better = p.pathTypeFirst
          ? type < remPath.type || (type === remPath.type && remPath.bw < bw) || (type === remPath.type && remPath.bw === bw && remPath.list.length > path.list.length + 1)
          : (remPath.bw === 0 || remPath.list.length > path.list.length) && remPath.bw < bw;
        if (!better) continue;
        const rev = rem.links.find((l) => l.rem === node && l.type === link.type);
        if (!rev) throw new Error(`no reverse link from ${rem.id} to ${node.id}`);
        remPath.list = [rev, ...path.list];
        remPath.bw = bw;
        remPath.type = type;
        if (!next.includes(rem)) next.push(rem);
      }
    }
    nodes = next;
  }
}

/** ncclGetLocalCpu: among the CPUs at the GPU's best (bandwidth, type), the fewest hops; -1 when none. */
export function localCpu(sys: GSystem, g: number): number {
  if (!sys.profile.localCpuByBw) {
    // Before 2.30.7: the CPU fewest hops away.
    const paths = sys.nodes[NT.GPU]![g]!.paths[NT.CPU]!;
    let cpu = -1;
    let min = 0;
    paths.forEach((p, c) => {
      const hops = p.list.length;
      if (hops > 0 && (min === 0 || hops < min)) {
        cpu = c;
        min = hops;
      }
    });
    return cpu;
  }
  const locals = getLocal(sys, NT.GPU, g, NT.CPU).locals;
  if (!locals.length) return -1;
  const paths = sys.nodes[NT.GPU]![g]!.paths[NT.CPU]!;
  let cpu = locals[0]!;
  for (const c of locals.slice(1)) if (paths[c]!.list.length < paths[cpu]!.list.length) cpu = c;
  return cpu;
}

/** ncclTopoGetLocal: the nodes of `resultType` with the best bandwidth, then the best type, from node `index`. */
export function getLocal(sys: GSystem, type: number, index: number, resultType: number): { locals: number[]; type: number } {
  const paths = sys.nodes[type]![index]!.paths[resultType];
  let minType: number = PT.DIS;
  let maxBw = 0;
  let locals: number[] = [];
  if (!paths) return { locals, type: minType };
  paths.forEach((p, i) => {
    if (p.bw > maxBw || (p.bw === maxBw && p.type < minType)) {
      maxBw = p.bw;
      minType = p.type;
      locals = [];
    }
    if (p.bw === maxBw && p.type === minType) locals.push(i);
  });
  return { locals, type: minType };
}

function mergePathType(a: number, b: number): number {
  const max = Math.max(a, b);
  const min = Math.min(a, b);
  return max === PT.PHB && min === PT.C2C ? PT.P2C : max;
}

/** addInterStep: the path from node (t1,i1) to (t2,i2) rewritten to go through (tx,ix). */
function addInterStep(sys: GSystem, tx: number, ix: number, t1: number, i1: number, t2: number, i2: number): void {
  const mid = sys.nodes[tx]![ix]!;
  const src = sys.nodes[t1]![i1]!;
  const a = src.paths[tx]![ix]!;
  const b = mid.paths[t2]![i2]!;
  const out = src.paths[t2]![i2]!;
  out.list = [...a.list, ...b.list];
  out.type = tx === NT.GPU ? PT.PXN : mergePathType(a.type, b.type);
  out.bw = Math.min(a.bw, b.bw);
}

const rankIndex = (sys: GSystem, rank: number) => sys.nodes[NT.GPU]!.findIndex((g) => g.gpu!.rank === rank);

/** ncclTopoCheckP2p (one node, P2P allowed by NVML): whether GPUs r1 → r2 talk directly, within the P2P level. */
export function checkP2p(sys: GSystem, r1: number, r2: number, env: PathEnv): boolean {
  const g1 = rankIndex(sys, r1);
  const g2 = rankIndex(sys, r2);
  if (g1 < 0 || g2 < 0) return false;
  const path = sys.nodes[NT.GPU]![g1]!.paths[NT.GPU]![g2]!;
  let level: number = PT.PXB;
  const cpu = sys.nodes[NT.CPU]![0]!.cpu!;
  const devices = sys.profile.devNodes ? sys.nodes[NT.DEV]!.length : sys.nodes[NT.GPU]!.length;
  if (cpu.arch === CPU_ARCH.X86 && cpu.vendor === CPU_VENDOR.AMD && devices <= 2) level = PT.SYS;
  if (env.p2pLevel !== null) level = env.p2pLevel;
  return path.type <= level;
}

/** ncclTopoGetIntermediateRank: the GPU that relays a PXN path (else the rank itself). */
export function intermediateRank(sys: GSystem, rank: number, n: number): number {
  const g = rankIndex(sys, rank);
  const path = sys.nodes[NT.GPU]![g]!.paths[NT.NET]![n]!;
  if (path.type !== PT.PXN) return rank;
  // From 2.30.3 the path starts GPU → DEV, so the walk past NVSwitches starts at its second hop; before, at its
  // first (a direct NVLink to the relay GPU has it there): paths.cc ncclTopoGetIntermediateRank, TopoProfile.devNodes.
  let i = sys.profile.devNodes ? 1 : 0;
  while (i < path.list.length && path.list[i]!.rem.type === NT.NVS) i++;
  let node = path.list[i]!.rem;
  if (node.type === NT.DEV) node = node.links.find((l) => l.rem.type === NT.GPU)?.rem ?? node;
  if (node.type !== NT.GPU) throw new Error(`no intermediate GPU between rank ${rank} and NET ${n}`);
  return node.gpu!.rank;
}

/** ncclTopoCheckGdr: whether GPU `rank` may use GPUDirect RDMA with NET n (read = sends). */
export function checkGdr(sys: GSystem, rank: number, n: number, read: boolean, env: PathEnv): boolean {
  const net = sys.nodes[NT.NET]![n]!;
  let g = rankIndex(sys, rank);
  let gpu = sys.nodes[NT.GPU]![g]!;
  if (net.net!.gdr === 0 || gpu.gpu!.gdr === 0) return false;
  if (read) {
    if (env.gdrRead === 0) return false;
    if (env.gdrRead < 0 && (gpu.gpu!.sm < 80 || !sys.profile.gdrReadNvlinkPreAmpereOnly)) {
      // Reads only with an NVLink peer (or alone): below sm 80, and on every GPU before 2.19.1.
      const gpus = sys.nodes[NT.GPU]!;
      const nvlink = gpus.length === 1 || gpus.some((_, i) => i !== g && gpu.paths[NT.GPU]![i]!.type === PT.NVL);
      if (!nvlink) return false;
    }
  }
  const rule = sys.profile.gdrC2cRule;
  let level: number = rule === 'p2c-level' && env.gdrC2c ? PT.P2C : PT.PXB;
  if (env.gdrLevel !== null) level = env.gdrLevel;
  let distance = gpu.paths[NT.NET]![n]!.type;
  if (distance === PT.PXN) {
    g = rankIndex(sys, intermediateRank(sys, rank, n));
    gpu = sys.nodes[NT.GPU]![g]!;
    distance = gpu.paths[NT.NET]![n]!.type;
  }
  // 2.27.3–2.28.x: a NIC behind the CPU of a C2C GPU is compared as C2C.
  if (rule === 'c2c-distance' && env.gdrC2c && distance === PT.P2C) distance = PT.C2C;
  return distance <= level;
}

/** ncclTopoGetLocalNet: the NET GPU `rank`'s channel uses (its index in the NET list). */
export function localNet(sys: GSystem, rank: number, channel: number, env: PathEnv): number {
  const g = rankIndex(sys, rank);
  const nets = getLocal(sys, NT.GPU, g, NT.NET).locals;
  if (!nets.length) throw new Error(`Could not find any local path from gpu ${g} to net.`);
  const gpusOfFirst = getLocal(sys, NT.NET, nets[0]!, NT.GPU).locals.length;
  const policy = sys.profile.netDevsPolicy ? env.netDevsPolicy : 'AUTO';
  const netsPerGpu = policy === 'AUTO' ? Math.ceil(nets.length / gpusOfFirst) : policy === 'ALL' ? nets.length : Math.min(policy, nets.length);
  const dev = sys.nodes[NT.GPU]![g]!.gpu!.dev;
  let net = sys.profile.localNetModGpus ? dev % gpusOfFirst : dev;
  if ((nets.length & (nets.length - 1)) === 0) net = mirrorBits(net, nets.length);
  net += channel % netsPerGpu;
  return nets[net % nets.length]!;
}

export function mirrorBits(val: number, pow2: number): number {
  let m = 0;
  for (let b = 1, mb = pow2 >> 1; b < pow2; b <<= 1, mb >>= 1) if (val & b) m |= mb;
  return m;
}

/** ncclTopoGetLocalGpu: the first GPU local to NET n (before 2.19.1 any GPU), channel by channel, whose local NET it is; -1 when none. */
export function localGpu(sys: GSystem, n: number, env: PathEnv): number {
  const gpus = sys.profile.search.localGpuFromLocals ? getLocal(sys, NT.NET, n, NT.GPU).locals : sys.nodes[NT.GPU]!.map((_, g) => g);
  for (let c = 0; c < MAXCHANNELS; c++) for (const g of gpus) if (localNet(sys, sys.nodes[NT.GPU]![g]!.gpu!.rank, c, env) === n) return g;
  return -1;
}

/** ncclTopoComputePaths (one process per node, NVML allowing P2P between every pair). */
export function computePaths(sys: GSystem, env: PathEnv): void {
  for (const list of sys.nodes) for (const n of list) n.paths = [];
  for (const t of [NT.CPU, NT.DEV, NT.GPU, NT.NET, NT.NVS]) for (const n of sys.nodes[t]!) setPaths(sys, n, env);
  const gpus = sys.nodes[NT.GPU]!;
  const nets = sys.nodes[NT.NET]!;
  for (let g = 0; g < gpus.length; g++) {
    for (let p = 0; p < gpus.length; p++) {
      if (checkP2p(sys, gpus[p]!.gpu!.rank, gpus[g]!.gpu!.rank, env)) continue;
      // Divert all traffic through the CPU.
      addInterStep(sys, NT.CPU, localCpu(sys, g), NT.GPU, p, NT.GPU, g);
    }
  }
  if (sys.profile.p2cPaths) {
    // ≥ 2.29.2 GPU by GPU over its local NETs; before, NET by NET over every GPU.
    const pairs: [number, number][] = [];
    if (sys.profile.p2cLocalNetsOnly) for (let g = 0; g < gpus.length; g++) for (const n of getLocal(sys, NT.GPU, g, NT.NET).locals) pairs.push([g, n]);
    else for (let n = 0; n < nets.length; n++) for (let g = 0; g < gpus.length; g++) pairs.push([g, n]);
    for (const [g, n] of pairs) {
      const c = localCpu(sys, g);
      if (c < 0) continue;
      {
        const gpu = gpus[g]!;
        const net = nets[n]!;
        if (mergePathType(gpu.paths[NT.CPU]![c]!.type, net.paths[NT.CPU]![c]!.type) !== PT.P2C) continue;
        gpu.paths[NT.NET]![n]!.type = Math.min(PT.P2C, gpu.paths[NT.NET]![n]!.type);
        net.paths[NT.GPU]![g]!.type = Math.min(PT.P2C, net.paths[NT.GPU]![g]!.type);
      }
    }
  }
  for (let n = 0; n < nets.length; n++) {
    const net = nets[n]!;
    for (let g = 0; g < gpus.length; g++) {
      const gpu = gpus[g]!;
      if (!env.pxnDisable) {
        const peerIndex = localGpu(sys, n, env);
        if (peerIndex !== g && peerIndex !== -1) {
          const peer = gpus[peerIndex]!;
          const gdr = !sys.profile.pxnRelayGdr || checkGdr(sys, peer.gpu!.rank, n, true, env);
          const pxnType = env.pxnC2c ? PT.P2C : PT.PXB;
          const pp = peer.paths[NT.NET]![n]!;
          const own = gpu.paths[NT.NET]![n]!;
          const avoid = sys.profile.pxnAvoid === 'PXN' ? PT.PXN : PT.PXB;
          if (pp.type <= pxnType && gdr && peer.paths[NT.GPU]![g]!.type <= PT.NVL && (pp.bw > own.bw || own.type > avoid)) addInterStep(sys, NT.GPU, peerIndex, NT.GPU, g, NT.NET, n);
        }
      }
      if (gpu.paths[NT.NET]![n]!.type < PT.PHB && !checkGdr(sys, gpu.gpu!.rank, n, false, env)) {
        const c = localCpu(sys, g);
        addInterStep(sys, NT.CPU, c, NT.NET, n, NT.GPU, g);
        addInterStep(sys, NT.CPU, c, NT.GPU, g, NT.NET, n);
      }
    }
    void net;
  }
  for (let n = 0; n < nets.length; n++) nets[n]!.net!.localGpu = localGpu(sys, n, env);
}

/** ncclTopoTrimSystem: GPUs this rank cannot reach leave; `inter` when the job has more ranks than GPUs here. */
export function trimSystem(sys: GSystem, rank: number, nRanks: number): void {
  const gpus = sys.nodes[NT.GPU]!;
  const domains = gpus.map((_, g) => g);
  let mine = 0;
  gpus.forEach((gpu, g) => {
    for (let p = 0; p < g; p++) if (gpu.paths[NT.GPU]![p]!.type < PT.NET) domains[g] = Math.min(domains[g]!, domains[p]!);
    if (gpu.gpu!.rank === rank) mine = domains[g]!;
  });
  const drop = gpus.filter((_, g) => domains[g] !== mine);
  for (const d of drop) {
    for (const list of sys.nodes) for (const n of list) if (n !== d) n.links = n.links.filter((l) => l.rem !== d);
    gpus.splice(gpus.indexOf(d), 1);
  }
  sys.inter = gpus.length === nRanks ? 0 : 1;
  if (!sys.profile.keepNetsIntra) {
    // Before 2.28.7 a one-node job loses its NETs, and "inter" is whether any NET is left.
    if (sys.inter === 0) {
      for (const net of [...sys.nodes[NT.NET]!]) {
        for (const list of sys.nodes) for (const n of list) if (n !== net) n.links = n.links.filter((l) => l.rem !== net);
        sys.nodes[NT.NET]!.splice(sys.nodes[NT.NET]!.indexOf(net), 1);
      }
    }
    sys.inter = sys.nodes[NT.NET]!.length > 0 ? 1 : 0;
  }
}

export type { GLink };
export const f32Of = f32;
