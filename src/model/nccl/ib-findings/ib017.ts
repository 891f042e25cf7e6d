// IB-017: the IB transport has no IP interface for its OOB socket, so the whole transport fails.
import { advise, setEnv } from '../../result/build.js';
import type { Remediation } from '../../result/types.js';
import { commIdHintCause, type Finding } from '../socket-findings.js';
import { finding, type IbView } from './view.js';

/** An interface with an IPv4 address for the IB transport's OOB socket, or advice when there is none. */
function oobFix(v: IbView, why = ''): Remediation {
  const name = v.snapshot.network.addresses.find((a) => a.name !== 'lo' && a.family === 'AF_INET')?.name;
  const advice = commIdHintCause(why) ?? 'Give NCCL an interface with an IP address for its OOB socket';
  return name ? setEnv({ NCCL_SOCKET_IFNAME: `=${name}` }, advice) : advise(advice);
}

export function ib017(v: IbView): Finding[] {
  const t = v.report.transport;
  if (t.status !== 'no-oob' || !v.hasRdma) return [];
  return [finding('IB-017', 'error', `The IB transport fails: ${t.why} — NCCL prints "NCCL WARN NET/IB : No IP interface found."`, oobFix(v, t.why.replace(/^no IP interface for the IB OOB socket \(/, '')))];
}
