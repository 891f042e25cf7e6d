// The check behind advice-*.test.ts, shared with scripts that explore further:
// for one node and one environment, every remediation the doctor shows — an
// environment change or kernel commands — is applied alone and the checks run
// again; then the whole `ncclx env` is applied. Returns what went wrong (empty
// = all held) and how many (fixture, environment, remediation) triples were
// checked.
//
// The judgement here (stillThere, appeared) is written apart from the
// doctor's own verifier (src/checks/verify.ts), so a verifier that lets a bad
// remediation through is caught. The doctor runs themselves are shared with
// the verifier (`SimCache`): a run is a pure function of the node, the
// environment and the commands, so reusing one computed for the same inputs
// is the same run — it only is not paid for twice.

import { ALL_CHECKS } from '../../src/checks/registry.js';
import { runDoctor } from '../../src/checks/run.js';
import { verifierFor, verifyRun, withEnv, type SimCache } from '../../src/checks/verify.js';
import { planEnv } from '../../src/model/advice/env-plan.js';
import { makeContext } from '../../src/model/doctor/context.js';
import type { CheckOptions, DoctorRun } from '../../src/model/doctor/types.js';
import { kernelChanges } from '../../src/model/fix/commands.js';
import { SEVERITY_RANK, type CheckResult } from '../../src/model/result/types.js';
import type { NodeSnapshot } from '../../src/model/snapshot/types.js';
import type { TrialEnv } from './envs.js';

const OPTIONS: CheckOptions = { uplinkRegex: /^eth[0-9]+$/, include: [] };
const bad = (r: CheckResult) => r.severity === 'warn' || r.severity === 'error';

export interface TrialOutcome {
  triples: number;
  /** Of them, kernel remediations (commands applied to the model). */
  kernelTriples: number;
  withheld: { checkId: string; env: Record<string, string | null>; why: string }[];
  /** Commands ncclx does not model (modprobe, ulimit, sed on a file), by check: shown unchecked. */
  unmodelled: string[];
  problems: string[];
}

function doctor(snap: NodeSnapshot, version: string): DoctorRun {
  return runDoctor(ALL_CHECKS, makeContext(snap, { ncclVersion: version }, { ...OPTIONS, ncclVersion: version }));
}

/** Still there: a result of the same check, at least as bad, with the same summary; or not fewer such results than before. */
function stillThere(r: CheckResult, before: CheckResult[], after: CheckResult[]): boolean {
  const same = (x: CheckResult) => x.checkId === r.checkId && x.severity !== 'unknown' && SEVERITY_RANK[x.severity] >= SEVERITY_RANK[r.severity];
  const now = after.filter(same);
  return now.some((x) => x.summary === r.summary) || (now.length > 0 && now.length >= before.filter(same).length);
}

/**
 * Warnings/errors after that were not before: per check and per level (errors,
 * then errors and warnings), those not there before when the check has more
 * of them — so a warning that turns into an error counts.
 */
function appeared(before: CheckResult[], after: CheckResult[]): CheckResult[] {
  const out: CheckResult[] = [];
  for (const id of new Set(after.filter(bad).map((r) => r.checkId))) {
    for (const level of ['error', 'warn'] as const) {
      const at = (r: CheckResult) => r.checkId === id && bad(r) && SEVERITY_RANK[r.severity] >= SEVERITY_RANK[level];
      const was = before.filter(at);
      const now = after.filter(at);
      if (now.length > was.length) out.push(...now.filter((x) => !was.some((y) => y.summary === x.summary && y.severity === x.severity) && !out.includes(x)));
    }
  }
  return out;
}

/**
 * How often one kernel remediation (its exact commands) is re-checked on one node: a kernel change is
 * the same change under every environment, so after `cap` environments (spread over the NCCL releases
 * by the generator) the rest add little but time. `npm test` caps it; the *.full run does not.
 */
export interface KernelBudget {
  cap: number;
  seen: Map<string, number>;
}

/** One node's trials share their doctor runs (one cache per fixture). */
export function trial(base: NodeSnapshot, t: TrialEnv, sims: SimCache = new Map(), budget: KernelBudget = { cap: Infinity, seen: new Map() }): TrialOutcome {
  const out: TrialOutcome = { triples: 0, kernelTriples: 0, withheld: [], unmodelled: [], problems: [] };
  const snap = withEnv(base, t.env);
  const run = doctor(snap, t.version);
  const verified = verifyRun(run, sims);
  const v = verifierFor(run, sims);
  const tag = `${t.version} ${JSON.stringify(t.env)}`;
  const plan = planEnv(verified.plan);
  // What the node still has with the whole recommended environment is its own: a fix may reveal it, not cause it.
  const target = v.resultsUnder(plan);
  const revealed = appeared(run.results, target);
  for (const r of verified.results) {
    const commands = r.remediation?.commands ?? [];
    if (bad(r) && commands.length && !r.remediation?.env && !r.verdict) {
      // Commands the model knows must have been checked; the others are said to be unchecked.
      if (kernelChanges(commands)) out.problems.push(`${tag}: ${r.checkId} "${r.summary}" shows kernel commands that were not checked`);
      else out.unmodelled.push(`${r.checkId}: ${commands.map((c) => c[0]).join(', ')}`);
    }
    if (!r.verdict) continue;
    out.triples++;
    if (r.verdict.withheld) {
      if (r.remediation?.env || r.remediation?.commands?.length) out.problems.push(`${tag}: ${r.checkId} withheld but still offers ${JSON.stringify(r.remediation)}`);
      out.withheld.push({ checkId: r.checkId, env: r.verdict.env, why: r.remediation?.advice ?? '' });
      continue;
    }
    const env = r.remediation?.env;
    const kernel = !env && commands.length > 0;
    if (kernel) {
      const key = JSON.stringify(commands);
      const n = budget.seen.get(key) ?? 0;
      if (n >= budget.cap) {
        out.triples--;
        continue;
      }
      budget.seen.set(key, n + 1);
      out.kernelTriples++;
    }
    const after = kernel ? v.resultsAfter(commands) : v.resultsUnder(env ?? {});
    const what = kernel ? JSON.stringify(commands) : JSON.stringify(env ?? {});
    if (!after) {
      out.problems.push(`${tag}: ${r.checkId} has a verdict for commands the model cannot apply: ${what}`);
      continue;
    }
    if (stillThere(r, run.results, after)) out.problems.push(`${tag}: ${r.checkId} "${r.summary}" not resolved by ${what}`);
    const fresh = appeared(run.results, after).filter((x) => kernel || !revealed.some((y) => y.checkId === x.checkId && y.summary === x.summary));
    if (fresh.length) out.problems.push(`${tag}: ${r.checkId}'s ${what} raises ${fresh.map((x) => `${x.checkId} "${x.summary}"`).join('; ')}`);
  }
  // The whole recommended environment: nothing an environment variable can fix is left, and an error that stays
  // (NCCL_COMM_ID pointing nowhere) is said first, as blocking (`ncclx env` then exits 1).
  const planned: DoctorRun = { results: target, checks: run.checks, context: makeContext(withEnv(snap, plan), { ncclVersion: t.version }, { ...OPTIONS, ncclVersion: t.version }) };
  const left = verifyRun(planned, sims).results;
  for (const r of left.filter((x) => bad(x) && /^(SOCK|IB|ENV)-/.test(x.checkId) && x.remediation?.env && Object.keys(x.remediation.env).length > 0 && !x.verdict?.withheld)) {
    out.problems.push(`${tag}: after ncclx env (${JSON.stringify(plan)}) ${r.checkId} "${r.summary}" is still fixable by ${JSON.stringify(r.remediation!.env)}`);
  }
  // Errors the environment causes: those the node does not have with no NCCL variable set (no interface at all is the node's own).
  const bare = v.resultsUnder(Object.fromEntries(Object.keys(snap.env.process).map((k) => [k, null])));
  // A node with no usable interface at all (transcribed trees without addresses) fails bootstrap whatever the
  // environment: its socket errors then are its own, whichever check words them.
  const noInterface = bare.some((y) => y.severity === 'error' && y.checkId.startsWith('SOCK-') && /: no interface\b/.test(y.summary));
  const own = (x: CheckResult) => (noInterface && x.checkId.startsWith('SOCK-')) || bare.some((y) => y.checkId === x.checkId && y.summary === x.summary && y.severity === 'error');
  const errors = left.filter((x) => x.severity === 'error' && /^(SOCK|ENV)-/.test(x.checkId) && !own(x));
  if (errors.length && !verified.plan.statements.some((s) => s.blocking)) {
    out.problems.push(`${tag}: after ncclx env (${JSON.stringify(plan)}) ${errors.map((x) => `${x.checkId} "${x.summary}"`).join('; ')} remain, and ncclx env says nothing blocking (it would exit 0)`);
  }
  return out;
}
