// IB-021: no NCCL library was found, so the newest known release is modelled.
import { advise } from '../../result/build.js';
import type { Finding } from '../socket-findings.js';
import { finding, type IbView } from './view.js';

export function ib021(v: IbView): Finding[] {
  if (!v.versionAssumed) return [];
  return [finding('IB-021', 'info', `No NCCL library was found on this node; assuming NCCL ${v.version} (newest known)`, advise('Pass --nccl-version X.Y.Z (or ncclx-X.Y) to model the NCCL your job really loads'))];
}
