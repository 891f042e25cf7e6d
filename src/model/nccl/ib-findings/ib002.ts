// IB-002: the prefix trap: entry mlx5_1 also takes mlx5_10, mlx5_11, …
import type { Finding } from '../socket-findings.js';
import { deviceNames, type EntryHit } from './hca.js';
import { finding, setEnvOf, type IbView } from './view.js';

export function ib002(v: IbView, hits: EntryHit[]): Finding[] {
  const list = v.selection.inputs.hca.list;
  if (!list || list.exact) return [];
  const devNames = deviceNames(v);
  const out: Finding[] = [];
  for (const { entry, hits: h } of hits) {
    if (h.length > 1 && h.includes(entry.prefix)) {
      const exact = list.entries.map((e) => (devNames.includes(e.prefix) ? e.text : hits.find((x) => x.entry === e)!.hits.join(','))).filter(Boolean);
      out.push(finding('IB-002', 'warn', `NCCL_IB_HCA entry '${entry.text}'${v.origin('NCCL_IB_HCA')} is a prefix: it ${list.not ? 'excludes' : 'selects'} ${h.join(', ')}, not only ${entry.prefix}`, setEnvOf('NCCL_IB_HCA', `${list.not ? '^' : ''}=${exact.join(',')}`)));
    }
  }
  return out;
}
