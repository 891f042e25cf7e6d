// What the Fixes view needs from `ncclx fix` (src/fix/index.ts), as an
// interface so tests can hand the view a fake that records what it was asked.

import type { DoctorRun } from '../checks/run.js';
import type { ApplyEvent, ApplyOutcome, Fix, FixPlan, OpSpec } from '../fix/types.js';

export interface FixApi {
  proposeFixes(run: DoctorRun, opts?: { source?: { live: boolean; root: string } }): Promise<FixPlan>;
  /** Pasteable, shell-quoted commands (or file writes) for one operation. */
  commandsFor(op: OpSpec): string[];
  /** Why the fixes cannot be applied here (not root, tools missing, not the live node); empty when they can. */
  preflight(fixes: Fix[], opts?: { live?: boolean }): string[];
  applyPlan(fixes: Fix[], opts: { journal?: string; onEvent?: (e: ApplyEvent) => void }): Promise<ApplyOutcome>;
  rollbackJournal(path: string, opts: { onEvent?: (e: ApplyEvent) => void }): Promise<ApplyOutcome>;
}

/** The real implementation, loaded only when the Fixes view needs it. */
export async function loadFixApi(): Promise<FixApi> {
  const fix = await import('../fix/index.js');
  return fix satisfies FixApi;
}
