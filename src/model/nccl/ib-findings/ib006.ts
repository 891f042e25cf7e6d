// IB-006: the automatic GID choice finds no routable GID of the wanted family
// (or none inside NCCL_IB_ADDR_RANGE) and falls back to GID 0, which does not route.
import { advise, setEnv, unsetEnv } from '../../result/build.js';
import { gidText } from '../gid.js';
import type { Finding } from '../socket-findings.js';
import { chosen, stuckAtZero } from './gid.js';
import { finding, withNetdev, type IbView, type PortRef } from './view.js';

export function ib006(v: IbView, r: PortRef): Finding[] {
  const why = stuckAtZero(v, r);
  if (why === null || why === 'ipv6-only') return [];
  const b = chosen(v, r)!.bytes;
  const nd = r.port.netdev;
  if (why === 'no-ipv4') {
    return [finding('IB-006', 'error', `${withNetdev(r)} has no IPv4 GID — ${nd ? `its netdev ${nd} has ${r.port.netdevs[0]?.ipv4.length ? 'IPv4 addresses, but they are not in this port\'s GID table (another namespace?)' : 'no IPv4 address'}` : 'no netdev with an IPv4 address is tied to it'}; NCCL falls back to GID 0 (${b ? gidText(b) : 'unknown'}, link-local RoCE v1), which does not route: RoCE v2 needs an IPv4 (or global IPv6) address on the netdev`, nd ? advise(`Give ${nd} its rail's IPv4 address (ip addr add <IPv4>/<len> dev ${nd}), or exclude the HCA: NCCL_IB_HCA=^=${r.dev}`) : setEnv({ NCCL_IB_HCA: `^=${r.dev}` }))];
  }
  if (why === 'no-ipv6') {
    return [finding('IB-006', 'error', `${withNetdev(r)}: NCCL_IB_ADDR_FAMILY=AF_INET6${v.origin('NCCL_IB_ADDR_FAMILY')} but the port has no global IPv6 GID: NCCL stays at GID 0 (link-local)`, unsetEnv('NCCL_IB_ADDR_FAMILY'))];
  }
  return [finding('IB-006', 'error', `${withNetdev(r)}: no GID of family ${v.gidParams.family.value} is inside NCCL_IB_ADDR_RANGE=${v.gidParams.range!.raw}: NCCL stays at GID 0 (${b ? gidText(b) : '?'})`, unsetEnv('NCCL_IB_ADDR_RANGE'))];
}
