// IB-029: NCCL_NET names another transport, so the RDMA devices go unused.
import { setEnv } from '../../result/build.js';
import type { Finding } from '../socket-findings.js';
import { finding, type IbView } from './view.js';

export function ib029(v: IbView): Finding[] {
  const t = v.report.transport;
  if (!(t.status === 'not-requested' || (t.status === 'ok' && t.used === false))) return [];
  return [finding('IB-029', 'info', `NCCL_NET=${v.selection.inputs.net}${v.origin('NCCL_NET')}: ${t.why}`, setEnv({ NCCL_NET: null }, 'Unset NCCL_NET to let NCCL use the IB transport'))];
}
