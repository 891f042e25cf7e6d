// IB-020: the GID choice depends on a value NCCL never read (an unreadable type): it can differ run to run.
import { advise, setEnv } from '../../result/build.js';
import type { Finding } from '../socket-findings.js';
import { bestCandidate, finding, withNetdev, type IbView, type PortRef } from './view.js';

export function ib020(v: IbView, r: PortRef): Finding[] {
  const o = r.port.gidSelection?.outcome;
  if (!o || o.kind !== 'indeterminate') return [];
  const best = bestCandidate(v, r, o.candidates);
  return [finding('IB-020', 'warn', `${withNetdev(r)}: cannot predict the GID index — ${o.why}. Different processes can end differently`, best !== null ? setEnv({ NCCL_IB_GID_INDEX: String(best) }) : advise('Set NCCL_IB_GID_INDEX explicitly'))];
}
