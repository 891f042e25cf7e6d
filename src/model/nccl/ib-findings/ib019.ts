// IB-019: gid_attrs/types reads that fail with EINVAL (containers): the
// connection fails before 2.26.2; from 2.26.2 the entry's version is "unknown".
import { advise, setEnv } from '../../result/build.js';
import type { Finding } from '../socket-findings.js';
import { chosen } from './gid.js';
import { finding, tolerantChoice, withNetdev, type IbView, type PortRef } from './view.js';

export function ib019(v: IbView, r: PortRef): Finding[] {
  const sel = r.port.gidSelection;
  if (!sel) return [];
  const o = sel.outcome;
  if (o.kind === 'failure') {
    if (!/EINVAL/.test(o.why)) return [];
    const alt = tolerantChoice(v, r);
    return [finding('IB-019', 'error', `${withNetdev(r)}: ${o.why}; NCCL ${v.version}${o.log.length ? ` WARNs "${o.log[0]}" and` : ''} fails the connection (this NCCL does not tolerate EINVAL on gid_attrs/types, typical in containers)`, alt !== null ? setEnv({ NCCL_IB_GID_INDEX: String(alt) }, 'Pin the index, or use NCCL ≥ 2.26.2, which tolerates EINVAL') : advise('Upgrade to NCCL ≥ 2.26.2'))];
  }
  const c = chosen(v, r);
  if (!c || c.sel.mode !== 'auto' || !c.sel.einvalReads.length || !v.profile.gidEinvalTolerant) return [];
  return [finding('IB-019', 'info', `${withNetdev(r)}: some gid_attrs/types reads fail with EINVAL (${c.sel.einvalReads.join(', ')}); NCCL ${v.version} treats them as "version unknown" and the choice is still GID ${c.index}`, advise('Nothing to do on NCCL ≥ 2.26.2; older NCCL fails here'))];
}
