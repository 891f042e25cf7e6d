// The check behind advice.test.ts, shared with scripts that explore further:
// for one node and one environment, every environment remediation the doctor
// shows is applied and the checks run again; then the whole `ncclx env` is
// applied. Returns what went wrong (empty = all held) and how many
// (fixture, environment, remediation) triples were checked.

import { ALL_CHECKS } from '../../src/checks/registry.js';
import { runDoctor } from '../../src/checks/run.js';
import { verifyRun, withEnv } from '../../src/checks/verify.js';
import { planEnv } from '../../src/model/advice/env-plan.js';
import { makeContext } from '../../src/model/doctor/context.js';
import type { CheckOptions } from '../../src/model/doctor/types.js';
import { SEVERITY_RANK, type CheckResult } from '../../src/model/result/types.js';
import type { NodeSnapshot } from '../../src/model/snapshot/types.js';
import type { TrialEnv } from './envs.js';

const OPTIONS: CheckOptions = { uplinkRegex: /^eth[0-9]+$/, include: [] };
const bad = (r: CheckResult) => r.severity === 'warn' || r.severity === 'error';

export interface TrialOutcome {
  triples: number;
  withheld: { checkId: string; env: Record<string, string | null>; why: string }[];
  problems: string[];
}

function doctor(snap: NodeSnapshot, version: string) {
  return runDoctor(ALL_CHECKS, makeContext(snap, { ncclVersion: version }, { ...OPTIONS, ncclVersion: version }));
}

/** Still there: a result of the same check, at least as bad, with the same summary; or not fewer such results than before. */
function stillThere(r: CheckResult, before: CheckResult[], after: CheckResult[]): boolean {
  const same = (x: CheckResult) => x.checkId === r.checkId && x.severity !== 'unknown' && SEVERITY_RANK[x.severity] >= SEVERITY_RANK[r.severity];
  const now = after.filter(same);
  return now.some((x) => x.summary === r.summary) || (now.length > 0 && now.length >= before.filter(same).length);
}

/** Warnings/errors after that were not before (a check with more of them than before). */
function appeared(before: CheckResult[], after: CheckResult[]): CheckResult[] {
  const out: CheckResult[] = [];
  for (const id of new Set(after.filter(bad).map((r) => r.checkId))) {
    const was = before.filter((r) => r.checkId === id && bad(r));
    const now = after.filter((r) => r.checkId === id && bad(r));
    if (now.length > was.length) out.push(...now.filter((x) => !was.some((y) => y.summary === x.summary)));
  }
  return out;
}

export function trial(base: NodeSnapshot, t: TrialEnv): TrialOutcome {
  const out: TrialOutcome = { triples: 0, withheld: [], problems: [] };
  const snap = withEnv(base, t.env);
  const run = doctor(snap, t.version);
  const verified = verifyRun(run);
  const tag = `${t.version} ${JSON.stringify(t.env)}`;
  // What the node still has with the whole recommended environment is its own: a fix may reveal it, not cause it.
  const target = doctor(withEnv(snap, planEnv(verified.plan)), t.version).results;
  const revealed = appeared(run.results, target);
  for (const r of verified.results) {
    if (!r.verdict) continue;
    out.triples++;
    if (r.verdict.withheld) {
      if (r.remediation?.env) out.problems.push(`${tag}: ${r.checkId} withheld but still offers ${JSON.stringify(r.remediation.env)}`);
      out.withheld.push({ checkId: r.checkId, env: r.verdict.env, why: r.remediation?.advice ?? '' });
      continue;
    }
    const env = r.remediation?.env ?? {};
    const after = doctor(withEnv(snap, env), t.version).results;
    if (stillThere(r, run.results, after)) out.problems.push(`${tag}: ${r.checkId} "${r.summary}" not resolved by ${JSON.stringify(env)}`);
    const fresh = appeared(run.results, after).filter((x) => !revealed.some((y) => y.checkId === x.checkId && y.summary === x.summary));
    if (fresh.length) out.problems.push(`${tag}: ${r.checkId}'s ${JSON.stringify(env)} raises ${fresh.map((x) => `${x.checkId} "${x.summary}"`).join('; ')}`);
  }
  // The whole recommended environment: nothing an environment variable can fix is left.
  const left = verifyRun(doctor(withEnv(snap, planEnv(verified.plan)), t.version)).results.filter(
    (r) => bad(r) && /^(SOCK|IB|ENV)-/.test(r.checkId) && r.remediation?.env && Object.keys(r.remediation.env).length > 0 && !r.verdict?.withheld,
  );
  for (const r of left) out.problems.push(`${tag}: after ncclx env (${JSON.stringify(planEnv(verified.plan))}) ${r.checkId} "${r.summary}" is still fixable by ${JSON.stringify(r.remediation!.env)}`);
  return out;
}
