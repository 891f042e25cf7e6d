// ncclx's one socket policy (docs/advice.md "Sockets: bootstrap and Gloo
// versus data rails"): which interfaces NCCL_SOCKET_IFNAME and
// GLOO_SOCKET_IFNAME should name. `ncclx env` (env-plan.ts) and SOCK-031 both
// ask this function, so the advice and the check cannot disagree.
//
// When NCCL's IB transport carries the data, sockets carry only bootstrap,
// the IB transport's out-of-band connection and PyTorch's Gloo: NCCL uses the
// first interface for them, so the policy names one interface — NCCL's own
// first choice when it is sound. When sockets carry the data, every sound
// interface NCCL selects carries it, but not the default-route (management)
// interface next to data interfaces. Sound: RUNNING with a routable address
// (suggestedInterfaces), not an RDMA netdev on a shared subnet whose ARP,
// rp_filter and policy routing are not set up (ARP-001), not a bonded RDMA
// device next to ordinary HCAs (IB-003: the front-end or storage network).

import type { CheckContext } from '../doctor/types.js';
import { memberHealthy, memberNetdevs, sharedSubnets } from '../linux/arp.js';
import { defaultRouteLinks } from '../linux/routes.js';
import type { SocketSelection } from '../nccl/socket.js';
import type { Family } from '../snapshot/types.js';

export interface SocketPolicyInput {
  /** NCCL's selection with the address filters as the plan leaves them (NCCL_SOCKET_FAMILY, NCCLX's prefix). */
  selection: SocketSelection;
  /** RUNNING interfaces with a routable address, in getifaddrs() order (socket-findings.ts suggestedInterfaces). */
  good: string[];
  /** The IB transport carries the data under the recommended environment. */
  dataOnIb: boolean;
  /** Netdevs of bonded RDMA devices left out next to ordinary HCAs (IB-003). */
  frontEndBonds: string[];
}

export interface SocketPolicy {
  /** Interfaces for NCCL_SOCKET_IFNAME, in order (the first is bootstrap's and the IB OOB's). */
  names: string[];
  /** NCCL_SOCKET_IFNAME selects something the policy keeps: the user's choice stands (minus what is unsound). */
  userChoice: boolean;
  /** Interfaces NCCL selects that the policy leaves out, and why. */
  leftOut: { name: string; kind: 'unreachable' | 'default-route' | 'unsound'; why: string }[];
  /** One line: the rule applied. */
  rule: string;
}

const sameInterfaces = (a: string[], b: string[]) => a.length === b.length && a.every((n, i) => n === b[i]);

/** Why an interface is not sound for NCCL's sockets, or null. */
export function unsoundReason(ctx: CheckContext, name: string, frontEndBonds: string[]): string | null {
  const snap = ctx.snapshot;
  const link = snap.network.addresses.find((a) => a.name === name)?.link ?? name;
  if (frontEndBonds.includes(link)) return 'a bonded RDMA device next to ordinary HCAs (IB-003: the front-end or storage network)';
  if (snap.kernel) {
    const g = memberNetdevs(sharedSubnets(snap)).find((m) => m.netdev === link);
    if (g && !memberHealthy(snap, link)) return `an RDMA netdev on ${g.group.subnet}, shared with other rails, without the ARP sysctls and policy routing that needs (ARP-001)`;
  }
  return null;
}

/** Whether the interface carries a main-table default route of the family NCCL would use on it. */
export function carriesDefault(ctx: CheckContext, selection: SocketSelection, name: string): boolean {
  const snap = ctx.snapshot;
  const carriers = defaultRouteLinks(snap.kernel?.routes);
  const addr = snap.network.addresses.find((a) => a.name === name);
  const fams = carriers?.get(addr?.link ?? name);
  const family: Family = selection.socket.selected.find((s) => s.name === name)?.family ?? addr?.family ?? 'AF_INET';
  return !!fams && (fams.has(null) || fams.has(family));
}

export function socketPolicy(ctx: CheckContext, p: SocketPolicyInput): SocketPolicy {
  const current = p.selection.socket.selected.map((s) => s.name);
  const userSet = p.selection.inputs.ifname.used;
  const leftOut: SocketPolicy['leftOut'] = [];
  const keep = (names: string[], kind: SocketPolicy['leftOut'][number]['kind'], drop: (n: string) => string | null): string[] =>
    names.filter((n) => {
      const why = drop(n);
      if (why && !leftOut.some((x) => x.name === n)) leftOut.push({ name: n, kind, why });
      return !why;
    });
  const reachable = keep(current, 'unreachable', (n) => (p.good.includes(n) ? null : 'not RUNNING with an address other nodes can reach (SOCK-002, SOCK-003)'));
  const carries = (n: string) => carriesDefault(ctx, p.selection, n);
  const unsound = (n: string) => unsoundReason(ctx, n, p.frontEndBonds);
  const sound = keep(reachable, 'unsound', unsound);
  // Data on sockets: the default-route (management) interface carries none of it next to data interfaces (SOCK-031).
  const dataOnly = (names: string[]) => {
    const data = names.filter((n) => !carries(n));
    if (data.length === 0 || data.length === names.length) return names;
    return keep(names, 'default-route', (n) => (carries(n) ? 'carries the default route (the management or uplink network), next to data interfaces' : null));
  };
  if (userSet && sound.length) {
    // The user named interfaces that work: keep them, without what cannot carry this traffic.
    const names = p.dataOnIb ? sound : dataOnly(sound);
    return { names, userChoice: true, leftOut, rule: p.dataOnIb ? 'NCCL_SOCKET_IFNAME as set, without unsound interfaces' : 'NCCL_SOCKET_IFNAME as set, without unsound interfaces and without the default-route interface next to data interfaces' };
  }
  const fallback = () => p.good.find((n) => carries(n) && !unsound(n)) ?? p.good.find((n) => !unsound(n)) ?? reachable[0] ?? p.good[0];
  if (p.dataOnIb) {
    // One interface for bootstrap, the IB OOB and Gloo: NCCL's first sound choice, else the default-route one, else any sound one.
    const first = sound[0] ?? fallback();
    return { names: first ? [first] : [], userChoice: false, leftOut, rule: "the IB transport carries the data: bootstrap, the IB OOB and Gloo on one sound interface, NCCL's own first choice" };
  }
  let names = dataOnly(sound);
  if (names.length === 0) {
    const data = p.good.find((n) => !carries(n) && !unsound(n));
    const one = data ?? fallback();
    names = one ? [one] : [];
  }
  return { names, userChoice: false, leftOut, rule: 'sockets carry the data: every sound interface NCCL selects, without the default-route interface next to data interfaces' };
}

export { sameInterfaces };
