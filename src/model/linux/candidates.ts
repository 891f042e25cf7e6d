// The RDMA candidate set: which RDMA netdevs should move into a job's view
// (a pod, a container) and be advertised to peers as RDMA_PEER_IFACES. This is
// ncclx's policy, built on NCCL facts: RoCE v2 needs an IPv4 address on the
// netdev (its GIDs are derived from it), and uplinks carry no RDMA traffic.

import type { NodeSnapshot } from '../snapshot/types.js';
import { snapshotMemo } from '../snapshot/memo.js';
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
  /** The state of its ports when none is ACTIVE (`DOWN/Disabled`), else null: NCCL uses only ACTIVE ports. */
  notActive: string | null;
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

// The doctor asks for the set under every environment and kernel change it
// verifies advice under (src/checks/verify.ts); it reads neither (only this
// file and rdma-netdevs.ts), so it is built once per node and options.
const candidatesMemo = snapshotMemo<CandidateSet>(['env', 'kernel'], (s) => s.network);

export function rdmaCandidates(snapshot: NodeSnapshot, options: CandidateOptions): CandidateSet {
  return candidatesMemo(snapshot, [options.uplinkRegex.source, options.uplinkRegex.flags, options.include], () => buildCandidates(snapshot, options));
}

function buildCandidates(snapshot: NodeSnapshot, options: CandidateOptions): CandidateSet {
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
    const base = { netdev, devices: devices.get(netdev)!, linkLayer, ipv4, notActive: inactiveState(snapshot, devices.get(netdev)!) };
    if (options.include.includes(netdev)) return { ...base, kept: true, reason: 'named by --include' };
    if (options.uplinkRegex.test(netdev)) return { ...base, kept: false, reason: `looks like an uplink (matches ${options.uplinkRegex.source})` };
    if (ipv4.length === 0 && linkLayer !== 'InfiniBand') {
      // A port that is not ACTIVE is not a rail NCCL uses, address or not (IB-009 says why it is down).
      if (base.notActive) return { ...base, kept: false, reason: `its port is ${base.notActive}, not ACTIVE: NCCL does not use it (IB-009), and it has no IPv4 address` };
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

/** `DOWN/Disabled` when none of these ports (`dev:port`) is ACTIVE, null when one is or the states are unreadable. */
function inactiveState(snapshot: NodeSnapshot, ports: string[]): string | null {
  const states = ports.map((hp) => {
    const [dev, port] = hp.split(':');
    const p = snapshot.rdma?.devices.find((d) => d.name === dev)?.ports.find((x) => String(x.port) === port);
    const word = (r: unknown) => (typeof r === 'string' ? (r.split(':').pop() ?? r).trim() : null);
    return { state: word(p?.state), phys: word(p?.physState) };
  });
  if (states.some((x) => x.state === null || x.state === 'ACTIVE')) return null;
  return [...new Set(states.map((x) => `${x.state}${x.phys ? `/${x.phys}` : ''}`))].join(', ');
}

/** Intersect with the peer node's list so both nodes advertise the same set. */
export function intersectPeer(kept: string[], peer: string[]): { common: string[]; onlyHere: string[]; onlyPeer: string[] } {
  return {
    common: kept.filter((n) => peer.includes(n)),
    onlyHere: kept.filter((n) => !peer.includes(n)),
    onlyPeer: peer.filter((n) => !kept.includes(n)),
  };
}

