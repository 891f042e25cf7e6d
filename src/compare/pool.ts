// Reading many snapshots on every core: files go to worker threads in
// batches, NodeFacts come back in input order. Small inputs stay in this
// thread (starting a worker costs more than a few files).

import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { extractFile, toWire, type Extracted } from './extract.js';
import type { FactsOptions } from '../model/compare/facts.js';

export interface PoolOptions {
  maxBytes: number;
  /** Worker threads; 1 reads in this thread. Default: one per core. */
  jobs?: number;
  /** The worker's source when there is no worker.js beside this module (the single executable: src/probe/bundle.ts). */
  workerSource?: (() => string) | undefined;
}

const BATCH = 32;
/**
 * Young generation of each worker, in MiB; 0 leaves V8's default. Measured on
 * 1,000 snapshots: 8–16 MiB run in half the wall time of 64–128 MiB (bigger
 * semi-spaces make each scavenge longer and the two workers stall each other).
 */
const YOUNG_GENERATION_MB = Number(process.env['NCCLX_COMPARE_YOUNG_MB'] ?? 16);
/** Below this many files per worker, a worker does not pay for its start-up. */
const MIN_FILES_PER_WORKER = 48;

export async function extractAll(files: string[], o: FactsOptions, p: PoolOptions): Promise<Extracted[]> {
  const jobs = Math.max(1, Math.min(p.jobs ?? availableParallelism(), Math.floor(files.length / MIN_FILES_PER_WORKER)));
  // NCCLX_COMPARE_TIMING=1 (src/compare/run.ts) also says how many threads read.
  if (process.env['NCCLX_COMPARE_TIMING'] === '1') process.stderr.write(`compare timing: ${jobs <= 1 ? 'reading in this thread' : `reading on ${jobs} worker threads`}\n`);
  if (jobs <= 1) return files.map((f) => extractFile(f, p.maxBytes, o));

  const results: Extracted[] = new Array(files.length);
  let next = 0;
  const workerData = toWire(o, p.maxBytes);
  const script = p.workerSource?.() ?? new URL('./worker.js', import.meta.url);
  await Promise.all(
    Array.from({ length: jobs }, () =>
      new Promise<void>((resolve, reject) => {
        const w = new Worker(script, { eval: typeof script === 'string', workerData, ...(YOUNG_GENERATION_MB > 0 ? { resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } } : {}) });
        const feed = () => {
          if (next >= files.length) {
            void w.terminate().then(() => resolve(), reject);
            return;
          }
          const batch: [number, string][] = [];
          for (let k = 0; k < BATCH && next < files.length; k++, next++) batch.push([next, files[next]!]);
          w.postMessage(batch);
        };
        w.on('message', (out: [number, Extracted][]) => {
          for (const [i, r] of out) results[i] = r;
          feed();
        });
        w.on('error', reject);
        w.on('exit', (code) => {
          if (code !== 0 && next < files.length) reject(new Error(`compare worker exited with code ${code}`));
        });
        feed();
      }),
    ),
  );
  return results;
}
