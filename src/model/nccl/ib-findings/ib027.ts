// IB-027: every RoCE rail's MTU is below 4096 because its netdev MTU is (rails that differ are IB-010's).
import type { Finding } from '../socket-findings.js';
import { mtuFix, roceRails } from './ib010.js';
import { finding, withNetdev, type IbView } from './view.js';

/** The RoCE MTU NCCL can reach, and the netdev MTU that allows it (4096 + headers). */
const FULL_ROCE_MTU = 4096;
const NETDEV_MTU_FOR_FULL = 4200;

export function ib027(v: IbView): Finding[] {
  const roce = roceRails(v);
  if (new Set(roce.map((r) => r.port.roceMtu)).size > 1) return [];
  const small = roce.filter((r) => (r.port.roceMtu ?? FULL_ROCE_MTU) < FULL_ROCE_MTU);
  if (!small.length) return [];
  return [finding('IB-027', 'info', `RoCE MTU is ${small[0]!.port.roceMtu} on ${small.map(withNetdev).join(', ')} because the netdev MTU is ${small[0]!.port.mtu} (RoCE needs netdev MTU ≥ 4192 for 4096)`, mtuFix(small.map((r) => r.port.netdev!).filter(Boolean), NETDEV_MTU_FOR_FULL))];
}
