// IB-030: NCCL_IB_HCA's grammar surprises (an empty port, dropped entries, spaces), which differ per release.
import { advise, setEnv } from '../../result/build.js';
import { groupNotes } from '../ifname-list.js';
import type { Finding, Severity } from '../socket-findings.js';
import { finding, type IbView } from './view.js';

export function ib030(v: IbView): Finding[] {
  const f = v.selection.inputs.hca;
  if (!f.list) return [];
  const raw = f.raw!;
  const out: Finding[] = [];
  for (const n of groupNotes(f.list.notes)) {
    if (n.kind === 'empty-item') continue;
    const sev: Severity = n.kind === 'empty-port' && v.profile.listParser === 'tokenizer' ? 'info' : 'warn';
    out.push(finding('IB-030', sev, `NCCL_IB_HCA${v.origin('NCCL_IB_HCA')}: ${n.message}`, n.kind === 'empty-port' || n.kind === 'non-numeric-field' ? setEnv({ NCCL_IB_HCA: raw.replace(/:(?=,|$)/g, '') }, 'Write the port as a number or leave it out') : advise(`Rewrite NCCL_IB_HCA with at most ${v.profile.ibMaxDevs} entries, no spaces`)));
  }
  return out;
}
