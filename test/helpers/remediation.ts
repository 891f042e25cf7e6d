// A result's or finding's remediation as the text a person reads (report/remediation.ts).
import type { Remediation } from '../../src/model/result/types.js';
import { remediationCommands, remediationText } from '../../src/report/remediation.js';

export function fixText(x: { remediation: Remediation | null } | undefined): string {
  if (!x) throw new Error('no result or finding');
  return remediationText(x.remediation);
}

/** The fix ids a result names (none when it has no remediation). */
export function fixIdsOf(x: { remediation: Remediation | null }): string[] {
  return x.remediation?.fixIds ?? [];
}

/** A remediation as `doctor --json` prints it. */
export interface RemediationJson {
  env: Record<string, string | null>;
  commands: string[][];
  advice: string | null;
  fixIds: string[];
}

/** The lines a person pastes for a JSON remediation, exactly as the text report prints them. */
export function pasteLines(r: RemediationJson | null): string[] {
  if (!r) return [];
  return remediationCommands({ env: r.env, commands: r.commands, ...(r.advice ? { advice: r.advice } : {}) });
}
