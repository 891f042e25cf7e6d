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
import { applyCommands } from '../model/fix/commands.js';
import { ALL_CHECKS } from './registry.js';
import { runDoctor } from './run.js';

export { withEnv };

const bad = (r: CheckResult) => r.severity === 'warn' || r.severity === 'error';
const FAMILY_OF = new Map(ALL_CHECKS.map((c) => [c.id, c.family]));

/**
 * Doctor results of one node under changes, shared by the verifiers of its
 * runs (the TUI's what-ifs, the advice tests' environments): keyed by what the
 * change leaves — the version, the process environment, the conf files and the
 * commands applied — so one node's runs reuse each other's simulations. One
 * cache per node and check options.
 */
export type SimCache = Map<string, CheckResult[] | null>;

/** Runs every check on the node with an environment change, or with a remediation's commands applied; memoised per change. */
class Simulator {
  constructor(
    private readonly ctx: CheckContext,
    private readonly checks: Check[],
    private readonly cache: SimCache = new Map(),
  ) {}

  private key(snapshot: NodeSnapshot, commands: string[][] | null): string {
    const env = snapshot.env;
    return JSON.stringify([this.ctx.options.ncclVersion ?? null, Object.entries(env.process).sort(([a], [b]) => (a < b ? -1 : 1)), env.confFiles.map((f) => [f.path, f.content]), commands]);
  }

  private run(snapshot: NodeSnapshot, commands: string[][] | null): CheckResult[] | null {
    const key = this.key(snapshot, commands);
    if (!this.cache.has(key)) {
      const c = this.ctx;
      const snap = commands ? applyCommands(snapshot, commands) : snapshot;
      this.cache.set(key, snap ? runDoctor(this.checks, makeContext(snap, { ncclVersion: c.options.ncclVersion }, c.options)).results : null);
    }
    return this.cache.get(key)!;
  }

  results(env: Record<string, string | null>): CheckResult[] {
    return this.run(withEnv(this.ctx.snapshot, env), null)!;
  }

  /** The checks after these commands (model/fix/commands.ts), or null when a command is not one the model knows. */
  afterCommands(commands: string[][]): CheckResult[] | null {
    return this.run(this.ctx.snapshot, commands);
  }
}

/**
 * New warnings/errors: per check, those that were not there before, when the
 * check has more of them than before — counted per level, so a warning that
 * turns into an error (ARP-004 once arp_filter=1 is set without its policy
 * routing) is new too, while a reworded one is not.
 */
export function newFindings(before: CheckResult[], after: CheckResult[]): RemediationVerdict['newFindings'] {
  const out: RemediationVerdict['newFindings'] = [];
  const ids = new Set(after.filter(bad).map((r) => r.checkId));
  for (const id of ids) {
    for (const level of ['error', 'warn'] as const) {
      const atLeast = (r: CheckResult) => r.checkId === id && SEVERITY_RANK[r.severity] >= SEVERITY_RANK[level] && r.severity !== 'unknown';
      const was = before.filter(atLeast);
      const now = after.filter(atLeast);
      if (now.length <= was.length) continue; // reworded, not new
      for (const r of now.filter((x) => !was.some((y) => y.summary === x.summary && y.severity === x.severity))) {
        if (!out.some((o) => o.checkId === r.checkId && o.summary === r.summary)) out.push({ checkId: r.checkId, severity: r.severity, summary: r.summary });
      }
    }
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

/** Commands that did not pass in the model: not offered, and the advice says what they would do. */
function withheldCommands(r: Remediation, v: RemediationVerdict): Remediation {
  const why = v.newFindings.length
    ? `they would cause ${v.newFindings.map((f) => `${f.checkId} (${short(f.summary)})`).join('; ')}`
    : `they would leave ${v.remaining.length === 1 ? 'this' : v.remaining.length} unresolved${v.remaining.length === 1 ? '' : ` (${v.remaining.map(short).join('; ')})`}`;
  const { commands: _c, ...rest } = r;
  return { ...rest, advice: [r.advice, `ncclx does not suggest the commands it would otherwise print here: ${why}`].filter(Boolean).join('. ') };
}

export interface VerifiedRun extends DoctorRun {
  plan: EnvPlan;
}

export interface Verifier {
  /** The recommended environment every remediation is aligned with. */
  plan: EnvPlan;
  /** One result with its remediation aligned and, when it changes the environment, checked (`verdict`). */
  verify(r: CheckResult): CheckResult;
  /** Every check on the node with this environment change: what `verify` judged by. */
  resultsUnder(env: Record<string, string | null>): CheckResult[];
  /** Every check on the node after these commands, or null when the model does not know one of them. */
  resultsAfter(commands: string[][]): CheckResult[] | null;
}

/**
 * A verifier for one run; the simulations are shared (and cached) by every
 * result of the run, and with other runs of the same node through `shared`.
 */
export function verifierFor(run: DoctorRun, shared?: SimCache): Verifier {
  const ctx = run.context;
  return ctx.memo('verify.verifier', () => {
    const plan = ctx.memo('advice.envPlan', () => envPlan(ctx, { debug: false }));
    // Every check, whatever --only selected: a change must not break what was not asked about.
    const sim = new Simulator(ctx, ALL_CHECKS, shared);
    let baseline: CheckResult[] | null = null;
    const before = () => (baseline ??= run.checks.length === ALL_CHECKS.length ? run.results : sim.results({}));
    // The node as the whole recommended environment leaves it: what is still wrong there is the node's own
    // problem, which a remediation may reveal (an IFNAME that matched nothing hid an MTU mismatch) but does not cause.
    const target = () => sim.results(planEnv(plan));
    const current = ctx.reasoning.env.vars;
    const judge = (r: CheckResult, after: CheckResult[], env: Record<string, string | null>): RemediationVerdict => {
      const remaining = remainingOf(r, before(), after);
      let fresh = newFindings(before(), after);
      // Only what the change brings up needs the whole recommended environment run (one doctor run less when nothing comes up).
      if (fresh.length) {
        const revealed = newFindings(before(), target());
        fresh = fresh.filter((f) => !revealed.some((x) => x.checkId === f.checkId && x.summary === f.summary));
      }
      // Errors of the same family that stay (SOCK-007 after SOCK-001's fix): "resolves this" must not read as "the job works".
      const family = FAMILY_OF.get(r.checkId);
      const stillFailing = after.filter((x) => x.severity === 'error' && x !== r && FAMILY_OF.get(x.checkId) === family && x.checkId !== r.checkId && before().some((y) => y.checkId === x.checkId && y.summary === x.summary)).map((x) => ({ checkId: x.checkId, summary: x.summary }));
      return { resolves: remaining.length === 0 && fresh.length === 0, newFindings: fresh, remaining, env, withheld: false, ...(stillFailing.length ? { stillFailing } : {}) };
    };
    const check = (r: CheckResult, env: Record<string, string | null>): RemediationVerdict => judge(r, sim.results(env), env);
    // Commands, as a person pastes them alone: the kernel in the model after exactly those lines (model/fix/commands.ts).
    const checkCommands = (r: CheckResult, rem: Remediation): CheckResult => {
      const after = sim.afterCommands(rem.commands!);
      if (!after) return { ...r, remediation: rem };
      const verdict = judge(r, after, {});
      if (verdict.resolves) return { ...r, remediation: rem, verdict };
      verdict.withheld = true;
      return { ...r, remediation: withheldCommands(rem, verdict), verdict };
    };
    const verify = (r: CheckResult): CheckResult => {
      if (!r.remediation || r.verdict !== undefined) return r;
      // Warnings and errors follow the recommended environment; an info's change is optional and is checked as given.
      const aligned = dropNoops(r.severity === 'warn' || r.severity === 'error' ? alignRemediation(r.remediation, plan, current) : r.remediation, current);
      const env = aligned.env;
      const actionable = r.severity === 'warn' || r.severity === 'error';
      if ((!env || Object.keys(env).length === 0) && aligned.commands?.length && actionable) return checkCommands(r, aligned);
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
    return { plan, verify, resultsUnder: (env) => sim.results(env), resultsAfter: (commands) => sim.afterCommands(commands) };
  });
}

/** The run with every environment remediation aligned with the recommended environment and checked in the model. */
export function verifyRun(run: DoctorRun, shared?: SimCache): VerifiedRun {
  const v = verifierFor(run, shared);
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
