// IB-022: ports whose link layer is neither InfiniBand nor Ethernet (EFA): NCCL's IB transport skips them.
import { advise } from '../../result/build.js';
import type { Finding } from '../socket-findings.js';
import { finding, label, type IbView } from './view.js';

export function ib022(v: IbView): Finding[] {
  const odd = v.ports.filter((r) => r.port.linkLayer !== null && r.port.linkLayer !== 'InfiniBand' && r.port.linkLayer !== 'Ethernet');
  if (!odd.length) return [];
  const efa = odd.some((r) => /^0x1d0f$/i.test(v.report.devices.find((d) => d.name === r.dev)?.pci?.vendor ?? '') || /^(efa|rdmap)/.test(r.dev));
  return [
    finding(
      'IB-022',
      'info',
      `${odd.map((r) => `${label(r)} (link layer ${r.port.linkLayer})`).join(', ')}: NCCL's IB transport keeps only InfiniBand and Ethernet ports and skips these silently${efa ? '; EFA devices are used through the aws-ofi-nccl plugin (libnccl-net.so), not NCCL\'s IB transport' : ''}`,
      advise(efa ? 'Install aws-ofi-nccl and make sure libnccl-net.so is on LD_LIBRARY_PATH (NCCL logs "Using network AWS Libfabric")' : 'Nothing to do for NCCL\'s IB transport; use the vendor\'s NCCL net plugin if there is one'),
    ),
  ];
}
