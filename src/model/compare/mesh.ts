// Direct-connect meshes (DGX Spark-style back-to-back cabling): every cable is
// its own little subnet shared by exactly two nodes, so a port reaches one
// peer only. NCCL before 2.30.7 pairs NICs by index without looking at
// reachability (a connection may leave through the port cabled to another
// peer: `ibv_modify_qp … 110 Connection timed out`). 2.30.7 adds
// NCCL_IB_SUBNET_AWARE_ROUTING (default 0): the listener puts the GIDs of (up
// to two) RoCE ports of its device in the connection handle, and the connector
// keeps its default device only if all its RoCE ports share a subnet with one
// of them, else takes the first device whose RoCE ports all do. "Same subnet"
// for IPv4-mapped GIDs is NCCL_IB_SUBNET_PREFIX_LEN bits (default 24, 1–32,
// anything else fails the connection), not the netdev's prefix — /30 links
// inside one /24 all look alike to it. (src/transport/net_ib/connect.cc,
// ncclIbFindDevBySubnet / gidSameSubnet.)
//
// Pairs are found through a subnet index, so the work is linear in ports;
// only listing the pairs that share nothing is quadratic, and bounded.

import { parseNcclInt } from '../nccl/cint.js';
import { setEnv } from '../result/build.js';
import { shExport } from '../shell/quote.js';
import { finding } from './finding.js';
import { nameList, plural } from './groups.js';
import { maskOf, parseSubnet, v4ToInt } from '../linux/ip.js';
import type { CompareFinding, NodeFacts, PortFacts } from './types.js';

export type TopologyChoice = 'auto' | 'mesh' | 'switched';

export interface MeshEnd {
  hca: string;
  netdev: string | null;
  ipv4: string;
}

export interface MeshPair {
  a: string;
  b: string;
  /** Each cable between them: a's port and b's port on one subnet. */
  links: { subnet: string; a: MeshEnd; b: MeshEnd }[];
}

export interface MeshReport {
  /** Why ncclx treats (or was told to treat) the fabric as a direct-connect mesh. */
  detected: string;
  pairs: MeshPair[];
  unreachable: { count: number; pairs: [string, string][]; listed: boolean };
  isolated: string[];
  subnetPrefixLen: { linkPrefixes: number[]; recommended: number | null; conflicts: string[] };
  /** What each setting is on the nodes, and what a mesh needs. */
  settings: { variable: string; want: string; ok: string[]; notOk: string[] }[];
  /** NCCL ≥ 2.30.7 on every node (NCCL_IB_SUBNET_AWARE_ROUTING exists). */
  subnetAwareRouting: boolean;
  exports: string[];
}

interface End {
  node: number;
  port: PortFacts;
  /** The address NCCL compares: the IPv4 of the GID it picked, else the netdev's. */
  ip: number;
  prefixlen: number;
}

const MAX_LISTED_UNREACHABLE = 1000;

function meshPorts(f: NodeFacts): PortFacts[] {
  return f.ports.filter((p) => p.linkLayer === 'Ethernet' && p.active === true && p.subnet !== null && p.ipv4 !== null);
}

/** Subnet → the RoCE ports on it (at most one list entry per node and port). */
function subnetIndex(facts: NodeFacts[]): Map<string, End[]> {
  const index = new Map<string, End[]>();
  facts.forEach((f, node) => {
    for (const p of meshPorts(f)) {
      const [addr, len] = p.ipv4!.split('/');
      const ip = v4ToInt(p.gid?.ipv4 ?? addr ?? '') ?? v4ToInt(addr ?? '');
      if (ip === null) continue;
      const list = index.get(p.subnet!) ?? [];
      list.push({ node, port: p, ip, prefixlen: Number(len) });
      index.set(p.subnet!, list);
    }
  });
  return index;
}

/** Whether the fabric looks like a direct-connect mesh, and why (null when it does not). */
export function detectMesh(facts: NodeFacts[], choice: TopologyChoice = 'auto'): string | null {
  if (choice === 'switched') return null;
  if (choice === 'mesh') return 'treated as a direct-connect mesh (--topology mesh)';
  // Subnet → the nodes on it; a third node on one subnet means a switch, and the answer is known at once.
  const nodesOn = new Map<string, number[]>();
  for (let i = 0; i < facts.length; i++) {
    for (const p of meshPorts(facts[i]!)) {
      const list = nodesOn.get(p.subnet!);
      if (!list) nodesOn.set(p.subnet!, [i]);
      else if (!list.includes(i)) {
        if (list.length >= 2) return null;
        list.push(i);
      }
    }
  }
  const shared = [...nodesOn.entries()].filter(([, nodes]) => nodes.length === 2);
  if (shared.length === 0) return null;
  const peers = new Map<number, Set<number>>();
  for (const [, [a, b]] of shared) {
    (peers.get(a!) ?? peers.set(a!, new Set()).get(a!)!).add(b!);
    (peers.get(b!) ?? peers.set(b!, new Set()).get(b!)!).add(a!);
  }
  const fanOut = [...peers.values()].some((s) => s.size >= 2);
  const pointToPoint = shared.every(([s]) => (parseSubnet(s)?.[1] ?? 0) >= 30);
  if (fanOut) return `every shared RDMA subnet holds exactly two nodes, and nodes reach different peers through different ports (${plural(shared.length, 'link')})`;
  if (pointToPoint) return `every shared RDMA subnet is a /30–/31 point-to-point link between two nodes (${plural(shared.length, 'link')})`;
  return null;
}

const nccLInt = (f: NodeFacts, name: string, def: number) => parseNcclInt(f.settings[name]?.value, def).value;

export function meshReport(facts: NodeFacts[], names: string[], detected: string): { mesh: MeshReport; findings: CompareFinding[] } {
  const n = facts.length;
  const index = subnetIndex(facts);
  const byPair = new Map<string, MeshPair>();
  const linked = new Set<number>();
  for (const [subnet, ends] of index) {
    for (let x = 0; x < ends.length; x++) {
      for (let y = x + 1; y < ends.length; y++) {
        const [e, f] = ends[x]!.node <= ends[y]!.node ? [ends[x]!, ends[y]!] : [ends[y]!, ends[x]!];
        if (e.node === f.node) continue;
        const key = `${e.node}:${f.node}`;
        let pair = byPair.get(key);
        if (!pair) byPair.set(key, (pair = { a: names[e.node]!, b: names[f.node]!, links: [] }));
        pair.links.push({ subnet, a: { hca: e.port.hca, netdev: e.port.netdev, ipv4: e.port.ipv4! }, b: { hca: f.port.hca, netdev: f.port.netdev, ipv4: f.port.ipv4! } });
        linked.add(e.node).add(f.node);
      }
    }
  }
  const pairs = [...byPair.entries()].sort(([a], [b]) => {
    const [a1, a2] = a.split(':').map(Number) as [number, number];
    const [b1, b2] = b.split(':').map(Number) as [number, number];
    return a1 - b1 || a2 - b2;
  });
  const total = (n * (n - 1)) / 2;
  const unreachableCount = total - pairs.length;
  const unreachablePairs: [string, string][] = [];
  if (unreachableCount > 0 && n <= 2000) {
    outer: for (let a = 0; a < n; a++) {
      for (let b = a + 1; b < n; b++) {
        if (byPair.has(`${a}:${b}`)) continue;
        unreachablePairs.push([names[a]!, names[b]!]);
        if (unreachablePairs.length >= MAX_LISTED_UNREACHABLE) break outer;
      }
    }
  }
  const isolated = facts.map((_, i) => i).filter((i) => !linked.has(i));

  // NCCL_IB_SUBNET_PREFIX_LEN: the links' own prefixes, and whether a prefix length tells them apart.
  const linkSubnets = [...index.entries()].filter(([, ends]) => new Set(ends.map((e) => e.node)).size >= 2);
  const linkPrefixes = [...new Set(linkSubnets.map(([s]) => parseSubnet(s)![1]))].sort((a, b) => a - b);
  const conflictsAt = (len: number): string[] => {
    const groups = new Map<number, Set<string>>();
    for (const [subnet, ends] of linkSubnets) {
      for (const e of ends) {
        const key = (e.ip & maskOf(len)) >>> 0;
        (groups.get(key) ?? groups.set(key, new Set()).get(key)!).add(subnet);
      }
    }
    return [...groups.values()].filter((s) => s.size > 1).map((s) => [...s].sort().join(' and '));
  };
  const splitsAt = (len: number): boolean => linkPrefixes.some((p) => len > p);
  const minPrefix = linkPrefixes[0] ?? null;
  const recommended = minPrefix !== null && conflictsAt(minPrefix).length === 0 ? minPrefix : null;

  const allAware = facts.every((f) => f.nccl.subnetAwareRouting);
  const want = [
    { variable: 'NCCL_IB_SUBNET_AWARE_ROUTING', want: '1', ok: (f: NodeFacts) => nccLInt(f, 'NCCL_IB_SUBNET_AWARE_ROUTING', 0) !== 0 },
    { variable: 'NCCL_IB_MERGE_NICS', want: '0', ok: (f: NodeFacts) => nccLInt(f, 'NCCL_IB_MERGE_NICS', 1) === 0 },
    { variable: 'NCCL_CROSS_NIC', want: '1', ok: (f: NodeFacts) => nccLInt(f, 'NCCL_CROSS_NIC', 2) === 1 },
  ];
  const settings = want.map((w) => ({ variable: w.variable, want: w.want, ok: facts.flatMap((f, i) => (w.ok(f) ? [names[i]!] : [])), notOk: facts.flatMap((f, i) => (w.ok(f) ? [] : [names[i]!])) }));
  const prefixOn = facts.map((f) => nccLInt(f, 'NCCL_IB_SUBNET_PREFIX_LEN', 24));
  const wantPrefix = recommended !== null && recommended !== 24 ? recommended : null;
  const meshEnv: Record<string, string> = { NCCL_IB_SUBNET_AWARE_ROUTING: '1', NCCL_IB_MERGE_NICS: '0', NCCL_CROSS_NIC: '1', ...(wantPrefix !== null ? { NCCL_IB_SUBNET_PREFIX_LEN: String(wantPrefix) } : {}) };
  const exports = Object.entries(meshEnv).map(([k, v]) => shExport(k, v));

  const mesh: MeshReport = {
    detected,
    pairs: pairs.map(([, p]) => p),
    unreachable: { count: unreachableCount, pairs: unreachablePairs, listed: unreachableCount === unreachablePairs.length },
    isolated: isolated.map((i) => names[i]!),
    subnetPrefixLen: { linkPrefixes, recommended, conflicts: minPrefix !== null ? conflictsAt(24) : [] },
    settings: settings.map(({ variable, want: w, ok, notOk }) => ({ variable, want: w, ok, notOk })),
    subnetAwareRouting: allAware,
    exports,
  };

  const findings: CompareFinding[] = [];
  const WHY_PAIRS = 'In a direct-connect mesh two nodes talk only over a cable between them; NCCL needs a path for every pair it connects (rings connect neighbours; trees, all-to-all and PAT connect many more pairs).';
  if (isolated.length) {
    findings.push(finding('CMP-040', 'error', `${plural(isolated.length, 'node')} share no RDMA subnet with any other node: ${nameList(mesh.isolated)}`, mesh.isolated, WHY_PAIRS, 'Check the cabling and the link addresses (each cable: both ends in one subnet)'));
  }
  if (unreachableCount > 0) {
    const listed = unreachablePairs.slice(0, 5).map(([a, b]) => `${a}–${b}`);
    findings.push(
      finding(
        'CMP-040',
        'warn',
        `${plural(unreachableCount, 'pair')} of nodes share no subnet: ${listed.join(', ')}${unreachableCount > listed.length ? ` and ${unreachableCount - listed.length} more` : ''}`,
        [...new Set(unreachablePairs.flat())],
        `${WHY_PAIRS} A partial mesh (a ring of cables) works only with NCCL_ALGO=Ring and a rank order that follows the cabling.`,
        'Cable the missing pairs, or run only Ring collectives in cabling order',
      ),
    );
  } else if (!isolated.length) {
    findings.push(finding('CMP-040', 'ok', `direct-connect mesh: all ${plural(total, 'pair')} of nodes share a subnet (${plural(linkSubnets.length, 'link')})`, [], ''));
  }

  const critical = n >= 3;
  if (!allAware) {
    const old = facts.flatMap((f, i) => (f.nccl.subnetAwareRouting ? [] : [names[i]!]));
    const versions = [...new Set(facts.filter((f) => !f.nccl.subnetAwareRouting).map((f) => f.nccl.version))].join(', ');
    findings.push(
      finding(
        'CMP-041',
        critical ? 'error' : 'warn',
        `NCCL ${versions} on ${nameList(old)} has no subnet-aware routing (added in 2.30.7): it pairs ports by index and ${critical ? 'will send some connections through a port cabled to another peer' : 'may use a port that does not face the peer'}`,
        old,
        'Without NCCL_IB_SUBNET_AWARE_ROUTING NCCL assumes every local port reaches every remote port; in a mesh each port reaches one peer, and a QP on the wrong port times out (ibv_modify_qp … 110).',
        critical ? setEnv(meshEnv, 'Upgrade NCCL to 2.30.7 or newer, then') : 'Name only the port that faces the peer on each node (NCCL_IB_HCA==<that port>, per node), or upgrade to NCCL ≥ 2.30.7',
      ),
    );
  } else {
    for (const s of settings) {
      if (s.notOk.length === 0) continue;
      const sar = s.variable === 'NCCL_IB_SUBNET_AWARE_ROUTING';
      findings.push(
        finding(
          'CMP-041',
          sar ? (critical ? 'error' : 'warn') : 'warn',
          `${s.variable} is not ${s.want} on ${nameList(s.notOk)}`,
          s.notOk,
          sar
            ? 'NCCL_IB_SUBNET_AWARE_ROUTING=1 makes the connecting side pick a local port on the same subnet as the peer\'s GID; it is off by default.'
            : s.variable === 'NCCL_IB_MERGE_NICS'
              ? 'Subnet-aware routing keeps a device only if all its ports share a subnet with the peer: ports of one NIC fused into a virtual device face different peers and never all match.'
              : 'With each peer behind a different port, ring and tree channels must be allowed to leave through a different NIC on each side (field-tested mesh recipes set NCCL_CROSS_NIC=1).',
          setEnv({ [s.variable]: s.want }),
        ),
      );
    }
    if (settings.every((s) => s.notOk.length === 0)) findings.push(finding('CMP-041', 'ok', 'NCCL ≥ 2.30.7 with NCCL_IB_SUBNET_AWARE_ROUTING=1, NCCL_IB_MERGE_NICS=0 and NCCL_CROSS_NIC=1 on every node', [], ''));
  }

  // The prefix length NCCL compares GIDs with, node by node.
  if (linkSubnets.length) {
    const bad = new Map<string, number[]>();
    prefixOn.forEach((p, i) => {
      let why: string | null = null;
      if (p < 1 || p > 32) why = `NCCL_IB_SUBNET_PREFIX_LEN=${p} is outside 1–32: NCCL logs "NCCL_IB_SUBNET_PREFIX_LEN=${p} is out of range [1,32]" and the connection fails`;
      else if (conflictsAt(p).length) why = `at /${p} NCCL cannot tell ${conflictsAt(p).slice(0, 2).join('; ')} apart`;
      else if (splitsAt(p)) why = `/${p} is longer than the links' /${minPrefix}: the two ends of one cable look like different subnets`;
      if (why) bad.set(why, [...(bad.get(why) ?? []), i]);
    });
    for (const [why, nodes] of bad) {
      findings.push(
        finding(
          'CMP-042',
          allAware ? 'error' : 'warn',
          `${why} (${nameList(nodes.map((i) => names[i]!))})`,
          nodes.map((i) => names[i]!),
          'Subnet-aware routing compares IPv4 GIDs under NCCL_IB_SUBNET_PREFIX_LEN bits (default 24), not the netdev\'s prefix: links must differ within those bits, and both ends of a link must agree.',
          recommended !== null ? setEnv({ NCCL_IB_SUBNET_PREFIX_LEN: String(recommended) }) : 'Re-address the links so that each lies in its own /24 (or in disjoint prefixes of one length)',
        ),
      );
    }
    if (bad.size === 0 && allAware) findings.push(finding('CMP-042', 'ok', `NCCL_IB_SUBNET_PREFIX_LEN ${[...new Set(prefixOn)].join('/')} separates every link (${linkPrefixes.map((p) => `/${p}`).join(', ')})`, [], ''));
  }
  const noGid = facts.flatMap((f, i) => meshPorts(f).filter((p) => p.usedByNccl && p.gid?.kind !== 'IPv4').map((p) => [names[i]!, p.hca] as const));
  if (noGid.length) {
    findings.push(
      finding(
        'CMP-041',
        'warn',
        `NCCL's GID on ${nameList(noGid.map(([node, hca]) => `${node} ${hca}`))} is not an IPv4 GID: subnet-aware routing cannot match it`,
        [...new Set(noGid.map(([node]) => node))],
        'ncclIbFindDevBySubnet compares only valid GIDs (not link-local), IPv4-mapped ones under NCCL_IB_SUBNET_PREFIX_LEN bits.',
        setEnv({ NCCL_IB_ADDR_FAMILY: 'AF_INET' }),
      ),
    );
  }
  return { mesh, findings };
}
