// What NCCL asks NVML about each GPU when it builds its topology from /sys
// (graph/xml.cc ncclTopoGetXmlFromGpu, v2.30.7-1): the NVML index (`dev`),
// the compute capability (`sm`) and the active NVLinks grouped by the PCI
// device at their far end (`<nvlink target count tclass>`). ncclx has no
// NVML: the compute capability comes from the PCI device id (a table of
// NVIDIA's ids, docs/nccl/topology.md), else from `nvidia-smi
// --query-gpu=compute_cap` (asked only for an id the table lacks), the
// NVLinks from `nvidia-smi topo -m` and `nvidia-smi nvlink -s`. Pure.

import type { TopoPart } from '../snapshot/topo-types.js';
import { maxOf } from '../list.js';

/**
 * NVIDIA PCI device id → compute capability × 10, for the data-centre GPUs
 * NCCL runs on. Ids from the PCI ID Repository (pci.ids, vendor 10de),
 * capabilities from NVIDIA's CUDA GPU list (developer.nvidia.com/cuda-gpus).
 */
const SM_BY_DEVICE: Record<string, number> = {
  // Volta GV100: V100 PCIe 16/32 GB, SXM2 16/32 GB.
  '0x1db1': 70, '0x1db4': 70, '0x1db5': 70, '0x1db6': 70,
  // Ampere GA100: A100 SXM4 40 GB, PCIe 40 GB, SXM4 80 GB, PCIe 80 GB, PCIe 40 GB (20f1); A30.
  '0x20b0': 80, '0x20b1': 80, '0x20b2': 80, '0x20b5': 80, '0x20f1': 80, '0x20b7': 80,
  // Ampere GA102: RTX A6000, A40, A10.
  '0x2230': 86, '0x2235': 86, '0x2236': 86,
  // Ada AD102/AD104: L40, L40S, L4.
  '0x26b5': 89, '0x26b9': 89, '0x27b8': 89,
  // Hopper GH100: H100 SXM5, H100 PCIe, H200 SXM, GH200.
  '0x2330': 90, '0x2331': 90, '0x2335': 90, '0x2342': 90,
  // Blackwell GB100: B200.
  '0x2901': 100,
};

/** The compute capability (major × 10 + minor) of an NVIDIA device id, null when ncclx does not know it. */
export function smOfDevice(device: string | null | undefined): number | null {
  return device ? (SM_BY_DEVICE[device.toLowerCase()] ?? null) : null;
}

/** How many NVLinks ncclTopoGetXmlFromGpu asks NVML about for a compute capability. */
export function maxNvLinks(sm: number): number {
  return sm < 60 ? 0 : sm < 70 ? 4 : sm < 80 ? 6 : sm < 90 ? 12 : 18;
}

/** NVML's bus id of a sysfs bdf ("0000:19:00.0" → "00000000:19:00.0"), lower case as NCCL writes it. */
export const nvmlBusId = (bdf: string): string => {
  const [domain, ...rest] = bdf.toLowerCase().split(':');
  return [domain!.padStart(8, '0'), ...rest].join(':');
};

/** NCCL's target for a link whose far end NVML does not show (an NVSwitch): it assumes an NVSwitch. */
export const HIDDEN_TARGET = 'fffffff:ffff:ff';
export const NVSWITCH_CLASS = '0x068000';

export interface GpuNvlink {
  target: string;
  count: number;
  tclass: string;
}

export interface GpuFacts {
  bdf: string;
  /** NVML index: PCI bus order. */
  dev: number;
  sm: number | null;
  /**
   * The GPU's own GPUDirect RDMA support, which NCCL asks CUDA for
   * (cudaDevAttrGPUDirectRDMASupported, plugin/net.cc ncclGpuGdrSupport):
   * true for the data-centre and workstation parts of the device-id table
   * (NCCL's dump on a real H200 with no RDMA NIC says gdr="1",
   * test/device/h200-vm/); null for other ids (not known without CUDA).
   */
  gdr: boolean | null;
  nvlinks: GpuNvlink[];
}

/**
 * Each GPU's NVML facts. From `nvidia-smi topo -m`, GPU i's NV# to GPU j:
 * when the NV# to its peers add up to more links than the GPU has (its
 * active links in `nvidia-smi nvlink -s`, else the most NCCL asks NVML
 * about for its sm), the links go to NVSwitches, which NVML does not show
 * from the GPU: one <nvlink> to NCCL's hidden target with the NVSwitch class,
 * counting its active links (else its largest NV#). Otherwise each NV# is a
 * direct link to the peer GPU, of the peer's PCI class.
 */
export function gpuFacts(topo: TopoPart): GpuFacts[] {
  const cls = new Map(topo.functions.map((f) => [f.bdf, f.class]));
  const dev = new Map(topo.functions.map((f) => [f.bdf, f.device]));
  const nv = topo.nvlink?.links;
  const usable = nv && nv.length === topo.gpus.length ? nv : null;
  const reported = new Map((topo.computeCaps?.gpus ?? []).map((g) => [g.bdf, g.sm]));
  return topo.gpus.map((bdf, i) => {
    const tabled = smOfDevice(dev.get(bdf));
    const sm = tabled ?? reported.get(bdf.toLowerCase()) ?? null;
    const row = usable?.[i] ?? [];
    const status = topo.nvlinkStatus?.gpus.find((g) => g.index === i);
    const active = status ? status.links.filter((l) => l.gbps !== null).length : null;
    const total = row.reduce((a, b) => a + b, 0);
    const nvlinks: GpuNvlink[] = [];
    if (sm !== null && maxNvLinks(sm) > 0 && total > 0 && active !== 0) {
      if (total > (active ?? maxNvLinks(sm))) nvlinks.push({ target: HIDDEN_TARGET, count: Math.min(active ?? maxOf(row), maxNvLinks(sm)), tclass: NVSWITCH_CLASS });
      else row.forEach((c, j) => c > 0 && j !== i && nvlinks.push({ target: nvmlBusId(topo.gpus[j]!), count: c, tclass: cls.get(topo.gpus[j]!) ?? '0x030200' }));
    }
    return { bdf, dev: i, sm, gdr: tabled !== null ? true : null, nvlinks };
  });
}
