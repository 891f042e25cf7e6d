// IB-012: no GPUDirect RDMA peer-memory module that this NCCL looks for is present.
import { run } from '../../result/build.js';
import { gpuCount } from '../gdr.js';
import type { Finding } from '../socket-findings.js';
import { finding, type IbView } from './view.js';

export function ib012(v: IbView): Finding[] {
  const rdma = v.snapshot.rdma;
  if (!rdma || !v.hasRdma) return [];
  const peer = v.report.environment.peerMem.filter((p) => p.checkedByThisVersion);
  // GPUDirect RDMA needs a GPU: on a node without one there is no peer memory to want (gdr.ts gpuCount, as GDR-001).
  if (!rdma.sysModuleKnown || !v.kept.length || peer.some((p) => p.present) || gpuCount(v.snapshot) === 0) return [];
  const loadedButUnseen = rdma.modules.find((m) => m.path === '/sys/module/nvidia_peermem' && m.present);
  return [
    finding(
      'IB-012',
      'warn',
      `No GPUDirect RDMA peer-memory module that NCCL ${v.version} looks for is present (${peer.map((p) => p.path).join(', ')})${loadedButUnseen ? '; nvidia_peermem is loaded, but this NCCL only checks the memory_peers paths (the /sys/module/nvidia_peermem check exists from 2.23.4)' : ''}. GPUDirect RDMA then depends on DMA-BUF (NCCL ≥ 2.13.4, kernel ≥ 5.12, CUDA ≥ 11.7); without it data is staged through host memory`,
      run([['modprobe', 'nvidia_peermem']]),
    ),
  ];
}
