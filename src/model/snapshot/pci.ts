// The PCI part of a NodeSnapshot: network controllers (to find NICs without an
// RDMA device) and NVIDIA GPUs (for GPU↔NIC NUMA placement), read by
// src/probe/pci.ts from /sys/bus/pci/devices.

import type { TopoPart } from './topo-types.js';

export interface PciFunctionInfo {
  bdf: string;
  /** e.g. 0x020000 (Ethernet), 0x020700 (InfiniBand), 0x030200 (3D controller). */
  class: string;
  vendor: string;
  device: string;
  /** -1 when the platform does not say. */
  numaNode: number | null;
  driver: string | null;
  /** Netdevs under <function>/net. */
  netdevs: string[];
}

export interface PciPart {
  /** Whether /sys/bus/pci/devices could be listed. */
  present: boolean;
  nics: PciFunctionInfo[];
  gpus: PciFunctionInfo[];
  /** The PCI paths of GPUs and RDMA devices, for NCCL's topology (`ncclx topo`); absent in older snapshots. */
  topology?: TopoPart;
}
