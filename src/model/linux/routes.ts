// Routes and rules as iproute2 prints them, and what a failed capture means.
// NCCL binds its listening sockets to the interface it picked, but its
// outgoing connect() calls are not bound (NVIDIA/nccl#1581): the kernel's
// routing decides which NIC a connection really leaves through.

import type { Evidence } from '../result/types.js';
import { shJoin } from '../shell/quote.js';
import type { Captured, IpRouteJson } from '../snapshot/kernel-types.js';
import type { Family } from '../snapshot/types.js';

export const NO_KERNEL_PART =
  'this snapshot has no kernel part (it was taken by an ncclx without the kernel probe): re-take it with `ncclx snapshot` or run doctor on the node';

/** The command line as a user would type it. */
export function commandLine(c: { argv: string[] }): string {
  return shJoin(c.argv);
}

/** Why a command gave no data, in one phrase. */
export function captureFailure(c: Captured<unknown>): string {
  if (c.ok) return '';
  if (c.from === 'recorded') return `\`${commandLine(c)}\`: ${c.error}`;
  return c.missing ? `\`${c.argv[0]}\` is not installed (${c.error})` : `\`${commandLine(c)}\` failed: ${c.error}`;
}

export function commandEvidence(c: { argv: string[]; from?: string; record?: string }, value: string): Evidence {
  // Read from /proc because the tool is missing: the evidence is the file, not a command that never ran.
  if (c.from === 'proc') return { kind: 'file', source: `${c.record} (${c.argv[0]} is not installed)`, value };
  return { kind: 'command', source: commandLine(c), value };
}

export const isMainTable = (r: { table?: string }): boolean => r.table === undefined || r.table === 'main';

/** Every device a route sends through (a multipath route has several). */
export function routeDevs(r: IpRouteJson): string[] {
  const devs = [r.dev, ...(r.nexthops ?? []).map((n) => n.dev)].filter((d): d is string => typeof d === 'string');
  return [...new Set(devs)];
}

/** A route's address family, from any address it prints; null when it prints none (a device-only default). */
export function routeFamily(r: IpRouteJson): Family | null {
  const texts = [r.dst, r.gateway, r.prefsrc, ...(r.nexthops ?? []).map((n) => n.gateway)].filter((t): t is string => typeof t === 'string' && t !== 'default');
  if (texts.some((t) => t.includes(':'))) return 'AF_INET6';
  if (texts.some((t) => /^\d+\.\d+\.\d+\.\d+/.test(t))) return 'AF_INET';
  return null;
}

export function isDefaultRoute(r: IpRouteJson): boolean {
  return (r.dst === 'default' || r.dst === '0.0.0.0/0' || r.dst === '::/0') && (r.type === undefined || r.type === 'unicast');
}

/** Main-table default routes per device (each with its family, null = unknown). */
export function mainDefaults(routes: IpRouteJson[]): { dev: string; family: Family | null; route: IpRouteJson }[] {
  const out: { dev: string; family: Family | null; route: IpRouteJson }[] = [];
  for (const r of routes) {
    if (!isMainTable(r) || !isDefaultRoute(r)) continue;
    for (const dev of routeDevs(r)) out.push({ dev, family: routeFamily(r), route: r });
  }
  return out;
}

/** Links that carry a main-table default route, with the families of those routes (null: unknown family); null when routes were not read. */
export function defaultRouteLinks(routes: Captured<IpRouteJson[]> | undefined): Map<string, Set<Family | null>> | null {
  if (!routes?.ok) return null;
  const out = new Map<string, Set<Family | null>>();
  for (const d of mainDefaults(routes.data)) out.set(d.dev, (out.get(d.dev) ?? new Set()).add(d.family));
  return out;
}
