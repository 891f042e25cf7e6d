// Plain-text rendering of an ExplainReport.

import type { RemediationVerdict } from '../model/result/types.js';
import { findingJson, fixLines, remediationLines, verdictLines } from './remediation.js';
import type { ExplainReport } from '../model/nccl/explain.js';
import type { Finding } from '../model/nccl/socket-findings.js';
import type { ConsumerResult, TraceEntry } from '../model/nccl/socket.js';
import type { Style } from './style.js';
import { append, maxOf } from '../model/list.js';

const LABEL: Record<string, string> = {
  bootstrap: 'Bootstrap',
  socket: 'Socket transport',
  ibOob: 'IB transport OOB',
};

const MARK: Record<TraceEntry['verdict'], string> = { selected: '✓', skipped: '·', duplicate: '=', 'not-examined': ' ' };

function selectionLine(r: ConsumerResult, s: Style): string {
  const label = LABEL[r.consumer]!.padEnd(18);
  if (r.indeterminate) return `${label}${s.warn('?')} cannot predict: ${r.indeterminate}`;
  if (r.error) return `${label}${s.err('✗ none')} — NCCL WARN ${r.error.log.map((l) => `"${l}"`).join(', ')}`;
  const list = r.selected.map((x, i) => `${r.consumer === 'socket' ? `[${i}]` : ''}${x.name} ${x.display}`).join('  ');
  return `${label}${s.ok(list)}  ${s.dim(`(${r.stage})`)}`;
}

export function renderTrace(r: ConsumerResult, s: Style, indent = '  '): string[] {
  const lines: string[] = [];
  for (const st of r.stages) {
    const entries = r.trace.filter((t) => t.stage === st.stage);
    const found = st.found.length ? `→ ${st.found.join(', ')}` : '→ nothing';
    lines.push(`${indent}${s.bold(st.stage)} ${s.dim(`[${st.spec}]`)} ${found}`);
    const nameW = Math.min(16, Math.max(4, maxOf(entries.map((e) => e.name.length))));
    const addrW = Math.min(28, Math.max(7, maxOf(entries.map((e) => e.address.length))));
    for (const e of entries) {
      const mark = e.verdict === 'selected' ? s.ok(MARK[e.verdict]) : e.verdict === 'duplicate' ? s.dim(MARK[e.verdict]) : MARK[e.verdict];
      const reason = e.verdict === 'selected' ? e.reason : s.dim(e.reason);
      lines.push(`${indent}  ${mark} ${e.name.padEnd(nameW)} ${e.address.padEnd(addrW)} ${reason}`);
    }
  }
  return lines;
}

export function renderFinding(f: Finding, s: Style): string[] {
  const mark = f.severity === 'error' ? s.err('✗') : f.severity === 'warn' ? s.warn('!') : s.dim('i');
  return [`  ${mark} ${s.bold(f.id)} ${f.message}`, ...fixLines(remediationLines(f.remediation), s), ...verdictLines((f as { verdict?: RemediationVerdict | null }).verdict, s)];
}

export function renderExplain(r: ExplainReport, s: Style, verbose: boolean): string {
  const out: string[] = [];
  out.push(`${s.bold('ncclx explain')} — ${r.host}`);
  if (r.process) out.push(`Process ${r.process.pid} (${r.process.command.replace(/\s+/g, ' ')}): its environment and files; network namespace ${r.process.netns ?? '?'} read from ${r.process.networkFrom}`);
  out.push(`NCCL ${r.ncclVersion} ${s.dim(`(profile ${r.profile})`)}; version from ${r.versionSource}`);
  const inputs = Object.entries(r.inputs)
    .map(([k, v]) => (v.value === null ? `${k} unset` : `${k}=${JSON.stringify(v.value)} ${s.dim(`(${v.source})`)}`))
    .join('; ');
  out.push(`Inputs: ${inputs}`);
  out.push('');
  for (const c of [r.bootstrap, r.socket, r.ibOob]) out.push(selectionLine(c, s));
  const logs = [r.bootstrap, r.socket, r.ibOob].map((c) => c.log).filter((l): l is string => !!l);
  if (logs.length) {
    out.push('');
    out.push(s.dim('NCCL INFO lines to expect:'));
    for (const l of logs) out.push(s.dim(`  ${l}`));
  }
  out.push('');
  out.push(s.bold('Trace — socket transport (the IB OOB uses the same search and keeps the first):'));
  append(out, renderTrace(r.socket, s));
  if (r.bootstrap.stages.some((st) => !r.socket.stages.some((x) => x.stage === st.stage)) || verbose) {
    out.push('');
    out.push(s.bold('Trace — bootstrap:'));
    append(out, r.bootstrap.stages.length ? renderTrace(r.bootstrap, s) : ['  (no search)']);
  }
  if (verbose) {
    out.push('');
    out.push(s.bold('Trace — IB transport OOB:'));
    append(out, renderTrace(r.ibOob, s));
  }
  out.push('');
  if (r.findings.length === 0) {
    out.push(`${s.ok('✓')} No findings.`);
  } else {
    out.push(s.bold('Findings:'));
    for (const f of r.findings) append(out, renderFinding(f, s));
  }
  for (const w of r.warnings) out.push(s.warn(`warning: ${w}`));
  return out.join('\n') + '\n';
}

/** `explain --json` (docs/explain-json.md): the report, each finding with its remediation as data and as text. */
export function explainJson(r: ExplainReport) {
  return { ...r, findings: r.findings.map(findingJson) };
}
