// IB-036: NICs off the PCI tree with a release whose failed graph search falls
// back to NET id 0 (Profile.searchFallbackNetZero), which renumbering or fusion removed.
import { advise, setEnv } from '../../result/build.js';
import type { Finding } from '../socket-findings.js';
import { finding, offPci, type IbView } from './view.js';

export function ib036(v: IbView): Finding[] {
  const { profile, version } = v;
  const nonPci = offPci(v);
  if (!nonPci.length || !profile.searchFallbackNetZero) return [];
  if (profile.vnicMode === 'every-group') {
    // 2.24.3–2.26.x renumber every NET after the physical devices (vnic.ts netNumbering): NET 0 is gone whatever the merge level.
    return [
      finding(
        'IB-036',
        'warn',
        `NCCL ${version} renumbers every NET device after the physical ones (NET 0 disappears, NCCL_NET_MERGE_LEVEL=LOC included), and ${nonPci.map((d) => d.name).join(', ')} (not on the PCI tree) make its graph search likely to fail: the fallback then ends in "Could not find NET with id 0" (fixed in 2.29.2)`,
        advise("Give NCCL the host's real /sys (PCI device links) or an NCCL_TOPO_FILE, or use NCCL ≥ 2.27.3 with NCCL_NET_MERGE_LEVEL=LOC (≥ 2.29.2 needs nothing)"),
      ),
    ];
  }
  const fused = v.selection.merge.groups.some((g) => g.merged && g.key.startsWith('first CPU'));
  if (!fused) return [];
  return [
    finding(
      'IB-036',
      'warn',
      `NCCL ${version} fuses ${nonPci.map((d) => d.name).join(', ')} (not on the PCI tree, all attached to the first CPU) into one virtual NIC, and a failed graph search then ends in "Could not find NET with id 0" (fixed in 2.29.2)`,
      setEnv({ NCCL_NET_MERGE_LEVEL: 'LOC' }, 'Keep the NICs apart (or use NCCL ≥ 2.29.2)'),
    ),
  ];
}
