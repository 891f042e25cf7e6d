// IB-001: NCCL_IB_HCA matches nothing: an entry names no device here, or the
// whole value keeps no port, and NCCL silently falls back to TCP sockets.
import { advise, setEnv } from '../../result/build.js';
import type { Finding } from '../socket-findings.js';
import { deviceNames, type EntryHit } from './hca.js';
import { exactHca, finding, hcaSuggestion, label, type IbView } from './view.js';

/** An entry that matches no RDMA device (and is no netdev name, IB-033). */
export function ib001Entry(v: IbView, unmatched: EntryHit): Finding[] {
  const list = v.selection.inputs.hca.list;
  if (!list) return [];
  const bonded = v.report.devices.filter((d) => d.bond && d.bond.members.length);
  const bondNote = bonded.length ? `; this node has ${bonded.map((d) => `${d.name} (bond of ${d.bond!.members.join('+')})`).join(', ')}` : '';
  return [
    finding(
      'IB-001',
      list.not ? 'info' : 'warn',
      `NCCL_IB_HCA entry '${unmatched.entry.text}'${v.origin('NCCL_IB_HCA')} matches no RDMA device on this node (devices: ${deviceNames(v).join(', ') || 'none'})${bondNote}`,
      list.not ? advise('Nothing to do unless you meant another device') : hcaSuggestion(v.kept.length ? v.kept : v.ports.filter((p) => p.port.state === 'ACTIVE'), 'Use device names that exist here'),
    ),
  ];
}

/** The whole value keeps no port while it rejected usable ones. */
export function ib001(v: IbView): Finding[] {
  const f = v.selection.inputs.hca;
  const list = f.list;
  if (!list) return [];
  const rejected = v.selection.ports.filter((p) => p.trace.some((t) => t.stage === 'hca' && t.verdict === 'skipped'));
  if (v.kept.length !== 0 || !rejected.length) return [];
  const all = v.ports.filter((r) => rejected.some((p) => p.dev === r.dev && p.port === r.port.port));
  const explicitIb = v.selection.inputs.net?.toLowerCase() === 'ib';
  const alone = list.not && list.entries.length === 0;
  return [
    finding(
      'IB-001',
      alone ? 'warn' : 'error',
      `NCCL_IB_HCA='${f.raw!}'${v.origin('NCCL_IB_HCA')} keeps no port (it rejects ${all.map(label).join(', ')}): NCCL logs "NET/IB : No device found." and ${explicitIb ? 'initialisation fails because NCCL_NET=IB' : 'silently falls back to TCP sockets'}${alone ? ' — `^` alone excludes every HCA; to disable IB say so with NCCL_IB_DISABLE=1' : ''}`,
      alone ? setEnv({ NCCL_IB_DISABLE: '1' }) : setEnv({ NCCL_IB_HCA: exactHca(all) }),
    ),
  ];
}
