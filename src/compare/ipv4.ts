// IPv4 subnets as 32-bit numbers: compare groups thousands of addresses, so
// the arithmetic stays on integers and strings are made once per address.

import { parseIPv4 } from '../nccl/ip.js';

export function v4ToInt(address: string): number | null {
  const b = parseIPv4(address);
  return b ? ((b[0]! << 24) | (b[1]! << 16) | (b[2]! << 8) | b[3]!) >>> 0 : null;
}

export function intToV4(n: number): string {
  return `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
}

export function maskOf(prefixlen: number): number {
  return prefixlen <= 0 ? 0 : prefixlen >= 32 ? 0xffffffff : (0xffffffff << (32 - prefixlen)) >>> 0;
}

/** "10.0.3.0/24" for 10.0.3.12/24; null for an address that is not IPv4. */
export function subnetOf(address: string, prefixlen: number): string | null {
  const n = v4ToInt(address);
  return n === null ? null : `${intToV4((n & maskOf(prefixlen)) >>> 0)}/${prefixlen}`;
}

/** Whether `address` is inside `network/prefixlen`. */
export function inSubnet(address: string, network: string, prefixlen: number): boolean {
  const a = v4ToInt(address);
  const n = v4ToInt(network);
  if (a === null || n === null) return false;
  const m = maskOf(prefixlen);
  return ((a & m) >>> 0) === ((n & m) >>> 0);
}

/** A subnet text "a.b.c.d/len" → [network, len]. */
export function parseSubnet(text: string): [number, number] | null {
  const [a, l] = text.split('/');
  const n = v4ToInt(a ?? '');
  const len = Number(l);
  return n === null || !Number.isInteger(len) || len < 0 || len > 32 ? null : [n, len];
}
