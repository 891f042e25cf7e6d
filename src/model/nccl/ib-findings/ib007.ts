// IB-007: a RoCE port with only IPv6 GIDs while NCCL looks for IPv4 (the default): NCCL stays at GID 0.
import { setEnv } from '../../result/build.js';
import { gidFamily, gidText, gidValid } from '../gid.js';
import type { Finding } from '../socket-findings.js';
import { chosen, stuckAtZero } from './gid.js';
import { finding, withNetdev, type IbView, type PortRef } from './view.js';

export function ib007(v: IbView, r: PortRef): Finding[] {
  if (stuckAtZero(v, r) !== 'ipv6-only') return [];
  const { gids, bytes: b } = chosen(v, r)!;
  const v6 = gids.filter((g) => g.bytes && gidValid(g.bytes) && gidFamily(g.bytes) === 'AF_INET6');
  return [finding('IB-007', 'warn', `${withNetdev(r)} has only IPv6 GIDs (${v6.map((g) => `${g.index}: ${gidText(g.bytes!)}`).join(', ')}); with NCCL_IB_ADDR_FAMILY=AF_INET (the default) NCCL stays at GID 0 (${b ? gidText(b) : '?'}, link-local) and remote QPs time out (IBV_WC_RETRY_EXC_ERR)`, setEnv({ NCCL_IB_ADDR_FAMILY: 'AF_INET6' }))];
}
