// The one GPUDirect RDMA verdict of a node: the NIC side (a peer-memory path
// this NCCL checks, or DMA-BUF: model/nccl/gdr.ts) and, per GPU, the distance
// to the NIC NCCL gives it (ncclTopoCheckGdr, decided in report.ts). The
// doctor (GDR-001, TOPO-010), `ncclx topo`, the TUI and `compare` all read it
// from here, so none can call GPUDirect RDMA on where another calls it off.

import { advise } from '../result/build.js';
import type { Finding } from '../result/types.js';
import type { GdrReadiness } from '../nccl/gdr.js';
import type { TopoGpu, TopoNic, TopoPair } from './report.js';

/** One GPU's GPUDirect RDMA to the NIC of its first channel. */
export interface GpuGdr {
  gpu: number;
  bdf: string;
  /** The RDMA device NCCL gives it, or null when no NIC is placed. */
  nic: string | null;
  /** null: cannot tell (no NIC, or the NIC side is unknown). */
  enabled: boolean | null;
  /** NCCL's path type compared with the level, and the level (NCCL_NET_GDR_LEVEL or its default). */
  distance: string | null;
  level: string;
  /** The NIC is not on the PCI tree: IB-011 already says that this turns GPUDirect RDMA off. */
  nicOffPci?: boolean;
}

export type GdrState = 'na' | 'unknown' | 'on' | 'partial' | 'off' | 'depends';

export interface GdrVerdict {
  /**
   * na: no RDMA device or no GPU; unknown: no RDMA data; on: every GPU has it;
   * off: no GPU has it; partial: some GPUs do; depends: the NIC side is
   * DMA-BUF only, which the driver decides at run time.
   */
  state: GdrState;
  /** A few words for tables (compare's GDR column, the topo header). */
  label: string;
  /** GPUs with GPUDirect RDMA off (the NIC side or the distance). */
  off: GpuGdr[];
  /** GPUs ncclx knows of (null: no PCI data). */
  gpus: number | null;
}

/** GPU indexes as ranges: 0–7, 0–3, 6. */
export function gpuRanges(ids: number[]): string {
  const s = [...new Set(ids)].sort((a, b) => a - b);
  const out: string[] = [];
  for (let i = 0; i < s.length; ) {
    let j = i;
    while (j + 1 < s.length && s[j + 1] === s[j]! + 1) j++;
    out.push(j > i + 1 ? `${s[i]}–${s[j]}` : j === i + 1 ? `${s[i]}, ${s[j]}` : `${s[i]}`);
    i = j + 1;
  }
  return out.join(', ');
}

/**
 * The verdict from the NIC side and the per-GPU decisions; `gpus` null when
 * the topology is unknown, `gpuCount` 0 when the node has no GPU.
 */
export function gdrVerdict(nic: GdrReadiness, gpus: GpuGdr[] | null, gpuCount: number | null): GdrVerdict {
  const base = { off: [] as GpuGdr[], gpus: gpuCount };
  if (nic.status === 'unknown') return { ...base, state: 'unknown', label: 'unknown (no RDMA data)' };
  if (nic.status === 'no-rdma') return { ...base, state: 'na', label: 'n/a (no RDMA device)' };
  if (gpuCount === 0) return { ...base, state: 'na', label: 'n/a (no GPU)' };
  if (nic.status === 'disabled') {
    const all = gpus ?? [];
    return { off: all, gpus: gpuCount, state: 'off', label: `off (NIC side${gpuCount ? `, ${gpuCount}/${gpuCount} GPUs` : ''})` };
  }
  const off = (gpus ?? []).filter((g) => g.enabled === false);
  if (nic.status === 'dma-buf') return { off, gpus: gpuCount, state: off.length && off.length === gpus?.length ? 'off' : 'depends', label: off.length ? `DMA-BUF only; off for ${off.length}/${gpus!.length} GPUs by distance` : 'DMA-BUF only (decided at run time)' };
  if (!gpus || gpus.length === 0) return { ...base, state: 'on', label: 'peer memory' };
  if (off.length === 0) return { off, gpus: gpuCount, state: 'on', label: `on (${gpus.length}/${gpus.length} GPUs)` };
  const kinds = [...new Set(off.map((g) => g.distance))].join(', ');
  return { off, gpus: gpuCount, state: off.length === gpus.length ? 'off' : 'partial', label: `off for ${off.length}/${gpus.length} GPUs (${kinds} beyond ${off[0]!.level})` };
}

/**
 * TOPO-010: GPUDirect RDMA off by distance, one finding per path type, each
 * listing its GPUs (eight GPUs behind the same kind of path are one problem).
 * Only where the NIC side could do it: otherwise GDR-001 says why it is off.
 */
export function distanceFindings(gpus: GpuGdr[], levelSource: string): Finding[] {
  // A NIC off the PCI tree is IB-011's finding (it names the GPUDirect RDMA it costs): one finding per kind.
  const off = gpus.filter((g) => g.enabled === false && g.distance !== null && !g.nicOffPci);
  const out: Finding[] = [];
  for (const distance of [...new Set(off.map((g) => g.distance!))]) {
    const these = off.filter((g) => g.distance === distance);
    const level = these[0]!.level;
    const all = these.length === gpus.length;
    out.push({
      id: 'TOPO-010',
      severity: 'warn',
      message: `GPUDirect RDMA is off for ${all ? `every GPU (${these.length})` : `GPU${these.length === 1 ? '' : 's'} ${gpuRanges(these.map((g) => g.gpu))} (${these.length} of ${gpus.length})`}: ${these.length === 1 ? 'its path' : 'each one\'s path'} to its NIC is ${distance}, beyond ${level} (${levelSource}), so ${these.length === 1 ? 'its' : 'their'} network traffic is staged through host memory`,
      remediation: advise(
        `Put each GPU's NIC behind the GPU's own PCIe switch (the placement NCCL expects). NCCL_NET_GDR_LEVEL=${distance} allows GPUDirect RDMA at ${distance}, which through the CPU's root complex is often slower than staging: measure both (nccl-tests) before keeping it`,
      ),
    });
  }
  return out;
}

/** The per-GPU decisions of `ncclx topo` (report.ts pairs) as the verdict reads them. */
export function gpuGdrOf(pairs: TopoPair[], gpus: TopoGpu[], nics: TopoNic[]): GpuGdr[] {
  return pairs.map((p) => ({ gpu: p.gpu, bdf: gpus[p.gpu]!.bdf, nic: p.nic === null ? null : nics[p.nic]!.device, enabled: p.gdr?.enabled ?? null, distance: p.gdr?.distance ?? null, level: p.gdr?.level ?? 'PXB', nicOffPci: p.nic !== null && !nics[p.nic]!.bdf }));
}
