// IB-026: the GID selection variables: a family NCCL does not recognise, a
// range it ignores or that matches nothing, a RoCE version other than 1 or 2,
// and any of them on a release before automatic selection (2.21.5).
import { advise } from '../../result/build.js';
import type { Finding } from '../socket-findings.js';
import { finding, setEnvOf, type IbView } from './view.js';

export function ib026(v: IbView): Finding[] {
  const { gidParams, profile } = v;
  const out: Finding[] = [];
  const fam = gidParams.family;
  if (fam.raw !== undefined && !fam.recognised) {
    out.push(finding('IB-026', 'warn', `NCCL_IB_ADDR_FAMILY='${fam.raw}'${v.origin('NCCL_IB_ADDR_FAMILY')} is neither AF_INET nor AF_INET6 (exact, case-sensitive): NCCL silently uses AF_INET`, setEnvOf('NCCL_IB_ADDR_FAMILY', /6/.test(fam.raw) ? 'AF_INET6' : 'AF_INET')));
  }
  const range = gidParams.range;
  if (range && range.effect !== 'prefix') {
    out.push(finding('IB-026', range.effect === 'none-match' ? 'error' : 'warn', `NCCL_IB_ADDR_RANGE='${range.raw}'${v.origin('NCCL_IB_ADDR_RANGE')}: ${range.note}${range.log ? ` (INFO "${range.log}")` : ''}`, advise(`Write it as <address>/<prefix length> in NCCL_IB_ADDR_FAMILY's family (e.g. ${fam.value === 'AF_INET' ? '10.0.0.0/8' : 'fd00::/8'} for your RDMA network), or unset it`)));
  }
  const rv = gidParams.roceVersion;
  if (rv.raw !== undefined && rv.raw !== '' && rv.value !== 1 && rv.value !== 2 && profile.gidAuto) {
    out.push(finding('IB-026', 'warn', `NCCL_IB_ROCE_VERSION_NUM=${rv.raw}${v.origin('NCCL_IB_ROCE_VERSION_NUM')} is read as ${rv.value}, neither 1 nor 2: no GID wins on version, only the family switch moves the index, so NCCL may end on a RoCE v1 GID`, setEnvOf('NCCL_IB_ROCE_VERSION_NUM', '2')));
  }
  if (!profile.gidAuto) {
    const ignored = ['NCCL_IB_ADDR_FAMILY', 'NCCL_IB_ADDR_RANGE', 'NCCL_IB_ROCE_VERSION_NUM'].filter((n) => v.env.vars[n] !== undefined);
    if (ignored.length) out.push(finding('IB-026', 'info', `${ignored.join(', ')} ${ignored.length > 1 ? 'are' : 'is'} ignored by NCCL ${v.version}: automatic GID selection starts in 2.21.5`, advise('Set NCCL_IB_GID_INDEX, or upgrade NCCL')));
  }
  return out;
}
