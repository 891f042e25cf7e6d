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
import { trial } from './triples.js';

const FIXTURES = join(__dirname, '../fixtures');
/** At least 200 per fixture (issue #13); ADVICE_ENVS raises it for a longer run. */
export const ENVS = Math.max(200, Number(process.env['ADVICE_ENVS'] ?? 200));

/** Every fixture node: the top-level trees and each transcribed node. */
export function fixtureNodes(): string[] {
  const top = readdirSync(FIXTURES, { withFileTypes: true }).filter((d) => d.isDirectory() && d.name !== 'transcribed').map((d) => d.name);
  const transcribed = readdirSync(join(FIXTURES, 'transcribed')).map((n) => `transcribed/${n}`);
  return [...top, ...transcribed].sort();
}

export function adviceSuite(part: number, parts: number): void {
  const mine = fixtureNodes().filter((_, i) => i % parts === part);
  describe(`advice proven on ${mine.length} fixture node(s) × ${ENVS} environments`, () => {
    let triples = 0;
    afterAll(() => console.log(`advice part ${part + 1}/${parts}: ${triples} (fixture, environment, remediation) triples checked`));
    for (const fx of mine) {
      it(fx, async () => {
        const base = await probeNode({ root: join(FIXTURES, fx), kernel: true, rdma: true, env: {} });
        const problems: string[] = [];
        let checked = 0;
        for (const t of environments(base, ENVS, 7)) {
          const o = trial(base, t);
          checked += o.triples;
          problems.push(...o.problems);
        }
        triples += checked;
        expect(problems.slice(0, 10)).toEqual([]);
        // The generator reaches the advice: every fixture yields remediations to check.
        expect(checked).toBeGreaterThan(ENVS / 2);
      }, 600_000);
    }
  });
}
