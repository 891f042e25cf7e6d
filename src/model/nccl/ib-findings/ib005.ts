// IB-005: NCCL_IB_GID_INDEX on a RoCE port points at an entry that is unset,
// link-local, RoCE v1 or unreadable, or just not the one NCCL would choose.
import { setEnv, unsetEnv } from '../../result/build.js';
import { classifyType, gidLinkLocal, gidText, isZeroGid } from '../gid.js';
import type { Finding } from '../socket-findings.js';
import { chosen } from './gid.js';
import { finding, tolerantChoice, withNetdev, type IbView, type PortRef } from './view.js';

export function ib005(v: IbView, r: PortRef): Finding[] {
  const c = chosen(v, r);
  if (!c || c.sel.mode !== 'explicit' || r.port.linkLayer !== 'Ethernet') return [];
  const { index, entry, bytes: b } = c;
  const auto = tolerantChoice(v, r);
  const autoText = auto !== null && auto !== index ? `; NCCL's automatic choice would be ${auto}` : '';
  const fix = v.profile.gidAuto ? setEnv({ NCCL_IB_GID_INDEX: null }, auto !== null && auto !== index ? `Unset it: NCCL picks ${auto} itself.` : undefined) : auto !== null ? setEnv({ NCCL_IB_GID_INDEX: String(auto) }) : unsetEnv('NCCL_IB_GID_INDEX');
  const what = `NCCL_IB_GID_INDEX=${v.gidParams.gidIndex.raw}${v.origin('NCCL_IB_GID_INDEX')} on ${withNetdev(r)}`;
  if (!b) return [finding('IB-005', 'warn', `${what} points at an entry whose GID is unknown here${autoText}`, fix)];
  if (isZeroGid(b)) return [finding('IB-005', 'error', `${what} points at an unset (all-zero) GID: the QP cannot reach RTR (ibv_modify_qp fails with EINVAL)${autoText}`, fix)];
  if (gidLinkLocal(b)) return [finding('IB-005', 'warn', `${what} points at a link-local GID (${gidText(b)}): it is not routed, so only peers on the same L2 segment are reachable${autoText}`, fix)];
  const t = classifyType(entry!.type);
  if (t.kind === 'version' && t.version === 1) return [finding('IB-005', 'warn', `${what} points at a RoCE v1 GID (${gidText(b)}): RoCE v1 is not routable and peers using v2 cannot talk to it${autoText}`, fix)];
  if (t.kind !== 'version') return [finding('IB-005', 'info', `${what}: the type of GID ${index} cannot be read (${t.kind === 'unrecognised' ? t.text : t.errno})${autoText}`, fix)];
  if (auto !== null && auto !== index) return [finding('IB-005', 'info', `${what} (${gidText(b)}, RoCE v2)${autoText}`, fix)];
  return [];
}
