// Building check results. Every check family uses these, so a result always
// has the same shape and the "ok" and "unknown" cases read the same everywhere.

import type { Finding } from '../nccl/socket-findings.js';
import type { CheckResult, Evidence, Severity } from './types.js';

export function result(severity: Severity, summary: string, evidence: Evidence[], why: string, remediation: string | null = null, fixIds: string[] = []): CheckResult {
  return { checkId: '', severity, summary, evidence, why, remediation, fixIds };
}

export function ok(summary: string, evidence: Evidence[] = []): CheckResult {
  return result('ok', summary, evidence, '');
}

/** A check that could not read what it needs: `<what>: <reason>`. */
export function unknownResult(summary: string, reason: string, evidence: Evidence[] = []): CheckResult {
  return result('unknown', `${summary}: ${reason}`, evidence, 'ncclx could not read what this check needs, so it cannot say whether the node is healthy here.');
}

/** Explain-style findings (error/warn/info) as results of one check; none means ok. */
export function findingResults(
  findings: Finding[],
  spec: { ok: string; why: string },
  evidence: Evidence[],
  fixIds: string[] = [],
): CheckResult[] {
  if (findings.length === 0) return [ok(spec.ok, evidence)];
  return findings.map((f) => result(f.severity, f.message, evidence, spec.why, f.fix, fixIds));
}
