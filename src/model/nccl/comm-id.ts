// NCCL_COMM_ID parsing as ncclSocketGetAddrFromString does it
// (docs/nccl/socket.md §5). Pure: host names are looked up in resolutions the
// probe made at capture time.

import type { Family, HostResolution } from '../snapshot/types.js';
import { atoi } from './cint.js';
import { parseEntries } from './ifname-list.js';
import { formatIPv4, formatIPv6, inetAton, parseIPv4, parseIPv6 } from '../linux/ip.js';
import type { Profile } from './versions.js';
import { append } from '../list.js';

export interface SocketTarget {
  family: Family;
  /** Numeric address text. */
  address: string;
  bytes: Uint8Array;
  /** sin6_scope_id (0 for IPv4 and global IPv6). */
  scopeId: number;
  /** Port in host order after htons truncation; 65535 when none was given. */
  port: number;
  /** The host text NCCL looked up (IPv4 literal, host name, or the bracketed IPv6). */
  host: string;
}

export type CommIdParse =
  /** `assumed`: the host's address was assumed, not looked up (a localhost name: assumedLocalhost), and how. */
  | { ok: true; target: SocketTarget; notes: string[]; assumed?: string }
  | {
      ok: false;
      /** The WARN NCCL prints, or null when NCCL prints nothing (it goes on with garbage). */
      log: string | null;
      reason: string;
      /** ncclx cannot tell what NCCL does (unresolved host, invalid literal). */
      indeterminate: boolean;
    };

export interface CommIdContext {
  profile: Profile;
  /** if_nametoindex(): null when no such link. */
  ifindexOf(name: string): number | null;
  /** Resolutions captured on the node; undefined = never looked up. */
  resolve(host: string): HostResolution | undefined;
}

/** strlen() counts bytes, not characters. */
export const cLength = (s: string): number => Buffer.byteLength(s, 'utf8');

export function parseCommId(value: string, ctx: CommIdContext): CommIdParse {
  if (cLength(value) <= 1) {
    return { ok: false, log: 'Net : string is null', reason: `NCCL_COMM_ID='${value}' is empty or one character long`, indeterminate: false };
  }
  return value.startsWith('[') ? parseBracketed(value, ctx) : parseHostPort(value, ctx);
}

function parseBracketed(value: string, ctx: CommIdContext): CommIdParse {
  let i = 1;
  let pct = -1;
  for (; i < value.length; i++) {
    if (value[i] === '%') pct = i;
    if (value[i] === ']') break;
  }
  if (i === value.length) {
    return { ok: false, log: 'Net : No valid [IPv6]:port pair found', reason: `'${value}' opens '[' without a closing ']'`, indeterminate: false };
  }
  const notes: string[] = [];
  const scoped = pct !== -1;
  const ipText = value.slice(1, scoped ? pct : i);
  const portText = value.slice(i + 2);
  if (i + 1 < value.length && value[i + 1] !== ':') {
    notes.push(`the character after ']' is '${value[i + 1]}', not ':'; NCCL skips it without looking`);
  }
  const rawPort = atoi(portText);
  const port = rawPort & 0xffff;
  if (portText === '') notes.push('no port after the address: NCCL reads port 0');
  else append(notes, portNotes(rawPort, port));
  let scopeId = 0;
  if (scoped) {
    const ifname = value.slice(pct + 1, i);
    const idx = ctx.ifindexOf(ifname);
    if (idx === null) notes.push(`scope interface '${ifname}' does not exist: if_nametoindex() gives 0, so only global addresses can match`);
    scopeId = idx ?? 0;
  }
  const bytes = parseIPv6(ipText);
  if (!bytes) {
    // inet_pton's result is ignored: the address is whatever the stack held.
    return {
      ok: false,
      log: null,
      reason: `'${ipText}' is not an IPv6 address; NCCL does not check and uses an uninitialised address`,
      indeterminate: true,
    };
  }
  return {
    ok: true,
    target: { family: 'AF_INET6', address: formatIPv6(bytes), bytes, scopeId, port, host: ipText },
    notes,
  };
}

/**
 * The port is read with atoi() and stored with htons(), which keeps the low
 * 16 bits: 999999 becomes 16959 without a message. Port 0 lets the root listen
 * on a port the kernel picks, which the other ranks cannot know.
 */
function portNotes(raw: number, port: number): string[] {
  if (raw >= 1 && raw <= 65535) return [];
  const used = `NCCL keeps the low 16 bits (htons) and uses port ${port}`;
  if (port === 0) return [`port ${raw} is outside 1–65535: ${used}, so the root listens on a port the kernel picks and the other ranks, connecting to port 0, fail`];
  return [`port ${raw} is outside 1–65535: ${used}`];
}

function parseHostPort(value: string, ctx: CommIdContext): CommIdParse {
  const notes: string[] = [];
  const entries = parseEntries(value, { parser: ctx.profile.listParser, maxEntries: 1 }).entries;
  const entry = entries[0];
  if (!entry) {
    return {
      ok: false,
      log: 'Net : No valid <IPv4_or_hostname>:<port> pair found',
      reason: `'${value}' has no host before ':'`,
      indeterminate: false,
    };
  }
  const host = entry.prefix;
  if (value.includes(',')) notes.push(`NCCL stops reading the host at ','; it uses '${host}'`);
  const port = entry.port === -1 ? 65535 : entry.port & 0xffff;
  if (entry.port === -1) notes.push('no port given: NCCL uses port 65535');
  else append(notes, portNotes(entry.port, port));
  if (/^[0-9a-fA-F]{0,4}$/.test(host) && value.split(':').length > 2) {
    notes.push(`'${value}' looks like a bare IPv6 address; NCCL cuts it at the first ':' and looks up '${host}'. Write [addr]:port`);
  }
  // getaddrinfo reads numeric hosts with inet_aton: octal and hex parts, short forms.
  const v4 = inetAton(host);
  if (v4) {
    const address = formatIPv4(v4);
    if (address !== host) notes.push(`getaddrinfo reads '${host}' as ${address} (inet_aton: a leading 0 is octal, 0x is hex, short forms fill the last part)`);
    return { ok: true, target: { family: 'AF_INET', address, bytes: v4, scopeId: 0, port, host }, notes };
  }
  const res = ctx.resolve(host);
  if (!res) {
    return { ok: false, log: null, reason: `host '${host}' was not resolved when the node was read; cannot tell which address NCCL gets`, indeterminate: true };
  }
  if (res.error || res.addresses.length === 0) {
    const err = res.error ?? 'no addresses';
    return {
      ok: false,
      log: `Net : error encountered when getting address info : ${err}`,
      reason: `host '${host}' does not resolve (${err})`,
      indeterminate: false,
    };
  }
  const first = res.addresses[0]!;
  const bytes = first.family === 'AF_INET' ? parseIPv4(first.address) : parseIPv6(first.address.split('%')[0]!);
  if (!bytes) {
    return { ok: false, log: null, reason: `resolver answer '${first.address}' for '${host}' is not an address`, indeterminate: true };
  }
  if (res.addresses.length > 1 && !res.assumed) notes.push(`'${host}' resolves to ${res.addresses.map((a) => a.address).join(', ')}; NCCL uses the first, ${first.address}`);
  const address = first.family === 'AF_INET' ? first.address : formatIPv6(bytes);
  return { ok: true, target: { family: first.family, address, bytes, scopeId: 0, port, host }, notes, ...(res.assumed ? { assumed: res.assumed } : {}) };
}

/** RFC 6761: `localhost`, `localhost.` and names under `.localhost` always name this node's loopback. */
export function isLocalhostName(host: string): boolean {
  return /^(.+\.)?localhost\.?$/i.test(host);
}

/**
 * The answer getaddrinfo gives for a localhost name that was not looked up
 * when the node was read: with the standard /etc/hosts (`127.0.0.1 localhost`,
 * `::1 localhost`) glibc puts ::1 first while lo holds ::1, else 127.0.0.1.
 */
export function assumedLocalhost(host: string, loHasV6: boolean): HostResolution {
  const addresses: HostResolution['addresses'] = loHasV6 ? [{ address: '::1', family: 'AF_INET6' }, { address: '127.0.0.1', family: 'AF_INET' }] : [{ address: '127.0.0.1', family: 'AF_INET' }];
  return { addresses, error: null, assumed: `'${host}' was not looked up when the node was read: modelled as the standard /etc/hosts answers it (${addresses.map((a) => a.address).join(', then ')}; NCCL takes the first) — this node's loopback either way` };
}
