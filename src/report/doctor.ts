// Doctor reports: text (flutter-doctor style marks), JSON, and the Prometheus
// textfile-collector format for node_exporter.

import type { DoctorRun } from '../model/doctor/types.js';
import { versionString } from '../model/nccl/versions.js';
import { countResults, exitCodeFor, FAMILY_TITLE, worstSeverity, type CheckInfo, type Family, type Severity } from '../model/result/types.js';
import { CHECKED, fixLines, remediationJson, remediationLines } from './remediation.js';
import type { Style } from './style.js';

export { countResults, exitCodeFor };
export type { Counts as DoctorCounts } from '../model/result/types.js';

const MARK: Record<Severity, string> = { ok: '✓', info: 'i', warn: '!', error: '✗', unknown: '?' };

function mark(sev: Severity, s: Style): string {
  const m = MARK[sev];
  return sev === 'ok' ? s.ok(m) : sev === 'error' ? s.err(m) : sev === 'warn' || sev === 'unknown' ? s.warn(m) : s.dim(m);
}

function header(run: DoctorRun): { host: string; version: string; profile: string; source: string } {
  const r = run.context.reasoning;
  return { host: run.context.snapshot.host.hostname, version: versionString(r.choice.version), profile: r.profile.id, source: r.choice.source };
}

export function renderDoctorText(run: DoctorRun, s: Style, verbose: boolean): string {
  const h = header(run);
  const out: string[] = [`${s.bold('ncclx doctor')} — ${h.host} — NCCL ${h.version} ${s.dim(`(${h.profile}; ${h.source})`)}`];
  const families = [...new Set(run.checks.map((c) => c.family))];
  const byId = new Map(run.checks.map((c) => [c.id, c] as const));
  for (const fam of families) {
    const results = run.results.filter((r) => byId.get(r.checkId)?.family === fam);
    if (results.length === 0) continue;
    out.push('', s.bold(FAMILY_TITLE[fam as Family]));
    for (const r of results) {
      out.push(`  ${mark(r.severity, s)} ${s.dim(r.checkId.padEnd(8))} ${r.summary}`);
      if (!verbose) continue;
      if (r.why) out.push(`      ${s.dim('why:')} ${r.why}`);
      for (const e of r.evidence) out.push(`      ${s.dim(`${e.kind === 'command' ? '$' : e.kind === 'file' ? 'file' : 'from'} ${e.source}:`)} ${e.value}`);
      out.push(...fixLines(remediationLines(r.remediation && { ...r.remediation, fixIds: [] }), s));
      if (r.verdict?.resolves) out.push(`      ${s.dim(CHECKED)}`);
      if (r.remediation?.fixIds?.length) out.push(`      ${s.dim('ncclx fix --only')} ${r.remediation.fixIds.join(',')}`);
    }
  }
  const c = countResults(run.results);
  const extra = [c.unknown ? `${c.unknown} unknown` : '', c.info ? `${c.info} info` : ''].filter(Boolean).join(', ');
  out.push('');
  if (extra) out.push(s.dim(extra));
  if (!verbose && (c.errors || c.warnings)) out.push(s.dim('Run with -v for evidence and fixes.'));
  out.push(`${c.errors} error${c.errors === 1 ? '' : 's'}, ${c.warnings} warning${c.warnings === 1 ? '' : 's'}, ${c.ok} ok`);
  return out.join('\n') + '\n';
}

export function doctorJson(run: DoctorRun) {
  const h = header(run);
  const byId = new Map(run.checks.map((c) => [c.id, c] as const));
  return {
    schemaVersion: 2,
    host: h.host,
    ncclVersion: h.version,
    profile: h.profile,
    versionSource: h.source,
    versionBeyondModel: run.context.reasoning.choice.beyond,
    summary: countResults(run.results),
    exitCode: exitCodeFor(run.results),
    results: run.results.map((r) => ({
      id: r.checkId,
      family: byId.get(r.checkId)?.family ?? null,
      title: byId.get(r.checkId)?.title ?? null,
      severity: r.severity,
      summary: r.summary,
      evidence: r.evidence,
      why: r.why || null,
      remediation: remediationJson(r.remediation),
      // The model's verdict on an environment change: checked by applying it and running every check again.
      verdict: r.verdict ?? null,
      fixIds: r.remediation?.fixIds ?? [],
    })),
    warnings: run.context.snapshot.warnings,
  };
}

function promLabel(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/** One gauge per check: its worst severity as a label, value 1. */
export function renderPrometheus(run: DoctorRun, now = Date.now()): string {
  const h = header(run);
  const lines = [
    '# HELP ncclx_check ncclx doctor check result: the severity label is the worst result of the check (value always 1).',
    '# TYPE ncclx_check gauge',
  ];
  const worst = (c: CheckInfo): Severity => worstSeverity(run.results.filter((r) => r.checkId === c.id));
  for (const c of run.checks) {
    lines.push(`ncclx_check{id="${promLabel(c.id)}",family="${c.family}",severity="${worst(c)}",host="${promLabel(h.host)}"} 1`);
  }
  const counts = countResults(run.results);
  lines.push('# HELP ncclx_results ncclx doctor results by severity.', '# TYPE ncclx_results gauge');
  for (const [sev, n] of [['error', counts.errors], ['warn', counts.warnings], ['ok', counts.ok], ['info', counts.info], ['unknown', counts.unknown]] as const) {
    lines.push(`ncclx_results{severity="${sev}",host="${promLabel(h.host)}"} ${n}`);
  }
  lines.push('# HELP ncclx_last_run_timestamp_seconds When ncclx doctor last ran.', '# TYPE ncclx_last_run_timestamp_seconds gauge');
  lines.push(`ncclx_last_run_timestamp_seconds{host="${promLabel(h.host)}",nccl_version="${promLabel(h.version)}"} ${Math.floor(now / 1000)}`);
  return lines.join('\n') + '\n';
}
