// IB-028: ports merged into one NCCL device, or a merge the IB transport
// refuses under NCCL_IB_MERGE_NICS=0 (fatal 2.24.3–2.25.x).
import { advise, setEnv, unsetEnv } from '../../result/build.js';
import type { Finding } from '../socket-findings.js';
import { finding, fusedGroups, refusedNames, unreadGroups, type IbView, type Refusal } from './view.js';

/** NCCL_IB_MERGE_NICS=0 refusing a vNIC of one NIC's ports. */
export function ib028Refused(v: IbView, r: Refusal): Finding[] {
  if (r.cause !== 'merge-nics-0') return [];
  const names = refusedNames(v, r);
  if (r.fatal) {
    return [finding('IB-028', 'error', `${names.join(' and ')} share one NIC, which NCCL ${v.version} fuses into a virtual NIC, but NCCL_IB_MERGE_NICS=0 makes the IB transport refuse it: NCCL WARNs "${r.log}" and initialisation fails (2.26.2 places them apart instead)`, unsetEnv('NCCL_IB_MERGE_NICS'))];
  }
  return [finding('IB-028', 'info', `${names.join(' and ')} share one NIC, but NCCL_IB_MERGE_NICS=0: NCCL logs "${r.log}", marks them unplaced and keeps them as separate devices`, unsetEnv('NCCL_IB_MERGE_NICS'))];
}

/** Merged ports: vNICs 2.24.3–2.26.x never read, fused groups, and the merge's notes. */
export function ib028(v: IbView): Finding[] {
  const { profile, selection } = v;
  const out: Finding[] = [];
  const unread = unreadGroups(v);
  if (unread.length && profile.vnicMode === 'every-group') {
    const names = unread.map((g) => g.members.map((m) => selection.devices[m]!.dev).join('+'));
    out.push(finding('IB-028', 'info', `NCCL ${v.version} makes virtual NICs of ports that share a NIC (${names.join(', ')}; INFO "NET/IB : Made virtual device …"), but 2.24.3–2.26.x place them in a nested <nic> their topology never reads: the ports stay separate NET devices`, advise('Nothing to do')));
  }
  const fused = fusedGroups(v).filter((g) => g.kind === 'beyond-nic' || g.kind === 'one-nic');
  if (fused.length) {
    const beyondNic = fused.some((g) => g.kind === 'beyond-nic');
    const forced = fused.some((g) => g.forced);
    const ordinary = fused.map((g) => (g.kind === 'beyond-nic' ? `${g.name} (${g.forced ? 'NCCL_NET_FORCE_MERGE' : g.key})` : `${g.name} (${(g.devs[0]!.pciPath ?? '').split('/').pop() || 'no PCI path'})`));
    const how = profile.ibMerge === 'core-vnic' ? `fuses them into virtual NICs (NCCL_NET_MERGE_LEVEL=${selection.inputs.mergeLevel.level}; INFO "NET/IB : Made virtual device … name=…")` : 'merges them in the IB transport (2.20.3–2.23.x)';
    // A forced group is fused at any level: keeping it apart means unsetting NCCL_NET_FORCE_MERGE as well.
    const apart: Record<string, string | null> = profile.ibMerge === 'core-vnic' ? { NCCL_NET_MERGE_LEVEL: 'LOC', ...(forced ? { NCCL_NET_FORCE_MERGE: null } : {}) } : { NCCL_IB_MERGE_NICS: '0' };
    out.push(finding('IB-028', 'info', `${beyondNic ? 'Ports are fused into one NCCL network device' : 'Ports that share a NIC are one NCCL network device'}: NCCL ${v.version} ${how}: ${ordinary.join(', ')}`, setEnv(apart, 'Nothing to do unless you want them separate')));
  }
  for (const n of selection.merge.notes) out.push(finding('IB-028', 'info', n, advise('Nothing to do')));
  return out;
}
