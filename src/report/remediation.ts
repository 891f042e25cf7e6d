// A remediation (src/model/result) as text a person can read and paste: the
// advice first, then one line per environment change and per command, each
// quoted for a POSIX shell. Every renderer (doctor, explain, ib, compare, the
// TUI) prints remediations through here, so they read the same everywhere.

import type { Remediation, RemediationVerdict } from '../model/result/types.js';
import { shExport, shJoin } from '../model/shell/quote.js';

/** `export NAME='value'` / `unset NAME`, in the remediation's order. */
export function envLines(env: Record<string, string | null> | undefined): string[] {
  return Object.entries(env ?? {}).map(([name, value]) => (value === null ? `unset ${name}` : shExport(name, value)));
}

/** The pasteable lines: environment changes, then commands. */
export function remediationCommands(r: Remediation): string[] {
  return [...envLines(r.env), ...(r.commands ?? []).map(shJoin)];
}

/** Advice (ending in ':' when commands follow) and the pasteable lines. */
export function remediationLines(r: Remediation | null): string[] {
  if (!r) return [];
  const cmds = remediationCommands(r);
  const advice = r.advice ? (cmds.length && !/[:.]$/.test(r.advice) ? `${r.advice}:` : r.advice) : null;
  return [...(advice ? [advice] : []), ...cmds];
}

/** One string, lines joined with newlines (JSON's `fix` field, short displays). */
export function remediationText(r: Remediation | null): string {
  return remediationLines(r).join('\n');
}

/** `fix:` lines under a finding: the first after the label, the rest aligned under it. */
export function fixLines(lines: string[], s: { dim(t: string): string }, indent = '      ', label = 'fix:'): string[] {
  return lines.map((l, i) => (i === 0 ? `${indent}${s.dim(label)} ${l}` : `${indent}${' '.repeat(label.length + 1)}${l}`));
}

/** The remediation in the JSON shape of docs/doctor-json.md: every key present, empty when unused. */
export function remediationJson(r: Remediation | null) {
  if (!r) return null;
  return { env: r.env ?? {}, commands: r.commands ?? [], advice: r.advice ?? null, fixIds: r.fixIds ?? [] };
}

/** A finding for JSON output: the remediation as data, the model's verdict on it, and `fix`, the same as pasteable text. */
export function findingJson<F extends { remediation: Remediation; verdict?: RemediationVerdict | null }>(f: F) {
  return { ...f, fix: remediationText(f.remediation), remediation: remediationJson(f.remediation), verdict: f.verdict ?? null };
}

/** The line under a fix that says it was checked in the model. */
export const CHECKED = 'checked: applied to this node in the model, it resolves this and raises nothing new';

/** The checked line of a verdict: errors of the same family that stay are named, so "resolves this" never reads as "the job works". */
export function checkedLine(v: RemediationVerdict): string {
  const stay = v.stillFailing ?? [];
  if (stay.length === 0) return CHECKED;
  const ids = [...new Set(stay.map((x) => x.checkId))];
  return `${CHECKED}; ${ids.join(', ')} ${ids.length === 1 && stay.length === 1 ? 'stays an error' : 'stay errors'} until ${ids.length === 1 && stay.length === 1 ? 'its' : 'their'} own fix`;
}

/** The checked line under a finding's fix, when its verdict resolves it. */
export function verdictLines(v: RemediationVerdict | null | undefined, s: { dim(t: string): string }): string[] {
  return v?.resolves ? [`      ${s.dim(checkedLine(v))}`] : [];
}
