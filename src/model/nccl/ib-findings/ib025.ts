// IB-025: an IB integer variable that C parsing reads other than it is written (010 is 8, 5abc is 5).
import { setEnv } from '../../result/build.js';
import type { Finding } from '../socket-findings.js';
import { finding, type IbView } from './view.js';

export function ib025(v: IbView): Finding[] {
  const { gidParams, selection } = v;
  return (
    [
      ['NCCL_IB_GID_INDEX', gidParams.gidIndex],
      ['NCCL_IB_ROCE_VERSION_NUM', gidParams.roceVersion],
      ['NCCL_IB_ROUTABLE_FLID_GID_INDEX', gidParams.flidIndex],
      ['NCCL_IB_MERGE_VFS', selection.inputs.mergeVfs],
      ['NCCL_IB_MERGE_NICS', selection.inputs.mergeNics],
      ['NCCL_IB_DEVICE_PCI_ORDER', selection.inputs.pciOrder],
    ] as const
  )
    .filter(([, p]) => p.raw !== undefined && p.surprising)
    .map(([name, p]) => finding('IB-025', 'warn', `${name}${v.origin(name)}: ${p.surprising}`, setEnv({ [name]: String(p.value) })));
}
