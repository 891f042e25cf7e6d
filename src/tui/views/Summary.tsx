// View 1: every check result with its mark, grouped by family. Enter opens a
// result: what was found, the evidence, why it matters and the remediation.

import { CHECKED, remediationLines } from '../../report/remediation.js';
import { Text } from 'ink';
import type { DoctorRun } from '../../model/doctor/types.js';
import { FAMILY_TITLE, type CheckResult, type Family } from '../../model/result/types.js';
import { usePersisted, useKeys, useColor } from '../screen.js';
import { clamp, Fill, Line, Mark, moveIndex, position, Title, windowStart, wrap } from '../ui.js';

type Row = { kind: 'family'; family: Family } | { kind: 'result'; result: CheckResult; n: number };

export function summaryRows(run: DoctorRun, problemsOnly: boolean): Row[] {
  const familyOf = new Map(run.checks.map((c) => [c.id, c.family] as const));
  const families = [...new Set(run.checks.map((c) => c.family))];
  const rows: Row[] = [];
  let n = 0;
  for (const family of families) {
    const results = run.results.filter((r) => familyOf.get(r.checkId) === family && (!problemsOnly || r.severity !== 'ok' && r.severity !== 'na'));
    if (results.length === 0) continue;
    rows.push({ kind: 'family', family });
    for (const result of results) rows.push({ kind: 'result', result, n: n++ });
  }
  return rows;
}

/** Index (in display order) of the first error, else the first warning, else 0. */
export function firstProblem(run: DoctorRun): number {
  const results = summaryRows(run, false).flatMap((r) => (r.kind === 'result' ? [r.result] : []));
  for (const sev of ['error', 'warn'] as const) {
    const i = results.findIndex((r) => r.severity === sev);
    if (i >= 0) return i;
  }
  return 0;
}

/** The detail of one result, as lines of at most `width` characters. */
export function detailLines(run: DoctorRun, r: CheckResult, width: number): { text: string; style?: 'dim' | 'bold' }[] {
  const check = run.checks.find((c) => c.id === r.checkId);
  const out: { text: string; style?: 'dim' | 'bold' }[] = [];
  const add = (text: string, style?: 'dim' | 'bold', indent = '') => wrap(text, width, indent).forEach((t) => out.push({ text: t, ...(style ? { style } : {}) }));
  if (check) add(`${check.title} (${FAMILY_TITLE[check.family]})`, 'dim');
  add(r.summary);
  if (r.why) {
    out.push({ text: '' });
    out.push({ text: 'Why', style: 'bold' });
    add(r.why, undefined, '  ');
  }
  if (r.evidence.length) {
    out.push({ text: '' });
    out.push({ text: 'Evidence', style: 'bold' });
    for (const e of r.evidence) {
      add(`${e.kind === 'command' ? '$' : e.kind === 'file' ? 'file' : 'from'} ${e.source}:`, 'dim', '  ');
      add(e.value, undefined, '    ');
    }
  }
  const lines = remediationLines(r.remediation && { ...r.remediation, fixIds: [] });
  if (lines.length) {
    out.push({ text: '' });
    out.push({ text: 'Remediation', style: 'bold' });
    for (const l of lines) add(l, undefined, '  ');
    if (r.verdict?.resolves) add(CHECKED, 'dim', '  ');
  }
  const fixIds = r.remediation?.fixIds ?? [];
  if (fixIds.length) add(`ncclx fix --only ${fixIds.join(',')}  (or the Fixes view, 5)`, 'dim', '  ');
  return out;
}

function Detail({ run, result, height, width, scroll }: { run: DoctorRun; result: CheckResult; height: number; width: number; scroll: number }) {
  const lines = detailLines(run, result, width);
  const body = height - 1;
  const start = Math.max(0, Math.min(scroll, lines.length - body));
  return (
    <Fill height={height}>
      <Title note={`${position(lines.length, body, start)} Esc back`}>
        <Mark severity={result.severity} /> {result.checkId}
      </Title>
      {lines.slice(start, start + body).map((l, i) => (
        <Line key={i} dim={l.style === 'dim'} bold={l.style === 'bold'}>
          {l.text || ' '}
        </Line>
      ))}
    </Fill>
  );
}

export function SummaryView({ run, height, width, active }: { run: DoctorRun; height: number; width: number; active: boolean }) {
  const c = useColor();
  const [problemsOnly, setProblemsOnly] = usePersisted('summary.problemsOnly', false);
  // The cursor starts on the worst result: that is what the person came for.
  const [sel, setSel] = usePersisted('summary.selected', () => firstProblem(run));
  const [open, setOpen] = usePersisted('summary.open', false);
  const [scroll, setScroll] = usePersisted('summary.scroll', 0);
  const rows = summaryRows(run, problemsOnly);
  const results = rows.filter((r): r is Extract<Row, { kind: 'result' }> => r.kind === 'result');
  const selected = clamp(sel, results.length);
  const current = results[selected]?.result;
  const listHeight = height - 1;

  useKeys((input, key) => {
    if (open) {
      if (key.escape || key.return || key.leftArrow || key.backspace) setOpen(false);
      else if (key.upArrow || input === 'k') setScroll((s) => Math.max(0, s - 1));
      else if (key.downArrow || input === 'j') setScroll((s) => s + 1);
      else if (key.pageUp) setScroll((s) => Math.max(0, s - (height - 2)));
      else if (key.pageDown) setScroll((s) => s + (height - 2));
      return;
    }
    if (key.return || key.rightArrow) {
      if (current) {
        setScroll(0);
        setOpen(true);
      }
      return;
    }
    if (input === 'f') {
      setProblemsOnly(!problemsOnly);
      setSel(0);
      return;
    }
    const next = moveIndex(input, key, selected, results.length, listHeight - 1);
    if (next !== null) setSel(next);
  }, active);

  if (open && current) return <Detail run={run} result={current} height={height} width={width} scroll={scroll} />;

  const rowIndex = rows.findIndex((r) => r.kind === 'result' && r.n === selected);
  const start = windowStart(rows.length, listHeight, Math.max(0, rowIndex));
  return (
    <Fill height={height}>
      <Title note={[position(rows.length, listHeight, start), problemsOnly ? 'problems only (f: all)' : 'f: problems only'].filter(Boolean).join(' · ')}>
        {results.length} results
      </Title>
      {results.length === 0 ? <Line dim>No problems: every check is ok.</Line> : null}
      {rows.slice(start, start + listHeight).map((r) =>
        r.kind === 'family' ? (
          <Line key={`f-${r.family}`} bold color={c('cyan')}>
            {FAMILY_TITLE[r.family]}
          </Line>
        ) : (
          <Text key={`r-${r.n}`} wrap="truncate-end" inverse={r.n === selected}>
            {r.n === selected ? '› ' : '  '}
            <Mark severity={r.result.severity} /> {r.result.checkId.padEnd(8)} {r.result.summary}
          </Text>
        ),
      )}
    </Fill>
  );
}
