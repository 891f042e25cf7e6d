// IB-008: the same IPv4 address behind two netdevs or ports: address-based GID selection takes the first.
import { setEnv } from '../../result/build.js';
import { gidIPv4 } from '../gid.js';
import type { Finding } from '../socket-findings.js';
import { finding, label, portGids, type IbView } from './view.js';

export function ib008(v: IbView): Finding[] {
  // Entries of one IP on one port (v1 and v2) are one place; a second netdev or a second port is a duplicate.
  const byIp = new Map<string, { key: string; where: string; ndev: string | null; index: number }[]>();
  for (const r of v.ports.filter((p) => p.port.linkLayer === 'Ethernet')) {
    for (const g of portGids(v, r)) {
      const ip = g.bytes ? gidIPv4(g.bytes) : null;
      if (!ip) continue;
      const list = byIp.get(ip) ?? [];
      const key = `${label(r)}|${g.ndev ?? ''}`;
      const sameNdevElsewhere = g.ndev !== null && list.some((x) => x.ndev === g.ndev);
      if (!list.some((x) => x.key === key) && !sameNdevElsewhere) list.push({ key, where: `${label(r)} GID ${g.index}`, ndev: g.ndev, index: g.index });
      byIp.set(ip, list);
    }
  }
  const out: Finding[] = [];
  for (const [ip, list] of byIp) {
    if (list.length < 2) continue;
    out.push(finding('IB-008', 'warn', `${ip} is behind ${list.length} netdevs/ports: ${list.map((x) => `${x.ndev ?? 'netdev unknown'} (${x.where})`).join(', ')}. Address-based GID selection takes the first, and peers cannot tell which port answers`, setEnv({ NCCL_IB_GID_INDEX: String(list[0]!.index) }, 'Keep each IP on one netdev, or pin the index per node')));
  }
  return out;
}
