// The first pass of `ncclx ps`: which processes map an NCCL library. Every
// /proc/PID/maps is read once into one reused buffer and searched as bytes
// for "libnccl" or "libtorch_cuda" (no text decoding, no allocation per
// process); only the processes that match are read further
// (src/probe/ps.ts). This module imports nothing of ncclx, so a node with no
// NCCL process is answered without loading the model.
//
// Reading 2,000 maps files is most of `ps`'s time (the kernel writes each
// one out; ~35 µs a file here), so on a node with many processes a worker
// thread reads part of them on another core (candidatePidsParallel).

import * as fs from 'node:fs';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

export interface ScanCandidates {
  pids: number[];
  scanned: number;
  /** Processes whose maps ncclx may not read (another user's, as non-root); ended ones are not counted. */
  unreadable: number;
  /** Worker threads that read part of the maps files (candidatePidsParallel); absent: none. */
  workers?: number;
}

/**
 * Scans the maps files of the /proc entries `names` (non-numeric ones are
 * skipped, and so is `self`). Self-contained, using only its arguments and
 * globals, because it is also the worker's source (WORKER_SOURCE below).
 */
function scanNames(f: typeof fs, names: readonly string[], self: number): ScanCandidates {
  const buf = Buffer.allocUnsafe(1 << 18);
  const needles = [Buffer.from('libnccl'), Buffer.from('libtorch_cuda')];
  // A needle cut by the read boundary is found in the next pass.
  const keep = 16;
  // No nested function: a bundler that keeps names wraps each in a helper the worker does not have.
  let code: string | undefined;
  const pids: number[] = [];
  let scanned = 0;
  let unreadable = 0;
  for (const n of names) {
    const c = n.charCodeAt(0);
    if (c < 48 || c > 57) continue;
    const pid = Number(n);
    if (pid === self) continue;
    scanned++;
    let fd: number;
    try {
      fd = f.openSync(`/proc/${n}/maps`, 'r');
    } catch (e) {
      code = (e as NodeJS.ErrnoException).code;
      if (code === 'EACCES' || code === 'EPERM') unreadable++;
      continue;
    }
    try {
      let carry = 0;
      for (;;) {
        const got = f.readSync(fd, buf, carry, buf.length - carry, null);
        if (got === 0) break;
        const end = carry + got;
        const view = buf.subarray(0, end);
        if (view.indexOf(needles[0]!) >= 0 || view.indexOf(needles[1]!) >= 0) {
          pids.push(pid);
          break;
        }
        const k = Math.min(keep, end);
        buf.copy(buf, 0, end - k, end);
        carry = k;
      }
    } catch (e) {
      code = (e as NodeJS.ErrnoException).code;
      if (code === 'EACCES' || code === 'EPERM') unreadable++;
    } finally {
      f.closeSync(fd);
    }
  }
  return { pids, scanned, unreadable };
}

/**
 * The worker: scanNames over the names it is given, its answer posted back.
 * Plain JavaScript, so it also runs from the single executable; `__name` is
 * the helper esbuild's keepNames (scripts/build-exe.mjs) would call.
 */
const WORKER_SOURCE = `const __name = (f) => f;
const { parentPort, workerData } = require('node:worker_threads');
parentPort.postMessage((${scanNames.toString()})(require('node:fs'), workerData.names, workerData.self));`;

function procNames(): string[] | null {
  try {
    return fs.readdirSync('/proc');
  } catch {
    return null;
  }
}

export function candidatePids(): ScanCandidates {
  const names = procNames();
  return names ? scanNames(fs, names, process.pid) : { pids: [], scanned: 0, unreadable: 0 };
}

/** Below this many /proc entries one thread is faster than starting a worker (~25 ms). */
export const PARALLEL_FROM = 800;
/** The worker starts ~25 ms late: the calling thread takes this share of the names, the worker the rest. */
const MAIN_SHARE = 0.6;

/**
 * candidatePids, with a worker thread reading part of the maps files when
 * the node has many processes and more than one CPU. Same answer, in /proc's
 * order; a worker that fails is replaced by reading its part here.
 */
export async function candidatePidsParallel(cpus = availableParallelism(), from = PARALLEL_FROM): Promise<ScanCandidates> {
  const names = procNames();
  if (!names) return { pids: [], scanned: 0, unreadable: 0 };
  if (names.length < from || cpus < 2) return scanNames(fs, names, process.pid);
  const cut = Math.floor(names.length * MAIN_SHARE);
  const theirs = names.slice(cut);
  const answer = new Promise<ScanCandidates | null>((resolve) => {
    const w = new Worker(WORKER_SOURCE, { eval: true, workerData: { names: theirs, self: process.pid } });
    w.once('message', (m: ScanCandidates) => resolve(m));
    w.once('error', () => resolve(null));
    w.once('exit', () => resolve(null));
  });
  const mine = scanNames(fs, names.slice(0, cut), process.pid);
  const fromWorker = await answer;
  const rest = fromWorker ?? scanNames(fs, theirs, process.pid);
  for (const p of rest.pids) mine.pids.push(p);
  return { pids: mine.pids, scanned: mine.scanned + rest.scanned, unreadable: mine.unreadable + rest.unreadable, workers: fromWorker ? 1 : 0 };
}
