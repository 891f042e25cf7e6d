// The RDMA candidate set: which RDMA netdevs should move into a job's view
// (a pod, a container) and be advertised to peers as RDMA_PEER_IFACES. This is
// ncclx's policy, built on NCCL facts: RoCE v2 needs an IPv4 address on the
// netdev (its GIDs are derived from it), and uplinks carry no RDMA traffic.

import { shExport } from '../report/quote.js';
import type { NodeSnapshot } from '../snapshot/types.js';
import { rdmaLinkLayer, rdmaNetdevs } from './rdma-netdevs.js';
import { ok, result } from './result.js';
import type { Check, CheckOptions, CheckResult } from './types.js';

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

export function rdmaCandidates(snapshot: NodeSnapshot, options: Pick<CheckOptions, 'uplinkRegex' | 'include'>): CandidateSet {
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

const candidateSet: Check = {
  id: 'CAND-001',
  title: 'RDMA candidate set (RDMA_PEER_IFACES)',
  family: 'candidates',
  run(ctx) {
    if (!ctx.snapshot.rdma) {
      return result('unknown', 'no RDMA data in this snapshot', [], 'The candidate set is built from the RDMA devices.');
    }
    const set = rdmaCandidates(ctx.snapshot, ctx.options);
    if (set.verdicts.length === 0) return ok('no RDMA netdevs: the candidate set is empty');
    const out: CheckResult[] = [];
    for (const v of set.verdicts.filter((x) => !x.kept && !/uplink/.test(x.reason))) {
      out.push({
        checkId: '',
        severity: 'warn',
        summary: `${v.netdev} (${v.devices.join(', ')}) is left out of the candidate set: ${v.reason}`,
        evidence: [{ kind: 'value', source: `addresses of ${v.netdev}`, value: v.ipv4.length ? v.ipv4.join(', ') : 'no IPv4' }],
        why: 'A RoCE port whose netdev has no IPv4 address has no IPv4 GID: RoCE v2 cannot route and QPs time out with IBV_WC_RETRY_EXC_ERR.',
        remediation: `Give ${v.netdev} its rail's IPv4 address (or attach the network to the pod), or leave it out: ${shExport('RDMA_PEER_IFACES', set.kept.join(' '))}`,
        fixIds: [],
      });
    }
    for (const n of set.unknownIncludes) {
      out.push({ checkId: '', severity: 'warn', summary: `--include ${n}: not an RDMA netdev on this node`, evidence: [], why: 'Only netdevs behind an RDMA port can carry RDMA traffic.', remediation: null, fixIds: [] });
    }
    const dropped = set.verdicts.filter((v) => !v.kept).map((v) => `${v.netdev} (${v.reason})`);
    out.push({
      checkId: '',
      severity: set.kept.length ? 'ok' : 'warn',
      summary: set.kept.length ? `${set.kept.length} RDMA netdev${set.kept.length === 1 ? '' : 's'} for the job: ${set.peerLine}` : 'no RDMA netdev qualifies for the job',
      evidence: set.verdicts.map((v) => ({ kind: 'value' as const, source: `${v.netdev} (${v.devices.join(', ')})`, value: `${v.kept ? 'kept' : 'dropped'}: ${v.reason}` })),
      why: dropped.length ? `Dropped: ${dropped.join('; ')}.` : '',
      remediation: set.kept.length ? shExport('RDMA_PEER_IFACES', set.kept.join(' ')) : null,
      fixIds: [],
    });
    return out;
  },
};

export const candidateChecks: Check[] = [candidateSet];
