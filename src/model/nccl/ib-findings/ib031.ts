// IB-031: the GID choice fails on a port for another reason than EINVAL (an index outside the table, a types file that cannot be opened).
import { advise, setEnv, unsetEnv } from '../../result/build.js';
import type { Finding } from '../socket-findings.js';
import { finding, tolerantChoice, withNetdev, type IbView, type PortRef } from './view.js';

export function ib031(v: IbView, r: PortRef): Finding[] {
  const sel = r.port.gidSelection;
  if (!sel || sel.outcome.kind !== 'failure' || /EINVAL/.test(sel.outcome.why)) return [];
  const o = sel.outcome;
  const alt = tolerantChoice(v, r);
  return [finding('IB-031', 'error', `${withNetdev(r)}: ${o.why}; NCCL ${v.version}${o.log.length ? ` logs "${o.log[0]}" and` : ''} fails the connection`, sel.mode === 'explicit' ? (alt !== null ? setEnv({ NCCL_IB_GID_INDEX: String(alt) }) : unsetEnv('NCCL_IB_GID_INDEX')) : advise('Check the port\'s sysfs (gid_attrs/types) or set NCCL_IB_GID_INDEX explicitly'))];
}
