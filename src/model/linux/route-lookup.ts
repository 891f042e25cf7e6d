// The kernel's route for an address in the main table, when `ip route get`
// could not run (iproute2 missing) and the main table was read from /proc:
// a local address goes through lo (type local), else the longest matching
// prefix wins, then the lowest metric. Policy-routing rules and other tables
// are not in /proc, so the answer holds only where no rule sends the
// address elsewhere; callers say so.

import type { IpRouteJson } from '../snapshot/kernel-types.js';
import type { AddressInfo } from '../snapshot/types.js';
import { maskBytes, parseIPv4, parseIPv6, sameUnderMask } from './ip.js';
import { isMainTable, routeFamily } from './routes.js';

export interface MainTableRoute {
  type: 'local' | 'unicast';
  dev: string;
  gateway?: string;
}

function dstOf(r: IpRouteJson, v6: boolean): { addr: Uint8Array; len: number } | null {
  if (r.dst === 'default') return { addr: new Uint8Array(v6 ? 16 : 4), len: 0 };
  const [a, l] = (r.dst ?? '').split('/');
  const addr = v6 ? parseIPv6(a ?? '') : parseIPv4(a ?? '');
  if (!addr) return null;
  return { addr, len: l === undefined ? (v6 ? 128 : 32) : Number(l) };
}

export function mainTableLookup(routes: IpRouteJson[], addresses: AddressInfo[], target: string): MainTableRoute | null {
  const v6 = target.includes(':');
  const want = v6 ? parseIPv6(target) : parseIPv4(target);
  if (!want) return null;
  if (addresses.some((a) => a.address === target)) return { type: 'local', dev: 'lo' };
  let best: { r: IpRouteJson; len: number } | null = null;
  for (const r of routes) {
    if (!isMainTable(r) || (r.type !== undefined && r.type !== 'unicast') || !r.dev) continue;
    const fam = routeFamily(r);
    if (fam !== null && fam !== (v6 ? 'AF_INET6' : 'AF_INET')) continue;
    const d = dstOf(r, v6);
    if (!d || !sameUnderMask(d.addr, want, maskBytes(d.len, v6 ? 16 : 4))) continue;
    if (!best || d.len > best.len || (d.len === best.len && (r.metric ?? 0) < (best.r.metric ?? 0))) best = { r, len: d.len };
  }
  if (!best) return null;
  return { type: 'unicast', dev: best.r.dev!, ...(best.r.gateway ? { gateway: best.r.gateway } : {}) };
}
