// IB-033: an NCCL_IB_HCA entry that is a netdev name; NCCL matches verbs device names only.
import type { Finding } from '../socket-findings.js';
import type { EntryHit } from './hca.js';
import { finding, setEnvOf, type IbView } from './view.js';

/** The finding for an entry that matches no device, when a netdev of an RDMA port answers to it; else null. */
export function ib033(v: IbView, unmatched: EntryHit, hits: EntryHit[]): Finding | null {
  const list = v.selection.inputs.hca.list;
  if (!list) return null;
  const { entry } = unmatched;
  const netdevNames = new Set([...v.snapshot.network.links.map((l) => l.name), ...Object.keys(v.snapshot.rdma?.netdevs ?? {})]);
  const nd = [...netdevNames].filter((n) => (list.exact ? n === entry.prefix : n.startsWith(entry.prefix)));
  const owner = nd.length ? v.ports.find((r) => r.port.netdevs.some((x) => nd.includes(x.name))) : undefined;
  if (!nd.length || !owner) return null;
  // Each entry as it should read: itself when it matches a device, else the device whose netdev it names.
  const fixed = hits.map((x) => (x.hits.length ? x.entry.text : v.ports.find((r) => r.port.netdevs.some((y) => (list.exact ? y.name === x.entry.prefix : y.name.startsWith(x.entry.prefix))))?.dev ?? x.entry.text));
  return finding('IB-033', 'error', `NCCL_IB_HCA entry '${entry.text}'${v.origin('NCCL_IB_HCA')} is a netdev name (${nd.join(', ')}); NCCL matches verbs device names only — ${nd[0]} belongs to ${owner.dev}`, setEnvOf('NCCL_IB_HCA', `${list.not ? '^' : ''}=${[...new Set(fixed)].join(',')}`));
}
