// Running checks: a check that throws becomes an `unknown` result carrying the
// error, never a crash (expo-doctor's rule).

import type { Check, CheckContext, DoctorRun } from '../model/doctor/types.js';
import type { CheckResult } from '../model/result/types.js';
import { remedyForUnknown, whereOf } from '../model/linux/remedies.js';

export function runCheck(check: Check, ctx: CheckContext): CheckResult[] {
  try {
    const out = check.run(ctx);
    const list = Array.isArray(out) ? out : [out];
    // Every unknown says what would make it known.
    return list.map((r) => ({ checkId: check.id, ...r, ...(r.severity === 'unknown' && !r.remediation ? { remediation: remedyForUnknown(r.summary, r.evidence.map((e) => e.value).join(' '), whereOf(ctx.snapshot)) } : {}) }));
  } catch (e) {
    const err = e instanceof Error ? e.message : String(e);
    return [
      {
        checkId: check.id,
        severity: 'unknown',
        summary: `${check.title}: the check itself failed (${err})`,
        evidence: [{ kind: 'value', source: 'exception', value: e instanceof Error && e.stack ? e.stack.split('\n').slice(0, 3).join(' | ') : err }],
        why: 'ncclx could not evaluate this check, so it cannot say whether the node is healthy here.',
        remediation: remedyForUnknown('the check itself failed', err, whereOf(ctx.snapshot)),
      },
    ];
  }
}

/** Select checks by --only / --skip (ids or id prefixes like SOCK or ARP-). */
export function selectChecks(all: Check[], only: string[] | undefined, skip: string[] | undefined): Check[] {
  const matches = (id: string, pats: string[]) => pats.some((p) => id === p || id.startsWith(p.endsWith('-') ? p : `${p}-`));
  return all.filter((c) => (!only || only.length === 0 || matches(c.id, only)) && !(skip && matches(c.id, skip)));
}

export function runDoctor(checks: Check[], ctx: CheckContext): DoctorRun {
  const results = checks.flatMap((c) => runCheck(c, ctx));
  return { results, checks: checks.map(({ id, title, family }) => ({ id, title, family })), context: ctx };
}
