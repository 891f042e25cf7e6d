// Before a plan is shown, its end state is checked in the model: the doctor's
// checks run on the snapshot as it will be once every operation is applied
// (model/fix/simulate.ts). The plan then says which of the results its fixes
// claim are resolved, which are not, and whether anything new goes wrong —
// the same rule as for environment remediations (checks/verify.ts).

import { ALL_CHECKS } from '../checks/registry.js';
import { runDoctor } from '../checks/run.js';
import { newFindings } from '../checks/verify.js';
import { makeContext } from '../model/doctor/context.js';
import type { DoctorRun } from '../model/doctor/types.js';
import { planEndState } from '../model/fix/simulate.js';
import type { Fix, PlanCheck } from '../model/fix/types.js';
import { SEVERITY_RANK, type Severity } from '../model/result/types.js';

export type { PlanCheck };

export function checkPlanInModel(run: DoctorRun, fixes: Fix[]): PlanCheck {
  const ctx = run.context;
  const opts = { ncclVersion: ctx.options.ncclVersion };
  const before = run.checks.length === ALL_CHECKS.length ? run.results : runDoctor(ALL_CHECKS, ctx).results;
  const after = runDoctor(ALL_CHECKS, makeContext(planEndState(ctx.snapshot, fixes), opts, ctx.options)).results;
  // A result two fixes claim (ARP-002 needs the sysctls and the routing) is counted once.
  const claimed = [...new Map(fixes.filter((f) => !f.blocked).flatMap((f) => f.resolves).map((r) => [`${r.checkId}\0${r.summary}`, r])).values()];
  const resolved: PlanCheck['resolved'] = [];
  const remaining: PlanCheck['remaining'] = [];
  for (const c of claimed) {
    const still = after.find((r) => r.checkId === c.checkId && r.summary === c.summary && SEVERITY_RANK[r.severity] >= SEVERITY_RANK[c.severity as Severity]);
    if (still) remaining.push({ checkId: still.checkId, severity: still.severity, summary: still.summary });
    else resolved.push({ checkId: c.checkId, summary: c.summary });
  }
  return { resolved, remaining, newFindings: newFindings(before, after) };
}
