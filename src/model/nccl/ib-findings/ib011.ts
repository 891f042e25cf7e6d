// IB-011: an RDMA device whose `device` link is not a PCI function: NCCL attaches the NIC to the first CPU.
import { advise } from '../../result/build.js';
import type { Finding } from '../socket-findings.js';
import { finding, offPci, type IbView } from './view.js';

export function ib011(v: IbView): Finding[] {
  return offPci(v).map((d) => {
    const what = d.device.kind === 'directory' ? 'a plain directory, not a symlink into /sys/devices' : d.device.kind === 'missing' ? 'absent from this view (a partial capture? on a live node NCCL WARNs "Could not find real path of …")' : d.device.kind === 'other' ? 'not a symlink' : `a symlink to a non-PCI parent (${d.device.subsystem ?? 'no subsystem'})`;
    const shown = d.device.pciPath && !d.device.pciPathIsPci ? ` NCCL folds the path to ${d.device.pciPath}, which is not a PCI device, and logs "Topology detection: network path … is not a PCI device (${d.device.kind === 'directory' ? '' : d.device.subsystem ?? ''})".` : '';
    return finding(
      'IB-011',
      d.device.kind === 'missing' ? 'info' : 'warn',
      `/sys/class/infiniband/${d.name}/device is ${what}.${shown} The NIC is attached to the first CPU: GPU↔NIC affinity is lost`,
      advise("Run with the host's real /sys (e.g. docker run -v /sys:/sys:ro), or give NCCL the topology with NCCL_TOPO_FILE"),
    );
  });
}
