// The symmetric RDMA set: the netdevs (and their HCA ports) that are usable on
// every node, so every node can advertise the same RDMA_PEER_IFACES and give
// NCCL the same NCCL_IB_HCA. "Usable" is the doctor's candidate rule (CAND-001:
// not an uplink, RoCE needs IPv4) plus what NCCL's IB transport itself
// requires of a port: ACTIVE, with an InfiniBand or Ethernet link layer.

import { chooseIbPorts } from '../advice/ib-ports.js';
import { shExport } from '../shell/quote.js';
import { finding } from './finding.js';
import { groupNodes, nameList, plural } from './groups.js';
import type { CompareFinding, NodeFacts, PortFacts } from './types.js';

export interface DroppedPort {
  netdev: string;
  hcas: string[];
  reason: string;
}

export interface SymmetricSet {
  /** Netdevs usable on every node, in the first node's RDMA device order. */
  netdevs: string[];
  /** `RDMA_PEER_IFACES=…` as `ncclx env` prints it, to compare or copy. */
  peerIfacesLine: string;
  /** The NCCL_IB_HCA value every node can use (exact `=dev:port` list), or null when no single value fits. */
  ncclIbHca: string | null;
  /** When the HCA names differ: each node group's own value. */
  ncclIbHcaByNode: { value: string; count: number; nodes: string[] }[];
  /** Shell lines to paste on every node (quoted). */
  exports: string[];
  /** Netdevs usable on some nodes only. */
  notEverywhere: { netdev: string; usableOn: number; missingOn: string[] | null; onlyOn: string[] | null }[];
  /** Nodes that drop some of their own netdevs, and why. */
  perNode: { node: string; dropped: DroppedPort[] }[];
  /** When a few nodes shrink the set: the larger set shared by most nodes, and the nodes that lack it. */
  majority: { netdevs: string[]; nodes: number; excluded: string[] } | null;
}

/** Why a port cannot carry the job's RDMA traffic on its node, or null when it can. */
export function unusableReason(p: PortFacts): string | null {
  // What NCCL itself refuses first (a DOWN port has no use whatever its address), then the candidate rule.
  if (p.linkLayer !== 'InfiniBand' && p.linkLayer !== 'Ethernet') return `link layer ${p.linkLayer ?? 'unknown'}: NCCL's IB transport uses only InfiniBand and Ethernet (RoCE) ports`;
  if (p.active === false) return `port ${p.state ?? 'not ACTIVE'}: NCCL skips ports that are not ACTIVE`;
  if (p.active === null) return 'port state unknown';
  if (p.candidate && !p.candidate.kept) return p.candidate.reason;
  return null;
}

/** Per node: usable netdev → its HCA ports, in RDMA device order. */
function usableOf(f: NodeFacts): Map<string, string[]> {
  const m = new Map<string, string[]>();
  for (const p of f.ports) {
    if (!p.netdev || unusableReason(p) !== null) continue;
    m.set(p.netdev, [...(m.get(p.netdev) ?? []), p.hca]);
  }
  return m;
}

const hcaValue = (hcas: string[]): string => `=${hcas.join(',')}`;

export function symmetricSet(facts: NodeFacts[], names: string[]): { set: SymmetricSet; findings: CompareFinding[] } {
  const n = facts.length;
  const usable = facts.map(usableOf);
  const count = new Map<string, number>();
  const order: string[] = [];
  for (const u of usable) {
    for (const nd of u.keys()) {
      if (!count.has(nd)) order.push(nd);
      count.set(nd, (count.get(nd) ?? 0) + 1);
    }
  }
  const netdevs = order.filter((nd) => count.get(nd) === n);
  // The first node's order: every symmetric netdev is on it.
  const first = usable[0] ? [...usable[0].keys()] : [];
  netdevs.sort((a, b) => first.indexOf(a) - first.indexOf(b));

  const notEverywhere = order
    .filter((nd) => count.get(nd)! < n)
    .map((nd) => {
      const on = usable.map((u, i) => (u.has(nd) ? i : -1)).filter((i) => i >= 0);
      const off = usable.map((u, i) => (u.has(nd) ? -1 : i)).filter((i) => i >= 0);
      // The shorter list is given; the other is every remaining node.
      return { netdev: nd, usableOn: on.length, missingOn: off.length <= on.length ? off.map((i) => names[i]!) : null, onlyOn: off.length > on.length ? on.map((i) => names[i]!) : null };
    });

  const perNode: SymmetricSet['perNode'] = [];
  facts.forEach((f, i) => {
    const dropped = new Map<string, DroppedPort>();
    for (const p of f.ports) {
      const why = unusableReason(p);
      if (!p.netdev || why === null || usable[i]!.has(p.netdev)) continue;
      const d = dropped.get(p.netdev);
      if (d) d.hcas.push(p.hca);
      else dropped.set(p.netdev, { netdev: p.netdev, hcas: [p.hca], reason: why });
    }
    if (dropped.size) perNode.push({ node: names[i]!, dropped: [...dropped.values()] });
  });

  // Each node's NCCL_IB_HCA: its symmetric ports as \`ncclx env\` chooses among them (advice/ib-ports.ts:
  // no bond next to HCAs, one link layer, one rate).
  const symmetric = new Set(netdevs);
  const chosen = facts.map((f, i) => {
    const mine = new Set(netdevs.flatMap((nd) => usable[i]!.get(nd) ?? []));
    const ports = f.ports.filter((p) => mine.has(p.hca) && p.netdev !== null && symmetric.has(p.netdev) && (p.linkLayer === 'InfiniBand' || p.linkLayer === 'Ethernet'));
    return chooseIbPorts(ports.map((p) => ({ hca: p.hca, linkLayer: p.linkLayer as 'InfiniBand' | 'Ethernet', rateGbps: p.rateGbps, bond: p.bond }))).chosen.map((p) => p.hca);
  });
  // One NCCL_IB_HCA for everybody: the same names everywhere, or a union that selects exactly the chosen ports on each node.
  const valueGroups = groupNodes(n, (i) => hcaValue(chosen[i]!), (v) => v);
  let ncclIbHca: string | null = null;
  if (netdevs.length && valueGroups.length === 1) ncclIbHca = valueGroups[0]!.value;
  else if (netdevs.length) {
    const union = [...new Set(chosen.flat())];
    const fits = facts.every((f, i) => {
      const mine = new Set(chosen[i]);
      return f.ports.every((p) => !union.includes(p.hca) || mine.has(p.hca));
    });
    if (fits) ncclIbHca = hcaValue(union);
  }

  const majorityGroups = groupNodes(n, (i) => [...usable[i]!.keys()].sort(), (v) => v.join('\u0000'));
  const best = majorityGroups[0];
  let majority: SymmetricSet['majority'] = null;
  if (best && best.value.length > netdevs.length && best.members.length * 2 > n) {
    const inBest = new Set(best.value);
    const keep = first.length ? [...best.value].sort((a, b) => (first.indexOf(a) < 0 ? 1e9 : first.indexOf(a)) - (first.indexOf(b) < 0 ? 1e9 : first.indexOf(b))) : best.value;
    const excluded = usable.map((u, i) => ([...inBest].every((nd) => u.has(nd)) ? -1 : i)).filter((i) => i >= 0);
    majority = { netdevs: keep, nodes: n - excluded.length, excluded: excluded.map((i) => names[i]!) };
  }

  const peerIfacesLine = `RDMA_PEER_IFACES=${netdevs.join(' ')}`;
  const set: SymmetricSet = {
    netdevs,
    peerIfacesLine,
    ncclIbHca,
    ncclIbHcaByNode: ncclIbHca === null && netdevs.length ? valueGroups.map((g) => ({ value: g.value, count: g.members.length, nodes: g.members.map((m) => names[m]!) })) : [],
    exports: netdevs.length ? [shExport('RDMA_PEER_IFACES', netdevs.join(' ')), ...(ncclIbHca ? [shExport('NCCL_IB_HCA', ncclIbHca)] : [])] : [],
    notEverywhere,
    perNode,
    majority,
  };

  const findings: CompareFinding[] = [];
  const anyRdma = facts.some((f) => f.ports.length > 0);
  if (!anyRdma) return { set, findings };
  if (notEverywhere.length === 0 && netdevs.length) {
    findings.push(finding('CMP-020', 'ok', `${plural(netdevs.length, 'RDMA netdev')} usable on all ${plural(n, 'node')}: ${peerIfacesLine}`, [], ''));
  } else {
    const lacking = [...new Set(notEverywhere.flatMap((e) => usable.map((u, i) => (u.has(e.netdev) ? -1 : i)).filter((i) => i >= 0)))].sort((a, b) => a - b);
    const shown = notEverywhere.slice(0, 3).map((e) => `${e.netdev} (usable on ${e.usableOn}/${n}${e.missingOn ? `, not on ${nameList(e.missingOn, 3)}` : `, only on ${nameList(e.onlyOn ?? [], 3)}`})`);
    const detail = `${shown.join('; ')}${notEverywhere.length > 3 ? `; and ${notEverywhere.length - 3} more netdevs` : ''}`;
    findings.push(
      finding(
        'CMP-020',
        netdevs.length ? 'warn' : 'error',
        netdevs.length
          ? `only ${plural(netdevs.length, 'RDMA netdev')} usable on every node (${netdevs.join(' ')}); not everywhere: ${detail}`
          : `no RDMA netdev is usable on every node; not everywhere: ${detail}`,
        lacking.map((i) => names[i]!),
        'NCCL pairs rails by device index: a node with a rail its peers lack (or without one they have) gets a different device count, and connections on the extra rail have no peer — jobs hang or run at a fraction of the bandwidth.',
        majority
          ? `Fix or leave out ${plural(majority.excluded.length, 'node')} (${nameList(majority.excluded, 5)}) and use ${shExport('RDMA_PEER_IFACES', majority.netdevs.join(' '))} on the other ${majority.nodes}; or, with every node: ${netdevs.length ? shExport('RDMA_PEER_IFACES', netdevs.join(' ')) : 'no RDMA set fits'}`
          : netdevs.length
            ? set.exports.join('\n')
            : null,
      ),
    );
  }
  if (netdevs.length && ncclIbHca === null) {
    findings.push(
      finding(
        'CMP-021',
        'warn',
        `the symmetric netdevs sit on differently named HCAs: ${valueGroups.map((g) => `${g.value} on ${plural(g.members.length, 'node')}`).join('; ')} — no single NCCL_IB_HCA selects exactly them everywhere`,
        valueGroups.slice(1).flatMap((g) => g.members.map((m) => names[m]!)),
        'One NCCL_IB_HCA value is matched against each node\'s own HCA names (NVIDIA/nccl#1277: mlx5_0/3/5/8 on one image, mlx5_0/1/4/5 on another): it must be set per node.',
        'Write each node\'s value to its /etc/nccl.conf (ncclx env --format nccl-conf on the node), or make HCA naming identical (same OS image and udev rules)',
      ),
    );
  }
  return { set, findings };
}
