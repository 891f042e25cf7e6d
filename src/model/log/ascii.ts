// The channel line read straight from the bytes of an ASCII chunk. Channel
// lines are three quarters of a job's log; turning each into a string, then a
// LogLine, then a Fact is most of `ncclx log`'s time. This reads the plainest
// shape only — `NCCL INFO Channel NN[/N] : R[x] -> P[y] [[send] |[receive] ]via T`
// with no colour codes, carriage returns, trailing blanks or repeat note — and
// gives up (false) on anything else, so the caller sends that line through
// parseLine: the result is the same either way (test/log/parts.test.ts). Pure
// but for bounded caches: what it reads goes to a shared result object, and
// repeated vias are found by their bytes, so a plain line costs no allocation.

import { channelVia, type Via } from './facts.js';

/** The bytes of a chunk: a Buffer, of which only indexing and latin1Slice are used. */
export interface AsciiBytes {
  readonly [index: number]: number;
  latin1Slice(start: number, end: number): string;
}

/** 'NCCL INFO Channel ' */
const HEAD = [78, 67, 67, 76, 32, 73, 78, 70, 79, 32, 67, 104, 97, 110, 110, 101, 108, 32];
const ESC = 27;
const CR = 13;

/** Where the text NCCL prints after `NCCL INFO ` starts, when the line at k is a channel line: else -1. */
export function channelHeadAt(b: AsciiBytes, k: number, e: number): number {
  if (e - k <= HEAD.length) return -1;
  for (let i = 0; i < HEAD.length; i++) if (b[k + i] !== HEAD[i]) return -1;
  // finish() trims trailing blanks and Ray's `[repeated Nx …]`: such lines take the long way.
  const last = b[e - 1]!;
  if (last <= 32 || last === 93 /* ] */) return -1;
  return k + 10;
}

/** The value of the digits numberAt() last read (a second result without allocating a pair per call on the hot path). */
let numberValue = 0;

/** Where the decimal digits from i end (i when there are none); their value goes to numberValue, computed as facts.ts digitsAt does. */
function numberAt(b: AsciiBytes, i: number, e: number): number {
  let v = 0;
  let j = i;
  for (; j < e; j++) {
    const c = b[j]! - 48;
    if (c < 0 || c > 9) break;
    v = v * 10 + c;
  }
  numberValue = v;
  return j;
}

/** First `] -> ` (arrow) or `] ` at or after i and before e, or -1; -1 too when a CR or ESC comes first (clean() would change the text). */
function closeAt(b: AsciiBytes, i: number, e: number, arrow: boolean): number {
  const need = arrow ? 5 : 2;
  for (let j = i; j + need <= e; j++) {
    const c = b[j]!;
    if (c === ESC || c === CR) return -1;
    if (c === 93 && b[j + 1] === 32 && (!arrow || (b[j + 2] === 45 && b[j + 3] === 62 && b[j + 4] === 32))) return j;
  }
  return -1;
}

/** What channelAt() last read: a shared result, so the hot path allocates nothing per line. */
export const channelRead: { rank: number; via: Via } = { rank: 0, via: { transport: '', netDev: null, gdr: false } };

/** Whether bytes [i, i + c.length) of b are c. */
export function sameBytes(b: AsciiBytes, i: number, c: Uint8Array): boolean {
  // From the end: texts that differ (headers, vias) mostly differ in their last bytes.
  for (let j = c.length - 1; j >= 0; j--) if (b[i + j] !== c[j]) return false;
  return true;
}

/** A copy of bytes [i, e) of b (the chunk's memory is reused by the reader). */
export function copyBytes(b: AsciiBytes, i: number, e: number): Uint8Array {
  const c = new Uint8Array(e - i);
  for (let j = 0; j < c.length; j++) c[j] = b[i + j]!;
  return c;
}

/**
 * The via texts met, by a hash of their bytes: a job prints a few vias millions
 * of times, and comparing bytes costs less than making the string to look it up.
 * One entry a slot (a collision replaces it), so it holds VIA_SLOTS at most.
 */
const VIA_SLOTS = 1024;
/** Longer vias are read as text each time (a crafted line must not make the table large). */
const VIA_KEEP = 128;
const viaSlots: ({ bytes: Uint8Array; via: Via } | undefined)[] = new Array(VIA_SLOTS).fill(undefined);

/**
 * The channel message at [m, e) (m from channelHeadAt), read as facts.ts
 * channelFast reads the same text, into channelRead: the rank the line is
 * about (the second one printed on a [receive] line, as channelFact takes it)
 * and its via. false when it strays from that shape or holds a byte clean()
 * would remove.
 */
export function channelAt(b: AsciiBytes, m: number, e: number): boolean {
  let i = m + 8; // after 'Channel '
  let j = i;
  while (j < e && b[j]! >= 48 && b[j]! <= 57) j++;
  if (j === i) return false;
  i = j;
  if (b[i] === 47 /* / */) {
    j = i + 1;
    while (j < e && b[j]! >= 48 && b[j]! <= 57) j++;
    if (j === i + 1) return false;
    i = j;
  }
  if (b[i] !== 32 || b[i + 1] !== 58 || b[i + 2] !== 32) return false; // ' : '
  j = numberAt(b, i + 3, e);
  const from = numberValue;
  if (j === i + 3 || b[j] !== 91 /* [ */) return false;
  i = closeAt(b, j, e, true);
  if (i < 0) return false;
  j = numberAt(b, i + 5, e);
  const to = numberValue;
  if (j === i + 5 || b[j] !== 91) return false;
  i = closeAt(b, j, e, false);
  if (i < 0) return false;
  i += 2;
  let receive = false;
  // '[send] ' / '[receive] '
  if (b[i] === 91 && b[i + 1] === 115 && b[i + 2] === 101 && b[i + 3] === 110 && b[i + 4] === 100 && b[i + 5] === 93 && b[i + 6] === 32) {
    i += 7;
  } else if (b[i] === 91 && b[i + 1] === 114 && b[i + 2] === 101 && b[i + 3] === 99 && b[i + 4] === 101 && b[i + 5] === 105 && b[i + 6] === 118 && b[i + 7] === 101 && b[i + 8] === 93 && b[i + 9] === 32) {
    receive = true;
    i += 10;
  }
  if (b[i] !== 118 || b[i + 1] !== 105 || b[i + 2] !== 97 || b[i + 3] !== 32 || i + 4 >= e) return false; // 'via '
  const v = i + 4;
  let h = 0;
  for (j = v; j < e; j++) {
    const c = b[j]!;
    if (c === ESC || c === CR) return false;
    h = (Math.imul(h, 31) + c) | 0;
  }
  // A [receive] line names the peer first and this rank second (channelFact).
  channelRead.rank = receive ? to : from;
  const n = e - v;
  if (n > VIA_KEEP) {
    channelRead.via = channelVia(b.latin1Slice(v, e));
    return true;
  }
  const slot = h & (VIA_SLOTS - 1);
  const hit = viaSlots[slot];
  if (hit && hit.bytes.length === n && sameBytes(b, v, hit.bytes)) channelRead.via = hit.via;
  else {
    const via = channelVia(b.latin1Slice(v, e));
    viaSlots[slot] = { bytes: copyBytes(b, v, e), via };
    channelRead.via = via;
  }
  return true;
}
