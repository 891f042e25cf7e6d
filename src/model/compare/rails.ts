// The rail plan: rail k is NCCL's device [k] on every node (the order NCCL
// enumerates ports with each node's own settings — libibverbs order, or PCI
// order from 2.29.7), because NCCL connects rails by device index. For each
// rail: who has which HCA, netdev, address, subnet, MTU, rate, link layer and
// GID, and where the nodes disagree.

import { parseNcclInt } from '../nccl/cint.js';
import { finding } from './finding.js';
import { groupNodes, nameList, outliers, plural, valueGroups, type Group } from './groups.js';
import type { CompareFinding, NodeFacts, PortFacts, ValueGroup } from './types.js';
import { maxOf } from '../list.js';

export const RAIL_FIELDS = ['hca', 'netdev', 'subnet', 'mtu', 'rate', 'linkLayer', 'gidIndex', 'gidType'] as const;
export type RailField = (typeof RAIL_FIELDS)[number];

/** One node's rail k, for tables. */
export interface RailCell {
  node: string;
  hca: string;
  netdev: string | null;
  ipv4: string | null;
  subnet: string | null;
  mtu: number | null;
  rate: string | null;
  linkLayer: string | null;
  gidIndex: string | number | null;
  gidType: string | null;
}

export interface RailRow {
  rail: number;
  /** Nodes that have this rail; the others have fewer NCCL devices. */
  nodes: number;
  missingOn: string[];
  values: Record<RailField, ValueGroup[]>;
  /** Fields whose values differ across nodes. */
  mismatches: RailField[];
  /** Every node's rail k, when the comparison is small enough to list (perNodeLimit). */
  perNode: RailCell[] | null;
}

export interface RailPlan {
  /** NCCL devices per node: most common count first. */
  counts: ValueGroup<number>[];
  /** NCCL NET devices (virtual NICs fused) per node. */
  netDeviceCounts: ValueGroup<number>[];
  transports: ValueGroup<string>[];
  rails: RailRow[];
  /** How the subnets of the rails look across nodes. */
  fabric: 'shared-subnets' | 'per-node-subnets' | 'mesh' | 'none';
}

const railCache = new WeakMap<NodeFacts, PortFacts[]>();

/** A node's rails: the ports NCCL uses, by NCCL device index (computed once per node). */
export function railsOf(f: NodeFacts): PortFacts[] {
  let r = railCache.get(f);
  if (!r) railCache.set(f, (r = f.ports.filter((p) => p.usedByNccl === true && p.ncclIndex !== null).sort((a, b) => a.ncclIndex! - b.ncclIndex!)));
  return r;
}

/** The GID index a rail compares: NCCL's index, the candidates when it cannot be known (`3 or 5?`), else none. */
function gidIndexOf(p: PortFacts): string | number | null {
  return p.gid?.outcome === 'index' ? p.gid.index : p.gid?.outcome === 'indeterminate' ? `${p.gid.candidates.join(' or ')}?` : null;
}

/**
 * All fields of rail k grouped in one pass over the nodes (the hot loop of a
 * 10,000-node comparison: plain property reads, values as their own Map keys).
 */
function groupRail(rails: PortFacts[][], k: number): Record<RailField, Group<string | number | null>[]> {
  const maps = RAIL_FIELDS.map(() => new Map<string | number | null, Group<string | number | null>>());
  const add = (m: Map<string | number | null, Group<string | number | null>>, v: string | number | null, i: number) => {
    const g = m.get(v);
    if (g) g.members.push(i);
    else m.set(v, { value: v, members: [i] });
  };
  for (let i = 0; i < rails.length; i++) {
    const p = rails[i]![k];
    if (!p) continue;
    add(maps[0]!, p.hca, i);
    add(maps[1]!, p.netdev, i);
    add(maps[2]!, p.subnet, i);
    add(maps[3]!, p.mtu, i);
    add(maps[4]!, p.rate, i);
    add(maps[5]!, p.linkLayer, i);
    add(maps[6]!, gidIndexOf(p), i);
    add(maps[7]!, p.gidLabel, i);
  }
  const out = {} as Record<RailField, Group<string | number | null>[]>;
  RAIL_FIELDS.forEach((f, j) => (out[f] = [...maps[j]!.values()].sort((a, b) => b.members.length - a.members.length)));
  return out;
}

const WHY: Record<RailField, string> = {
  hca: 'NCCL matches NCCL_IB_HCA against each node\'s own HCA names: one value cannot name this rail on every node, and a prefix such as mlx5_1 also takes mlx5_10.',
  netdev: 'RDMA_PEER_IFACES and per-rail network attachments name netdevs: a different name on some nodes leaves the rail out of their view.',
  subnet: 'On a rail-aligned fabric rail k of every node is one L2 network: a node whose rail is on another subnet cannot reach its peers on that rail (RoCE v2 needs a route; the QP times out with IBV_WC_RETRY_EXC_ERR, status 12).',
  mtu: 'NCCL uses the smaller active MTU of the two ends; a switch port or peer at a smaller MTU than the NIC drops frames, and a node with 1500 moves the same data in smaller packets.',
  rate: 'Collectives run at the speed of the slowest rail of the slowest node.',
  linkLayer: 'An InfiniBand port cannot talk to a RoCE port: NCCL connects rail k to rail k and the connection fails.',
  gidIndex: 'Each node picks its own GID index; different indexes are fine as long as they are the same kind of GID (RoCE v2 with IPv4). A fixed NCCL_IB_GID_INDEX cannot fit tables laid out differently (NVIDIA/nccl#1277, #718).',
  gidType: 'Both ends of a RoCE connection must use the same kind of GID: RoCE v1 cannot talk to RoCE v2, and a link-local or IPv6 GID does not reach an IPv4 peer — QPs fail to connect or time out (status 12).',
};

const ID: Record<RailField, 'CMP-031' | 'CMP-032' | 'CMP-033' | 'CMP-034' | 'CMP-035' | 'CMP-036' | 'CMP-037'> = {
  hca: 'CMP-031',
  netdev: 'CMP-031',
  subnet: 'CMP-032',
  mtu: 'CMP-033',
  rate: 'CMP-034',
  linkLayer: 'CMP-035',
  gidType: 'CMP-036',
  gidIndex: 'CMP-037',
};

/** "rail 3", "rails 0–7", "rails 0, 2, 5". */
function railsText(rails: number[]): string {
  if (rails.length === 1) return `rail ${rails[0]}`;
  const contiguous = rails.every((r, i) => i === 0 || r === rails[i - 1]! + 1);
  return contiguous ? `rails ${rails[0]}–${rails[rails.length - 1]}` : `rails ${rails.join(', ')}`;
}

const show = (v: string | number | null) => (v === null ? '(none)' : String(v));

const LABEL: Record<RailField, string> = { hca: 'HCA', netdev: 'netdev', subnet: 'subnet', mtu: 'MTU', rate: 'rate', linkLayer: 'link layer', gidIndex: 'GID index', gidType: 'GID type' };

/** How rails' subnets look: one subnet per rail shared by the nodes, one per node (routed L3), or none to compare. */
function fabricOf(railGroups: Group<string | number | null>[][], isMesh: boolean): RailPlan['fabric'] {
  if (isMesh) return 'mesh';
  const withSubnets = railGroups.filter((gs) => gs.some((g) => g.value !== null));
  if (withSubnets.length === 0) return 'none';
  return withSubnets.some((gs) => gs.some((g) => g.value !== null && g.members.length > 1)) ? 'shared-subnets' : 'per-node-subnets';
}

/** Up to this many nodes, each rail lists every node (text tables and JSON perNode). */
export const PER_NODE_LIMIT = 64;

export function railPlan(facts: NodeFacts[], names: string[], opts: { mesh: boolean; perNodeLimit?: number }): { plan: RailPlan; findings: CompareFinding[] } {
  const n = facts.length;
  const rails = facts.map(railsOf);
  const findings: CompareFinding[] = [];

  const countGroups = groupNodes(n, (i) => rails[i]!.length);
  const netGroups = groupNodes(n, (i) => facts[i]!.netDevices);
  const transportGroups = groupNodes(n, (i) => facts[i]!.transport.network, (v) => v);
  const maxRails = Math.max(0, maxOf(rails.map((r) => r.length)));

  const perRail: RailRow[] = [];
  const merged = new Map<string, { rails: number[]; make: (rails: number[]) => CompareFinding }>();
  const subnetGroups: Group<string | number | null>[][] = [];
  for (let k = 0; k < maxRails; k++) {
    const has = (i: number) => rails[i]![k];
    const present = rails.map((r, i) => (r[k] ? i : -1)).filter((i) => i >= 0);
    const values = {} as Record<RailField, ValueGroup[]>;
    const mismatches: RailField[] = [];
    const groupsBy = groupRail(rails, k);
    for (const field of RAIL_FIELDS) {
      const gs = groupsBy[field];
      values[field] = valueGroups(gs, names);
      // In a direct-connect mesh every cable is its own subnet: rails are not meant to share one.
      if (gs.length > 1 && !(field === 'subnet' && opts.mesh)) mismatches.push(field);
    }
    subnetGroups.push(groupsBy.subnet);
    const perNode =
      n <= (opts.perNodeLimit ?? PER_NODE_LIMIT)
        ? present.map((i) => {
            const p = has(i)!;
            return { node: names[i]!, hca: p.hca, netdev: p.netdev, ipv4: p.ipv4, subnet: p.subnet, mtu: p.mtu, rate: p.rate, linkLayer: p.linkLayer, gidIndex: gidIndexOf(p), gidType: p.gidLabel };
          })
        : null;
    perRail.push({ rail: k, nodes: present.length, missingOn: rails.map((r, i) => (r[k] ? -1 : i)).filter((i) => i >= 0).map((i) => names[i]!), values, mismatches, perNode });

    // Per-field findings for this rail.
    const ib = groupsBy.linkLayer.length === 1 && groupsBy.linkLayer[0]!.value === 'InfiniBand';
    for (const field of mismatches) {
      if (field === 'subnet') continue; // judged below, once the fabric is known
      if (ib && (field === 'gidIndex' || field === 'gidType')) continue;
      const gs = groupsBy[field];
      const odd = outliers(gs);
      const text = gs.map((g) => `${show(g.value)} on ${g.members.length === 1 ? names[g.members[0]!] : plural(g.members.length, 'node')}`).join(', ');
      let severity: 'error' | 'warn' | 'info' = field === 'linkLayer' || field === 'gidType' ? 'error' : field === 'gidIndex' || field === 'netdev' ? 'info' : 'warn';
      let why = WHY[field];
      let remediation: string | null = null;
      if (field === 'gidIndex') {
        const explicit = present.filter((i) => facts[i]!.settings['NCCL_IB_GID_INDEX'] !== undefined && parseNcclInt(facts[i]!.settings['NCCL_IB_GID_INDEX']!.value, -1).value >= 0);
        if (explicit.length) {
          severity = 'warn';
          why += ` NCCL_IB_GID_INDEX is set on ${nameList(explicit.map((i) => names[i]!), 3)}.`;
          remediation = 'unset NCCL_IB_GID_INDEX (NCCL ≥ 2.21.5 picks the RoCE v2 IPv4 GID on each node), or set it per node in /etc/nccl.conf';
        }
      }
      if (field === 'mtu') remediation = `ip link set dev <netdev> mtu ${gs[0]!.value ?? '<mtu>'} on ${nameList(odd.map((i) => names[i]!), 3)} (and the switch ports)`;
      // The same nodes with the same values on several rails (NCCL_IB_GID_INDEX set on one node moves every rail) make one finding.
      const key = `${field}\u0000${JSON.stringify(gs.map((g) => [g.value, g.members]))}`;
      const same = merged.get(key);
      if (same) same.rails.push(k);
      else merged.set(key, { rails: [k], make: (rails) => finding(ID[field], severity, `${railsText(rails)}: ${LABEL[field]} differs — ${text}`, odd.map((i) => names[i]!), why, remediation) });
    }
    // GIDs NCCL cannot route with, node by node.
    for (const i of present) {
      const p = has(i)!;
      if (!p.gid || p.linkLayer !== 'Ethernet') continue;
      if (p.gid.outcome === 'failure' || p.gid.outcome === 'indeterminate') {
        findings.push(finding('CMP-038', p.gid.outcome === 'failure' ? 'error' : 'warn', `rail ${k} on ${names[i]} (${p.hca}): ${p.gid.outcome === 'failure' ? 'NCCL fails to pick a GID' : `NCCL's GID index is indeterminate (${p.gid.candidates.join(' or ')})`}: ${p.gid.why}`, [names[i]!], 'Without a usable GID the node cannot connect on this rail (see ncclx ib on the node).', 'ncclx ib -v on the node'));
      } else if (p.gid.kind === 'link-local' || p.gid.kind === 'unset') {
        findings.push(finding('CMP-038', 'error', `rail ${k} on ${names[i]} (${p.hca}${p.netdev ? `, ${p.netdev}` : ''}): NCCL ends on GID ${p.gid.index}, ${p.gid.kind === 'unset' ? 'an unset entry' : `a link-local GID (${p.gid.address})`} — it does not route to other nodes`, [names[i]!], 'RoCE v2 routes by the GID\'s IP address; a link-local GID reaches only the local segment and the QP times out (IBV_WC_RETRY_EXC_ERR, status 12).', p.netdev ? `give ${p.netdev} its rail's IPv4 address` : null));
      }
    }
  }

  for (const m of merged.values()) findings.push(m.make(m.rails));
  const fabric = fabricOf(subnetGroups, opts.mesh);
  // Subnets: a rail whose nodes mostly share a subnet flags the others; every node on its own subnet is routed L3 (or a mesh).
  if (fabric === 'shared-subnets') {
    perRail.forEach((row, k) => {
      const gs = subnetGroups[k]!.filter((g) => g.value !== null);
      if (gs.length <= 1) return;
      const link = rails.find((r) => r[k])?.[k]?.linkLayer;
      if (link === 'InfiniBand') return; // IB data is routed by LID, not by the IPoIB subnet
      const shared = gs[0]!.members.length > 1;
      const odd = shared ? gs.slice(1).flatMap((g) => g.members) : gs.flatMap((g) => g.members);
      const text = gs.map((g) => `${g.value} on ${g.members.length === 1 ? names[g.members[0]!] : plural(g.members.length, 'node')}`).join(', ');
      findings.push(
        finding(
          'CMP-032',
          'error',
          shared ? `rail ${k}: ${plural(odd.length, 'node')} on another subnet than the rest — ${text}` : `rail ${k}: every node is on its own subnet while other rails share one — ${text}`,
          odd.map((i) => names[i]!),
          WHY.subnet,
          `Give rail ${k} on ${nameList(odd.map((i) => names[i]!), 3)} an address in ${gs[0]!.value}`,
        ),
      );
    });
  } else if (fabric === 'per-node-subnets' && n > 1) {
    findings.push(finding('CMP-032', 'info', `every node has its own subnet on every rail (a routed L3 fabric): RoCE v2 reaches peers only through routes between those subnets, which ncclx cannot see from the snapshots`, [], 'Routed designs (/31 per NIC, BGP to the leaf) are fine when every rail subnet routes to the same rail on the other nodes.'));
  }

  if (countGroups.length > 1 || transportGroups.length > 1) {
    const odd = countGroups.length > 1 ? outliers(countGroups) : outliers(transportGroups);
    findings.push(
      finding(
        'CMP-030',
        'error',
        `NCCL devices per node differ: ${countGroups.map((g) => `${g.value} on ${g.members.length === 1 ? names[g.members[0]!] : plural(g.members.length, 'node')}`).join(', ')}${transportGroups.length > 1 ? `; transport ${transportGroups.map((g) => `${g.value} on ${g.members.length === 1 ? names[g.members[0]!] : plural(g.members.length, 'node')}`).join(', ')}` : ''}`,
        odd.map((i) => names[i]!),
        'NCCL connects rail k to rail k. With fewer devices on some nodes, channels on the extra rails have no peer (≥ 2.30.3 logs "Detected mixed local Net device counts across ranks" but continues, NCCL_IGNORE_NET_MISMATCH=1 by default); a node that falls back to sockets cannot talk to IB nodes at all (NVIDIA/nccl#234). Jobs hang.',
        'Bring the missing ports up or give every node the same NCCL_IB_HCA (see the symmetric set above)',
      ),
    );
  } else if (n > 1 && maxRails > 0) {
    findings.push(finding('CMP-030', 'ok', `every node has ${plural(maxRails, 'NCCL device')} (${transportGroups[0]?.value ?? '?'})`, [], ''));
  }

  return {
    plan: { counts: valueGroups(countGroups, names), netDeviceCounts: valueGroups(netGroups, names), transports: valueGroups(transportGroups, names), rails: perRail, fabric },
    findings,
  };
}
