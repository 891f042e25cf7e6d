// Reading NCCL logs as users hand them over: files, directories of files,
// standard input, gzip or not. Streams in 1 MiB chunks and gives whole lines
// to a sink, so memory stays bounded whatever the size; a line longer than
// MAX_LINE is cut (and said so); binary data and devices are refused by name.

import { createReadStream, type Stats } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { createGunzip } from 'node:zlib';
import { UserError } from '../model/errors.js';

/** Longest line kept whole; NCCL's own lines are < 4 KiB (its buffer is 1–4 KiB). */
export const MAX_LINE = 64 * 1024;
/** Bytes looked at to tell text from binary data. */
const SNIFF = 64 * 1024;
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
async function expand(inputs: string[]): Promise<{ path: string; fromDir: boolean }[]> {
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

function binary(head: Buffer): boolean {
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

class LineSplitter {
  private carry = '';
  private carryCut = false;
  lines = 0;
  constructor(private readonly sink: LineSink) {}

  push(text: string): void {
    let s = this.carry.length ? this.carry + text : text;
    let start = 0;
    for (;;) {
      const nl = s.indexOf('\n', start);
      if (nl < 0) break;
      this.emit(s, start, nl);
      start = nl + 1;
    }
    s = start < s.length ? s.slice(start) : '';
    // An endless line: keep its first MAX_LINE characters, drop the rest until its newline.
    if (s.length > MAX_LINE) {
      if (!this.carryCut) this.carry = s.slice(0, MAX_LINE);
      this.carryCut = true;
    } else if (!this.carryCut) this.carry = s;
  }

  private emit(s: string, a: number, b: number): void {
    this.lines++;
    if (this.carryCut) {
      // s begins with the kept prefix of an over-long line.
      this.sink(s.slice(0, Math.min(b, MAX_LINE)), true);
      this.carryCut = false;
      this.carry = '';
      return;
    }
    let end = b;
    if (end > a && s.charCodeAt(end - 1) === 13) end--;
    if (end - a > MAX_LINE) this.sink(s.slice(a, a + MAX_LINE), true);
    else this.sink(s.slice(a, end), false);
  }

  end(): void {
    if (this.carry.length || this.carryCut) {
      this.lines++;
      this.sink(this.carry.endsWith('\r') ? this.carry.slice(0, -1) : this.carry, this.carryCut);
    }
    this.carry = '';
    this.carryCut = false;
  }
}

/** An error thrown by the sink (a bug in ncclx), carried past the input-error handling unchanged. */
class SinkError extends Error {
  constructor(readonly inner: unknown) {
    super('sink');
  }
}

async function readOne(name: string, sinkIn: LineSink, stdin: NodeJS.ReadableStream): Promise<LogInput> {
  const sink: LineSink = (line, cut) => {
    try {
      sinkIn(line, cut);
    } catch (e) {
      throw new SinkError(e);
    }
  };
  const raw: NodeJS.ReadableStream = name === '-' ? stdin : createReadStream(name, { highWaterMark: CHUNK });
  const label = name === '-' ? 'standard input' : name;
  const splitter = new LineSplitter(sink);
  const decoder = new StringDecoder('utf8');
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
    if (head && head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b) {
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
        splitter.push(decoder.write(headBuf));
        pending = [];
        continue;
      }
      splitter.push(decoder.write(chunk));
    }
    if (!sniffed && pendingBytes > 0) {
      const headBuf = Buffer.concat(pending);
      if (binary(headBuf)) throw new UserError(`${label}: binary data, not a text log`);
      splitter.push(decoder.write(headBuf));
    }
    splitter.push(decoder.end());
    splitter.end();
  } catch (e) {
    if (e instanceof SinkError) throw e.inner;
    if (e instanceof UserError) throw e;
    const err = e as NodeJS.ErrnoException;
    const why = err.code === 'Z_DATA_ERROR' || err.code === 'Z_BUF_ERROR' || /unexpected end of file/i.test(err.message) ? 'corrupt or truncated gzip data' : (err.code ?? err.message);
    throw new UserError(`${label}: ${why}`);
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
export async function readLogs(inputs: string[], sink: LineSink, stdin: NodeJS.ReadableStream = process.stdin, skipped: (name: string, why: string) => void = () => {}): Promise<LogInput[]> {
  const files = await expand(inputs.length ? inputs : ['-']);
  const out: LogInput[] = [];
  for (const f of files) {
    try {
      out.push(await readOne(f.path, sink, stdin));
    } catch (e) {
      if (!(f.fromDir && e instanceof UserError && /binary data/.test(e.message))) throw e;
      skipped(f.path, 'binary data, not a text log');
    }
  }
  return out;
}
