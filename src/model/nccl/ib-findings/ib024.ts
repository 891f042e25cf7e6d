// IB-024: RoCE on a RoCE v1 GID: the automatic walk ended on a v1 entry, or a
// release before 2.21.5 uses NCCL_IB_GID_INDEX's default 0 (link-local v1).
import { advise, setEnv } from '../../result/build.js';
import { classifyType, gidLinkLocal, gidText, gidValid } from '../gid.js';
import type { Finding } from '../socket-findings.js';
import { chosen } from './gid.js';
import { finding, portGids, setEnvOf, tolerantChoice, withNetdev, type IbView, type PortRef } from './view.js';

/** The automatic walk on this port ended on a RoCE v1 entry while RoCE v2 is wanted. */
export function ib024(v: IbView, r: PortRef): Finding[] {
  const c = chosen(v, r);
  if (!c || c.sel.mode !== 'auto' || !c.bytes || !gidValid(c.bytes)) return [];
  const t = c.entry ? classifyType(c.entry.type) : null;
  if (t?.kind !== 'version' || t.version !== 1 || v.gidParams.roceVersion.value !== 2) return [];
  const v2 = c.gids.find((g) => g.bytes && gidValid(g.bytes) && classifyType(g.type).kind === 'version' && (classifyType(g.type) as { version: number }).version === 2);
  return [finding('IB-024', 'warn', `${withNetdev(r)}: NCCL ends on GID ${c.index} (${gidText(c.bytes)}), a RoCE v1 entry — no RoCE v2 GID of the wanted family won the walk`, setEnvOf('NCCL_IB_GID_INDEX', String(v2?.index ?? c.index)))];
}

/** Before 2.21.5: the fixed default index 0 on RoCE ports where it is not the entry NCCL would choose today. */
export function ib024Default(v: IbView, ports: PortRef[]): Finding[] {
  const fixedZero: { r: PortRef; best: number | null }[] = [];
  for (const r of ports) {
    const c = chosen(v, r);
    if (!c || c.sel.mode !== 'fixed-default' || r.port.linkLayer !== 'Ethernet') continue;
    const best = tolerantChoice(v, r);
    if (c.bytes && (!gidValid(c.bytes) || best !== c.index)) fixedZero.push({ r, best });
  }
  if (!fixedZero.length) return [];
  const bests = [...new Set(fixedZero.map((x) => x.best))];
  const gid0 = portGids(v, fixedZero[0]!.r).find((g) => g.index === 0)?.bytes;
  return [
    finding(
      'IB-024',
      'warn',
      `NCCL ${v.version} uses NCCL_IB_GID_INDEX's default 0 on RoCE (automatic selection starts in 2.21.5): GID 0 of ${fixedZero.map((x) => withNetdev(x.r)).join(', ')} is ${gid0 ? gidText(gid0) : 'unknown'}${gid0 && gidLinkLocal(gid0) ? ' (link-local RoCE v1: no L3 routing)' : ''}; the RoCE v2 IPv4 GID is ${bests.map((x) => (x === null ? '?' : String(x))).join(' / ')}`,
      bests.length === 1 && bests[0] !== null ? setEnv({ NCCL_IB_GID_INDEX: String(bests[0]) }) : advise('Upgrade to NCCL ≥ 2.21.5 (automatic choice), or set NCCL_IB_GID_INDEX per node in /etc/nccl.conf'),
    ),
  ];
}
