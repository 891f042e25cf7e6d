// `ncclx compare` from arguments to report: expand the inputs, read every
// snapshot (worker threads), compare. The only I/O of the compare feature.

import { hostsToResolve, resolveHosts } from '../probe/index.js';
import { compareNodes, type CompareReport } from './analyze.js';
import type { FactsOptions } from './facts.js';
import { expandInputs } from './inputs.js';
import type { TopologyChoice } from './mesh.js';
import { extractAll } from './pool.js';
import type { NodeFacts, SkippedInput } from './types.js';

export interface CompareOptions extends Omit<FactsOptions, 'resolutions'> {
  maxBytes: number;
  jobs?: number;
  topology?: TopologyChoice;
  perNodeLimit?: number;
}

export async function runCompare(args: string[], o: CompareOptions): Promise<CompareReport> {
  const { files, skipped } = expandInputs(args);
  // Host names in --comm-id / --master-addr: resolved here, used where a node did not capture its own answer.
  const hosts = hostsToResolve([o.commId, o.masterAddr]);
  const resolutions = hosts.length ? await resolveHosts(hosts) : undefined;
  const results = await extractAll(files, { ...o, resolutions }, { maxBytes: o.maxBytes, jobs: o.jobs });
  const facts: NodeFacts[] = [];
  const bad: SkippedInput[] = [...skipped];
  results.forEach((r, i) => {
    if (r.ok) facts.push(r.facts);
    else bad.push({ file: files[i]!, problem: r.problem });
  });
  return compareNodes(facts, bad, { topology: o.topology, perNodeLimit: o.perNodeLimit });
}
