// IB-013: NCCL cannot open an HCA because /dev/infiniband (or its device nodes) is missing, typically in a container.
import { advise, run } from '../../result/build.js';
import type { Finding } from '../socket-findings.js';
import { finding, type IbView } from './view.js';

export function ib013(v: IbView): Finding[] {
  const rdma = v.snapshot.rdma;
  if (!rdma || !v.hasRdma) return [];
  const openFail = v.selection.ports.filter((p) => p.trace.some((tr) => tr.stage === 'open' && tr.verdict === 'skipped'));
  if (!openFail.length) return [];
  const devs = [...new Set(openFail.map((p) => p.dev))];
  return [
    finding(
      'IB-013',
      'error',
      `${rdma.devInfiniband.present ? 'Device nodes under /dev/infiniband are missing for' : '/dev/infiniband is missing, so NCCL cannot open'} ${devs.join(', ')}: NCCL WARNs "NET/IB : Unable to open device …" and skips ${devs.length > 1 ? 'them' : 'it'}${rdma.container.detected ? ' (this looks like a container without the RDMA devices)' : ''}`,
      rdma.container.detected ? advise('Expose the devices to the container: docker run --device=/dev/infiniband … (Kubernetes: an RDMA device plugin resource)') : run([['modprobe', 'ib_uverbs'], ['modprobe', 'mlx5_ib']], 'Load the RDMA stack and check /dev/infiniband'),
    ),
  ];
}
