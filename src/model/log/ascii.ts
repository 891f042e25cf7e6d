// The channel line read straight from the bytes of an ASCII chunk. Channel
// lines are three quarters of a job's log; turning each into a string, then a
// LogLine, then a Fact is most of `ncclx log`'s time. This reads the plainest
// shape only — `NCCL INFO Channel NN[/N] : R[x] -> P[y] [[send] |[receive] ]via T`
// with no colour codes, carriage returns, trailing blanks or repeat note — and
// gives up (false) on anything else, so the caller sends that line through
// parseLine: the result is the same either way (test/log/parts.test.ts). The
// rank and QP lines every communicator prints (rankAt, gidAt) are read the same
// way. Pure but for bounded caches: what it reads goes to shared result
// objects, and repeated vias are found by their bytes, so a plain line costs no
// allocation.

import { channelVia, isWordChar, type Via } from './facts.js';

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
  channelRead.via = viaAt(b, v, e, h);
  return true;
}

/** The via of bytes [v, e), whose hash (31 × h + byte, in 32 bits) is h: as channelVia reads its text. */
export function viaAt(b: AsciiBytes, v: number, e: number, h: number): Via {
  const n = e - v;
  if (n > VIA_KEEP) return channelVia(b.latin1Slice(v, e));
  const slot = h & (VIA_SLOTS - 1);
  const hit = viaSlots[slot];
  if (hit && hit.bytes.length === n && sameBytes(b, v, hit.bytes)) return hit.via;
  const via = channelVia(b.latin1Slice(v, e));
  viaSlots[slot] = { bytes: copyBytes(b, v, e), via };
  return via;
}

/** The char codes of s. */
const codes = (s: string): number[] => [...s].map((c) => c.charCodeAt(0));
const COMM = codes('comm ');
const INIT_COMM = codes('ncclCommInitRank comm ');
const NIL = codes('(nil)');
const RANK = codes(' rank ');
const CUDA_DEV = codes(' cudaDev ');
const NVML_DEV = codes(' nvmlDev ');
const BUS_ID = codes(' busId ');
const COMM_ID = codes(' commId 0x');
const INIT = codes('Init ');
const START = codes('START');
const COMPLETE = codes('COMPLETE');
const NET_IB_DEV = codes('NET/IB: NCCL Dev ');
const IB_DEV = codes(' IbDev ');
const PORT = codes(' Port ');
const GID = codes('GID ');

/** Whether bytes [i, i + lit.length) of b, before e, are lit. */
function litAt(b: AsciiBytes, i: number, e: number, lit: number[]): boolean {
  if (i + lit.length > e) return false;
  for (let j = 0; j < lit.length; j++) if (b[i + j] !== lit[j]) return false;
  return true;
}

const isHex = (c: number | undefined): boolean => c !== undefined && ((c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102));

function hexEnd(b: AsciiBytes, i: number, e: number): number {
  while (i < e && isHex(b[i])) i++;
  return i;
}

/** Digits longer than this are left to Number() on the text path (numberAt's sum is exact below 2^53). */
const DIGITS_MAX = 15;

/**
 * What rankAt() last read: the rank fact of facts.ts's RANK regex, with comm
 * and busId as byte ranges (cut at 32, as factOf cuts them; busStart -1 when
 * absent), so a line that repeats them makes no string.
 */
export const rankRead = { commStart: 0, commEnd: 0, rank: 0, nranks: 0, cudaDev: null as number | null, busStart: -1, busEnd: -1, stage: null as 'start' | 'complete' | null };

/**
 * The rank line NCCL prints most (`comm 0x… rank R nRanks N …` and
 * `ncclCommInitRank comm 0x… rank R nranks N … - Init COMPLETE`), message at
 * [i, e), read into rankRead as factOf reads it with its RANK regex: the
 * message starts with one of those two texts (so no match of the regex starts
 * earlier), the mandatory part follows, then each optional group is taken
 * when it matches where the previous one ended, as the regex's greedy groups
 * are (nothing after them can fail), and the stage is the first `- [Init
 * ]START|COMPLETE` after them. false (nothing read) for any other message, a
 * number too long to sum exactly, or a byte clean() would remove.
 */
export function rankAt(b: AsciiBytes, i: number, e: number): boolean {
  let p: number;
  if (litAt(b, i, e, COMM)) p = i + 5;
  else if (litAt(b, i, e, INIT_COMM)) p = i + 22;
  else return false;
  const r = rankRead;
  r.commStart = p;
  let j: number;
  if (b[p] === 48 && b[p + 1] === 120 /* 0x */) {
    j = hexEnd(b, p + 2, e);
    if (j === p + 2) return false;
  } else if (litAt(b, p, e, NIL)) j = p + 5;
  else return false;
  r.commEnd = Math.min(j, p + 32);
  if (!litAt(b, j, e, RANK)) return false;
  p = numberAt(b, j + 6, e);
  if (p === j + 6 || p - (j + 6) > DIGITS_MAX) return false;
  r.rank = numberValue;
  // ' n[Rr]anks '
  if (p + 8 > e || b[p] !== 32 || b[p + 1] !== 110 || (b[p + 2] !== 82 && b[p + 2] !== 114) || b[p + 3] !== 97 || b[p + 4] !== 110 || b[p + 5] !== 107 || b[p + 6] !== 115 || b[p + 7] !== 32) return false;
  j = numberAt(b, p + 8, e);
  if (j === p + 8 || j - (p + 8) > DIGITS_MAX) return false;
  r.nranks = numberValue;
  r.cudaDev = null;
  if (litAt(b, j, e, CUDA_DEV)) {
    const neg = b[j + 9] === 45; /* - */
    const q = j + 9 + (neg ? 1 : 0);
    p = numberAt(b, q, e);
    if (p > q) {
      if (p - q > DIGITS_MAX) return false;
      r.cudaDev = neg ? -numberValue : numberValue;
      j = p;
    }
  }
  if (litAt(b, j, e, NVML_DEV)) {
    const q = j + 9 + (b[j + 9] === 45 ? 1 : 0);
    p = numberAt(b, q, e);
    if (p > q) j = p;
  }
  r.busStart = -1;
  if (litAt(b, j, e, BUS_ID)) {
    p = hexEnd(b, j + 7, e);
    if (p > j + 7) {
      r.busStart = j + 7;
      r.busEnd = Math.min(p, j + 7 + 32);
      j = p;
    }
  }
  if (litAt(b, j, e, COMM_ID)) {
    p = hexEnd(b, j + 10, e);
    if (p > j + 10) j = p;
  }
  r.stage = null;
  // One pass over the rest: the first stage, and no byte clean() would remove (before or after it).
  for (let q = j; q < e; q++) {
    const c = b[q];
    if (c === ESC || c === CR) return false;
    if (c !== 45 || b[q + 1] !== 32 || r.stage !== null) continue; // '- '
    // `(?:Init )?` taken when there; not taking it cannot help (START and COMPLETE do not start with I).
    const s = litAt(b, q + 2, e, INIT) ? q + 7 : q + 2;
    if (litAt(b, s, e, START)) r.stage = 'start';
    else if (litAt(b, s, e, COMPLETE)) r.stage = 'complete';
  }
  return true;
}

/** What gidAt() last read: the gid fact of facts.ts's GID regex. */
export const gidRead = { ibDev: 0, port: 0, gidIndex: 0 };

/**
 * The IB transport's QP line (`NET/IB: NCCL Dev d IbDev i Port p … GID g …`),
 * message at [i, e), read into gidRead as factOf reads it: the message starts
 * so (not a `No device found` or `Using` line), its IbDev is the regex's first
 * possible match, and the GID is the first `GID <digits>` after `Port p ` with
 * no word byte before it, as the lazy `.*?\bGID` finds it. false for anything
 * else, then the text path decides.
 */
export function gidAt(b: AsciiBytes, i: number, e: number): boolean {
  if (!litAt(b, i, e, NET_IB_DEV)) return false;
  let j = numberAt(b, i + 17, e);
  if (j === i + 17 || !litAt(b, j, e, IB_DEV)) return false;
  let p = numberAt(b, j + 7, e);
  if (p === j + 7 || p - (j + 7) > DIGITS_MAX) return false;
  gidRead.ibDev = numberValue;
  if (!litAt(b, p, e, PORT)) return false;
  j = numberAt(b, p + 6, e);
  if (j === p + 6 || j - (p + 6) > DIGITS_MAX || j >= e || b[j] !== 32) return false;
  gidRead.port = numberValue;
  // One pass over the rest: the first GID, and no byte clean() would remove (before or after it).
  let found = false;
  for (let q = j + 1; q < e; q++) {
    const c = b[q];
    if (c === ESC || c === CR) return false;
    if (c !== 71 /* G */ || found || !litAt(b, q, e, GID) || isWordChar(b[q - 1])) continue;
    p = numberAt(b, q + 4, e);
    if (p === q + 4) continue;
    if (p - (q + 4) > DIGITS_MAX) return false;
    gidRead.gidIndex = numberValue;
    found = true;
  }
  return found;
}
