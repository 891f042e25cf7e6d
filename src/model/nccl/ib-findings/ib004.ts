// IB-004: NCCL_IB_HCA names a port that is not ACTIVE, which NCCL skips: this node has fewer rails than its peers.
import { advise, setEnv } from '../../result/build.js';
import type { Finding } from '../socket-findings.js';
import { exactHca, finding, withNetdev, type IbView } from './view.js';

export function ib004(v: IbView): Finding[] {
  const list = v.selection.inputs.hca.list;
  if (!list || list.not) return [];
  const named = v.selection.ports.filter((p) => p.trace.some((t) => t.stage === 'port' && t.verdict === 'skipped') && list.entries.some((e) => (list.exact ? e.prefix === p.dev : p.dev.startsWith(e.prefix)) && (e.port === -1 || e.port === p.port)));
  if (!named.length) return [];
  const refs = v.ports.filter((r) => named.some((n) => n.dev === r.dev && n.port === r.port.port));
  return [finding('IB-004', 'warn', `NCCL_IB_HCA${v.origin('NCCL_IB_HCA')} names ${refs.map((r) => `${withNetdev(r)} (${r.port.state ?? 'state unknown'})`).join(', ')}, which NCCL skips because the port is not ACTIVE: this node then has fewer rails than its peers`, v.kept.length ? setEnv({ NCCL_IB_HCA: exactHca(v.kept) }) : advise('Bring the port up (check the cable, switch port and subnet manager)'))];
}
