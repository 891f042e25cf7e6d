// View 1: every check result with its mark, grouped by family. Enter opens a
// result: what was found, the evidence, why it matters and the remediation.

import { checkedLine, remediationCommands, remediationLines } from '../../report/remediation.js';
import { Text } from 'ink';
import { visible } from '../../report/display.js';
import type { DoctorRun } from '../../model/doctor/types.js';
import { FAMILY_TITLE, type CheckResult, type Family } from '../../model/result/types.js';
import { usePersisted, useKeys, useColor } from '../screen.js';
import { commandRows, hband, hstep, type BlockItem, type HBand } from '../text.js';
import { clamp, Fill, HLine, Line, Mark, moveIndex, position, seg, Title, windowStart, wrap } from '../ui.js';

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

export interface DetailLine {
  text: string;
  style?: 'dim' | 'bold';
  /** A row of a command to paste (in the detail's command band: scrolled sideways together). */
  cmd?: boolean;
}

/** Indent of the remediation's lines. */
const CMD_INDENT = '  ';

/**
 * The detail of one result, as lines of at most `width` characters, and the
 * band the remediation's commands scroll in. Prose is word-wrapped; commands
 * are broken only between words, each continued row ending in ` \`, and a
 * word wider than the screen is scrolled to (← →), never cut.
 */
export function detailLines(run: DoctorRun, r: CheckResult, width: number): { lines: DetailLine[]; band: HBand } {
  const check = run.checks.find((c) => c.id === r.checkId);
  const out: DetailLine[] = [];
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
  const rem = r.remediation && { ...r.remediation, fixIds: [] };
  const lines = remediationLines(rem);
  const cmds = rem ? remediationCommands(rem) : [];
  let band = hband(0, width);
  if (lines.length) {
    out.push({ text: '' });
    out.push({ text: 'Remediation', style: 'bold' });
    // The advice is prose; the commands after it are pasted.
    for (const l of lines.slice(0, lines.length - cmds.length)) add(l, undefined, CMD_INDENT);
    const block = commandRows(
      cmds.flatMap((c): (string | BlockItem)[] => (c.includes('\n') ? c.split('\n').map((text) => ({ text, raw: true })) : [c])),
      width - CMD_INDENT.length,
    );
    band = block.band;
    for (const row of block.rows) out.push({ text: row, cmd: true });
    if (r.verdict?.resolves) add(checkedLine(r.verdict), 'dim', '  ');
  }
  const fixIds = r.remediation?.fixIds ?? [];
  if (fixIds.length) add(`ncclx fix --only ${fixIds.join(',')}  (or the Fixes view, 5)`, 'dim', '  ');
  return { lines: out, band };
}

function Detail({ run, result, height, width, scroll, hoff }: { run: DoctorRun; result: CheckResult; height: number; width: number; scroll: number; hoff: number }) {
  const { lines, band } = detailLines(run, result, width);
  const body = height - 1;
  const start = Math.max(0, Math.min(scroll, lines.length - body));
  return (
    <Fill height={height}>
      <Title note={`${position(lines.length, body, start)} Esc back`}>
        <Mark severity={result.severity} /> {result.checkId}
      </Title>
      {lines.slice(start, start + body).map((l, i) =>
        l.cmd ? (
          <HLine key={i} fixed={[seg(CMD_INDENT)]} body={[seg(l.text)]} band={band} off={hoff} />
        ) : (
          <Line key={i} dim={l.style === 'dim'} bold={l.style === 'bold'}>
            {l.text || ' '}
          </Line>
        ),
      )}
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
  const [hoff, setHoff] = usePersisted('summary.hoff', 0);
  const rows = summaryRows(run, problemsOnly);
  const results = rows.filter((r): r is Extract<Row, { kind: 'result' }> => r.kind === 'result');
  const selected = clamp(sel, results.length);
  const current = results[selected]?.result;
  const listHeight = height - 1;

  useKeys((input, key) => {
    if (open) {
      const band = current ? detailLines(run, current, width).band : null;
      // ← scrolls a wide command back first; at the left edge it closes, as before.
      if ((key.leftArrow || input === 'h') && band && hoff > 0) setHoff(hstep(band, hoff, -1));
      else if ((key.rightArrow || input === 'l') && band) setHoff(hstep(band, hoff, 1));
      else if (key.escape || key.return || key.leftArrow || key.backspace) setOpen(false);
      else if (key.upArrow || input === 'k') setScroll((s) => Math.max(0, s - 1));
      else if (key.downArrow || input === 'j') setScroll((s) => s + 1);
      else if (key.pageUp) setScroll((s) => Math.max(0, s - (height - 2)));
      else if (key.pageDown) setScroll((s) => s + (height - 2));
      return;
    }
    if (key.return || key.rightArrow) {
      if (current) {
        setScroll(0);
        setHoff(0);
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

  if (open && current) return <Detail run={run} result={current} height={height} width={width} scroll={scroll} hoff={hoff} />;

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
            <Mark severity={r.result.severity} /> {r.result.checkId.padEnd(8)} {visible(r.result.summary)}
          </Text>
        ),
      )}
    </Fill>
  );
}
