// Building results and remediations. Every check family and every NCCL model
// uses these, so a result always has the same shape and "ok", "unknown" and
// "set this variable" read the same everywhere.

import type { Evidence, Finding, FixId, Outcome, Remediation, Severity } from './types.js';

export function result(severity: Severity, summary: string, evidence: Evidence[], why: string, remediation: Remediation | null = null): Outcome {
  return { severity, summary, evidence, why, remediation: remediation && isEmpty(remediation) ? null : remediation };
}

/** A check that does not apply to this node (no RDMA device for an RDMA check): neither ok nor unknown. */
export function notApplicable(summary: string): Outcome {
  return result('na', summary, [], '');
}

export function ok(summary: string, evidence: Evidence[] = []): Outcome {
  return result('ok', summary, evidence, '');
}

/** A check that could not read what it needs: `<what>: <reason>`. */
export function unknownResult(summary: string, reason: string, evidence: Evidence[] = [], remediation: Remediation | null = null): Outcome {
  return result('unknown', `${summary}: ${reason}`, evidence, 'ncclx could not read what this check needs, so it cannot say whether the node is healthy here.', remediation);
}

/** Findings of an NCCL model (error/warn/info) as the results of one check; none means ok. */
export function findingResults(findings: Finding[], spec: { ok: string; why: string }, evidence: Evidence[], fixIds: FixId[] = []): Outcome[] {
  if (findings.length === 0) return [ok(spec.ok, evidence)];
  return findings.map((f) => result(f.severity, f.message, evidence, spec.why, fixIds.length ? { ...f.remediation, fixIds } : f.remediation));
}

export function isEmpty(r: Remediation): boolean {
  return !r.advice && !r.commands?.length && !r.fixIds?.length && (!r.env || Object.keys(r.env).length === 0);
}

// ---------------------------------------------------------------------------
// Remediation builders

/** Set (or, with null, unset) environment variables; `advice` says why or what else. */
export function setEnv(env: Record<string, string | null>, advice?: string): Remediation {
  return advice ? { advice, env } : { env };
}

export function unsetEnv(...names: string[]): Remediation {
  return { env: Object.fromEntries(names.map((n) => [n, null])) };
}

/** Commands as argument arrays. */
export function run(commands: string[][], advice?: string): Remediation {
  return advice ? { advice, commands } : { commands };
}

/** Something a person has to do or know that no command or variable expresses. */
export function advise(text: string): Remediation {
  return { advice: text };
}

/** Fixes `ncclx fix` can apply, with what else resolves it. */
export function withFixes(r: Remediation | null, fixIds: FixId[]): Remediation {
  return { ...(r ?? {}), fixIds: [...(r?.fixIds ?? []), ...fixIds] };
}
