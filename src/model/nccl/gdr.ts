// GPUDirect RDMA readiness on the NIC side (docs/nccl/gdr.md): whether a
// peer-memory path this NCCL version checks exists, else whether DMA-BUF can
// stand in. One function for the doctor (GDR-001), the IB report (IB-012) and
// compare, so they cannot disagree.

import { setEnv, unsetEnv } from '../result/build.js';
import type { Finding } from '../result/types.js';
import { parseNcclInt } from './cint.js';
import type { Profile } from './versions.js';
import type { RdmaPart } from '../snapshot/rdma-types.js';
import type { NodeSnapshot } from '../snapshot/types.js';

/**
 * unknown: no RDMA part in the snapshot; no-rdma: no RDMA device;
 * peer-memory: a path NCCL checks exists; dma-buf: none does, GPUDirect RDMA
 * depends on DMA-BUF; disabled: none does and DMA-BUF is off or too new for
 * this NCCL.
 */
export type GdrStatus = 'unknown' | 'no-rdma' | 'peer-memory' | 'dma-buf' | 'disabled';

export interface GdrReadiness {
  status: GdrStatus;
  /** The peer-memory paths this NCCL version checks, and whether each exists. */
  checked: { path: string; present: boolean }[];
  /** NCCL_DMABUF_ENABLE reads 0 (C integer rules: `false` is 0 too). */
  dmabufOff: boolean;
  /** This NCCL has the DMA-BUF path (≥ 2.13.4). */
  dmabufInVersion: boolean;
  /** nvidia_peermem is loaded, but this NCCL only checks the memory_peers paths (< 2.23.4). */
  loadedButUnseen: boolean;
  /** /sys/module could be read, so an absent module is really absent. */
  modulesKnown: boolean;
}

export function gdrReadiness(rdma: RdmaPart | undefined, profile: Profile, vars: Record<string, string>): GdrReadiness {
  const present = (path: string) => !!rdma && (rdma.peerMem.some((p) => p.path === path && p.present) || rdma.modules.some((m) => m.path === path && m.present));
  const checked = profile.peerMemPaths.map((path) => ({ path, present: present(path) }));
  const dmabufOff = parseNcclInt(vars['NCCL_DMABUF_ENABLE'], 1).value === 0;
  const dmabufInVersion = profile.dmabuf;
  const loadedButUnseen = !!rdma?.modules.some((m) => m.path === '/sys/module/nvidia_peermem' && m.present) && !profile.peerMemPaths.includes('/sys/module/nvidia_peermem/version');
  const base = { checked, dmabufOff, dmabufInVersion, loadedButUnseen, modulesKnown: !!rdma?.sysModuleKnown };
  if (!rdma) return { status: 'unknown', ...base };
  if (rdma.devices.length === 0) return { status: 'no-rdma', ...base };
  if (checked.some((c) => c.present)) return { status: 'peer-memory', ...base };
  return { status: !dmabufInVersion || dmabufOff ? 'disabled' : 'dma-buf', ...base };
}

/** NVIDIA GPUs the snapshot shows (0: none, so GPUDirect RDMA does not apply), or null when the PCI tree was not read. */
export function gpuCount(snapshot: NodeSnapshot): number | null {
  return snapshot.pci?.present ? snapshot.pci.gpus.length : null;
}

/** One line saying what the readiness is, as GDR-001 and compare print it. */
export function gdrSummary(g: GdrReadiness, version: string): string {
  switch (g.status) {
    case 'unknown':
      return 'no RDMA data in this snapshot';
    case 'no-rdma':
      return 'no RDMA devices: GPUDirect RDMA does not apply';
    case 'peer-memory':
      return `peer memory available to NCCL ${version} through ${g.checked.filter((c) => c.present).map((c) => c.path).join(', ')}`;
    case 'disabled':
      return `GPUDirect RDMA disabled: none of the peer-memory paths NCCL ${version} checks exists${g.dmabufOff ? ' and NCCL_DMABUF_ENABLE=0 turns DMA-BUF off' : ' and this version has no DMA-BUF path'}`;
    case 'dma-buf':
      return `no peer-memory module visible to NCCL ${version}; GPUDirect RDMA depends on DMA-BUF`;
  }
}

/** The level names this version accepts (case-sensitive). */
export function gdrLevelNames(profile: Profile): string[] {
  return profile.gdrLevelNames;
}

/** GDR-003: an NCCL_NET_GDR_LEVEL value NCCL silently ignores, or null when it is unset or accepted. */
export function gdrLevelFinding(raw: string | undefined, profile: Profile): Finding | null {
  if (raw === undefined) return null;
  const names = gdrLevelNames(profile);
  if (/^\d/.test(raw) || names.includes(raw)) return null;
  const upper = raw.toUpperCase();
  return {
    id: 'GDR-003',
    severity: 'warn',
    message: `NCCL_NET_GDR_LEVEL=${raw} is not a level NCCL ${profile.version.raw} knows (${names.join(' ')}, or an integer): it is silently ignored`,
    remediation: names.includes(upper) ? setEnv({ NCCL_NET_GDR_LEVEL: upper }) : unsetEnv('NCCL_NET_GDR_LEVEL'),
  };
}
