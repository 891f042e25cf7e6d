// Reading one snapshot file for `ncclx compare`: thousands of them, each about
// a megabyte, so the common case must not pay for what compare never reads.
//
// A snapshot written by `ncclx snapshot` is JSON.stringify(…, null, 2). In that
// layout a raw newline never occurs inside a string (JSON escapes it), so
// "newline + indentation + bracket" is an unambiguous structural marker, and
// two parts can be recognised without parsing them:
//
// - unset GID entries: sysfs lists every entry of a port's GID table, so a
//   RoCE port has ~251 all-zero entries whose type and ndev reads failed with
//   EINVAL. Their text is fixed except for the index; they are matched byte
//   for byte and rebuilt after parsing — the result is identical to JSON.parse.
// - kernel.qdiscs (one fq_codel per TX queue of every NIC: a fifth of the
//   file): compare never reads it, so it is replaced by a "not read" record.
//
// Everything else goes through JSON.parse and the snapshot schema
// (validateSnapshot in src/model/snapshot/schema.ts). Anything unexpected — compact
// JSON, another indentation, an odd entry — falls back to the plain path, which
// also produces the error message for a bad file.

import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { SnapshotError, validateSnapshot } from '../model/snapshot/schema.js';
import type { Captured } from '../model/snapshot/kernel-types.js';
import type { GidEntry } from '../model/snapshot/rdma-types.js';
import type { NodeSnapshot } from '../model/snapshot/types.js';
import { append } from '../model/list.js';
import { SNAPSHOT_LIMITS } from '../model/snapshot/limits.js';

/** Default limit for one snapshot file: 16× the largest realistic snapshot (32 ports × 255 GIDs ≈ 1 MiB). */
export const DEFAULT_MAX_SNAPSHOT_BYTES = 16 * 1024 * 1024;

export type LoadResult = { ok: true; snapshot: NodeSnapshot; fast: boolean } | { ok: false; problem: string };

const ZERO_GID = '0000:0000:0000:0000:0000:0000:0000:0000';
// Needles without spaces: pretty JSON is mostly spaces, and Buffer.indexOf's
// Boyer-Moore-Horspool skips little when the pattern contains them.
const GIDS_KEY = Buffer.from('"gids":');
const COUNT_KEY = Buffer.from('"gidCount": ');
const KERNEL_KEY = Buffer.from('"kernel":');
const RULES_KEY = Buffer.from('"rules":');
const QDISCS_KEY = Buffer.from('"qdiscs":');
const NFT_KEY = Buffer.from('"nft":');
const PCI_KEY = Buffer.from('"pci":');
/** How far apart two GID tables (or the last one and kernel.qdiscs) may be and still be found by a bounded search. */
const GAP_WINDOW = 64 * 1024;
const QDISCS_WINDOW = 256 * 1024;
const NOT_READ = 'not read by ncclx compare';

/** A command compare does not read, on the fast path: true to the type, and it says why it is empty. */
function notRead(argv: string[], record: string): Captured<never> {
  return { argv, record, from: 'recorded', ok: false, error: NOT_READ, missing: false };
}

/**
 * The kernel members compare never reads, as they stand in for the real ones
 * (the ARP sysctls, the port range, qdiscs, nftables and iptables): fixed text,
 * so the big ones are neither parsed nor validated.
 */
const KERNEL_HEAD = `"conf": {}, "localPortRange": ${JSON.stringify({ error: NOT_READ })}, `;
const KERNEL_TAIL = [
  `"qdiscs": ${JSON.stringify(notRead(['tc', '-j', 'qdisc', 'show'], 'tc-qdisc.json'))}`,
  `"nft": ${JSON.stringify(notRead(['nft', '-j', 'list', 'ruleset'], 'nft-ruleset.json'))}`,
  `"iptablesMangle": ${JSON.stringify(notRead(['iptables-save', '-t', 'mangle'], 'iptables-save-mangle.txt'))}`,
  `"ip6tablesMangle": ${JSON.stringify(notRead(['ip6tables-save', '-t', 'mangle'], 'ip6tables-save-mangle.txt'))}`,
].join(', ');

interface Templates {
  /** `{` … `"index": ` of any entry at this indentation. */
  pre: Buffer;
  /** What follows the index digits in an unset entry, through its closing brace. */
  post: Buffer;
  endEntry: Buffer;
  sep: Buffer;
  close: Buffer;
  /** Whole runs of unset entries (from, to) → their text; realistic tables repeat a handful of layouts. */
  runs: Map<number, Buffer>;
}

const templates = new Map<number, Templates>();

function templatesFor(indent: number): Templates {
  let t = templates.get(indent);
  if (!t) {
    const i0 = ' '.repeat(indent);
    const i1 = ' '.repeat(indent + 2);
    const i2 = ' '.repeat(indent + 4);
    t = {
      pre: Buffer.from(`{\n${i1}"index": `),
      post: Buffer.from(`,\n${i1}"gid": "${ZERO_GID}",\n${i1}"type": {\n${i2}"error": "EINVAL"\n${i1}},\n${i1}"ndev": {\n${i2}"error": "EINVAL"\n${i1}}\n${i0}}`),
      endEntry: Buffer.from(`\n${i0}}`),
      sep: Buffer.from(`,\n${i0}`),
      close: Buffer.from(`\n${' '.repeat(Math.max(0, indent - 2))}]`),
      runs: new Map(),
    };
    templates.set(indent, t);
  }
  return t;
}

function runText(t: Templates, from: number, to: number): Buffer {
  const key = from * 1_000_000 + to;
  let r = t.runs.get(key);
  if (!r) {
    const parts: Buffer[] = [];
    for (let i = from; i < to; i++) {
      if (i > from) parts.push(t.sep);
      parts.push(t.pre, Buffer.from(String(i)), t.post);
    }
    r = Buffer.concat(parts);
    if (t.runs.size > 1000) t.runs.clear();
    t.runs.set(key, r);
  }
  return r;
}

const at = (buf: Buffer, needle: Buffer, p: number): boolean => p + needle.length <= buf.length && buf.compare(needle, 0, needle.length, p, p + needle.length) === 0;

/** Decimal digits at p (no leading zero unless the number is 0): [value, end] or null. */
function digitsAt(buf: Buffer, p: number): [number, number] | null {
  let v = 0;
  let q = p;
  while (q < buf.length && buf[q]! >= 0x30 && buf[q]! <= 0x39 && q - p < 9) v = v * 10 + buf[q++]! - 0x30;
  if (q === p || (q - p > 1 && buf[p] === 0x30)) return null;
  return [v, q];
}

/** Per GID array, in document order: the unset entries lifted out, as [position in the array, index] pairs. */
type Lifted = number[];

interface Reduced {
  text: string;
  arrays: Lifted[];
  /** How many of the unread tail parts were cut out. */
  tailLifted: number;
}

/** indexOf bounded to [from, to): a miss costs the window, not the rest of the file. */
function find(buf: Buffer, needle: Buffer, from: number, to: number): number {
  const end = Math.min(to, buf.length);
  if (from >= end) return -1;
  const i = buf.subarray(from, end).indexOf(needle);
  return i < 0 ? -1 : from + i;
}

/** The byte before p is preceded by a newline and exactly `indent` spaces (a key at that depth). */
function keyAtIndent(buf: Buffer, p: number, indent: number): boolean {
  if (p - indent - 1 < 0 || buf[p - indent - 1] !== 0x0a) return false;
  for (let i = p - indent; i < p; i++) if (buf[i] !== 0x20) return false;
  return buf[p - indent - 2] !== 0x20;
}

type Cut = [start: number, end: number, replacement: string];

/** Indent-4 keys (`\n    "`) between a and b: how many members a small region holds. */
function membersIn(buf: Buffer, a: number, b: number): number {
  let n = 0;
  for (let i = find(buf, Buffer.from('\n    "'), a, b); i >= 0; i = find(buf, Buffer.from('\n    "'), i + 1, b)) n++;
  return n;
}

/**
 * The parts after the GID tables that compare does not read, where probeNode
 * writes them: kernel.conf and kernel.localPortRange (before kernel.rules),
 * kernel.qdiscs … kernel.ip6tablesMangle (after kernel.routeTargets). pci
 * (the last member) is kept: compare reads its topology. A part not found
 * exactly there is left in (and parsed).
 */
function tailCuts(buf: Buffer, from: number): Cut[] {
  const cuts: Cut[] = [];
  const k = find(buf, KERNEL_KEY, from, from + QDISCS_WINDOW);
  if (k < 0 || !keyAtIndent(buf, k, 2) || !at(buf, Buffer.from(' {\n    "conf": {'), k + KERNEL_KEY.length)) return cuts;
  const conf = k + KERNEL_KEY.length + 3 + 4;
  const rules = find(buf, RULES_KEY, conf, conf + GAP_WINDOW);
  if (rules < 0 || !keyAtIndent(buf, rules, 4) || membersIn(buf, conf - 5, rules - 5) !== 2) return cuts;
  cuts.push([conf, rules, KERNEL_HEAD]);
  // The end of the kernel object: just before pci (the last member), or before the end of the file.
  const pci = buf.lastIndexOf(PCI_KEY);
  let kernelEnd: number;
  if (pci > rules && keyAtIndent(buf, pci, 2) && at(buf, Buffer.from('\n  },\n  '), pci - 8)) {
    // pci stays: compare reads its topology (GPU → NIC, CMP-070/071); it is small beside the GID tables.
    kernelEnd = pci - 8;
  } else {
    const close = buf.lastIndexOf(Buffer.from('\n  }\n}'));
    if (close < rules || buf.subarray(close + 6).toString('latin1').trim() !== '') return cuts;
    kernelEnd = close;
  }
  const q = find(buf, QDISCS_KEY, rules, rules + QDISCS_WINDOW);
  const n = buf.lastIndexOf(NFT_KEY, kernelEnd);
  // qdiscs' value closes right before nft, and nft, iptablesMangle, ip6tablesMangle are the last three members.
  if (q > 0 && keyAtIndent(buf, q, 4) && n > q && keyAtIndent(buf, n, 4) && at(buf, Buffer.from('\n    },\n    '), n - 12) && membersIn(buf, n - 5, kernelEnd) === 3) {
    cuts.push([q, kernelEnd, KERNEL_TAIL]);
  }
  return cuts;
}

/** The file's text without unset GID entries and kernel.qdiscs; null when the layout is not the one expected. */
export function reduce(buf: Buffer): Reduced | null {
  // Everything is cut out of the text, not copied: the kept bytes are decoded in a few long slices.
  const cuts: Cut[] = [];
  const arrays: Lifted[] = [];
  // The first table is after the network and environment parts; the rest follow within a device's metadata.
  let k = buf.indexOf(GIDS_KEY);
  let pos = 0;
  while (k >= 0) {
    if (!keyAtIndent(buf, k, countIndent(buf, k)) || buf[k + GIDS_KEY.length] !== 0x20 || buf[k + GIDS_KEY.length + 1] !== 0x5b) return null;
    let p = k + GIDS_KEY.length + 2;
    if (buf[p] === 0x5d) {
      // "gids": [] — nothing to lift.
      arrays.push([]);
      pos = p + 1;
      k = find(buf, GIDS_KEY, pos, pos + GAP_WINDOW);
      continue;
    }
    if (buf[p] !== 0x0a) return null;
    let q = p + 1;
    while (buf[q] === 0x20) q++;
    if (buf[q] !== 0x7b) return null;
    const t = templatesFor(q - p - 1);
    // gidCount is written just before gids: the table length, so a whole tail of unset entries can be matched at once.
    const c = buf.lastIndexOf(COUNT_KEY, k);
    const declared = c >= 0 && k - c < 64 ? digitsAt(buf, c + COUNT_KEY.length)?.[0] ?? -1 : -1;
    // A count past a port's gid_tbl_len is no table to rebuild (its text would take gigabytes): entries are then matched one by one, and the schema refuses the file by name.
    const count = declared <= SNAPSHOT_LIMITS.gidTable ? declared : -1;
    const lifted: Lifted = [];
    let order = 0;
    // The current stretch of consecutive unset entries: where it starts and ends, and whether it opens the array.
    let segStart = -1;
    let segEnd = -1;
    let segFirst = false;
    const closeSegment = (hasNext: boolean) => {
      if (segStart < 0) return;
      // Take a separator with the entries: the one before them, or (at the start of the array) the one after.
      if (!segFirst) cuts.push([segStart - t.sep.length, segEnd, '']);
      else cuts.push([segStart, hasNext ? segEnd + t.sep.length : segEnd, '']);
      segStart = -1;
    };
    p = q;
    for (;;) {
      const entryStart = p;
      let unset = false;
      if (at(buf, t.pre, p)) {
        const d = digitsAt(buf, p + t.pre.length);
        if (d && at(buf, t.post, d[1])) {
          unset = true;
          const [index, end] = d;
          const run = count > index + 1 ? runText(t, index, count) : null;
          if (run && at(buf, run, p)) {
            for (let i = index; i < count; i++) lifted.push(order++, i);
            p += run.length;
          } else {
            lifted.push(order++, index);
            p = end + t.post.length;
          }
          if (segStart < 0) {
            segStart = entryStart;
            segFirst = entryStart === q;
          }
          segEnd = p;
        }
      }
      if (!unset) {
        closeSegment(true);
        const e = find(buf, t.endEntry, p, p + GAP_WINDOW);
        if (e < 0) return null;
        order++;
        p = e + t.endEntry.length;
      }
      if (at(buf, t.sep, p) && buf[p + t.sep.length] === 0x7b) {
        p += t.sep.length;
        continue;
      }
      if (at(buf, t.close, p)) break;
      return null;
    }
    closeSegment(false);
    arrays.push(lifted);
    pos = p;
    // A table not found within the window stays in the text and is parsed as it is: correct, only slower.
    k = find(buf, GIDS_KEY, p, p + GAP_WINDOW);
  }
  const tail = tailCuts(buf, pos);
  append(cuts, tail);
  const pieces: string[] = [];
  let from = 0;
  for (const [start, end, replacement] of cuts) {
    pieces.push(buf.toString('utf8', from, start), replacement);
    from = end;
  }
  pieces.push(buf.toString('utf8', from));
  return { text: pieces.join(''), arrays, tailLifted: tail.length };
}

/** Spaces before position p on its line. */
function countIndent(buf: Buffer, p: number): number {
  let i = p;
  while (i > 0 && buf[i - 1] === 0x20) i--;
  return p - i;
}

const EINVAL = Object.freeze({ error: 'EINVAL' });

/** The full table: kept entries and the lifted unset ones, in their places; null when they do not line up. */
function materialise(kept: GidEntry[], lifted: number[]): GidEntry[] | null {
  const total = kept.length + lifted.length / 2;
  const full: GidEntry[] = new Array(total);
  let li = 0;
  let ki = 0;
  for (let pos = 0; pos < total; pos++) {
    if (li < lifted.length && lifted[li] === pos) {
      full[pos] = { index: lifted[li + 1]!, gid: ZERO_GID, type: EINVAL, ndev: EINVAL };
      li += 2;
    } else {
      const e = kept[ki++];
      if (!e) return null;
      full[pos] = e;
    }
  }
  return ki === kept.length ? full : null;
}

/** Put the lifted entries back; false when the arrays do not line up with the ports. */
function restore(snap: NodeSnapshot, arrays: Lifted[]): boolean {
  // The tables found are the first ones, in document order: the ports' order.
  const ports = (snap.rdma?.devices ?? []).flatMap((d) => d.ports);
  if (ports.length < arrays.length) return false;
  for (let j = 0; j < arrays.length; j++) {
    const lifted = arrays[j]!;
    if (lifted.length === 0) continue;
    const port = ports[j]!;
    const full = materialise(port.gids, lifted);
    if (!full) return false;
    port.gids = full;
  }
  return true;
}

function slowPath(buf: Buffer, file: string): LoadResult {
  const text = buf.toString('utf8');
  if (text.trim() === '') return { ok: false, problem: 'file is empty' };
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    return { ok: false, problem: `not JSON (${(e as Error).message})` };
  }
  try {
    return { ok: true, snapshot: validateSnapshot(data, file), fast: false };
  } catch (e) {
    if (e instanceof SnapshotError) return { ok: false, problem: e.problem };
    throw e;
  }
}

/** Parse and validate snapshot bytes (the fast path when the layout allows it). */
export function parseSnapshotBytes(buf: Buffer, file: string): LoadResult {
  const r = buf.length > 0 ? reduce(buf) : null;
  if (r) {
    try {
      const snap = validateSnapshot(JSON.parse(r.text), file);
      if (restore(snap, r.arrays)) return { ok: true, snapshot: snap, fast: true };
    } catch {
      // The plain path gives the canonical message (or succeeds where the reduction misjudged).
    }
  }
  return slowPath(buf, file);
}

/**
 * One read buffer per thread, grown as needed: a fresh megabyte per file costs
 * page faults (kernel time) and garbage; nothing keeps a reference to the
 * bytes once parseSnapshotBytes returns (it copies what it keeps into strings).
 */
let scratch = Buffer.allocUnsafe(0);

function readWhole(file: string, size: number): Buffer {
  if (scratch.length < size) scratch = Buffer.allocUnsafe(Math.max(size, Math.min(scratch.length * 2, 64 * 1024 * 1024)));
  const fd = openSync(file, 'r');
  try {
    let n = 0;
    for (;;) {
      if (n === scratch.length) {
        // The file grew since stat: keep reading (the size check below refuses it if too large).
        const bigger = Buffer.allocUnsafe(scratch.length * 2);
        scratch.copy(bigger, 0, 0, n);
        scratch = bigger;
      }
      const r = readSync(fd, scratch, n, scratch.length - n, null);
      if (r === 0) break;
      n += r;
    }
    return scratch.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}

/** Read one snapshot file; never throws for a bad file. */
export function loadSnapshotFile(file: string, maxBytes: number = DEFAULT_MAX_SNAPSHOT_BYTES): LoadResult {
  let size: number;
  try {
    const st = statSync(file);
    if (!st.isFile()) return { ok: false, problem: 'not a regular file' };
    size = st.size;
  } catch (e) {
    return { ok: false, problem: `cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` };
  }
  if (size > maxBytes) return { ok: false, problem: `file is ${size} bytes, larger than the ${maxBytes}-byte limit (--max-bytes)` };
  let buf: Buffer;
  try {
    buf = readWhole(file, size);
  } catch (e) {
    return { ok: false, problem: `cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` };
  }
  // The file may have grown between stat and read.
  if (buf.length > maxBytes) return { ok: false, problem: `file is ${buf.length} bytes, larger than the ${maxBytes}-byte limit (--max-bytes)` };
  return parseSnapshotBytes(buf, file);
}
