// Advice is proven before it is printed. Every remediation that changes the
// environment is first aligned with the recommended environment (one function
// decides: model/advice/env-plan.ts), then applied to the same node data, and
// the model and every check run again. It is offered only if the result it
// answers is resolved and no new warning or error appears; otherwise the
// change is withheld and the result says what would happen instead.

import { alignRemediation, envPlan, planEnv, type EnvPlan } from '../model/advice/env-plan.js';
import { makeContext } from '../model/doctor/context.js';
import type { Check, CheckContext, CheckOptions, DoctorRun } from '../model/doctor/types.js';
import { SEVERITY_RANK, type CheckResult, type Finding, type Remediation, type RemediationVerdict } from '../model/result/types.js';
import type { NodeSnapshot } from '../model/snapshot/types.js';
import { withEnv } from '../model/snapshot/with-env.js';
import { ALL_CHECKS } from './registry.js';
import { runDoctor } from './run.js';

export { withEnv };

const bad = (r: CheckResult) => r.severity === 'warn' || r.severity === 'error';

/** Runs every check on the node with an environment change; memoised per change. */
class Simulator {
  private readonly cache = new Map<string, CheckResult[]>();
  constructor(
    private readonly ctx: CheckContext,
    private readonly checks: Check[],
  ) {}

  results(env: Record<string, string | null>): CheckResult[] {
    const key = JSON.stringify(Object.entries(env).sort(([a], [b]) => (a < b ? -1 : 1)));
    let r = this.cache.get(key);
    if (!r) {
      const c = this.ctx;
      const overrides = { ncclVersion: c.options.ncclVersion };
      r = runDoctor(this.checks, makeContext(withEnv(c.snapshot, env), overrides, c.options)).results;
      this.cache.set(key, r);
    }
    return r;
  }
}

/** New warnings/errors: per check, those that were not there before, when the check has more of them than before. */
export function newFindings(before: CheckResult[], after: CheckResult[]): RemediationVerdict['newFindings'] {
  const out: RemediationVerdict['newFindings'] = [];
  const ids = new Set(after.filter(bad).map((r) => r.checkId));
  for (const id of ids) {
    const was = before.filter((r) => r.checkId === id && bad(r));
    const now = after.filter((r) => r.checkId === id && bad(r));
    if (now.length <= was.length) continue; // reworded, not new
    for (const r of now.filter((x) => !was.some((y) => y.summary === x.summary))) out.push({ checkId: r.checkId, severity: r.severity, summary: r.summary });
  }
  return out;
}

/** Whether `r` is resolved: no result of its check as bad as it with the same summary, and fewer such results than before. */
function remainingOf(r: CheckResult, before: CheckResult[], after: CheckResult[]): string[] {
  const atLeast = (x: CheckResult) => x.checkId === r.checkId && SEVERITY_RANK[x.severity] >= SEVERITY_RANK[r.severity] && x.severity !== 'unknown';
  const was = before.filter(atLeast);
  const now = after.filter(atLeast);
  if (now.some((x) => x.summary === r.summary) || (now.length >= was.length && now.length > 0)) return now.map((x) => x.summary);
  return [];
}

/** The remediation without changes to what the variables already are (those change nothing). */
function dropNoops(r: Remediation, current: Record<string, string | undefined>): Remediation {
  if (!r.env) return r;
  const env = Object.fromEntries(Object.entries(r.env).filter(([k, v]) => v !== (current[k] ?? null)));
  const { env: _env, ...rest } = r;
  return Object.keys(env).length ? { ...rest, env } : rest;
}

function short(s: string): string {
  return s.length > 160 ? `${s.slice(0, 159)}…` : s;
}

/** The remediation offered when the change did not pass: the rest of it, and what would happen. */
function withheldRemediation(r: Remediation, v: RemediationVerdict): Remediation {
  const change = Object.entries(v.env).map(([k, val]) => (val === null ? `unset ${k}` : `${k}=${val}`)).join(', ');
  const why = v.newFindings.length
    ? `it would cause ${v.newFindings.map((f) => `${f.checkId} (${short(f.summary)})`).join('; ')}`
    : `it would leave ${v.remaining.length === 1 ? 'this' : v.remaining.length} unresolved${v.remaining.length === 1 ? '' : ` (${v.remaining.map(short).join('; ')})`}`;
  const { env: _env, ...rest } = r;
  return { ...rest, advice: [r.advice, `ncclx does not suggest ${change}: ${why}`].filter(Boolean).join('. ') };
}

export interface VerifiedRun extends DoctorRun {
  plan: EnvPlan;
}

export interface Verifier {
  /** The recommended environment every remediation is aligned with. */
  plan: EnvPlan;
  /** One result with its remediation aligned and, when it changes the environment, checked (`verdict`). */
  verify(r: CheckResult): CheckResult;
}

/** A verifier for one run; the simulations are shared (and cached) by every result of the run. */
export function verifierFor(run: DoctorRun): Verifier {
  const ctx = run.context;
  return ctx.memo('verify.verifier', () => {
    const plan = ctx.memo('advice.envPlan', () => envPlan(ctx, { debug: false }));
    // Every check, whatever --only selected: a change must not break what was not asked about.
    const sim = new Simulator(ctx, ALL_CHECKS);
    let baseline: CheckResult[] | null = null;
    const before = () => (baseline ??= run.checks.length === ALL_CHECKS.length ? run.results : sim.results({}));
    // The node as the whole recommended environment leaves it: what is still wrong there is the node's own
    // problem, which a remediation may reveal (an IFNAME that matched nothing hid an MTU mismatch) but does not cause.
    const target = () => sim.results(planEnv(plan));
    const current = ctx.reasoning.env.vars;
    const check = (r: CheckResult, env: Record<string, string | null>): RemediationVerdict => {
      const after = sim.results(env);
      const remaining = remainingOf(r, before(), after);
      let fresh = newFindings(before(), after);
      // Only what the change brings up needs the whole recommended environment run (one doctor run less when nothing comes up).
      if (fresh.length) {
        const revealed = newFindings(before(), target());
        fresh = fresh.filter((f) => !revealed.some((x) => x.checkId === f.checkId && x.summary === f.summary));
      }
      return { resolves: remaining.length === 0 && fresh.length === 0, newFindings: fresh, remaining, env, withheld: false };
    };
    const verify = (r: CheckResult): CheckResult => {
      if (!r.remediation || r.verdict !== undefined) return r;
      // Warnings and errors follow the recommended environment; an info's change is optional and is checked as given.
      const aligned = dropNoops(r.severity === 'warn' || r.severity === 'error' ? alignRemediation(r.remediation, plan, current) : r.remediation, current);
      const env = aligned.env;
      if (!env || Object.keys(env).length === 0 || r.severity === 'ok' || r.severity === 'unknown') return { ...r, remediation: aligned };
      const verdict = check(r, env);
      if (verdict.resolves) return { ...r, remediation: aligned, verdict };
      // The change alone breaks something the rest of the recommended environment takes care of: offer them together.
      if (verdict.newFindings.length && (r.severity === 'warn' || r.severity === 'error')) {
        const together = dropNoops({ env: { ...planEnv(plan), ...env } }, current).env ?? {};
        const v2 = check(r, together);
        if (v2.resolves) return { ...r, remediation: { ...aligned, env: together, advice: [aligned.advice, 'together with the rest of the recommended environment (ncclx env)'].filter(Boolean).join(', ') }, verdict: v2 };
      }
      verdict.withheld = true;
      return { ...r, remediation: withheldRemediation(aligned, verdict), verdict };
    };
    return { plan, verify };
  });
}

/** The run with every environment remediation aligned with the recommended environment and checked in the model. */
export function verifyRun(run: DoctorRun): VerifiedRun {
  const v = verifierFor(run);
  return { ...run, results: run.results.map(v.verify), plan: v.plan };
}

/** A finding of explain or ib with its remediation aligned and checked like a doctor result. */
export type VerifiedFinding = Finding & { verdict: RemediationVerdict | null };

/**
 * The findings of `explain` or `ib`, aligned and checked through the doctor on
 * the same data. `flags` are the command's overrides (--ifname, --hca, --set …)
 * as environment values, so the doctor models what the command modelled. A
 * finding is matched to the doctor's result of the same id, in order.
 */
export function verifyFindings(snapshot: NodeSnapshot, flags: Record<string, string | null>, options: CheckOptions, findings: Finding[]): VerifiedFinding[] {
  if (!findings.some((f) => f.remediation.env && Object.keys(f.remediation.env).length)) return findings.map((f) => ({ ...f, verdict: null }));
  const ctx = makeContext(withEnv(snapshot, flags), { ncclVersion: options.ncclVersion }, options);
  const run = runDoctor(ALL_CHECKS, ctx);
  const v = verifierFor(run);
  const seen = new Map<string, number>();
  return findings.map((f) => {
    const k = seen.get(f.id) ?? 0;
    seen.set(f.id, k + 1);
    const r = run.results.filter((x) => x.checkId === f.id && x.severity !== 'ok')[k];
    if (!r) return { ...f, remediation: f.severity === 'info' ? f.remediation : alignRemediation(f.remediation, v.plan, ctx.reasoning.env.vars), verdict: null };
    const checked = v.verify(r);
    return { ...f, remediation: checked.remediation ?? f.remediation, verdict: checked.verdict ?? null };
  });
}
