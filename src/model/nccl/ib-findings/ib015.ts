// IB-015: InfiniBand and RoCE ports together: fused into one vNIC NCCL refuses
// (fatal before 2.26.2), or kept side by side where no connection can pair them.
import type { Finding } from '../socket-findings.js';
import { exactHca, finding, label, refusedNames, setEnvOf, withNetdev, type IbView, type Refusal } from './view.js';

/** A fatal refusal to fuse a NIC's InfiniBand and RoCE ports. */
export function ib015Refused(v: IbView, r: Refusal): Finding[] {
  // From 2.26.2 NCCL places them apart (not fatal), and the mixed link layers are ib015's warning.
  if (r.cause !== 'link-layers' || !r.fatal) return [];
  const ib = v.kept.filter((k) => k.port.linkLayer === 'InfiniBand');
  return [finding('IB-015', 'error', `NCCL would fuse ${refusedNames(v, r).join(' and ')} (one NIC) into a virtual NIC, but they mix InfiniBand and RoCE: NCCL WARNs "${r.log}" and initialisation fails`, setEnvOf('NCCL_IB_HCA', exactHca(ib.length ? ib : v.kept.filter((k) => k.port.linkLayer === 'Ethernet'))))];
}

/** Both link layers kept: keep the majority (InfiniBand on a tie). */
export function ib015(v: IbView): Finding[] {
  const keptIb = v.kept.filter((k) => k.port.linkLayer === 'InfiniBand');
  const keptEth = v.kept.filter((k) => k.port.linkLayer === 'Ethernet');
  if (!keptIb.length || !keptEth.length || v.selection.merge.refusals.some((r) => r.fatal)) return [];
  const major = keptIb.length >= keptEth.length ? keptIb : keptEth;
  return [
    finding(
      'IB-015',
      'warn',
      `NCCL keeps InfiniBand ports (${keptIb.map(label).join(', ')}) and RoCE ports (${keptEth.map(withNetdev).join(', ')}) together: an InfiniBand port cannot reach a RoCE port, so connections NCCL pairs across them fail (RoCE storage/front-end NICs are the usual cause)`,
      setEnvOf('NCCL_IB_HCA', exactHca(major)),
    ),
  ];
}
