// Bootstrap reachability: every rank connects to the bootstrap root — the
// NCCL_COMM_ID address when it is set (rank 0 binds exactly that), else the
// address of rank 0's own bootstrap interface, which PyTorch passes around
// through its store at MASTER_ADDR (so rank 0 runs on the MASTER_ADDR host).
// NCCL listens on the bootstrap interface it picked but does not bind its
// outgoing connect() (NVIDIA/nccl#1581): whether a node reaches the root is the
// kernel's routing decision, which each node's captured routes answer.

import { routeFrom } from '../linux/arp.js';
import type { AddressInfo } from '../snapshot/types.js';
import { finding } from './finding.js';
import { groupNodes, nameList, plural, valueGroups } from './groups.js';
import { maskOf, parseIPv4, v4ToInt } from '../linux/ip.js';
import type { CompareFinding, NodeFacts, ValueGroup } from './types.js';

export type Reach = 'root' | 'same-subnet' | 'routed' | 'other-interface' | 'unreachable' | 'unknown' | 'no-interface' | 'no-target';

export interface NodeReach {
  node: string;
  iface: string | null;
  address: string | null;
  target: string | null;
  reach: Reach;
  detail: string;
}

export interface BootstrapReport {
  /** What the nodes connect to: NCCL_COMM_ID's address, or the MASTER_ADDR node's bootstrap address. */
  target: { variable: 'NCCL_COMM_ID' | 'MASTER_ADDR' | null; values: ValueGroup<string>[]; root: string | null; address: string | null; how: string };
  interfaces: ValueGroup<string | null>[];
  subnets: ValueGroup<string | null>[];
  reach: ValueGroup<Reach>[];
  /** Every node whose reach is not root, same-subnet or routed. */
  problems: NodeReach[];
}

const ANY_SOURCE: AddressInfo = { name: '', link: '', ifindex: 0, family: 'AF_INET', address: '0.0.0.0', prefixlen: 0, scope: 'global', scopeId: 0, flags: [] };

/** The route a node's kernel takes to `address`: recorded `ip route get` when the node captured it, else replayed from its tables. */
function routeOf(f: NodeFacts, address: string): { dev: string | null; gateway: string | null; how: string; note: string | null } | null {
  const rec = f.targets.find((t) => t.address === address && t.route);
  if (rec?.route) return { dev: rec.route.dev, gateway: rec.route.gateway, how: rec.route.how === 'replayed' ? 'replayed from ip rule/route' : 'recorded ip route get', note: rec.route.note };
  const bytes = parseIPv4(address);
  if (!f.routing || !bytes) return null;
  const d = routeFrom(f.routing.rules, f.routing.routes, ANY_SOURCE, { bytes, len: 32 });
  return { dev: d.dev, gateway: d.route?.gateway ?? null, how: 'replayed from ip rule/route', note: d.unsure ?? (d.dev ? null : 'no route') };
}

function reachOf(f: NodeFacts, i: number, address: string | null, owners: Map<string, number[]>, name: string, targetText: string | null): NodeReach {
  const targetInt = address ? v4ToInt(address) : null;
  const b = f.bootstrap;
  const base = { node: name, iface: b.iface, address: b.address, target: targetText };
  if (b.error) return { ...base, reach: 'no-interface', detail: b.error };
  if (b.indeterminate) return { ...base, reach: 'unknown', detail: `bootstrap interface cannot be predicted: ${b.indeterminate}` };
  if (!address) return { ...base, reach: 'no-target', detail: 'no NCCL_COMM_ID or MASTER_ADDR known for this node' };
  if (owners.get(address)?.includes(i)) return { ...base, reach: 'root', detail: `${address} is this node's own address` };
  if (b.address && b.prefixlen !== null && targetInt !== null) {
    const mine = v4ToInt(b.address);
    const m = maskOf(b.prefixlen);
    if (mine !== null && ((mine & m) >>> 0) === ((targetInt & m) >>> 0)) return { ...base, reach: 'same-subnet', detail: `${address} is on ${b.iface}'s subnet ${b.subnet}` };
  }
  const r = routeOf(f, address);
  if (!r) return { ...base, reach: 'unknown', detail: `${address} is not on ${b.iface}'s subnet ${b.subnet ?? '(no IPv4)'} and the snapshot has no routes to tell whether it is routed` };
  if (!r.dev) return { ...base, reach: r.note && r.note !== 'no route' ? 'unknown' : 'unreachable', detail: `${address}: ${r.note ?? 'no route'} (${r.how})` };
  if (r.dev === b.link) return { ...base, reach: 'routed', detail: `${address} via ${r.gateway ?? 'a route'} on ${b.iface} (${r.how})` };
  return { ...base, reach: 'other-interface', detail: `${address} is reached through ${r.dev}${r.gateway ? ` via ${r.gateway}` : ''}, not through NCCL's bootstrap interface ${b.iface} (${b.address}) (${r.how})` };
}

/** Whether a host name names this node: exactly, or by its first label when one side is not fully qualified. */
function sameHost(host: string, name: string): boolean {
  if (host === '' || name === '') return false;
  if (host.toLowerCase() === name.toLowerCase()) return true;
  const [h, n] = [host.toLowerCase().split('.'), name.toLowerCase().split('.')];
  return (h.length === 1 || n.length === 1) && h[0] === n[0];
}

function isLoopbackHost(v: string | null): boolean {
  if (!v) return false;
  return /^localhost(\.localdomain)?$/i.test(v) || /^127\./.test(v) || v === '::1' || v === '[::1]';
}

export function bootstrapReport(facts: NodeFacts[], names: string[]): { report: BootstrapReport; findings: CompareFinding[] } {
  const n = facts.length;
  const findings: CompareFinding[] = [];
  const owners = new Map<string, number[]>();
  facts.forEach((f, i) => {
    for (const a of new Set(f.localAddresses)) {
      const list = owners.get(a);
      if (list) list.push(i);
      else owners.set(a, [i]);
    }
  });

  const commIds = groupNodes(n, (i) => facts[i]!.targets.find((t) => t.variable === 'NCCL_COMM_ID')?.value, (v) => v);
  const masters = groupNodes(n, (i) => facts[i]!.targets.find((t) => t.variable === 'MASTER_ADDR')?.value, (v) => v);
  const variable = commIds.length ? 'NCCL_COMM_ID' : masters.length ? 'MASTER_ADDR' : null;

  // The root: who owns the NCCL_COMM_ID address, or the MASTER_ADDR host (whose bootstrap interface NCCL's root listens on).
  const anyTarget = facts.map((f) => f.targets.find((t) => t.variable === variable)).find((t) => t !== undefined);
  const value = anyTarget?.value ?? null;
  // A MASTER_ADDR naming a compared node is that node, whatever this machine's resolver says (or whether it knows the name at all).
  const named = variable === 'MASTER_ADDR' && value ? facts.flatMap((f, i) => (sameHost(f.host, value) || sameHost(names[i]!, value) ? [i] : [])) : [];
  const firstTarget = facts.map((f) => f.targets.find((t) => t.variable === variable)).find((t) => t?.address);
  const hostAddress = named.length === 1 ? (facts[named[0]!]!.bootstrap.address ?? firstTarget?.address ?? null) : (firstTarget?.address ?? null);
  const rootIdx = named.length === 1 ? named : hostAddress ? (owners.get(hostAddress) ?? []) : [];
  const root = rootIdx.length === 1 ? rootIdx[0]! : null;
  let address: string | null = hostAddress;
  let how = variable === 'NCCL_COMM_ID' ? 'NCCL_COMM_ID: rank 0 listens on exactly this address' : 'no NCCL_COMM_ID or MASTER_ADDR in the snapshots (pass --comm-id or --master-addr)';
  const replaced = [...new Set(facts.flatMap((f) => f.targets.filter((t) => t.variable === 'MASTER_ADDR' && t.replaced).map((t) => t.replaced!)))];
  const replacedNote = replaced.length ? ` (the snapshots hold MASTER_ADDR=${replaced.join(', ')}; --master-addr replaces it)` : '';
  const loopback = variable !== null && n > 1 && (isLoopbackHost(value) || isLoopbackHost(firstTarget?.address ?? null));
  if (loopback) {
    // Every rank would look for rank 0 on its own node: no address to reach, and an error below.
    address = null;
    how = `${variable} ${value}${firstTarget?.address && firstTarget.address !== value ? ` (${firstTarget.address})` : ''} is loopback: each of the ${n} nodes would look for rank 0 on itself`;
  } else if (variable === 'MASTER_ADDR') {
    const shown = `${value ?? '(empty)'}${hostAddress && hostAddress !== value ? ` (${hostAddress})` : ''}`;
    if (root !== null && facts[root]!.bootstrap.address) {
      address = facts[root]!.bootstrap.address;
      how = `MASTER_ADDR ${shown} is ${names[root]}${named.length === 1 ? ' (by host name)' : ''}; NCCL's root (rank 0) listens on its bootstrap interface ${facts[root]!.bootstrap.iface} ${address}`;
    } else {
      how = `MASTER_ADDR ${shown} is not one of the compared nodes${hostAddress ? ': checking that each node reaches it' : ', and its name could not be resolved: pass an address, or snapshots taken inside the job'}`;
    }
    how += replacedNote;
  }

  const reaches = facts.map((f, i) => {
    // A node with its own NCCL_COMM_ID connects to that one.
    const own = variable === 'NCCL_COMM_ID' ? f.targets.find((t) => t.variable === 'NCCL_COMM_ID') : undefined;
    const a = own ? own.address : address;
    const text = own ? `${own.value}${own.address && own.address !== own.host ? ` (${own.address})` : ''}` : address;
    if (own && !own.address) return { node: names[i]!, iface: f.bootstrap.iface, address: f.bootstrap.address, target: own.value, reach: 'unknown' as Reach, detail: own.unresolved ?? 'NCCL_COMM_ID has no usable address' };
    return reachOf(f, i, a, owners, names[i]!, text);
  });
  const reachGroups = groupNodes(n, (i) => reaches[i]!.reach, (v) => v);
  const problems = reaches.filter((r) => !['root', 'same-subnet', 'routed'].includes(r.reach));
  const ifaceGroups = groupNodes<string | null>(n, (i) => facts[i]!.bootstrap.iface);
  const subnetGroups = groupNodes<string | null>(n, (i) => facts[i]!.bootstrap.subnet);

  const report: BootstrapReport = {
    target: { variable, values: valueGroups(variable === 'NCCL_COMM_ID' ? commIds : masters, names), root: root !== null ? names[root]! : null, address, how },
    interfaces: valueGroups(ifaceGroups, names),
    subnets: valueGroups(subnetGroups, names),
    reach: valueGroups(reachGroups, names),
    problems,
  };

  const byReach = (r: Reach) => reaches.filter((x) => x.reach === r);
  const WHY = 'Every rank opens TCP connections to the bootstrap root and to other ranks\' bootstrap addresses; NCCL listens on the interface it picked but does not bind outgoing connections, so the kernel\'s route decides (NVIDIA/nccl#1581). A rank that cannot connect hangs in bootstrap.';
  const list = (xs: NodeReach[]) => xs.map((x) => x.node);
  const detail = (xs: NodeReach[]) => (xs.length === 1 ? ` (${xs[0]!.node}): ${xs[0]!.detail}` : ` (e.g. ${xs[0]!.node}: ${xs[0]!.detail})`);
  if (byReach('no-interface').length) {
    const xs = byReach('no-interface');
    findings.push(finding('CMP-050', 'error', `${plural(xs.length, 'node')} ha${xs.length === 1 ? 's' : 've'} no bootstrap interface${detail(xs)}`, list(xs), WHY, 'ncclx explain on those nodes; set NCCL_SOCKET_IFNAME to a name that exists on every node (a comma list covers different names)'));
  }
  if (byReach('unreachable').length) {
    const xs = byReach('unreachable');
    findings.push(finding('CMP-050', 'error', `${plural(xs.length, 'node')} cannot reach the bootstrap root ${address ?? ''}${detail(xs)}`, list(xs), WHY, `Give ${nameList(list(xs), 3)} a route to ${address} through the bootstrap interface, or pick an interface on the root's network (NCCL_SOCKET_IFNAME)`));
  }
  if (byReach('other-interface').length) {
    const xs = byReach('other-interface');
    findings.push(finding('CMP-050', 'warn', `${plural(xs.length, 'node')} reach the bootstrap root through another interface than NCCL's bootstrap interface${detail(xs)}`, list(xs), WHY, 'Add a host route to the root through the bootstrap interface, or set NCCL_SOCKET_IFNAME to the interface the route uses'));
  }
  if (byReach('unknown').length) {
    const xs = byReach('unknown');
    findings.push(finding('CMP-050', 'warn', `cannot tell whether ${plural(xs.length, 'node')} reach the bootstrap root${detail(xs)}`, list(xs), WHY, 'Take the snapshots inside the job (so NCCL_COMM_ID / MASTER_ADDR are set), or pass --comm-id / --master-addr'));
  }
  if (loopback) {
    findings.push(finding('CMP-050', 'error', `${variable} is ${value}, this node's own loopback: with ${n} nodes every rank would connect to itself and the job hangs in bootstrap`, names.slice(), WHY, `Set ${variable} to rank 0's host name or address on the data network`));
  } else if (byReach('no-target').length === n && n > 0) {
    findings.push(finding('CMP-050', 'info', 'no NCCL_COMM_ID or MASTER_ADDR in the snapshots: only the bootstrap interfaces are compared', [], 'The root is known only inside a job.', 'ncclx compare … --master-addr <rank-0 host> (or --comm-id host:port)'));
  } else if (problems.length === 0 && n > 0) {
    findings.push(finding('CMP-050', 'ok', `every node reaches the bootstrap root ${address ?? ''} from its bootstrap interface`, [], ''));
  }

  const subnets = subnetGroups.filter((g) => g.value !== null);
  if (subnets.length > 1) {
    const odd = subnets.slice(1).flatMap((g) => g.members);
    findings.push(
      finding(
        'CMP-051',
        'warn',
        `bootstrap interfaces are on ${subnets.length} subnets: ${subnets.map((g) => `${g.value} (${ifaceGroups.find((x) => x.members.includes(g.members[0]!))?.value ?? '?'}) on ${g.members.length === 1 ? names[g.members[0]!] : plural(g.members.length, 'node')}`).join(', ')}`,
        odd.map((i) => names[i]!),
        'Ranks connect to each other\'s bootstrap addresses, not only to the root: nodes on different bootstrap subnets need routes between them, and a node that picked another network (another NIC name, another NCCL_SOCKET_IFNAME) is usually a mistake.',
        'Set the same NCCL_SOCKET_IFNAME everywhere (=name, or a comma list when names differ)',
      ),
    );
  }
  if (variable && hostAddress) {
    const own = owners.get(hostAddress) ?? [];
    if (own.length > 1) findings.push(finding('CMP-052', 'error', `${variable} address ${hostAddress} is on ${plural(own.length, 'node')}: ${nameList(own.map((i) => names[i]!))}`, own.map((i) => names[i]!), 'Two nodes with one address answer each other\'s connections at random.', null));
    else if (own.length === 0) findings.push(finding('CMP-052', 'info', `${variable} ${hostAddress} is not an address of any compared node: rank 0 must run where it is local`, [], variable === 'NCCL_COMM_ID' ? 'With NCCL_COMM_ID=host:port rank 0 binds exactly that address.' : 'PyTorch\'s store runs on the MASTER_ADDR host, and rank 0 with it.'));
  }
  if (masters.length > 1) findings.push(finding('CMP-052', 'error', `MASTER_ADDR differs between nodes: ${masters.map((g) => `${g.value} on ${plural(g.members.length, 'node')}`).join(', ')}`, masters.slice(1).flatMap((g) => g.members.map((m) => names[m]!)), 'Every rank must rendezvous at the same store.', null));
  return { report, findings };
}
