// The links behind NCCL's socket selection: an address NCCL selected belongs
// to a link (alias labels such as eth0:1 map to eth0), and that link is what
// routes, qdiscs and firewall rules apply to.

import type { NodeSnapshot } from '../snapshot/types.js';
import type { SelectedInterface, SocketSelection } from './socket.js';

export function linkOfSelected(snapshot: NodeSnapshot, s: SelectedInterface): string {
  return snapshot.network.addresses.find((a) => a.name === s.name && a.address === s.address)?.link ?? s.name;
}

/** The links NCCL's sockets use (all three consumers: socket transport, bootstrap, IB OOB). */
export function socketLinks(snapshot: NodeSnapshot, selection: SocketSelection): string[] {
  const s = selection;
  return [...new Set([...s.socket.selected, ...s.bootstrap.selected, ...s.ibOob.selected].map((x) => linkOfSelected(snapshot, x)))];
}
