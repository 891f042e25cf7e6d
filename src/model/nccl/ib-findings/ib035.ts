// IB-035: a virtual NIC over ports on different point-to-point IPv4 subnets
// (direct-connect meshes): a peer one member reaches, the other does not.
import { setEnv } from '../../result/build.js';
import type { Finding } from '../socket-findings.js';
import { finding, label, withNetdev, type IbView, type PortRef } from './view.js';

/** Point-to-point links: /30 and /31 are cables to single peers. */
const POINT_TO_POINT_PREFIX = 30;

/** '10.0.12.1/30' → '10.0.12.0/30'. */
export function ipv4Network(cidr: string): string | null {
  const [addr, len] = cidr.split('/');
  const parts = (addr ?? '').split('.').map(Number);
  const bits = Number(len);
  if (parts.length !== 4 || parts.some((x) => !(x >= 0 && x <= 255)) || !(bits >= 0 && bits <= 32)) return null;
  const n32 = ((parts[0]! << 24) | (parts[1]! << 16) | (parts[2]! << 8) | parts[3]!) >>> 0;
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  const n = (n32 & mask) >>> 0;
  return `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}/${bits}`;
}

export function ib035(v: IbView): Finding[] {
  const out: Finding[] = [];
  for (const g of v.selection.merge.groups.filter((x) => x.merged && x.home?.kind !== 'unread' && x.home?.kind !== 'fatal')) {
    const members = g.members.map((m) => v.ports.find((r) => r.dev === v.selection.devices[m]!.dev && r.port.port === v.selection.devices[m]!.port)).filter((x): x is PortRef => !!x);
    const subnets = new Map<string, string[]>();
    let pointToPoint = false;
    for (const r of members) {
      for (const a of r.port.netdevs[0]?.ipv4 ?? []) {
        const net = ipv4Network(a);
        if (net) subnets.set(net, [...(subnets.get(net) ?? []), label(r)]);
        if (Number(a.split('/')[1]) >= POINT_TO_POINT_PREFIX) pointToPoint = true;
      }
    }
    // Rail-aligned fabrics also put each port on its own subnet and fuse fine (port k meets port k).
    if (subnets.size > 1 && pointToPoint) {
      out.push(
        finding(
          'IB-035',
          'warn',
          `NCCL fuses ${members.map(withNetdev).join(' and ')} into one virtual NIC, but they are on different IPv4 subnets (${[...subnets.entries()].map(([n, l]) => `${n}: ${l.join(', ')}`).join('; ')}): a connection may leave through the port that cannot reach the peer (direct-connect meshes)`,
          setEnv({ NCCL_NET_MERGE_LEVEL: 'LOC' }, v.profile.ibSubnetAwareRouting ? 'NCCL ≥ 2.30.7 also offers NCCL_IB_SUBNET_AWARE_ROUTING=1 with NCCL_IB_MERGE_NICS=0' : undefined),
        ),
      );
    }
  }
  return out;
}
