// IB-039: NCCL_NET_FORCE_MERGE that cannot be honoured: a group that parses to
// no device name (NCCL loops for ever), or one NCCL refuses to fuse.
import { unsetEnv } from '../../result/build.js';
import type { Finding } from '../socket-findings.js';
import { finding, type IbView, type Refusal } from './view.js';

/** A group that parses to no device name: initialisation hangs. */
export function ib039(v: IbView): Finding[] {
  const { merge, inputs } = v.selection;
  if (merge.hang === undefined) return [];
  return [finding('IB-039', 'error', `NCCL_NET_FORCE_MERGE='${inputs.forceMerge}': the group '${merge.hang}' parses to no device name, and NCCL's loop never moves past it: initialisation hangs, printing "Invalid NCCL_NET_FORCE_MERGE specified" without end`, unsetEnv('NCCL_NET_FORCE_MERGE'))];
}

/** A forced group NCCL refuses to fuse: initialisation fails. */
export function ib039Refused(v: IbView, r: Refusal): Finding[] {
  if (r.cause !== 'force-merge') return [];
  return [finding('IB-039', 'error', `NCCL_NET_FORCE_MERGE='${v.selection.inputs.forceMerge}' cannot be honoured: NCCL WARNs "${r.log}" and initialisation fails`, unsetEnv('NCCL_NET_FORCE_MERGE'))];
}
