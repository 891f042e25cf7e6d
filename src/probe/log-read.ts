// Reading NCCL logs as users hand them over: files, directories of files,
// standard input, gzip or not. Streams in 1 MiB chunks and gives whole lines
// to a sink, so memory stays bounded whatever the size; a line longer than
// MAX_LINE is cut (and said so); binary data and devices are refused by name.
// A plain regular file is read into one reused buffer (a fresh 1 MiB buffer
// per chunk costs its allocation and page faults): the WebAssembly scanner's
// input area when it is free (log-scan.ts), which then reads the chunk's lines
// in place and hands the sink what it read; the line splitter copies the part
// of a line that waits for the next chunk, and sinks keep no bytes.

import { createReadStream, readSync, type Stats } from 'node:fs';
import { open, readdir, stat, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { isAscii } from 'node:buffer';
import { createGunzip } from 'node:zlib';
import { UserError } from '../model/errors.js';
import type { AsciiBytes } from '../model/log/ascii.js';
import { leaseInput, logScanner, RANK_FIELDS, RECORD_RANK, RECORD_REPLAY, RECORD_RUN, release, type LogScanner } from './log-scan.js';

/** Longest line kept whole; NCCL's own lines are < 4 KiB (its buffer is 1–4 KiB). */
export const MAX_LINE = 64 * 1024;
/** Bytes looked at to tell text from binary data. */
export const SNIFF = 64 * 1024;
const CHUNK = 1 << 20;
/** Files under one directory argument, at most. */
const MAX_FILES = 100_000;

export type LineSink = (line: string, truncated: boolean) => void;

export interface LogInput {
  /** The name as given ('-' for standard input). */
  name: string;
  bytes: number;
  lines: number;
  gzip: boolean;
}

function kind(st: Stats): string | null {
  if (st.isFile() || st.isFIFO()) return null;
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

/** Paths to read, in order: a directory gives its files (recursively, by name). */
export async function expand(inputs: string[]): Promise<{ path: string; fromDir: boolean }[]> {
  const out: { path: string; fromDir: boolean }[] = [];
  const walk = async (dir: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (e) {
      throw new UserError(`${dir}: ${(e as NodeJS.ErrnoException).code ?? 'cannot read'}`);
    }
    entries.sort((a, b) => a.name.localeCompare(b.name, 'en', { numeric: true }));
    for (const e of entries) {
      if (out.length >= MAX_FILES) throw new UserError(`${dir}: more than ${MAX_FILES} files`);
      const p = join(dir, e.name);
      if (e.isDirectory()) await walk(p);
      else if (e.isFile()) out.push({ path: p, fromDir: true });
    }
  };
  for (const i of inputs) {
    if (i === '-') {
      out.push({ path: i, fromDir: false });
      continue;
    }
    let st: Stats;
    try {
      st = await stat(i);
    } catch (e) {
      throw new UserError(`${i}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : ((e as NodeJS.ErrnoException).code ?? 'cannot read')}`);
    }
    if (st.isDirectory()) {
      const before = out.length;
      await walk(i);
      if (out.length === before) throw new UserError(`${i}: the directory holds no files`);
      continue;
    }
    const k = kind(st);
    if (k) throw new UserError(`${i}: ${k}, not a log file`);
    out.push({ path: i, fromDir: false });
  }
  return out;
}

/** gzip's magic bytes open the data. */
export const isGzip = (head: Buffer): boolean => head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;

export function binary(head: Buffer): boolean {
  const n = Math.min(head.length, SNIFF);
  if (head.subarray(0, n).includes(0)) return true;
  // Mostly control bytes (not tab, CR, LF, ESC) is not a text log either.
  let ctl = 0;
  for (let i = 0; i < n; i++) {
    const b = head[i]!;
    if (b < 32 && b !== 9 && b !== 10 && b !== 13 && b !== 27) ctl++;
  }
  return n > 0 && ctl / n > 0.1;
}

/**
 * Where lines go. `ascii`, when given, takes the lines of ASCII chunks as
 * bytes ([a, e) of b, k = where `NCCL` first occurs or -1), so the hot path
 * makes no string of a line it can read in place; it must act as `line` would,
 * and keep no reference to b past the call (the reader reuses its memory).
 */
export interface LineTarget {
  line: LineSink;
  /** An ASCII line with one `NCCL LEVEL` at most: one holding two (lines a terminal copy glued together) goes to `line`, which judges it. */
  ascii?: (b: Buffer, a: number, e: number, k: number) => void;
  /** What the scanner (log-scan.ts) read of ASCII chunks; only with `ascii`. */
  scan?: ScanTarget;
}

/**
 * Lines the scanner read: each call acts as `ascii` on those lines would, or
 * returns false having done nothing (then each line goes to `ascii`). The
 * line starts at a, its `NCCL` at k; rec[at …] holds what was read.
 */
export interface ScanTarget {
  /** Consecutive plain channel lines of one header and rank: nvia × [via start, via end, via hash, lines]. */
  run(b: Buffer, a: number, k: number, rank: number, rec: Int32Array, at: number, nvia: number): boolean;
  /** A rank line: rankAt's fields (wasm/log-scan.c R_ order). */
  rank(b: Buffer, a: number, k: number, rec: Int32Array, at: number): boolean;
  /** A QP line: its IbDev and GID index. */
  gid(b: Buffer, a: number, k: number, ibDev: number, gidIndex: number): boolean;
  /** n lines without `NCCL`: they only count. */
  bare(n: number): void;
  /** Whether the next line must go to `ascii` whatever it is (the one after PyTorch's `Last error:`). */
  holdsNext(): boolean;
}

/** Where the next `NCCL` starts at or after `from`, else b.length: memchr for its N, then the rest (a multi-byte needle costs more per call). */
function ncclAt(b: Buffer, from: number): number {
  for (;;) {
    const j = b.indexOf(78, from);
    if (j < 0) return b.length;
    if (b[j + 1] === 67 && b[j + 2] === 67 && b[j + 3] === 76) return j;
    from = j + 1;
  }
}
/**
 * After the `NCCL` at k of a line ending at e: where a second `NCCL` followed by a blank and a level's first
 * letter (INFO, WARN, TRACE, ABORT) starts, as wasm/log-scan.c secondLevel tests; else the first `NCCL` at or
 * past e (b.length when none), which serves the lines after.
 */
function secondStatement(b: Buffer, k: number, e: number): number {
  let j = ncclAt(b, k + 4);
  for (; j < e; j = ncclAt(b, j + 4)) {
    const c = b[j + 5];
    if (b[j + 4] === 32 && (c === 73 || c === 87 || c === 84 || c === 65)) return j;
  }
  return j;
}

/** Bytes of one line kept while its newline is awaited: every line of MAX_LINE UTF-16 units fits (a unit takes at most 3 bytes). */
const CARRY_MAX = 3 * MAX_LINE + 4;

/** Splits a byte stream into lines (LF, a CR before it dropped), each cut at MAX_LINE characters. */
class LineSplitter {
  private carry: Buffer[] = [];
  private carryBytes = 0;
  private carryCut = false;
  lines = 0;
  constructor(private readonly target: LineTarget) {}

  push(chunk: Buffer): void {
    let a = 0;
    if (this.carryBytes || this.carryCut) {
      const nl = chunk.indexOf(10);
      if (nl < 0) {
        this.keep(chunk);
        return;
      }
      this.keep(chunk.subarray(0, nl));
      this.flushCarry();
      a = nl + 1;
    }
    const ascii = this.target.ascii !== undefined && isAscii(chunk);
    if (ascii && this.target.scan) {
      const end = chunk.lastIndexOf(10) + 1;
      if (end > a) a = this.scanned(chunk, a, end);
    }
    a = this.each(chunk, a, chunk.length, ascii);
    if (a < chunk.length) this.keep(chunk.subarray(a));
  }

  /** The complete lines of b[a, end), one by one; returns where the first line not ended before `end` starts. */
  private each(b: Buffer, a: number, end: number, ascii: boolean): number {
    // Where the next `NCCL` is: one search serves every line before it.
    let k = -1;
    for (;;) {
      const nl = b.indexOf(10, a);
      if (nl < 0 || nl >= end) return a;
      this.lines++;
      let e = nl;
      if (e > a && b[e - 1] === 13) e--;
      if (ascii && e - a <= MAX_LINE) {
        if (k < a) k = ncclAt(b, a);
        if (k < e) {
          // A second `NCCL LEVEL` in this line sends it as text; the first `NCCL` past the line serves the lines after.
          const k2 = secondStatement(b, k, e);
          if (k2 < e) this.text(b, a, e);
          else this.target.ascii!(b, a, e, k);
          k = k2;
        } else this.target.ascii!(b, a, e, -1);
      } else this.text(b, a, e);
      a = nl + 1;
    }
  }

  /**
   * The complete lines of the ASCII chunk[a, end) (end just past a newline)
   * through the WebAssembly scanner; returns where it stopped: end, or earlier
   * when there is no scanner, its input area is another reader's, or a line is
   * longer than that area (each() reads the rest).
   */
  private scanned(chunk: Buffer, a: number, end: number): number {
    const s = logScanner();
    if (!s) return a;
    // A line the target wants whole (it saw `Last error:` by another way than the scanner: the carry) goes first, by each().
    if (this.target.scan!.holdsNext()) a = this.each(chunk, a, chunk.indexOf(10, a) + 1, true);
    if (a >= end) return end;
    if (chunk.buffer === s.input.buffer && chunk.byteOffset === s.input.byteOffset) {
      this.scan(s, a, end);
      return end;
    }
    if (s.holder) return a;
    // Bytes from elsewhere (a stream's chunk) are copied in, whole lines at a time.
    while (a < end) {
      let w = Math.min(end, a + s.input.length);
      if (w < end) w = chunk.lastIndexOf(10, w - 1) + 1;
      if (w <= a) return a;
      chunk.copy(s.input, 0, a, w);
      this.scan(s, 0, w - a);
      a = w;
    }
    return end;
  }

  /**
   * The lines of the scanner's input[from, to), to just past a newline: runs of
   * plain channel lines, rank and QP lines go to the target's `scan`, the rest
   * (and what it declines) line by line as each() gives them.
   */
  private scan(s: LogScanner, from: number, to: number): void {
    const b = s.input;
    const t = this.target.scan!;
    while (from < to) {
      const next = s.scan(from, to);
      if (next <= from) {
        this.each(b, from, to, true);
        break;
      }
      const bare = s.plain();
      this.lines += bare;
      t.bare(bare);
      const out = s.out;
      const n = s.records();
      for (let i = 0; i < n; ) {
        switch (out[i]) {
          case RECORD_REPLAY:
            this.each(b, out[i + 1]!, out[i + 2]!, true);
            i += 3;
            break;
          case RECORD_RUN: {
            const nvia = out[i + 5]!;
            if (t.run(b, out[i + 1]!, out[i + 2]!, out[i + 4]!, out, i + 6, nvia)) for (let j = 0; j < nvia; j++) this.lines += out[i + 9 + 4 * j]!;
            else this.each(b, out[i + 1]!, out[i + 3]!, true);
            i += 6 + 4 * nvia;
            break;
          }
          case RECORD_RANK:
            if (t.rank(b, out[i + 1]!, out[i + 2]!, out, i + 4)) this.lines++;
            else this.each(b, out[i + 1]!, out[i + 3]!, true);
            i += 4 + RANK_FIELDS;
            break;
          default:
            if (t.gid(b, out[i + 1]!, out[i + 2]!, out[i + 4]!, out[i + 5]!)) this.lines++;
            else this.each(b, out[i + 1]!, out[i + 3]!, true);
            i += 6;
        }
      }
      from = next;
    }
  }

  /** A line given as text: decoded, cut at MAX_LINE characters. */
  private text(b: Buffer, a: number, e: number): void {
    const t = b.toString('utf8', a, Math.min(e, a + CARRY_MAX));
    if (t.length > MAX_LINE) this.target.line(t.slice(0, MAX_LINE), true);
    else this.target.line(t, false);
  }

  /** Part of a line that goes on in the next chunk (copied: the chunk's memory is reused). */
  private keep(part: Buffer): void {
    if (this.carryCut) return;
    const room = CARRY_MAX - this.carryBytes;
    if (part.length > room) {
      part = part.subarray(0, room);
      this.carryCut = true;
    }
    this.carry.push(Buffer.from(part));
    this.carryBytes += part.length;
  }

  private flushCarry(): void {
    const line = Buffer.concat(this.carry);
    const cut = this.carryCut;
    this.carry = [];
    this.carryBytes = 0;
    this.carryCut = false;
    this.lines++;
    let e = line.length;
    if (!cut && e > 0 && line[e - 1] === 13) e--;
    if (cut) {
      this.target.line(line.toString('utf8').slice(0, MAX_LINE), true);
      return;
    }
    const k = this.target.ascii && e <= MAX_LINE && isAscii(line) ? ncclAt(line, 0) : -2;
    if (k === -2 || (k < e && secondStatement(line, k, e) < e)) this.text(line, 0, e);
    else this.target.ascii!(line, 0, e, k < e ? k : -1);
  }

  end(): void {
    if (this.carryBytes || this.carryCut) this.flushCarry();
  }
}

/** A collector's two ways in: text lines, and lines of ASCII chunks in place (a Buffer has latin1Slice). */
export function logTarget(c: {
  addLine(line: string, truncated: boolean): void;
  addAsciiLine(b: AsciiBytes, a: number, e: number, k: number): void;
  addChannelRun(b: AsciiBytes, a: number, k: number, rank: number, rec: Int32Array, at: number, nvia: number): boolean;
  addRankLine(b: AsciiBytes, a: number, k: number, rec: Int32Array, at: number): boolean;
  addGidLine(b: AsciiBytes, a: number, k: number, ibDev: number, gidIndex: number): boolean;
  addBareLines(n: number): void;
  holdsNextLine(): boolean;
}): LineTarget {
  const bytes = (b: Buffer) => b as unknown as AsciiBytes;
  return {
    line: (l, cut) => c.addLine(l, cut),
    ascii: (b, a, e, k) => c.addAsciiLine(bytes(b), a, e, k),
    scan: {
      run: (b, a, k, rank, rec, at, nvia) => c.addChannelRun(bytes(b), a, k, rank, rec, at, nvia),
      rank: (b, a, k, rec, at) => c.addRankLine(bytes(b), a, k, rec, at),
      gid: (b, a, k, ibDev, gidIndex) => c.addGidLine(bytes(b), a, k, ibDev, gidIndex),
      bare: (n) => c.addBareLines(n),
      holdsNext: () => c.holdsNextLine(),
    },
  };
}

/** An error thrown by the sink (a bug in ncclx), carried past the input-error handling unchanged. */
class SinkError extends Error {
  constructor(readonly inner: unknown) {
    super('sink');
  }
}

/** How an error reading the input is reported. */
function readError(label: string, e: unknown): UserError {
  const err = e as NodeJS.ErrnoException;
  const why = err.code === 'Z_DATA_ERROR' || err.code === 'Z_BUF_ERROR' || /unexpected end of file/i.test(err.message) ? 'corrupt or truncated gzip data' : (err.code ?? err.message);
  return new UserError(`${label}: ${why}`);
}

/**
 * Reads from fh at pos (null: where the last read ended) into buf[from, to) until it is full or the file ends; the bytes read.
 * Synchronous: a regular file's read is a copy from the page cache, and handing each 1 MiB to libuv's
 * threads and back left the reading thread idle about a quarter of the time; only `ncclx log` reads this way.
 */
function fill(fh: FileHandle, buf: Buffer, from: number, to: number, pos: number | null): number {
  let n = 0;
  while (from + n < to) {
    const bytesRead = readSync(fh.fd, buf, from + n, to - from - n, pos === null ? null : pos + n);
    if (bytesRead === 0) break;
    n += bytesRead;
  }
  return n;
}

/**
 * A regular file that is not gzip, read into one reused buffer; null (nothing
 * read) for anything else — a FIFO, gzip data, a file that will not open —
 * which the stream way then reads and reports as it always has.
 */
async function readPlain(name: string, into: LineTarget): Promise<LogInput | null> {
  // Asked before opening: opening a FIFO and closing it again would lose what its writer sent.
  if (!(await stat(name).catch(() => null))?.isFile()) return null;
  const fh = await open(name, 'r').catch(() => null);
  if (!fh) return null;
  // The scanner's input area when it is free: the file is read straight into it.
  const lease = {};
  try {
    const buf = leaseInput(lease) ?? Buffer.allocUnsafe(CHUNK);
    let n: number;
    try {
      n = fill(fh, buf, 0, CHUNK, null);
    } catch {
      return null;
    }
    // The first bytes decide gzip (the stream way's to read) or binary data (refused as the stream way refuses it).
    if (isGzip(buf.subarray(0, n))) return null;
    if (binary(buf.subarray(0, n))) throw new UserError(`${name}: binary data, not a text log`);
    const splitter = new LineSplitter(into);
    let bytes = 0;
    while (n > 0) {
      bytes += n;
      splitter.push(buf.subarray(0, n));
      try {
        n = fill(fh, buf, 0, CHUNK, null);
      } catch (e) {
        throw readError(name, e);
      }
    }
    splitter.end();
    return { name, bytes, lines: splitter.lines, gzip: false };
  } finally {
    release(lease);
    await fh.close().catch(() => {});
  }
}

async function readOne(name: string, into: LineTarget, stdin: NodeJS.ReadableStream): Promise<LogInput> {
  if (name !== '-') {
    const plain = await readPlain(name, into);
    if (plain) return plain;
  }
  const raw: NodeJS.ReadableStream = name === '-' ? stdin : createReadStream(name, { highWaterMark: CHUNK });
  const label = name === '-' ? 'standard input' : name;
  const splitter = new LineSplitter(into);
  // An error thrown by the target is a bug, not bad input: it passes the input-error handling unchanged.
  const feed = (chunk: Buffer | null): void => {
    try {
      if (chunk) splitter.push(chunk);
      else splitter.end();
    } catch (e) {
      throw new SinkError(e);
    }
  };
  let bytes = 0;
  let gzip = false;
  let stream: AsyncIterable<Buffer> = raw as AsyncIterable<Buffer>;
  let sniffed = false;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  try {
    // The first bytes decide gzip or plain; a gzip stream is re-read through gunzip.
    const it = (raw as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
    const first = await it.next();
    const head: Buffer | null = first.done ? null : Buffer.from(first.value);
    if (head && isGzip(head)) {
      gzip = true;
      const gunzip = createGunzip();
      (async () => {
        try {
          gunzip.write(head);
          for (let r = await it.next(); !r.done; r = await it.next()) if (!gunzip.write(r.value)) await new Promise((ok) => gunzip.once('drain', ok));
          gunzip.end();
        } catch (e) {
          gunzip.destroy(e as Error);
        }
      })();
      stream = gunzip;
    } else {
      stream = (async function* () {
        if (head) yield head;
        for (let r = await it.next(); !r.done; r = await it.next()) yield r.value as Buffer;
      })();
    }
    for await (const chunk of stream) {
      bytes += chunk.length;
      if (!sniffed) {
        pending.push(chunk);
        pendingBytes += chunk.length;
        if (pendingBytes < SNIFF) continue;
        const headBuf = Buffer.concat(pending);
        if (binary(headBuf)) throw new UserError(`${label}: binary data, not a text log`);
        sniffed = true;
        feed(headBuf);
        pending = [];
        continue;
      }
      feed(chunk);
    }
    if (!sniffed && pendingBytes > 0) {
      const headBuf = Buffer.concat(pending);
      if (binary(headBuf)) throw new UserError(`${label}: binary data, not a text log`);
      feed(headBuf);
    }
    feed(null);
  } catch (e) {
    if (e instanceof SinkError) throw e.inner;
    if (e instanceof UserError) throw e;
    throw readError(label, e);
  } finally {
    if (name !== '-') (raw as import('node:fs').ReadStream).destroy();
  }
  return { name, bytes, lines: splitter.lines, gzip };
}

/**
 * Every input's lines, in order, to the sink. A binary file found inside a
 * directory (a core dump next to the logs) is skipped and reported through
 * `skipped`; named on the command line it is an error.
 */
export async function readLogs(inputs: string[], into: LineSink | LineTarget, stdin: NodeJS.ReadableStream = process.stdin, skipped: (name: string, why: string) => void = () => {}): Promise<LogInput[]> {
  return readFiles(await expand(inputs.length ? inputs : ['-']), into, stdin, skipped);
}

/** readLogs on inputs already expanded. */
export async function readFiles(files: { path: string; fromDir: boolean }[], into: LineSink | LineTarget, stdin: NodeJS.ReadableStream, skipped: (name: string, why: string) => void): Promise<LogInput[]> {
  const out: LogInput[] = [];
  for (const f of files) {
    try {
      out.push(await readOne(f.path, typeof into === 'function' ? { line: into } : into, stdin));
    } catch (e) {
      if (!(f.fromDir && e instanceof UserError && /binary data/.test(e.message))) throw e;
      skipped(f.path, 'binary data, not a text log');
    }
  }
  return out;
}

/** The lines of `chunks`, split as the reader splits a file read in those chunks (for tests of where chunks end); returns how many. */
export function splitLines(chunks: Buffer[], into: LineTarget): number {
  const splitter = new LineSplitter(into);
  for (const c of chunks) splitter.push(c);
  splitter.end();
  return splitter.lines;
}

/**
 * The lines of bytes [start, end) of a plain file, which begins a line and ends
 * one or the file: one worker's part of a large log (log-parallel.ts). Returns
 * how many lines it held.
 */
export async function readRange(path: string, start: number, end: number, into: LineTarget): Promise<number> {
  const splitter = new LineSplitter(into);
  if (end > start) {
    const fh = await open(path, 'r');
    const lease = {};
    try {
      const buf = (leaseInput(lease) ?? Buffer.allocUnsafe(CHUNK)).subarray(0, Math.min(CHUNK, end - start));
      for (let pos = start; pos < end; ) {
        const n = fill(fh, buf, 0, Math.min(buf.length, end - pos), pos);
        if (n === 0) break;
        splitter.push(buf.subarray(0, n));
        pos += n;
      }
    } finally {
      release(lease);
      await fh.close();
    }
  }
  splitter.end();
  return splitter.lines;
}
