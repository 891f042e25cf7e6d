// `ncclx log` on a large input: the bytes are cut at line starts into one
// part per CPU, this thread and worker threads read the parts side by side,
// and the parts are merged in input order (LogCollector.absorb). The merge is
// exact or declines; when it declines, or anything about the input is unusual
// (standard input, gzip, binary data, a worker failing), the input is read the
// ordinary way, so the answer never depends on how it was read.
import { existsSync } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { LogCollector, type CollectorPart } from '../model/log/analyze.js';
import { currentBundle } from './bundle.js';
import { binary, expand, isGzip, logTarget, readFiles, readRange, SNIFF, type LogInput } from './log-read.js';

/** Below this many bytes, starting workers costs more than it saves. */
const PARALLEL_MIN = 48 << 20;
/** Bytes per worker at least, and workers at most. */
const PART_MIN = 16 << 20;
const WORKERS_MAX = 8;

export interface Segment {
  /** Which input (its position: a file named twice is read twice). */
  file: number;
  path: string;
  start: number;
  end: number;
}

export type WorkerReply = { part: CollectorPart; lines: number[] } | { error: string };

export interface Collected {
  collector: LogCollector;
  inputs: LogInput[];
  /** Parts read side by side, by this thread and worker threads (0: read whole in this thread). */
  parts: number;
}

/** NCCLX_LOG_WORKERS=N reads N parts (this thread and N − 1 workers) whatever the size (0 or 1: one pass); unset, the CPUs and the size decide. */
function workerCount(total: number, env: string | undefined): number {
  if (env !== undefined && /^\d+$/.test(env)) return Math.min(Number(env), WORKERS_MAX);
  if (total < PARALLEL_MIN) return 0;
  return Math.min(availableParallelism(), WORKERS_MAX, Math.floor(total / PART_MIN));
}

/** The first line start at or after `off` in the file (its size when none). */
async function lineStartFrom(path: string, off: number, size: number): Promise<number> {
  if (off <= 0) return 0;
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.allocUnsafe(64 << 10);
    // The byte before off decides whether off already starts a line.
    for (let pos = off - 1; pos < size; pos += buf.length) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, pos);
      if (bytesRead === 0) break;
      const nl = buf.subarray(0, bytesRead).indexOf(10);
      if (nl >= 0) return pos + nl + 1;
    }
    return size;
  } finally {
    await fh.close();
  }
}

/** Regular files only, each with its size; null when anything calls for the ordinary way. */
async function plainFiles(files: { path: string }[]): Promise<{ path: string; size: number }[] | null> {
  const out: { path: string; size: number }[] = [];
  for (const f of files) {
    if (f.path === '-') return null;
    const st = await stat(f.path).catch(() => null);
    if (!st?.isFile()) return null;
    out.push({ path: f.path, size: st.size });
  }
  return out;
}

/** Whether every file opens as plain text (not gzip, not binary): asked only once workers are wanted. */
async function allText(files: { path: string; size: number }[]): Promise<boolean> {
  for (const f of files) {
    // A file that will not open is the ordinary way's to report.
    const fh = await open(f.path, 'r').catch(() => null);
    if (!fh) return false;
    try {
      const head = Buffer.alloc(Math.min(SNIFF, f.size));
      await fh.read(head, 0, head.length, 0);
      if (isGzip(head) || binary(head)) return false;
    } finally {
      await fh.close();
    }
  }
  return true;
}

/** The byte ranges of each of n parts: equal shares of the total, moved to the next line start. */
async function cut(files: { path: string; size: number }[], n: number): Promise<Segment[][]> {
  const total = files.reduce((s, f) => s + f.size, 0);
  // Cut points as (file, offset), in input order.
  const points: { file: number; off: number }[] = [];
  for (let w = 1; w < n; w++) {
    let g = Math.floor((w * total) / n);
    let i = 0;
    while (i < files.length - 1 && g >= files[i]!.size) g -= files[i++]!.size;
    points.push({ file: i, off: await lineStartFrom(files[i]!.path, g, files[i]!.size) });
  }
  const parts: Segment[][] = [];
  let at = { file: 0, off: 0 };
  for (const p of [...points, { file: files.length - 1, off: files.at(-1)!.size }]) {
    const segs: Segment[] = [];
    for (let i = at.file; i <= p.file; i++) {
      const start = i === at.file ? at.off : 0;
      const end = i === p.file ? p.off : files[i]!.size;
      if (end > start) segs.push({ file: i, path: files[i]!.path, start, end });
    }
    if (segs.length) parts.push(segs);
    if (p.file > at.file || (p.file === at.file && p.off > at.off)) at = p;
  }
  return parts;
}

/** One part read in this thread, as a worker reads it (log-worker.ts). */
export async function readPart(segments: Segment[]): Promise<WorkerReply> {
  try {
    const c = LogCollector.part();
    const lines: number[] = [];
    for (const s of segments) lines.push(await readRange(s.path, s.start, s.end, logTarget(c)));
    return { part: c.part(), lines };
  } catch (e) {
    return { error: e instanceof Error ? e.message : String(e) };
  }
}

/** The worker's script: the built module beside this one, or the source the single executable carries; null when neither is there. */
function workerScript(): { script: URL | string; eval: boolean } | null {
  const bundled = currentBundle();
  if (bundled) return { script: bundled.workers.log(), eval: true };
  // Run from the TypeScript sources (tests), there is no built module.
  const file = new URL('./log-worker.js', import.meta.url);
  return existsSync(fileURLToPath(file)) ? { script: file, eval: false } : null;
}

function runWorker(worker: { script: URL | string; eval: boolean }, segments: Segment[]): Promise<WorkerReply> {
  return new Promise((resolve) => {
    const w = new Worker(worker.script, { eval: worker.eval, workerData: { segments } });
    w.once('message', (m: WorkerReply) => resolve(m));
    w.once('error', (e) => resolve({ error: e.message }));
    w.once('exit', (code) => resolve({ error: `worker exited with ${code}` }));
  });
}

/** Every input's lines into one collector: in parts on worker threads when the input is large, plain files and CPUs allow. */
export async function collectLogs(names: string[], stdin: NodeJS.ReadableStream, skipped: (name: string, why: string) => void, env: string | undefined = process.env['NCCLX_LOG_WORKERS']): Promise<Collected> {
  const listed = await expand(names.length ? names : ['-']);
  const ordinary = async (): Promise<Collected> => {
    const collector = new LogCollector();
    const inputs = await readFiles(listed, logTarget(collector), stdin, skipped);
    return { collector, inputs, parts: 0 };
  };
  const worker = workerScript();
  if (!worker) return ordinary();
  const files = await plainFiles(listed);
  if (!files || files.length === 0) return ordinary();
  const total = files.reduce((s, f) => s + f.size, 0);
  const n = workerCount(total, env);
  if (n < 2 || !(await allText(files))) return ordinary();
  const parts = await cut(files, n);
  if (parts.length < 2) return ordinary();
  // This thread reads the first part while workers read the others: it would only wait otherwise,
  // and one worker fewer is one module graph fewer to load.
  const others = Promise.all(parts.slice(1).map((segs) => runWorker(worker, segs)));
  const replies = [await readPart(parts[0]!), ...(await others)];
  const collector = new LogCollector();
  const lines = files.map(() => 0);
  for (let i = 0; i < replies.length; i++) {
    const r = replies[i]!;
    if ('error' in r || !collector.absorb(r.part)) return ordinary();
    parts[i]!.forEach((s, j) => (lines[s.file]! += r.lines[j]!));
  }
  const inputs = files.map((f, i) => ({ name: f.path, bytes: f.size, lines: lines[i]!, gzip: false }));
  return { collector, inputs, parts: replies.length };
}
