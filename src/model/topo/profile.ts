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
  /** GB/s per NVLink (ncclTopoNVLinkBw) by compute capability. */
  nvlBw: { sm70: number; sm80: number; sm90: number; sm100: number };
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
    nvlBw: { sm70: 20, sm80: 20, sm90: 20.6, sm100: 40.1 },
  };
}
