// The property behind advice-*.test.ts: on every fixture node, for ENVS
// generated environments (valid and broken values of each NCCL variable the
// doctor reads, MASTER_ADDR/NCCL_COMM_ID on loopback or unresolvable, typos),
// every environment remediation the doctor shows resolves what it claims and
// raises nothing new, and the whole `ncclx env` leaves nothing an environment
// variable can fix. Split over several files so vitest runs them in parallel.

import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { probeNode } from '../../src/probe/index.js';
import '../helpers/fixture-faults.js';
import { environments } from './envs.js';
import type { SimCache } from '../../src/checks/verify.js';
import { trial } from './triples.js';

const FIXTURES = join(__dirname, '../fixtures');
/** At least 200 per fixture (issue #13); ADVICE_ENVS raises it for a longer run. */
export const ENVS = Math.max(200, Number(process.env['ADVICE_ENVS'] ?? 200));
/** Environments each kernel remediation is re-checked under on one node in `npm test`; advice.full.test.ts: all. */
export const KERNEL_ENVS = 24;

/** Every fixture node: the top-level trees and each transcribed node. */
export function fixtureNodes(): string[] {
  const top = readdirSync(FIXTURES, { withFileTypes: true }).filter((d) => d.isDirectory() && d.name !== 'transcribed').map((d) => d.name);
  const transcribed = readdirSync(join(FIXTURES, 'transcribed')).map((n) => `transcribed/${n}`);
  return [...top, ...transcribed].sort();
}

export function adviceSuite(part: number, parts: number, opts: { envs?: number; kernelEnvs?: number } = {}): void {
  const envs = opts.envs ?? ENVS;
  const kernelEnvs = opts.kernelEnvs ?? KERNEL_ENVS;
  const mine = fixtureNodes().filter((_, i) => i % parts === part);
  describe(`advice proven on ${mine.length} fixture node(s) × ${envs} environments (each kernel remediation under ${kernelEnvs === Infinity ? 'all' : `up to ${kernelEnvs}`})`, () => {
    let triples = 0;
    let kernel = 0;
    afterAll(() => console.log(`advice part ${part + 1}/${parts}: ${triples} (fixture, environment, remediation) triples checked, ${kernel} of them kernel remediations`));
    for (const fx of mine) {
      it(fx, async () => {
        const base = await probeNode({ root: join(FIXTURES, fx), kernel: true, rdma: true, env: {} });
        const problems: string[] = [];
        let checked = 0;
        // One node: its doctor runs are shared by every environment tried on it (src/checks/verify.ts SimCache).
        const sims: SimCache = new Map();
        const budget = { cap: kernelEnvs, seen: new Map<string, number>() };
        for (const t of environments(base, envs, 7)) {
          // Bounded: kept whole, 200 environments' runs cost more in garbage collection than reuse saves.
          if (sims.size > 400) sims.clear();
          const o = trial(base, t, sims, budget);
          checked += o.triples;
          kernel += o.kernelTriples;
          problems.push(...o.problems);
        }
        triples += checked;
        expect(problems.slice(0, 10)).toEqual([]);
        // The generator reaches the advice: every fixture yields remediations to check.
        expect(checked).toBeGreaterThan(envs / 2);
      }, 600_000);
    }
  });
}
