// What the Fixes view needs from `ncclx fix` (src/commands/fix-api.ts), as an
// interface: `ncclx doctor` hands the real one in (the UI never imports the
// command layer), tests a fake that records what it was asked.

import type { DoctorRun } from '../model/doctor/types.js';
import type { ApplyEvent, ApplyOutcome, Fix, FixPlan, OpSpec } from '../model/fix/types.js';

export interface FixApi {
  proposeFixes(run: DoctorRun, opts?: { source?: { live: boolean; root: string } }): Promise<FixPlan>;
  /** Pasteable, shell-quoted commands (or file writes) for one operation. */
  commandsFor(op: OpSpec): string[];
  /** Why the fixes cannot be applied here (not root, tools missing, not the live node); empty when they can. */
  preflight(fixes: Fix[], opts?: { live?: boolean }): string[];
  applyPlan(fixes: Fix[], opts: { journal?: string; onEvent?: (e: ApplyEvent) => void }): Promise<ApplyOutcome>;
  rollbackJournal(path: string, opts: { onEvent?: (e: ApplyEvent) => void }): Promise<ApplyOutcome>;
}
