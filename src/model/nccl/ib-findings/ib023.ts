// IB-023: more ports qualify than MAX_IB_DEVS; NCCL silently ignores the rest.
import { setEnv } from '../../result/build.js';
import type { Finding } from '../socket-findings.js';
import { exactHca, finding, type IbView } from './view.js';

export function ib023(v: IbView): Finding[] {
  const dropped = v.selection.ports.filter((p) => p.trace.some((tr) => tr.stage === 'limit'));
  if (!dropped.length) return [];
  return [finding('IB-023', 'warn', `More than MAX_IB_DEVS=${v.profile.ibMaxDevs} ports qualify; NCCL ${v.version} silently ignores ${dropped.map((d) => `${d.dev}:${d.port}`).join(', ')}`, setEnv({ NCCL_IB_HCA: exactHca(v.kept.slice(0, v.profile.ibMaxDevs)) }, 'Name the ports you want'))];
}
