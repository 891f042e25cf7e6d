// Doctor reports: text (flutter-doctor style marks), JSON, and the Prometheus
// textfile-collector format for node_exporter.

import type { DoctorRun } from '../model/doctor/types.js';
import { versionString } from '../model/nccl/versions.js';
import { countResults, exitCodeFor, FAMILY_TITLE, worstSeverity, type CheckInfo, type CheckResult, type Family, type Remediation, type Severity } from '../model/result/types.js';
import { checkedLine, fixLines, remediationJson, remediationLines } from './remediation.js';
import type { Style } from './style.js';
import { append } from '../model/list.js';

export { countResults, exitCodeFor };
export type { Counts as DoctorCounts } from '../model/result/types.js';

const MARK: Record<Severity, string> = { na: '-', ok: '✓', info: 'i', warn: '!', error: '✗', unknown: '?' };

function mark(sev: Severity, s: Style): string {
  const m = MARK[sev];
  return sev === 'ok' ? s.ok(m) : sev === 'error' ? s.err(m) : sev === 'warn' || sev === 'unknown' ? s.warn(m) : s.dim(m);
}

function header(run: DoctorRun): { host: string; version: string; profile: string; source: string } {
  const r = run.context.reasoning;
  return { host: run.context.snapshot.host.hostname, version: versionString(r.choice.version), profile: r.profile.id, source: r.choice.source };
}

/** A result that needs a person: shown (with why, evidence and fix) even without -v. */
const isProblem = (r: CheckResult) => r.severity === 'error' || r.severity === 'warn' || r.severity === 'unknown';

/** Results of one check with one severity said once: the summaries listed, the why and the fix once. */
interface Group {
  checkId: string;
  severity: Severity;
  results: CheckResult[];
}

function groupsOf(results: CheckResult[]): Group[] {
  const out: Group[] = [];
  for (const r of results) {
    const g = out.find((x) => x.checkId === r.checkId && x.severity === r.severity);
    if (g) g.results.push(r);
    else out.push({ checkId: r.checkId, severity: r.severity, results: [r] });
  }
  return out;
}

/** One remediation for a group: identical ones once; otherwise commands and env together, advice deduplicated. */
function mergedRemediation(rs: CheckResult[]): Remediation | null {
  const all = rs.map((r) => r.remediation).filter((r): r is Remediation => r !== null);
  if (all.length === 0) return null;
  const key = (x: Remediation) => JSON.stringify(remediationJson(x));
  if (all.every((x) => key(x) === key(all[0]!))) return all[0]!;
  const commands: string[][] = [];
  for (const c of all.flatMap((x) => x.commands ?? [])) if (!commands.some((y) => JSON.stringify(y) === JSON.stringify(c))) commands.push(c);
  const advice = [...new Set(all.map((x) => x.advice).filter((x): x is string => !!x))];
  return { env: all.reduce<Record<string, string | null>>((env, x) => Object.assign(env, x.env ?? {}), {}), commands, ...(advice.length ? { advice: advice.join('; ') } : {}), fixIds: [...new Set(all.flatMap((x) => x.fixIds ?? []))] };
}

function groupLines(g: Group, s: Style, o: { evidence: number; shown: Set<string>; verbose: boolean }): string[] {
  const [first] = g.results as [CheckResult];
  const out: string[] = [];
  // "<item>: <statement>" with one statement for every item: said once, on the list of items.
  const parts = g.results.map((r) => /^([^:\s]+): (.+)$/.exec(r.summary));
  const same = g.results.length > 1 && parts.every((m) => m && m[2] === parts[0]![2]);
  if (g.results.length === 1) out.push(`  ${mark(g.severity, s)} ${s.dim(g.checkId.padEnd(8))} ${first.summary}`);
  else if (same) out.push(`  ${mark(g.severity, s)} ${s.dim(g.checkId.padEnd(8))} ${parts[0]![2]} — on ${g.results.length}: ${parts.map((m) => m![1]).join(', ')}`);
  else {
    out.push(`  ${mark(g.severity, s)} ${s.dim(g.checkId.padEnd(8))} ${g.results.length} results:`);
    for (const r of g.results) out.push(`      - ${r.summary}`);
  }
  if (g.severity === 'na' || (g.severity === 'ok' && !o.verbose)) return out;
  // The same explanation once, even when results add a sentence of their own.
  const sentences = [...new Set(g.results.flatMap((r) => r.why.split(/(?<=\.)\s+/)).filter(Boolean))];
  if (sentences.length) out.push(`      ${s.dim('why:')} ${sentences.join(' ')}`);
  // Evidence already shown in this family is not repeated.
  let n = 0;
  for (const e of g.results.flatMap((r) => r.evidence)) {
    const k = `${e.kind}\0${e.source}\0${e.value}`;
    if (o.shown.has(k)) continue;
    o.shown.add(k);
    if (n++ >= o.evidence) {
      out.push(`      ${s.dim('… more evidence with -v')}`);
      break;
    }
    out.push(`      ${s.dim(`${e.kind === 'command' ? '$' : e.kind === 'file' ? 'file' : 'from'} ${e.source}:`)} ${e.value}`);
  }
  const rem = mergedRemediation(g.results);
  append(out, fixLines(remediationLines(rem && { ...rem, fixIds: [] }), s, '      ', g.severity === 'unknown' ? 'to know:' : 'fix:'));
  if (g.results.every((r) => r.verdict?.resolves)) out.push(`      ${s.dim(checkedLine(g.results[0]!.verdict!))}`);
  if (rem?.fixIds?.length) out.push(`      ${s.dim('ncclx fix --only')} ${rem.fixIds.join(',')}`);
  return out;
}

/**
 * flutter-doctor style: one line per family whose checks all pass, the
 * problems expanded (why, the first evidence, the fix), results of one check
 * said once; -v shows every check with all its evidence.
 */
export function renderDoctorText(run: DoctorRun, s: Style, verbose: boolean): string {
  const h = header(run);
  const proc = run.context.snapshot.process;
  const out: string[] = [`${s.bold('ncclx doctor')} — ${h.host}${proc ? ` — process ${proc.pid}` : ''} — NCCL ${h.version} ${s.dim(`(${h.source}${verbose ? `; profile ${h.profile}` : ''})`)}`, ''];
  const byId = new Map(run.checks.map((c) => [c.id, c] as const));
  const families = [...new Set(run.checks.map((c) => c.family))];
  for (const fam of families) {
    const checks = run.checks.filter((c) => c.family === fam);
    const results = run.results.filter((r) => byId.get(r.checkId)?.family === fam);
    if (results.length === 0) continue;
    const worst = worstSeverity(results);
    const c = countResults(results);
    const notes = [c.info ? `${c.info} info` : '', c.notApplicable ? `${c.notApplicable} not applicable` : ''].filter(Boolean).join(', ');
    const title = `${s.bold(FAMILY_TITLE[fam as Family])} ${s.dim(`(${checks.length} check${checks.length === 1 ? '' : 's'}${notes ? `; ${notes}` : ''})`)}`;
    out.push(`[${mark(worst === 'info' ? 'ok' : worst, s)}] ${title}`);
    const shown = new Set<string>();
    const groups = groupsOf(verbose ? results : results.filter(isProblem));
    for (const g of groups) append(out, groupLines(g, s, { evidence: verbose ? Infinity : 3, shown, verbose }));
    if (verbose || groups.length) out.push('');
  }
  const c = countResults(run.results);
  if (out[out.length - 1] !== '') out.push('');
  if (!verbose) out.push(s.dim('ncclx doctor -v shows every check with its evidence.'));
  const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
  out.push([plural(c.errors, 'error'), plural(c.warnings, 'warning'), `${c.unknown} unknown`, `${c.info} info`, `${c.ok} ok`, ...(c.notApplicable ? [`${c.notApplicable} not applicable`] : [])].join(', '));
  return out.join('\n') + '\n';
}

export function doctorJson(run: DoctorRun) {
  const h = header(run);
  const byId = new Map(run.checks.map((c) => [c.id, c] as const));
  return {
    schemaVersion: 3,
    host: h.host,
    ncclVersion: h.version,
    profile: h.profile,
    versionSource: h.source,
    versionBeyondModel: run.context.reasoning.choice.beyond,
    // --pid: the process reasoned about (docs/ps-json.md).
    process: run.context.snapshot.process ?? null,
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
/** The state as the value, so a check that changes state keeps its series: 0 ok/info/not applicable, 1 warn, 2 error, 3 unknown. */
export const PROM_STATUS: Record<Severity, number> = { na: 0, ok: 0, info: 0, warn: 1, error: 2, unknown: 3 };

export function renderPrometheus(run: DoctorRun, now = Date.now()): string {
  const h = header(run);
  const host = promLabel(h.host);
  const lines = [
    '# HELP ncclx_check_status ncclx doctor check state, worst result of the check: 0 ok/info/not applicable, 1 warning, 2 error, 3 unknown.',
    '# TYPE ncclx_check_status gauge',
  ];
  const worst = (c: CheckInfo): Severity => worstSeverity(run.results.filter((r) => r.checkId === c.id));
  for (const c of run.checks) lines.push(`ncclx_check_status{id="${promLabel(c.id)}",family="${c.family}",host="${host}"} ${PROM_STATUS[worst(c)]}`);
  const counts = countResults(run.results);
  lines.push('# HELP ncclx_results ncclx doctor results by severity.', '# TYPE ncclx_results gauge');
  for (const [sev, n] of [['error', counts.errors], ['warn', counts.warnings], ['unknown', counts.unknown], ['info', counts.info], ['ok', counts.ok], ['na', counts.notApplicable]] as const) {
    lines.push(`ncclx_results{severity="${sev}",host="${host}"} ${n}`);
  }
  lines.push('# HELP ncclx_nccl_info The NCCL version ncclx modelled (value always 1).', '# TYPE ncclx_nccl_info gauge');
  lines.push(`ncclx_nccl_info{host="${host}",nccl_version="${promLabel(h.version)}",profile="${promLabel(h.profile)}"} 1`);
  lines.push('# HELP ncclx_last_run_timestamp_seconds When ncclx doctor last ran.', '# TYPE ncclx_last_run_timestamp_seconds gauge');
  lines.push(`ncclx_last_run_timestamp_seconds{host="${host}"} ${Math.floor(now / 1000)}`);
  return lines.join('\n') + '\n';
}
