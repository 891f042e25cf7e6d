// `ncclx compare` from arguments to report: expand the inputs, read every
// snapshot (worker threads), compare. Host names in --comm-id / --master-addr
// arrive resolved (the command resolves them through the probe).

import { compareNodes, type CompareReport } from '../model/compare/analyze.js';
import type { FactsOptions } from '../model/compare/facts.js';
import { expandInputs } from './inputs.js';
import type { TopologyChoice } from '../model/compare/mesh.js';
import { extractAll } from './pool.js';
import type { NodeFacts, SkippedInput } from '../model/compare/types.js';

export interface CompareOptions extends FactsOptions {
  maxBytes: number;
  jobs?: number;
  topology?: TopologyChoice;
  perNodeLimit?: number;
  /** The worker threads' source, where it is not a file beside the modules (src/compare/pool.ts). */
  workerSource?: (() => string) | undefined;
}

/** NCCLX_COMPARE_TIMING=1 prints where the time went to standard error (npm run bench uses it). */
const timing = process.env['NCCLX_COMPARE_TIMING'] === '1';
function phase(name: string, t0: bigint): bigint {
  const now = process.hrtime.bigint();
  if (timing) process.stderr.write(`compare timing: ${name} ${(Number(now - t0) / 1e6).toFixed(0)} ms\n`);
  return now;
}

export async function runCompare(args: string[], o: CompareOptions): Promise<CompareReport> {
  let t = process.hrtime.bigint();
  const { files, skipped } = expandInputs(args);
  t = phase(`list ${files.length} files`, t);
  // The worker's source is a function: it stays in this thread, never sent with the options.
  const { workerSource, ...options } = o;
  const results = await extractAll(files, options, { maxBytes: o.maxBytes, jobs: o.jobs, workerSource });
  t = phase('read and reduce', t);
  const facts: NodeFacts[] = [];
  const bad: SkippedInput[] = [...skipped];
  results.forEach((r, i) => {
    if (r.ok) facts.push(r.facts);
    else bad.push({ file: files[i]!, problem: r.problem });
  });
  const report = compareNodes(facts, bad, { topology: o.topology, perNodeLimit: o.perNodeLimit });
  phase('compare', t);
  return report;
}
