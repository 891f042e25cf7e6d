// Address arithmetic on byte arrays, as inet_pton and NCCL's masks see it.

export function parseIPv4(text: string): Uint8Array | null {
  // inet_pton(AF_INET): exactly four decimal parts, no leading-zero shorthand forms.
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (!m) return null;
  const b = m.slice(1).map(Number);
  if (b.some((x) => x > 255)) return null;
  return Uint8Array.from(b);
}

/**
 * glibc's inet_aton (as getaddrinfo uses it for numeric hosts): one to four
 * parts, each decimal, octal (leading 0) or hex (0x); the last part fills the
 * remaining bytes, so "10.1" is 10.0.0.1 and "010.011.002.001" is 8.9.2.1.
 * Returns null when the text is not a numeric IPv4 host (e.g. "10.11.2.08").
 */
export function inetAton(text: string): Uint8Array | null {
  const parts = text.split('.');
  if (parts.length < 1 || parts.length > 4) return null;
  const vals: number[] = [];
  for (const p of parts) {
    let m: RegExpExecArray | null;
    let v: number;
    if ((m = /^0[xX]([0-9a-fA-F]*)$/.exec(p))) v = m[1] === '' ? 0 : parseInt(m[1]!, 16);
    else if (/^0[0-7]*$/.test(p)) v = parseInt(p, 8);
    else if (/^[1-9][0-9]*$/.test(p)) v = parseInt(p, 10);
    else return null;
    if (!Number.isFinite(v) || v > 0xffffffff) return null;
    vals.push(v);
  }
  const last = vals.pop()!;
  if (vals.some((v) => v > 0xff)) return null;
  const lastBytes = 4 - vals.length;
  if (last >= 2 ** (8 * lastBytes)) return null;
  const out = new Uint8Array(4);
  vals.forEach((v, i) => (out[i] = v));
  for (let i = 0; i < lastBytes; i++) out[3 - i] = Math.floor(last / 2 ** (8 * i)) & 0xff;
  return out;
}

/** Plain dotted decimal without leading zeros: the text means the same to every parser. */
export function isCanonicalIPv4(text: string): boolean {
  return /^(0|[1-9]\d{0,2})(\.(0|[1-9]\d{0,2})){3}$/.test(text) && parseIPv4(text) !== null;
}

export function parseIPv6(text: string): Uint8Array | null {
  let s = text;
  if (s.length === 0 || /[^0-9a-fA-F:.]/.test(s)) return null;
  // Trailing dotted quad (::ffff:1.2.3.4).
  let tail: number[] = [];
  const lastColon = s.lastIndexOf(':');
  if (s.includes('.')) {
    const v4 = parseIPv4(s.slice(lastColon + 1));
    if (!v4) return null;
    tail = Array.from(v4);
    s = s.slice(0, lastColon + 1) + '0:0';
  }
  const dbl = s.split('::');
  if (dbl.length > 2) return null;
  const part = (p: string) => (p === '' ? [] : p.split(':'));
  const head = part(dbl[0]!);
  const rest = dbl.length === 2 ? part(dbl[1]!) : [];
  const groups = head.length + rest.length;
  if (dbl.length === 1 && groups !== 8) return null;
  if (dbl.length === 2 && groups > 7) return null;
  const words = [...head, ...Array(8 - groups).fill('0'), ...rest];
  const out = new Uint8Array(16);
  for (let i = 0; i < 8; i++) {
    const w = words[i]!;
    if (!/^[0-9a-fA-F]{1,4}$/.test(w)) return null;
    const v = parseInt(w, 16);
    out[i * 2] = v >> 8;
    out[i * 2 + 1] = v & 0xff;
  }
  if (tail.length === 4) out.set(tail, 12);
  return out;
}

export function maskBytes(prefixlen: number, length: 4 | 16): Uint8Array {
  const m = new Uint8Array(length);
  for (let i = 0; i < length; i++) {
    const bits = Math.max(0, Math.min(8, prefixlen - i * 8));
    m[i] = bits === 0 ? 0 : (0xff << (8 - bits)) & 0xff;
  }
  return m;
}

export function sameUnderMask(a: Uint8Array, b: Uint8Array, mask: Uint8Array): boolean {
  for (let i = 0; i < mask.length; i++) {
    if (((a[i] ?? 0) & mask[i]!) !== ((b[i] ?? 0) & mask[i]!)) return false;
  }
  return true;
}

export function networkOf(addr: Uint8Array, prefixlen: number): Uint8Array {
  const mask = maskBytes(prefixlen, addr.length as 4 | 16);
  return addr.map((x, i) => x & mask[i]!);
}

export function formatIPv4(b: Uint8Array): string {
  return Array.from(b).join('.');
}

/** RFC 5952 text (what getnameinfo prints). */
export function formatIPv6(b: Uint8Array): string {
  const words: number[] = [];
  for (let i = 0; i < 16; i += 2) words.push((b[i]! << 8) | b[i + 1]!);
  // IPv4-mapped addresses print as ::ffff:a.b.c.d.
  if (words.slice(0, 5).every((w) => w === 0) && words[5] === 0xffff) {
    return `::ffff:${b[12]}.${b[13]}.${b[14]}.${b[15]}`;
  }
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (words[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && words[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = words.map((w) => w.toString(16));
  if (bestStart < 0) return hex.join(':');
  const left = hex.slice(0, bestStart).join(':');
  const right = hex.slice(bestStart + bestLen).join(':');
  return `${left}::${right}`;
}

export function isIPv6Loopback(b: Uint8Array): boolean {
  return b.every((x, i) => (i === 15 ? x === 1 : x === 0));
}

/** IN6_IS_ADDR_LINKLOCAL: fe80::/10. */
export function isIPv6LinkLocal(b: Uint8Array): boolean {
  return b[0] === 0xfe && (b[1]! & 0xc0) === 0x80;
}

export function looksLikeIPv4(text: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(text);
}

export function looksLikeIPAddress(text: string): boolean {
  return parseIPv4(text) !== null || (text.includes(':') && parseIPv6(text) !== null);
}

// ---------------------------------------------------------------------------
// IPv4 prefixes (routes, rules, subnets)

/** An IPv4 prefix, from "a.b.c.d/len", "a.b.c.d" (a host) or "default". */
export interface V4Prefix {
  bytes: Uint8Array;
  len: number;
}

export function parseV4Prefix(text: string | undefined): V4Prefix | null {
  if (text === undefined) return null;
  if (text === 'default' || text === '0.0.0.0/0') return { bytes: new Uint8Array(4), len: 0 };
  const [addr, len] = text.split('/');
  const bytes = parseIPv4(addr ?? '');
  if (!bytes) return null;
  const n = len === undefined ? 32 : Number(len);
  return Number.isInteger(n) && n >= 0 && n <= 32 ? { bytes, len: n } : null;
}

/** Whether prefix `outer` contains prefix `inner` (every address of inner is in outer). */
export function prefixContains(outer: V4Prefix, inner: V4Prefix): boolean {
  return outer.len <= inner.len && sameUnderMask(outer.bytes, inner.bytes, maskBytes(outer.len, 4));
}

/** "10.0.3.0/24": the network of the prefix and its length. */
export function prefixText(p: V4Prefix): string {
  return `${formatIPv4(networkOf(p.bytes, p.len))}/${p.len}`;
}

// ---------------------------------------------------------------------------
// IPv4 as 32-bit integers: compare groups thousands of addresses, so its
// arithmetic stays on integers and strings are made once per address.

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
  return n === null || !(prefixlen >= 0 && prefixlen <= 32) ? null : `${intToV4((n & maskOf(prefixlen)) >>> 0)}/${prefixlen}`;
}

/** A subnet text "a.b.c.d/len" → [network, len]. */
export function parseSubnet(text: string): [number, number] | null {
  const [a, l] = text.split('/');
  const n = v4ToInt(a ?? '');
  const len = Number(l);
  return n === null || !Number.isInteger(len) || len < 0 || len > 32 ? null : [n, len];
}
