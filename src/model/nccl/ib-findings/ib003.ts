// IB-003: a bonded (LAG) device among the devices NCCL keeps: usually the front-end or storage network.
import { advise } from '../../result/build.js';
import type { Finding } from '../socket-findings.js';
import { exactHca, finding, label, setEnvOf, type IbView } from './view.js';

export function ib003(v: IbView): Finding[] {
  const filtered = !!v.selection.inputs.hca.list;
  const keptBonds = v.kept.filter((k) => v.report.devices.find((d) => d.name === k.dev)?.bond);
  if (!keptBonds.length) return [];
  const others = v.kept.filter((k) => !keptBonds.includes(k));
  const desc = keptBonds.map((k) => {
    const b = v.report.devices.find((d) => d.name === k.dev)!.bond!;
    return `${k.dev} (${b.netdev ?? 'bond'}${b.members.length ? ` over ${b.members.join('+')}` : ''})`;
  });
  if (others.length) {
    return [finding('IB-003', 'warn', `${filtered ? `NCCL_IB_HCA='${v.selection.inputs.hca.raw}' includes` : 'With NCCL_IB_HCA unset NCCL also uses'} the bonded device ${desc.join(', ')} next to ${others.map(label).join(', ')}: a bond is usually the front-end or storage network, and its traffic is hashed over the members`, setEnvOf('NCCL_IB_HCA', exactHca(others)))];
  }
  return [finding('IB-003', 'info', `NCCL uses the bonded device ${desc.join(', ')}: it is one NCCL device whose speed is the bond's, with traffic hashed over the members — every node needs the same bonding for rails to line up`, advise('Nothing to do if every node is bonded the same way'))];
}
