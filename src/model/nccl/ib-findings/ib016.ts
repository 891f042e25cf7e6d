// IB-016: NCCL_IB_DISABLE is a C integer: `true` reads 0 and disables nothing;
// a real disable with RDMA ports present is worth saying too.
import { unsetEnv } from '../../result/build.js';
import type { Finding } from '../socket-findings.js';
import { finding, setEnvOf, type IbView } from './view.js';

export function ib016(v: IbView): Finding[] {
  const dis = v.selection.inputs.disable;
  const t = v.report.transport;
  if (dis.raw === undefined || dis.raw === '') return [];
  if (dis.value === 0 && !/^\s*[+-]?0+\s*$/.test(dis.raw)) {
    return [finding('IB-016', 'warn', `NCCL_IB_DISABLE='${dis.raw}'${v.origin('NCCL_IB_DISABLE')} is read as an integer (${dis.surprising ?? 'C strtoll'}) and is 0: the IB transport is NOT disabled`, setEnvOf('NCCL_IB_DISABLE', '1'))];
  }
  if (dis.value !== 0 && v.hasRdma) {
    return [finding('IB-016', 'info', `NCCL_IB_DISABLE=${dis.raw}${v.origin('NCCL_IB_DISABLE')} disables the IB transport: NCCL uses ${t.network === 'Socket' ? 'TCP sockets' : t.network} although ${v.ports.length} RDMA port(s) exist`, unsetEnv('NCCL_IB_DISABLE'))];
  }
  return [];
}
