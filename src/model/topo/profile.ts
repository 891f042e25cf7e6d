// Every topology rule that differs between NCCL releases, as one record built
// once from the version: the graph engine (engine.ts, engine-paths.ts,
// search.ts) asks these flags, never the version. Each flag names the
// release that introduced it (NVIDIA/nccl src/graph at that tag). Pure.

import { atLeast, type NcclVersion } from '../nccl/versions.js';

export interface TopoProfile {
  version: NcclVersion;
  /** ≥ 2.30.3: a GPU hangs off a DEV node (its PCI function), NVLinks and C2C start at the DEV (topo.cc ncclTopoAddGpuSub). */
  devNodes: boolean;
  /** ≥ 2.30.7: ncclTopoSetPaths keeps the better path type first, then bandwidth, then fewer hops. */
  pathTypeFirst: boolean;
  /** ≥ 2.8.3: a path may cross one GPU over two NVLinks (NVB). */
  nvb: boolean;
  /** ≥ 2.9.6: Broadcom PEX Gen4 switches are flattened. */
  bcmGen4: boolean;
  /** ≥ 2.20.3: Broadcom PEX Gen5 switches are flattened. */
  bcmGen5: boolean;
  /** ≥ 2.22.3: <c2c> links the GPU to its CPU. */
  c2cLinks: boolean;
  /** How C2C is linked: an NVL link (2.22.3–2.25.x), a C2C link (≥ 2.26.2). */
  c2cLinkType: 'NVL' | 'C2C';
  /** ≥ 2.27.3: a GPU whose CPU is C2C reaches that CPU's PHB NICs at P2C. */
  p2cPaths: boolean;
  /** ≥ 2.28.7: NETs stay in a one-node job's graph (TrimSystem sets `inter` instead of removing them). */
  keepNetsIntra: boolean;
  /** MAXCHANNELS (src/include/device.h): 32 before 2.25.1, 64 from 2.25.1; the ring graph may take half. */
  maxChannels: 32 | 64;
  /** GB/s per NVLink (ncclTopoNVLinkBw) by compute capability; sm ≥ 100 has its own value from 2.25.1 (40.0, 40.1 from 2.27.5), before it shares sm 90's. */
  nvlBw: { sm70: number; sm80: number; sm90: number; sm100: number };
  /** ≥ 2.28.7: a <net>'s guid is read with strtoull base 16; before, sscanf("0x%lx"), which leaves the ASIC 0 for a guid without 0x. */
  guidStrtoull: boolean;
  /** ≥ 2.30.7: ncclGetLocalCpu picks among the CPUs of best bandwidth and type the fewest hops; before, the fewest hops. */
  localCpuByBw: boolean;
  /** ≥ 2.30.3: a PXN relay needs GPUDirect RDMA (read) to the NIC. */
  pxnRelayGdr: boolean;
  /** PXN's "avoid the CPU" test: the GPU's own path worse than PXN (≥ 2.27.6), else worse than PXB. */
  pxnAvoid: 'PXN' | 'PXB';
  /** NCCL_PXN_C2C's default (1 from 2.28.3, 0 in 2.27.x; no such parameter before 2.27.3). */
  pxnC2cDefault: number;
  /** NCCL_NET_GDR_C2C's default (1 from 2.27.3, 0 in 2.26.x; no such parameter before 2.26.2). */
  gdrC2cDefault: number;
  /** How GDR treats a P2C NIC with NCCL_NET_GDR_C2C: 'c2c-distance' (2.27.3–2.28.x, P2C compared as C2C), 'p2c-level' (≥ 2.29.2, the default level is P2C), 'none'. */
  gdrC2cRule: 'none' | 'c2c-distance' | 'p2c-level';
  /** ≥ 2.29.2: the C2C + PHB → P2C rewrite looks at the GPU's local NETs only; before, every NET. */
  p2cLocalNetsOnly: boolean;
  /** ≥ 2.29.2: below sm 90 the inter-node search may go up to SYS (maxTypeInter). */
  ampereInterSys: boolean;
  /** ≥ 2.30.3: the sm 100 speed arrays with 86/80 (inter) and 45 (intra). */
  sm100SpeedsV2: boolean;
  /** ≥ 2.29.2: a search that finds nothing falls back to the NETs ncclTopoSelectNets prefers; before, NET 0 at 0.1 GB/s. */
  fallbackSelectNets: boolean;
  /** ≥ 2.28.3: NCCL_NETDEVS_POLICY. */
  netDevsPolicy: boolean;
  /** 2.30.7: ncclTopoGetLocalNet takes the GPU's index modulo the GPUs local to the first NET. */
  localNetModGpus: boolean;
  /** ≥ 2.26.2: Intel Sapphire (model ≥ 0x8f, 22 GB/s) and Emerald Rapids (≥ 0xcf, 40 GB/s) between sockets; before, Skylake or Broadwell only. */
  intelSrpErp: boolean;
  /** ≥ 2.25.1: the search's path types range over what the GPUs' paths have (min/max); before, NVL (LOC alone) and PIX up to SYS. */
  searchTypeRanges: boolean;
  /** ≥ 2.25.1: NVLS at most 32 heads, CollNet direct at most 8; before, one per GPU. */
  searchArity: boolean;
  /** ≥ 2.26.2: a ring over two NVLink domains joined by a slower link needs 2 channels. */
  splitNvLink: boolean;
  /** ≥ 2.25.1: sm 100 speed arrays (before, sm ≥ 90 shared sm 90's). */
  sm100Speeds: boolean;
  /** ≥ 2.27.5: the inter-node search starts each NET's channel from its local GPU(s), replaying only with sameChannels; before, from the GPUs of best bandwidth then fewest hops, in turn. */
  netLocalGpuStart: boolean;
  /** The path types this release has, in its order (C2C from 2.26.2, P2C from 2.27.3): the search steps through them. */
  pathTypes: readonly number[];
  /** The path names in the numbering NCCL prints (e.g. "distance 4 <= 5"): 2.27.3–2.27.4 put PXN before P2C, 2.27.5 after. */
  logPathOrder: readonly string[];
  /** ≥ 2.9.9: NCCL_NVB_DISABLE exists. */
  nvbDisableParam: boolean;
  /** PXN and ncclTopoGetNetDev's peer NIC: none before 2.12.7, the peer's own NIC / first GPU whose NIC it is (2.12.7–2.18.0), the local GPU of the NIC (≥ 2.18.1). */
  pxnMode: 'none' | 'first-peer' | 'local-gpu';
  /** ≥ 2.27.6: ncclTopoGetNetDev accepts a relay at P2C with NCCL_PXN_C2C. */
  p2pPxnC2c: boolean;
  /** ≥ 2.27.3: NCCL_PXN_C2C exists. */
  pxnC2cParam: boolean;
  /** ≥ 2.26.2: NCCL_NET_GDR_C2C exists. */
  gdrC2cParam: boolean;
  /** ncclTopoGetLocalNet's spreading: modulo (before 2.18.1), mask (2.18.1–2.18.4), mirror (≥ 2.18.5). */
  localNetSpread: 'modulo' | 'mask' | 'mirror';
  /** Where the GPUDirect RDMA decision is logged: TRACE from 2.30.3, INFO GRAPH|NET from 2.27.3, INFO NET before. */
  gdrLogWhere: string;
}

export function topoProfileFor(version: NcclVersion): TopoProfile {
  const at = (v: string) => atLeast(version, v);
  return {
    version,
    devNodes: at('2.30.3'),
    pathTypeFirst: at('2.30.7'),
    nvb: at('2.8.3'),
    bcmGen4: at('2.9.6'),
    bcmGen5: at('2.20.3'),
    c2cLinks: at('2.22.3'),
    c2cLinkType: at('2.26.2') ? 'C2C' : 'NVL',
    p2cPaths: at('2.27.3'),
    keepNetsIntra: at('2.28.7'),
    maxChannels: at('2.25.1') ? 64 : 32,
    nvlBw: { sm70: 20, sm80: 20, sm90: 20.6, sm100: at('2.27.5') ? 40.1 : at('2.25.1') ? 40.0 : 20.6 },
    guidStrtoull: at('2.28.7'),
    localCpuByBw: at('2.30.7'),
    pxnRelayGdr: at('2.30.3'),
    pxnAvoid: at('2.27.6') ? 'PXN' : 'PXB',
    pxnC2cDefault: at('2.28.3') ? 1 : 0,
    gdrC2cDefault: at('2.27.3') ? 1 : 0,
    gdrC2cRule: at('2.29.2') ? 'p2c-level' : at('2.27.3') ? 'c2c-distance' : 'none',
    p2cLocalNetsOnly: at('2.29.2'),
    ampereInterSys: at('2.29.2'),
    sm100SpeedsV2: at('2.30.3'),
    fallbackSelectNets: at('2.29.2'),
    netDevsPolicy: at('2.28.3'),
    localNetModGpus: at('2.30.7'),
    intelSrpErp: at('2.26.2'),
    searchTypeRanges: at('2.25.1'),
    searchArity: at('2.25.1'),
    splitNvLink: at('2.26.2'),
    sm100Speeds: at('2.25.1'),
    netLocalGpuStart: at('2.27.5'),
    // PT values: LOC 0, NVL 1, NVB 2, C2C 3, PIX 4, PXB 5, P2C 6, PXN 7, PHB 8, SYS 9.
    pathTypes: at('2.27.3') ? [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] : at('2.26.2') ? [0, 1, 2, 3, 4, 5, 7, 8, 9] : [0, 1, 2, 4, 5, 7, 8, 9],
    logPathOrder: at('2.27.5')
      ? ['LOC', 'NVL', 'NVB', 'C2C', 'PIX', 'PXB', 'P2C', 'PXN', 'PHB', 'SYS', 'NET']
      : at('2.27.3')
        ? ['LOC', 'NVL', 'NVB', 'C2C', 'PIX', 'PXB', 'PXN', 'P2C', 'PHB', 'SYS', 'NET']
        : at('2.26.2')
          ? ['LOC', 'NVL', 'NVB', 'C2C', 'PIX', 'PXB', 'PXN', 'PHB', 'SYS', 'NET']
          : ['LOC', 'NVL', 'NVB', 'PIX', 'PXB', 'PXN', 'PHB', 'SYS', 'NET'],
    nvbDisableParam: at('2.9.9'),
    pxnMode: !at('2.12.7') ? 'none' : at('2.18.1') ? 'local-gpu' : 'first-peer',
    p2pPxnC2c: at('2.27.6'),
    pxnC2cParam: at('2.27.3'),
    gdrC2cParam: at('2.26.2'),
    localNetSpread: !at('2.18.1') ? 'modulo' : at('2.18.5') ? 'mirror' : 'mask',
    gdrLogWhere: at('2.30.3') ? 'TRACE (not printed by release builds)' : at('2.27.3') ? 'INFO GRAPH|NET' : 'INFO NET',
  };
}
