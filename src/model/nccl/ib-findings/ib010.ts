// IB-010: rails that differ: InfiniBand or RoCE rails at different rates, RoCE rails with different MTUs.
import { maxOf } from '../../list.js';
import { run } from '../../result/build.js';
import type { Remediation } from '../../result/types.js';
import type { Finding } from '../socket-findings.js';
import { exactHca, finding, label, setEnvOf, withNetdev, type IbView, type PortRef } from './view.js';

export function mtuFix(netdevs: string[], mtu: number): Remediation {
  // The switch ports and every peer need the same MTU; the finding's message says which rails differ.
  return run([...new Set(netdevs)].map((d) => ['ip', 'link', 'set', 'dev', d, 'mtu', String(mtu)]));
}

/** RoCE ports NCCL uses whose RoCE MTU is known. */
export const roceRails = (v: IbView) => v.used.filter((u) => u.port.linkLayer === 'Ethernet' && u.port.roceMtu !== null);

export function ib010(v: IbView): Finding[] {
  const out: Finding[] = [];
  for (const ll of ['InfiniBand', 'Ethernet']) {
    const rails = v.used.filter((u) => u.port.linkLayer === ll && u.port.rateGbps !== null);
    const rates = new Map<number, PortRef[]>();
    for (const r of rails) rates.set(r.port.rateGbps!, [...(rates.get(r.port.rateGbps!) ?? []), r]);
    if (rates.size > 1) {
      const groups = [...rates.entries()].sort((a, b) => b[1].length - a[1].length);
      out.push(
        finding(
          'IB-010',
          'warn',
          `${ll === 'Ethernet' ? 'RoCE' : 'InfiniBand'} rails run at different rates: ${groups.map(([g, rs]) => `${g} Gb/s on ${rs.map(label).join(', ')}`).join('; ')}. NCCL spreads rings over all of them and the slowest rail sets the pace`,
          setEnvOf('NCCL_IB_HCA', exactHca(groups[0]![1])),
        ),
      );
    }
  }
  const roce = roceRails(v);
  if (new Set(roce.map((r) => r.port.roceMtu)).size > 1) {
    const max = maxOf(roce.map((r) => r.port.mtu ?? 0));
    const low = roce.filter((r) => (r.port.mtu ?? 0) < max);
    const byMtu = new Map<string, PortRef[]>();
    for (const r of roce) byMtu.set(`netdev MTU ${r.port.mtu} → RoCE ${r.port.roceMtu}`, [...(byMtu.get(`netdev MTU ${r.port.mtu} → RoCE ${r.port.roceMtu}`) ?? []), r]);
    out.push(
      finding(
        'IB-010',
        'warn',
        `RoCE rails have different MTUs: ${[...byMtu.entries()].map(([k, rs]) => `${k} on ${rs.map(withNetdev).join(', ')}`).join('; ')}. Each QP uses the smaller MTU of its two ends, so these rails run slower`,
        mtuFix(low.map((r) => r.port.netdev!).filter(Boolean), max),
      ),
    );
  }
  return out;
}
