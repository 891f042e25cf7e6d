// Shared pieces of the fuzz suite: run sizes (seeded and bounded in `npm test`,
// longer with `npm run fuzz`), a counter of inputs tried, and the model run
// every input goes through.

import { ALL_CHECKS } from '../../src/checks/registry.js';
import { runDoctor } from '../../src/checks/run.js';
import { verifyRun } from '../../src/checks/verify.js';
import { planEnv } from '../../src/model/advice/env-plan.js';
import { makeContext } from '../../src/model/doctor/context.js';
import { UserError } from '../../src/model/errors.js';
import type { NodeSnapshot } from '../../src/model/snapshot/types.js';
import { doctorJson } from '../../src/report/doctor.js';
import { envText } from '../../src/report/env-text.js';
import { ENV_FORMATS } from '../../src/report/env-formats.js';
import { renderDoctorText } from '../../src/report/doctor.js';
import { makeStyle } from '../../src/report/style.js';
import { terminalText } from '../../src/report/display.js';
import { envPlan } from '../../src/model/advice/env-plan.js';

/** NCCLX_FUZZ_RUNS scales every property (npm run fuzz sets it); the seed makes a failure reproducible. */
export const SCALE = Math.max(1, Number(process.env['NCCLX_FUZZ_RUNS'] ?? 1));
export const SEED = Number(process.env['NCCLX_FUZZ_SEED'] ?? 20261124);
/** Per property: generous, and scaled with the run count (a hang still fails, at vitest's limit). */
export const TIMEOUT = 120_000 * SCALE;
export const runs = (n: number) => ({ numRuns: Math.round(n * SCALE), seed: SEED, endOnFailure: true });

let tried = 0;
export const count = (n = 1) => void (tried += n);
export const triedSoFar = () => tried;

/**
 * Everything a command does with a node, in process: the doctor with every
 * remediation checked, its JSON and text, and `ncclx env` in every format. A
 * UserError (bad input, one line, exit 2) is an accepted answer; anything else
 * thrown is a crash.
 */
export function exercise(snap: NodeSnapshot, version = '2.28.3'): 'ok' | 'user-error' {
  try {
    const ctx = makeContext(snap, { ncclVersion: version }, { uplinkRegex: /^eth[0-9]+$/, include: [], ncclVersion: version });
    const run = verifyRun(runDoctor(ALL_CHECKS, ctx));
    JSON.parse(JSON.stringify(doctorJson(run)));
    terminalText(renderDoctorText(run, makeStyle(true), true));
    const plan = envPlan(ctx, { debug: false });
    planEnv(plan);
    for (const f of ENV_FORMATS) envText(plan, 'fuzz', f);
    return 'ok';
  } catch (e) {
    if (e instanceof UserError) return 'user-error';
    throw e;
  }
}
