// IB-018: the IB transport keeps no port: NCCL logs "No device found." and
// silently uses TCP sockets, or fails initialisation under NCCL_NET=IB — also
// on a node with no RDMA device at all (seen on a real GPU VM: NCCL 2.28.9
// WARNs "Failed to initialize any NET plugin" and the job dies).
import { advise, setEnv, unsetEnv } from '../../result/build.js';
import type { Finding } from '../socket-findings.js';
import { finding, type IbView } from './view.js';

export function ib018(v: IbView): Finding[] {
  const { selection, profile } = v;
  const explicitIb = selection.inputs.net?.toLowerCase() === 'ib';
  if (v.report.transport.status !== 'no-device' || (!v.hasRdma && !explicitIb)) return [];
  // A filter that rejected ports is IB-001's to report.
  const byFilter = selection.ports.some((p) => p.trace.some((tr) => tr.stage === 'hca' && tr.verdict === 'skipped'));
  const usable = v.ports.filter((r) => r.port.linkLayer === 'InfiniBand' || r.port.linkLayer === 'Ethernet');
  if (explicitIb) {
    return [finding('IB-018', 'error', `NCCL_NET=IB${v.origin('NCCL_NET')} but the IB transport has no device: NCCL WARNs "${profile.netNotFoundLog.replace('%s', selection.inputs.net!)}" and initialisation fails`, usable.length ? setEnv({ NCCL_NET: null }, 'Bring an RDMA port up, or unset NCCL_NET') : unsetEnv('NCCL_NET'))];
  }
  if (byFilter) return [];
  return [
    finding(
      'IB-018',
      usable.length ? 'warn' : 'info',
      `NCCL's IB transport keeps no port (${usable.length ? 'no InfiniBand/Ethernet port is ACTIVE or openable' : 'no port has an InfiniBand or Ethernet link layer'}): NCCL logs "NET/IB : No device found." and silently uses TCP sockets${usable.length ? '' : ' unless an external net plugin takes over'}`,
      advise(usable.length ? 'Check the ports with ibstat / ibv_devinfo, then rerun ncclx ib' : 'Nothing to do for the IB transport'),
    ),
  ];
}
