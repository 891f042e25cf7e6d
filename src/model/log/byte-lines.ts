// The lines of `ncclx log` read from the bytes of an ASCII chunk, and the
// records of the reader's WebAssembly scanner (wasm/log-scan.c) — one of
// LogCollector's parts, analyze.ts. Channel lines, and the rank and QP lines of
// each communicator, are read from the bytes in their plain shape (ascii.ts);
// other INFO lines skip the cleaning; every other line goes to the text path,
// so the result is the text path's either way (test/log/parts.test.ts and
// scan.test.ts hold them equal).

import { channelAt, channelHeadAt, channelRead, copyBytes, gidAt, gidRead, rankAt, rankRead, sameBytes, viaAt, type AsciiBytes } from './ascii.js';
import { LAST_ERROR, parsePrefix, type Prefix } from './line.js';
import { MAX_MAP, type HostTable, type Proc } from './host-table.js';
import type { LineCounts, TextLines } from './text-lines.js';

/** A header of the byte path and what it parses to (ByteLines.asciiHead). */
interface AsciiHead {
  bytes: Uint8Array;
  prefix: Prefix;
  /** Its process, once a channel line asked (kept: procs never drops one). */
  proc: Proc | null;
  /** learnLauncher has run for it: once it has, running it again changes nothing (the maps only grow). */
  learned: boolean;
  /**
   * The last two headers found in the table right after this one, tried before hashing. They point
   * only to entries of the table as it was then, so after a clear the old entries go once no line
   * uses them: at most two tables' worth is alive.
   */
  next: AsciiHead | null;
  next2: AsciiHead | null;
}
const HEAD_MAX = 8192;
/** Longer headers are parsed from their text each time: the table holds at most HEAD_MAX × HEAD_KEEP bytes. */
const HEAD_KEEP = 512;
const EMPTY = new Uint8Array(0);

/** Whether the line [a, e) ends with `Last error:` (then blanks). */
function endsWithLastError(b: AsciiBytes, a: number, e: number): boolean {
  while (e > a && (b[e - 1] === 32 || b[e - 1] === 9)) e--;
  if (e - a < LAST_ERROR.length) return false;
  for (let j = 0; j < LAST_ERROR.length; j++) if (b[e - LAST_ERROR.length + j] !== LAST_ERROR.charCodeAt(j)) return false;
  return true;
}

/** Whether bytes [i, e) of b spell s. */
function sameText(b: AsciiBytes, i: number, e: number, s: string | null): boolean {
  if (s === null || s.length !== e - i) return false;
  for (let j = 0; j < s.length; j++) if (b[i + j] !== s.charCodeAt(j)) return false;
  return true;
}

export class ByteLines {
  /**
   * Headers met on the byte path, by a hash of their bytes, with what they
   * parse to: consecutive lines mostly repeat a header, and comparing its bytes
   * costs less than making the string to look it up. One entry a hash (a
   * collision replaces it), cleared past HEAD_MAX; `last` is the entry the
   * previous line used.
   */
  private readonly heads = new Map<number, AsciiHead>();
  private lastHead: AsciiHead | null = null;

  constructor(
    private readonly counts: LineCounts,
    private readonly hosts: HostTable,
    private readonly text: TextLines,
  ) {}

  /**
   * One line of an ASCII chunk: bytes [a, e), without its newline and trailing CR;
   * k is where its first `NCCL` starts, -1 when it has none. Channel lines, and the
   * rank and QP lines of each communicator, are read from the bytes in their plain
   * shape (ascii.ts); other INFO lines skip the cleaning (infoAscii); every other
   * line is handed to addLine as text, so the result is addLine's either way.
   */
  addAsciiLine(b: AsciiBytes, a: number, e: number, k: number): void {
    // PyTorch's line after `NCCL error in:`, its `Last error:` and the line after that go the text way (rare; the check is on the line's last bytes).
    if (this.text.holdsNextLine() || (k < 0 && e - a >= 11 && e - a < 256 && endsWithLastError(b, a, e))) {
      this.text.addLine(b.latin1Slice(a, e));
      return;
    }
    if (k < 0) {
      this.counts.lines++;
      return;
    }
    const m = channelHeadAt(b, k, e);
    if (m >= 0 && this.hosts.procs.size < MAX_MAP) {
      const proc = this.asciiProc(b, a, k);
      if (proc && channelAt(b, m, e)) {
        this.counts.lines++;
        this.counts.ncclLines++;
        this.hosts.channel(proc, channelRead.rank, channelRead.via);
        return;
      }
    }
    if (m < 0 && this.infoAscii(b, a, e, k)) return;
    this.text.addLine(b.latin1Slice(a, e));
  }

  /** n lines with no `NCCL` in them, as addAsciiLine takes each (they only count). */
  addBareLines(n: number): void {
    this.counts.lines += n;
  }

  /**
   * Consecutive channel lines of one header (bytes [a, k) of the first) and one
   * rank, as the reader's scanner (wasm/log-scan.c) found them: each distinct via
   * once, at rec[at + 4i …] as [start, end, hash, lines], in the order first met.
   * Has the effect of addAsciiLine on each of those lines, or does nothing and
   * returns false (the reader then gives the lines one by one) when addAsciiLine
   * would hand any of them to addLine.
   */
  addChannelRun(b: AsciiBytes, a: number, k: number, rank: number, rec: Int32Array, at: number, nvia: number): boolean {
    const h = this.scannedHead(b, a, k);
    if (!h) return false;
    const proc = this.headProc(h);
    for (let i = 0; i < nvia; i++) {
      const o = at + 4 * i;
      const n = rec[o + 3]!;
      this.counts.lines += n;
      this.counts.ncclLines += n;
      this.hosts.channel(proc, rank, viaAt(b, rec[o]!, rec[o + 1]!, rec[o + 2]!), n);
    }
    return true;
  }

  /**
   * A rank line as the scanner read it (rec[at …]: rankAt's fields in
   * wasm/log-scan.c's R_ order): what infoAscii does with it, or false (nothing
   * done) when infoAscii would not give it to rankAt.
   */
  addRankLine(b: AsciiBytes, a: number, k: number, rec: Int32Array, at: number): boolean {
    const h = this.scannedHead(b, a, k);
    if (!h) return false;
    const r = rankRead;
    r.commStart = rec[at]!;
    r.commEnd = rec[at + 1]!;
    r.rank = rec[at + 2]!;
    r.nranks = rec[at + 3]!;
    r.cudaDev = rec[at + 4] ? (rec[at + 5] ? -rec[at + 6]! : rec[at + 6]!) : null;
    r.busStart = rec[at + 7]!;
    r.busEnd = rec[at + 8]!;
    r.stage = rec[at + 9] === 1 ? 'start' : rec[at + 9] === 2 ? 'complete' : null;
    this.counts.lines++;
    this.counts.ncclLines++;
    this.learnHead(h);
    this.rankBytes(b, this.headProc(h), h.prefix);
    return true;
  }

  /** A QP line as the scanner read it: what infoAscii does with it, or false (nothing done) when infoAscii would not give it to gidAt. */
  addGidLine(b: AsciiBytes, a: number, k: number, ibDev: number, gidIndex: number): boolean {
    const h = this.scannedHead(b, a, k);
    if (!h) return false;
    this.counts.lines++;
    this.counts.ncclLines++;
    this.learnHead(h);
    this.hosts.gid(this.headProc(h).host, ibDev, gidIndex);
    return true;
  }

  /** The header of a line the scanner read, when it has a host and its process has room; else null (the line is read the ordinary way). */
  private scannedHead(b: AsciiBytes, a: number, k: number): AsciiHead | null {
    if (this.hosts.procs.size + 1 >= MAX_MAP || this.text.holdsNextLine()) return null;
    const h = this.asciiHead(b, a, k);
    return h?.prefix.host ? h : null;
  }

  /**
   * Any other `NCCL INFO` line of an ASCII chunk, as parseLine would read it
   * but without cleaning and re-scanning the whole line: false (nothing done)
   * when the line holds anything clean() or finish() would change, or a
   * header parseLine would pass over.
   */
  private infoAscii(b: AsciiBytes, a: number, e: number, k: number): boolean {
    if (e - k <= 10 || b[k + 4] !== 32 || b[k + 5] !== 73 || b[k + 6] !== 78 || b[k + 7] !== 70 || b[k + 8] !== 79 || b[k + 9] !== 32) return false; // 'NCCL INFO '
    const last = b[e - 1]!;
    if (last <= 32 || last === 93 /* ] */) return false;
    const h = this.asciiHead(b, a, k);
    if (!h) return false;
    const p = h.prefix;
    // The rank and QP lines NCCL prints for every communicator, read from the bytes as factOf reads their text
    // (neither is a problem infoProblem or ifaceOf knows); the process comes as for channel lines.
    if (p.host && this.hosts.procs.size < MAX_MAP) {
      const c = b[k + 10];
      if ((c === 99 /* c */ || c === 110 /* n */) && rankAt(b, k + 10, e)) {
        this.counts.lines++;
        this.counts.ncclLines++;
        this.learnHead(h);
        this.rankBytes(b, this.headProc(h), p);
        return true;
      }
      if (c === 78 /* N */ && gidAt(b, k + 10, e)) {
        this.counts.lines++;
        this.counts.ncclLines++;
        this.learnHead(h);
        this.hosts.gid(this.headProc(h).host, gidRead.ibDev, gidRead.gidIndex);
        return true;
      }
    }
    const message = b.latin1Slice(k + 10, e);
    if (message.includes('\x1b') || message.includes('\r')) return false;
    this.counts.lines++;
    this.counts.ncclLines++;
    this.text.add({ level: 'INFO', host: p.host, pid: p.pid, tid: p.tid, cudaDev: p.cudaDev, source: p.source, launcher: p.launcher, message, repeat: 1, prefix: p }, () => b.latin1Slice(a, e));
    return true;
  }

  /** The entry for the header at [a, k): found by its bytes, or parsed and kept; null when clean() would change it or it does not parse. */
  private asciiHead(b: AsciiBytes, a: number, k: number): AsciiHead | null {
    const n = k - a;
    const last = this.lastHead;
    if (last) {
      if (last.bytes.length === n && sameBytes(b, a, last.bytes)) return last;
      // The two headers that followed this one before: a job's threads take turns in a pattern.
      const x = last.next;
      if (x && x.bytes.length === n && sameBytes(b, a, x.bytes)) return (this.lastHead = x);
      const y = last.next2;
      if (y && y.bytes.length === n && sameBytes(b, a, y.bytes)) return (this.lastHead = y);
    }
    if (n > HEAD_KEEP) {
      const p = this.textPrefix(b, a, k);
      return p && { bytes: EMPTY, prefix: p, proc: null, learned: false, next: null, next2: null };
    }
    let h = 0;
    for (let i = a; i < k; i++) h = (Math.imul(h, 31) + b[i]!) | 0;
    let hit = this.heads.get(h);
    if (!hit || hit.bytes.length !== n || !sameBytes(b, a, hit.bytes)) {
      const p = this.textPrefix(b, a, k);
      if (!p) return null;
      if (this.heads.size >= HEAD_MAX) this.heads.clear();
      this.heads.set(h, (hit = { bytes: copyBytes(b, a, k), prefix: p, proc: null, learned: false, next: null, next2: null }));
    }
    if (last) {
      last.next2 = last.next;
      last.next = hit;
    }
    this.lastHead = hit;
    return hit;
  }

  /** NCCL's header before k parsed from its text, when clean() would leave it as it is; null otherwise. */
  private textPrefix(b: AsciiBytes, a: number, k: number): Prefix | null {
    const pre = b.latin1Slice(a, k);
    if (pre.includes('\x1b') || pre.includes('\r')) return null;
    return parsePrefix(pre);
  }

  /** The process of the header before k, or null when addLine must judge the line. Called only while procs is below its bound. */
  private asciiProc(b: AsciiBytes, a: number, k: number): Proc | null {
    const h = this.asciiHead(b, a, k);
    return h?.prefix.host ? this.headProc(h) : null;
  }

  /** The process of a header with a host, as procOf finds it; called only while procs is below its bound, so it is one procs keeps and the entry may keep it too. */
  private headProc(h: AsciiHead): Proc {
    return (h.proc ??= this.hosts.procOf({ prefix: h.prefix, host: h.prefix.host, pid: h.prefix.pid }, h.prefix.host!));
  }

  /** A rank line rankAt() read from b, as fact() takes a rank fact: comm and busId become strings only when they change. */
  private rankBytes(b: AsciiBytes, proc: Proc, p: Prefix): void {
    const f = rankRead;
    const r = this.hosts.rankOf(proc, f.rank);
    if (!r) return;
    this.hosts.rankStated(r, f.nranks, f.cudaDev, p.cudaDev, f.stage === 'complete');
    // latin1Slice makes a string of its own: nothing to copy (own) as a slice of a read would need.
    if (f.busStart >= 0 && !sameText(b, f.busStart, f.busEnd, r.busId)) r.busId = b.latin1Slice(f.busStart, f.busEnd);
    if (!sameText(b, f.commStart, f.commEnd, r.comm)) r.comm = b.latin1Slice(f.commStart, f.commEnd);
  }

  private learnHead(h: AsciiHead): void {
    if (h.learned) return;
    this.hosts.learnLauncher(h.prefix);
    h.learned = true;
  }
}
