// The RDMA candidate set: which RDMA netdevs should move into a job's view
// (a pod, a container) and be advertised to peers as RDMA_PEER_IFACES. This is
// ncclx's policy, built on NCCL facts: RoCE v2 needs an IPv4 address on the
// netdev (its GIDs are derived from it), and uplinks carry no RDMA traffic.

import type { NodeSnapshot } from '../snapshot/types.js';
import { rdmaLinkLayer, rdmaNetdevs } from './rdma-netdevs.js';

export interface CandidateOptions {
  /** Netdev names looking like uplinks, left out. */
  uplinkRegex: RegExp;
  /** Netdevs always kept. */
  include: string[];
}

export interface CandidateVerdict {
  netdev: string;
  devices: string[];
  linkLayer: string | null;
  ipv4: string[];
  kept: boolean;
  reason: string;
}

export interface CandidateSet {
  verdicts: CandidateVerdict[];
  /** Kept netdevs, in RDMA device order. */
  kept: string[];
  /** --include names that are not RDMA netdevs here. */
  unknownIncludes: string[];
  /** The line to export and copy to the peer node. */
  peerLine: string;
}

export function rdmaCandidates(snapshot: NodeSnapshot, options: CandidateOptions): CandidateSet {
  const triples = rdmaNetdevs(snapshot);
  const order: string[] = [];
  const devices = new Map<string, string[]>();
  const layers = new Map<string, string | null>();
  for (const t of triples) {
    if (!devices.has(t.netdev)) order.push(t.netdev);
    devices.set(t.netdev, [...(devices.get(t.netdev) ?? []), `${t.dev}:${t.port}`]);
    if (!layers.get(t.netdev)) layers.set(t.netdev, rdmaLinkLayer(snapshot, t.dev, t.port));
  }
  const verdicts: CandidateVerdict[] = order.map((netdev) => {
    const ipv4 = snapshot.network.addresses.filter((a) => a.link === netdev && a.family === 'AF_INET').map((a) => `${a.address}/${a.prefixlen}`);
    const linkLayer = layers.get(netdev) ?? null;
    const base = { netdev, devices: devices.get(netdev)!, linkLayer, ipv4 };
    if (options.include.includes(netdev)) return { ...base, kept: true, reason: 'named by --include' };
    if (options.uplinkRegex.test(netdev)) return { ...base, kept: false, reason: `looks like an uplink (matches ${options.uplinkRegex.source})` };
    if (ipv4.length === 0 && linkLayer !== 'InfiniBand') {
      return { ...base, kept: false, reason: 'no IPv4 address: RoCE v2 GIDs come from the netdev\'s IP, so this port cannot route (NCCL would fall back to GID 0)' };
    }
    return { ...base, kept: true, reason: linkLayer === 'InfiniBand' ? 'InfiniBand port' : `RoCE with IPv4 ${ipv4.join(', ')}` };
  });
  const kept = verdicts.filter((v) => v.kept).map((v) => v.netdev);
  return {
    verdicts,
    kept,
    unknownIncludes: options.include.filter((n) => !order.includes(n)),
    peerLine: `RDMA_PEER_IFACES=${kept.join(' ')}`,
  };
}

/** Intersect with the peer node's list so both nodes advertise the same set. */
export function intersectPeer(kept: string[], peer: string[]): { common: string[]; onlyHere: string[]; onlyPeer: string[] } {
  return {
    common: kept.filter((n) => peer.includes(n)),
    onlyHere: kept.filter((n) => !peer.includes(n)),
    onlyPeer: peer.filter((n) => !kept.includes(n)),
  };
}

