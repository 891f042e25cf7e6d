// IB-038: from 2.27.3, a virtual NIC placed where NCCL's topology never reads it: its ports are dropped too.
import { setEnv } from '../../result/build.js';
import type { Finding } from '../socket-findings.js';
import { finding, unreadGroups, type IbView } from './view.js';

export function ib038(v: IbView): Finding[] {
  const unread = unreadGroups(v);
  // 2.24.3–2.26.x keep the ports as separate NETs: IB-028 says so.
  if (!unread.length || v.profile.vnicMode === 'every-group') return [];
  const names = unread.map((g) => g.members.map((m) => v.selection.devices[m]!.dev).join('+'));
  const why = [...new Set(unread.map((g) => (g.home as { why: string }).why))].join('; ');
  return [finding('IB-038', 'warn', `NCCL ${v.version} fuses ${names.join(', ')} into virtual NICs, but ${why}; it also drops the fused ports (keep=0), so no NET device stands for them in its topology`, setEnv({ NCCL_NET_MERGE_LEVEL: 'LOC' }, 'Keep the NICs apart'))];
}
