// IB-037: NCCL_NET_MERGE_LEVEL fuses NICs into a virtual NIC NCCL cannot place (across CPUs ≥ 2.30.7,
// or below a CPU off the PCI tree): initialisation fails. The default level (PORT) never does.
import { unsetEnv } from '../../result/build.js';
import type { Finding } from '../socket-findings.js';
import { finding, refusedNames, type IbView, type Refusal } from './view.js';

export function ib037(v: IbView, r: Refusal): Finding[] {
  if (r.cause !== 'vnic-parent') return [];
  return [finding('IB-037', 'error', `NCCL_NET_MERGE_LEVEL=${v.selection.inputs.mergeLevel.level} fuses ${refusedNames(v, r).join(' and ')} into a virtual NIC that NCCL ${v.version} cannot place: NCCL WARNs "${r.log}" and initialisation fails`, unsetEnv('NCCL_NET_MERGE_LEVEL'))];
}
