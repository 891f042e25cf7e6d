// View 5: the fixes the doctor proposes, with checkboxes; a preview of the
// exact commands; apply after an explicit y, with each operation's progress
// and result; rollback from the journal when an apply went wrong.

import { Box, Text } from 'ink';
import { useEffect } from 'react';
import type { DoctorRun } from '../../model/doctor/types.js';
import type { ApplyEvent, ApplyOutcome, Fix, FixPlan } from '../../model/fix/types.js';
import type { FixApi } from '../fix-api.js';
import type { NodeSource } from '../model.js';
import { sourceLabel } from '../Header.js';
import { useCapture, useColor, useKeys, usePersisted } from '../screen.js';
import { commandRows, hstep, type BlockItem } from '../text.js';
import { clamp, Fill, HLine, Line, moveIndex, position, seg, Title, windowStart, wrap } from '../ui.js';
import { visible } from '../../report/display.js';
import { append } from '../../model/list.js';

type Phase = 'list' | 'preview' | 'confirm' | 'applying' | 'done' | 'confirm-rollback' | 'rolling-back';

export interface FixesState {
  plan: FixPlan | null;
  error: string | null;
  checked: string[];
  phase: Phase;
  events: ApplyEvent[];
  outcome: ApplyOutcome | null;
  journal: string | null;
  message: string[] | null;
}

const INITIAL: FixesState = { plan: null, error: null, checked: [], phase: 'list', events: [], outcome: null, journal: null, message: null };

/**
 * The commands every selected fix runs, in order, each fix headed by a
 * comment. A command of several lines (a heredoc writing a file) is kept raw:
 * its body is the file's content, never rewrapped.
 */
export function previewItems(api: FixApi, fixes: Fix[]): BlockItem[] {
  const out: BlockItem[] = [];
  for (const f of fixes) {
    out.push({ text: `# ${f.id}: ${f.title}` });
    for (const op of f.ops)
      for (const cmd of api.commandsFor(op)) {
        if (cmd.includes('\n')) append(out, cmd.split('\n').map((text) => ({ text, raw: true })));
        else out.push({ text: cmd });
      }
  }
  return out;
}

/** One line per operation as it runs: the latest event of each op index, undo lines after. */
export function eventLines(events: ApplyEvent[]): { mark: string; text: string; tone: 'ok' | 'err' | 'run' | 'dim' }[] {
  const rows: { key: string; mark: string; text: string; tone: 'ok' | 'err' | 'run' | 'dim' }[] = [];
  const put = (key: string, row: { mark: string; text: string; tone: 'ok' | 'err' | 'run' | 'dim' }) => {
    const i = rows.findIndex((r) => r.key === key);
    if (i >= 0) rows[i] = { key, ...row };
    else rows.push({ key, ...row });
  };
  for (const e of events) {
    if (e.type === 'journal') put('journal', { mark: ' ', text: `journal ${e.path}`, tone: 'dim' });
    else if (e.type === 'op-start') put(`op${e.index}`, { mark: '…', text: e.text, tone: 'run' });
    else if (e.type === 'op-done') put(`op${e.index}`, { mark: '✓', text: `${e.text}${e.changed ? '' : ' (already so)'}`, tone: 'ok' });
    else if (e.type === 'op-failed') put(`op${e.index}`, { mark: '✗', text: `${e.text}: ${e.error}`, tone: 'err' });
    else if (e.type === 'undo-start') put(`undo${e.index}`, { mark: '↶', text: `undo ${e.text}`, tone: 'run' });
    else if (e.type === 'undo-done') put(`undo${e.index}`, { mark: '↶', text: `undone: ${e.text}`, tone: 'ok' });
    else put(`undo${e.index}`, { mark: '✗', text: `undo failed: ${e.text}: ${e.error}`, tone: 'err' });
  }
  return rows.map(({ key: _k, ...r }) => r);
}

export function outcomeText(o: ApplyOutcome, what: 'apply' | 'rollback'): string {
  if (what === 'rollback') return o.status === 'rollback-failed' ? `✗ rollback incomplete: ${o.undoErrors.join('; ')}` : `✓ rolled back (${o.changed} operation${o.changed === 1 ? '' : 's'} undone)`;
  switch (o.status) {
    case 'applied':
      return `✓ applied: ${o.changed} changed, ${o.unchanged} already in place`;
    case 'unchanged':
      return '✓ nothing to do: everything was already in place';
    case 'rolled-back':
      return `✗ failed at ${o.failure?.text ?? '?'}: ${o.failure?.error ?? ''} — every change was rolled back`;
    case 'rollback-failed':
    default:
      return `✗ failed at ${o.failure?.text ?? '?'}: ${o.failure?.error ?? ''} — and the rollback failed: ${o.undoErrors.join('; ')}`;
  }
}

/** Rollback is offered when an apply left changes behind: a failed rollback (retry) or a completed apply (undo). */
export const rollbackOffered = (o: ApplyOutcome | null, journal: string | null): boolean => !!o && !!journal && (o.status === 'rollback-failed' || o.status === 'applied');

export interface FixesProps {
  api: FixApi | null;
  /** Why the fix module is unavailable, when api is null. */
  unavailable?: string;
  run: DoctorRun;
  source: NodeSource;
  height: number;
  width: number;
  active: boolean;
}

export function FixesView({ api, unavailable, run, source, height, width, active }: FixesProps) {
  const c = useColor();
  const [st, setSt] = usePersisted<FixesState>('fixes.state', INITIAL);
  const [sel, setSel] = usePersisted('fixes.selected', 0);
  const [scroll, setScroll] = usePersisted('fixes.scroll', 0);
  const [hoff, setHoff] = usePersisted('fixes.hoff', 0);
  const busy = st.phase === 'applying' || st.phase === 'rolling-back' || st.phase === 'confirm' || st.phase === 'confirm-rollback';
  useCapture('fixes', active && busy);
  const live = source.kind === 'live';
  const update = (p: Partial<FixesState>) => setSt((old) => ({ ...old, ...p }));

  useEffect(() => {
    if (!api || st.plan || st.error) return;
    let gone = false;
    api
      .proposeFixes(run, { source: { live, root: source.kind === 'root' ? source.path : '/' } })
      .then((plan) => !gone && update({ plan }))
      .catch((e: unknown) => !gone && update({ error: e instanceof Error ? e.message : String(e) }));
    return () => {
      gone = true;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [api, run]);

  const fixes = st.plan?.fixes ?? [];
  const selected = clamp(sel, fixes.length);
  const chosen = fixes.filter((f) => st.checked.includes(f.id) && !f.blocked);
  // The commands shown: wrapped between words with ` \`, scrolled sideways (← →) where one word or a file line is wider.
  const shown = api ? (chosen.length ? chosen : fixes[selected] ? [fixes[selected]!] : []) : [];
  const preview = commandRows(api ? previewItems(api, shown) : [], width);
  const onEvent = (e: ApplyEvent) => setSt((old) => ({ ...old, events: [...old.events, e], journal: e.type === 'journal' ? e.path : old.journal }));

  const startApply = () => {
    if (!api) return;
    update({ phase: 'applying', events: [], outcome: null, journal: null, message: null });
    api
      .applyPlan(chosen, { onEvent })
      .then((outcome) => setSt((old) => ({ ...old, phase: 'done', outcome, journal: outcome.journal ?? old.journal })))
      .catch((e: unknown) => update({ phase: 'done', message: [`✗ apply stopped: ${e instanceof Error ? e.message : String(e)}`] }));
  };
  const startRollback = () => {
    if (!api || !st.journal) return;
    const journal = st.journal;
    update({ phase: 'rolling-back', events: [], message: null });
    api
      .rollbackJournal(journal, { onEvent })
      .then((o) => update({ phase: 'done', outcome: null, message: [outcomeText(o, 'rollback')] }))
      .catch((e: unknown) => update({ phase: 'done', message: [`✗ rollback stopped: ${e instanceof Error ? e.message : String(e)}`] }));
  };

  useKeys((input, key) => {
    if (!api || !st.plan) return;
    switch (st.phase) {
      case 'confirm':
        if (input === 'y' || input === 'Y') startApply();
        else if (input === 'n' || input === 'N' || key.escape) update({ phase: 'list', message: ['Cancelled: nothing was changed.'] });
        return;
      case 'confirm-rollback':
        if (input === 'y' || input === 'Y') startRollback();
        else if (input === 'n' || input === 'N' || key.escape) update({ phase: 'done', message: ['Rollback cancelled.'] });
        return;
      case 'applying':
      case 'rolling-back':
        return;
      case 'done':
        if (input === 'r' && rollbackOffered(st.outcome, st.journal)) update({ phase: 'confirm-rollback' });
        else if (key.escape || key.return) update({ phase: 'list', events: [], outcome: null, message: null, checked: [] });
        return;
      case 'preview':
        if (key.leftArrow || key.rightArrow || input === 'h' || input === 'l') setHoff(hstep(preview.band, hoff, key.leftArrow || input === 'h' ? -1 : 1));
        else if (key.escape || input === 'p' || key.return) update({ phase: 'list' });
        else if (key.upArrow || input === 'k') setScroll((s) => Math.max(0, s - 1));
        else if (key.downArrow || input === 'j') setScroll((s) => s + 1);
        else if (key.pageUp) setScroll((s) => Math.max(0, s - (height - 2)));
        else if (key.pageDown) setScroll((s) => s + (height - 2));
        return;
      case 'list': {
        const f = fixes[selected];
        if (key.leftArrow || key.rightArrow || input === 'h' || input === 'l') setHoff(hstep(preview.band, hoff, key.leftArrow || input === 'h' ? -1 : 1));
        else if (input === ' ' && f) {
          if (f.blocked) update({ message: [`${f.id} cannot be applied as planned: ${f.blocked}`] });
          else update({ checked: st.checked.includes(f.id) ? st.checked.filter((x) => x !== f.id) : [...st.checked, f.id], message: null });
        } else if (input === 'a') {
          const all = fixes.filter((x) => !x.blocked).map((x) => x.id);
          update({ checked: st.checked.length === all.length ? [] : all, message: null });
        } else if (input === 'p') {
          setScroll(0);
          update({ phase: 'preview' });
        } else if (key.return) {
          if (chosen.length === 0) update({ message: ['Select fixes with Space first (a selects every applicable one).'] });
          else if (!live)
            update({
              message: [
                `Not applied: fixes apply to this node only, and this view shows ${sourceLabel(source)}.`,
                'Run `ncclx doctor` on the node itself to apply them; the preview (p) has the exact commands.',
              ],
            });
          else {
            const problems = api.preflight(chosen, { live });
            if (problems.length) update({ message: ['Cannot apply here:', ...problems.map((p) => `  ✗ ${p}`)] });
            else update({ phase: 'confirm', message: null });
          }
        } else {
          const next = moveIndex(input, key, selected, fixes.length, 3);
          if (next !== null) setSel(next);
        }
      }
    }
  }, active);

  if (!api) return <Fill height={height}><Line color={c('yellow')}>Fixes are not available: {unavailable ?? 'the fix module could not be loaded'}</Line></Fill>;
  if (st.error) return <Fill height={height}><Line color={c('red')}>Could not plan fixes: {st.error}</Line></Fill>;
  if (!st.plan) return <Fill height={height}><Line dim>Planning fixes…</Line></Fill>;

  const pline = (l: string, i: number | string) => <HLine key={i} dim={l.startsWith('#')} body={[seg(l)]} band={preview.band} off={hoff} />;
  if (st.phase === 'preview') {
    const body = height - 1;
    const start = Math.max(0, Math.min(scroll, preview.rows.length - body));
    return (
      <Fill height={height}>
        <Title note={`${position(preview.rows.length, body, start)} Esc back`}>Preview — {chosen.length ? `${chosen.length} selected fix${chosen.length === 1 ? '' : 'es'}` : `${fixes[selected]?.id ?? 'no fix'} (highlighted)`}</Title>
        {preview.rows.slice(start, start + body).map(pline)}
      </Fill>
    );
  }

  if (st.phase !== 'list') {
    const rows = eventLines(st.events);
    const ops = chosen.reduce((n, f) => n + f.ops.length, 0);
    const tail: string[] = [];
    if (st.phase === 'confirm') tail.push(`Apply ${chosen.length} fix${chosen.length === 1 ? '' : 'es'} (${ops} operation${ops === 1 ? '' : 's'}) to ${st.plan.host} now? A journal is written first; a failure rolls back.`, '[y] apply   [n] cancel');
    if (st.phase === 'confirm-rollback') tail.push(`Roll back from ${st.journal}?`, '[y] roll back   [n] cancel');
    if (st.phase === 'applying') tail.push('Applying… (keys are ignored until it finishes)');
    if (st.phase === 'rolling-back') tail.push('Rolling back…');
    if (st.phase === 'done' && st.outcome) tail.push(outcomeText(st.outcome, 'apply'));
    if (st.message) append(tail, st.message);
    if (st.phase === 'done' && rollbackOffered(st.outcome, st.journal)) tail.push(st.outcome!.status === 'applied' ? `r: undo these changes from ${st.journal}` : `r: retry the rollback from ${st.journal}`);
    if (st.phase === 'done') tail.push('Enter: back to the list (re-run ncclx doctor to see the node as it is now)');
    const tailLines = tail.flatMap((t) => wrap(t, width));
    const listH = Math.max(1, height - 1 - tailLines.length);
    const start = Math.max(0, rows.length - listH);
    const title = st.phase === 'confirm' ? 'Confirm' : st.phase === 'confirm-rollback' || st.phase === 'rolling-back' ? 'Rollback' : 'Apply';
    return (
      <Fill height={height}>
        <Title note={st.plan.host}>{title}</Title>
        {st.phase === 'confirm'
          ? preview.rows.slice(0, listH).map(pline)
          : rows.slice(start, start + listH).map((r, i) => (
              <Text key={i} wrap="truncate-end" dimColor={r.tone === 'dim'}>
                <Text color={r.tone === 'ok' ? c('green') : r.tone === 'err' ? c('red') : r.tone === 'run' ? c('cyan') : undefined}>[{r.mark}]</Text> {visible(r.text)}
              </Text>
            ))}
        <Box flexGrow={1} />
        {tailLines.map((l, i) => (
          <Line key={`t${i}`} bold={l.startsWith('[y]') || l.startsWith('Apply ') || l.startsWith('Roll back')} color={l.startsWith('✗') ? c('red') : l.startsWith('✓') ? c('green') : undefined}>
            {l}
          </Line>
        ))}
      </Fill>
    );
  }

  const msg = (st.message ?? []).flatMap((m) => wrap(m, width));
  const listH = Math.max(1, Math.min(fixes.length || 1, Math.floor((height - 3 - msg.length) / 2)));
  const pStart = windowStart(fixes.length, listH, selected);
  const previewH = Math.max(0, height - 2 - listH - msg.length - 1);
  return (
    <Fill height={height}>
      <Title note={`${live ? '' : 'preview only · '}${st.checked.length} selected`}>
        {fixes.length} fix{fixes.length === 1 ? '' : 'es'} proposed for {st.plan.host}
      </Title>
      {fixes.length === 0 ? <Line dim>Nothing to fix: no result has a fix.</Line> : null}
      {fixes.slice(pStart, pStart + listH).map((f, i) => {
        const isSel = pStart + i === selected;
        const box = f.blocked ? '[-]' : st.checked.includes(f.id) ? '[x]' : '[ ]';
        const worst = f.resolves.some((r) => r.severity === 'error') ? '✗' : f.resolves.some((r) => r.severity === 'warn') ? '!' : '·';
        return (
          <Text key={f.id} wrap="truncate-end" inverse={isSel} dimColor={!!f.blocked}>
            {isSel ? '› ' : '  '}
            {box} {f.id.padEnd(15)} {visible(f.title)} <Text dimColor>{f.blocked ? `(blocked: ${visible(f.blocked)})` : `${worst} ${f.resolves.map((r) => r.checkId).join(' ')}`}</Text>
          </Text>
        );
      })}
      {msg.map((m, i) => (
        <Line key={`m${i}`} color={c('yellow')}>
          {m}
        </Line>
      ))}
      {fixes.length ? <Title note="p: full screen">Preview{chosen.length ? '' : ' (highlighted fix)'}</Title> : null}
      {preview.rows.slice(0, previewH).map((l, i) => pline(l, `p${i}`))}
    </Fill>
  );
}
