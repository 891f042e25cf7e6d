// View 4: edit NCCL_SOCKET_IFNAME, NCCL_IB_HCA, NCCL_COMM_ID,
// NCCL_SOCKET_FAMILY, NCCL_IB_GID_INDEX and the NCCL version in place; the
// selection, the GID choice and the findings follow every keystroke, computed
// from the snapshot read at start (never the node again).

import { Text } from 'ink';
import type { IbModel } from '../../model/nccl/ib-report.js';
import type { ConsumerResult } from '../../model/nccl/socket.js';
import { exportsFor, fieldValues, problemDiff, verdict, WHATIF_KEYS, type Change, type Model, type WhatIf, type WhatIfKey } from '../model.js';
import { clipboardMessage, type ClipboardReport } from '../clipboard.js';
import { useCapture, useColor, useKeys, usePersisted } from '../screen.js';
import { commandRows, hstep } from '../text.js';
import { clamp, Fill, fit, HLine, Line, Mark, position, seg, Title, windowStart } from '../ui.js';
import { visible } from '../../report/display.js';

/** How each what-if change reads: a new problem, one resolved (its check now says ok), one that no longer applies (its check cannot judge). */
const CHANGE_MARK: Record<Change, string> = { new: '+ ', resolved: '− ', gone: '· ', same: '  ' };
const CHANGE_WORD: Record<Change, string> = { new: 'new: ', resolved: 'resolved: ', gone: 'no longer applies: ', same: '' };

const LABEL: Record<WhatIfKey, string> = {
  NCCL_SOCKET_IFNAME: 'NCCL_SOCKET_IFNAME',
  NCCL_IB_HCA: 'NCCL_IB_HCA',
  NCCL_COMM_ID: 'NCCL_COMM_ID',
  MASTER_ADDR: 'MASTER_ADDR',
  NCCL_SOCKET_FAMILY: 'NCCL_SOCKET_FAMILY',
  NCCL_IB_GID_INDEX: 'NCCL_IB_GID_INDEX',
  version: 'NCCL version',
};

function selectionText(r: ConsumerResult): { text: string; tone: 'ok' | 'warn' | 'err' } {
  if (r.indeterminate) return { text: `? cannot predict: ${r.indeterminate}`, tone: 'warn' };
  if (r.error) return { text: `✗ none — ${r.error.log.join('; ')}`, tone: 'err' };
  return { text: `${r.selected.map((s) => `${s.name} ${s.display}`).join(', ')}  (${r.stage})`, tone: 'ok' };
}

/** "10 ports · GID 0: 8 ports · GID 3: mlx5_4:1, mlx5_10:1" */
export function gidSummary(ib: IbModel): string {
  const t = ib.report.transport;
  if (t.used === false) return `not used — ${t.why}`;
  const groups = new Map<string, string[]>();
  for (const d of ib.report.devices) {
    for (const p of d.ports) {
      if (!p.usedByNccl) continue;
      const o = p.gidSelection?.outcome;
      const cell = !o ? 'no GID' : o.kind === 'index' ? `GID ${o.index}` : o.kind === 'indeterminate' ? `GID ?${o.candidates.join('|')}` : o.kind === 'failure' ? 'GID fails' : 'LID';
      groups.set(cell, [...(groups.get(cell) ?? []), `${d.name}:${p.port}`]);
    }
  }
  const n = [...groups.values()].reduce((a, b) => a + b.length, 0);
  if (n === 0) return t.used === null ? `? ${t.why}` : 'no port used';
  return [`${n} port${n === 1 ? '' : 's'}`, ...[...groups].map(([cell, ps]) => `${cell}: ${ps.length > 3 ? `${ps.length} ports` : ps.join(', ')}`)].join(' · ');
}

export interface WhatIfProps {
  base: Model;
  current: Model;
  whatIf: WhatIf;
  setWhatIf: (w: WhatIf) => void;
  height: number;
  width: number;
  active: boolean;
  /** Copies the text (OSC 52) and says where it went. */
  copy: (text: string) => Promise<ClipboardReport>;
}

/** Rows of each part of the view for `height` lines; the field being edited always keeps its row. */
export function whatIfLayout(height: number, o: { error: boolean; panel: number; findings: number; fields: number }) {
  let room = Math.max(0, height - 1); // the title
  const fields = Math.min(o.fields, Math.max(Math.min(3, room), room - 5));
  room -= fields;
  const error = o.error ? Math.min(1, room) : 0;
  room -= error;
  const panel = Math.min(o.panel, room);
  room -= panel;
  const consumers = Math.min(4, room);
  room -= consumers;
  const findingsHead = Math.min(1, room);
  room -= findingsHead;
  const extra = room - Math.min(o.findings, 2);
  const result = extra >= 1 ? 1 : 0;
  const spacer = !o.error && !o.panel && extra >= 2 ? 1 : 0;
  return { fields, error, spacer, panel, result, consumers, findingsHead, list: Math.max(0, room - result - spacer) };
}

export function WhatIfView({ base, current, whatIf, setWhatIf, height, width, active, copy }: WhatIfProps) {
  const c = useColor();
  const [sel, setSel] = usePersisted('whatif.field', 0);
  const [editing, setEditing] = usePersisted('whatif.editing', false);
  const [copied, setCopied] = usePersisted<{ lines: string[]; report: ClipboardReport | null } | null>('whatif.copied', null);
  const [scroll, setScroll] = usePersisted('whatif.scroll', 0);
  const [hoff, setHoff] = usePersisted('whatif.hoff', 0);
  useCapture('whatif', active && editing);
  // The copied lines as they are shown: wrapped between words with ` \`, scrolled sideways when one word is wider.
  const copyBlock = commandRows(copied?.lines ?? [], width);
  const node = fieldValues(base);
  const selected = clamp(sel, WHATIF_KEYS.length);
  const field = WHATIF_KEYS[selected]!;
  const valueOf = (k: WhatIfKey) => (whatIf[k] !== undefined ? whatIf[k]! : k === 'version' ? '' : node[k].value ?? '');
  const set = (k: WhatIfKey, v: string | undefined) => {
    const next = { ...whatIf };
    if (v === undefined) delete next[k];
    else next[k] = v;
    setWhatIf(next);
  };

  useKeys((input, key) => {
    if (editing) {
      if (key.return || key.escape || key.tab) setEditing(false);
      else if (key.upArrow || key.downArrow) {
        setEditing(false);
        setSel(clamp(selected + (key.upArrow ? -1 : 1), WHATIF_KEYS.length));
      } else if (key.backspace || key.delete) set(field, valueOf(field).slice(0, -1));
      else if (key.ctrl && input === 'u') set(field, '');
      else if (input && !key.ctrl && !key.meta) set(field, valueOf(field) + input.replace(/[\r\n\t]/g, ''));
      return;
    }
    if (key.upArrow || input === 'k') setSel(clamp(selected - 1, WHATIF_KEYS.length));
    else if (key.downArrow || input === 'j') setSel(clamp(selected + 1, WHATIF_KEYS.length));
    else if (key.return || input === 'e') {
      // Start from what the field shows: the node's value, or the what-if.
      if (whatIf[field] === undefined && node[field].value !== null) set(field, node[field].value!);
      setCopied(null);
      setEditing(true);
    } else if (input === 'u') set(field, '');
    else if (input === 'r') set(field, undefined);
    else if (input === 'R') {
      setWhatIf({});
      setCopied(null);
    } else if (input === 'c') {
      const lines = exportsFor(whatIf, base);
      setHoff(0);
      if (!lines.length) {
        setCopied({ lines: ["# nothing to copy: every field has the node's value"], report: { via: 'terminal' } });
        return;
      }
      const next = { lines, report: null };
      setCopied(next);
      // Where the copy went (inside tmux it may have been dropped) arrives a moment later.
      const done = (report: ClipboardReport) => setCopied((old) => (old && old.lines === lines ? { lines, report } : old));
      copy(lines.join('\n') + '\n').then(done, (e: unknown) => done({ via: 'failed', error: e instanceof Error ? e.message : String(e) }));
    } else if ((key.leftArrow || key.rightArrow) && copied) setHoff((o) => hstep(copyBlock.band, o, key.leftArrow ? -1 : 1));
    else if (key.pageDown) setScroll((s) => s + 1);
    else if (key.pageUp) setScroll((s) => Math.max(0, s - 1));
    else if (key.escape) setCopied(null);
  }, active);

  const labelW = 19;
  // Room for a note such as 'what-if (node: 2.30.7)' beside the value, down to 60 columns.
  const valueW = Math.max(12, Math.min(36, width - labelW - 28));
  const fieldLine = (k: WhatIfKey, i: number) => {
    const isSel = i === selected;
    const over = whatIf[k] !== undefined;
    const v = over ? whatIf[k]! : k === 'version' ? node.version.value ?? '' : node[k].value ?? '';
    const shown = visible(isSel && editing ? `${v}▏` : v === '' ? (k === 'version' ? `${node.version.value} (detected)` : 'unset') : v);
    const nodeVal = k === 'version' ? node.version.value : node[k].value;
    const source = over ? `what-if (node: ${nodeVal ?? 'unset'})` : k === 'version' ? node.version.source : nodeVal === null ? '' : node[k].source;
    return (
      <Text key={k} wrap="truncate-end">
        <Text inverse={isSel && !editing}>{isSel ? '› ' : '  '}{fit(LABEL[k], labelW)}</Text>
        {' '}
        <Text color={over ? c('cyan') : undefined} bold={over} underline={isSel && editing}>
          {/* While editing, a long value shows its end, where the cursor is. */}
          {fit(isSel && editing && shown.length > valueW ? `…${shown.slice(-(valueW - 1))}` : shown, valueW)}
        </Text>{' '}
        <Text dimColor>{visible(source)}</Text>
      </Text>
    );
  };

  const consumers: [string, ConsumerResult][] = [
    ['bootstrap', current.explain.bootstrap],
    ['socket', current.explain.socket],
    ['IB OOB', current.explain.ibOob],
  ];
  const diff = problemDiff(base.run.results, current.run.results);
  const now = verdict(current.run.results);
  const was = verdict(base.run.results);
  const msg = copied ? (copied.report ? clipboardMessage(copied.report) : { title: 'Copying (OSC 52)…', ok: true, advice: [] }) : null;
  const L = whatIfLayout(height, { error: !!current.error, panel: copied && msg ? 1 + msg.advice.length + copyBlock.rows.length : 0, findings: diff.length, fields: WHATIF_KEYS.length });
  const fStart = windowStart(WHATIF_KEYS.length, L.fields, selected);
  const listH = L.list;
  const start = Math.max(0, Math.min(scroll, diff.length - listH));
  // Short of rows, the advice shrinks to its command, then goes, before the copied text does.
  let advice = msg?.advice ?? [];
  if (L.panel - 1 < advice.length + copyBlock.rows.length) advice = advice.filter((l) => l.startsWith('  '));
  if (L.panel - 1 - advice.length < 1) advice = [];
  const copyRows = Math.max(0, L.panel - 1 - advice.length);
  const cStart = Math.max(0, Math.min(scroll, copyBlock.rows.length - copyRows));
  const cPos = copyRows > 0 ? position(copyBlock.rows.length, copyRows, cStart) : '';
  return (
    <Fill height={height}>
      <Title note={editing ? 'editing: Enter/Esc done, Ctrl-U clear' : L.fields < WHATIF_KEYS.length ? position(WHATIF_KEYS.length, L.fields, fStart) : 'modelled on the snapshot; nothing is applied'}>What-if</Title>
      {WHATIF_KEYS.map(fieldLine).slice(fStart, fStart + L.fields)}
      {L.error ? <Line color={c('red')}>✗ last valid version shown — {current.error}</Line> : null}
      {L.spacer ? <Line> </Line> : null}
      {copied && msg && L.panel ? (
        <>
          <Title note={[cPos, 'Esc hides'].filter(Boolean).join(' · ')}>
            <Text color={msg.ok ? c('green') : c('yellow')}>{visible(msg.title)}</Text>
          </Title>
          {advice.map((l, i) => (
            <Line key={`a${i}`} bold={l.startsWith('  ')}>
              {l}
            </Line>
          ))}
          {copyBlock.rows.slice(cStart, cStart + copyRows).map((l, i) => (
            <HLine key={`c${i}`} body={[seg(l)]} band={copyBlock.band} off={hoff} />
          ))}
        </>
      ) : null}
      {L.result ? <Title>Result</Title> : null}
      {consumers.slice(0, L.consumers).map(([label, r]) => {
        const s = selectionText(r);
        return (
          <Text key={label} wrap="truncate-end">
            {fit(label, 10)} <Text color={s.tone === 'ok' ? c('green') : s.tone === 'warn' ? c('yellow') : c('red')}>{visible(s.text)}</Text>
          </Text>
        );
      })}
      {L.consumers > 3 ? (
        <Line>
          {fit('IB', 10)} {visible(gidSummary(current.ib))}
        </Line>
      ) : null}
      {L.findingsHead ? (
        <Text wrap="truncate-end">
          <Text bold>Findings </Text>
          <Mark severity={now.severity} /> {now.text}{' '}
          <Text dimColor>
            (node: {was.text}){diff.length > listH ? ` · PgUp/PgDn ${start + 1}–${Math.min(diff.length, start + listH)} of ${diff.length}` : ''}
          </Text>
        </Text>
      ) : null}
      {diff.slice(start, start + listH).map(({ result, change }, i) => (
        <Text key={i} wrap="truncate-end" dimColor={change === 'resolved' || change === 'gone'}>
          <Text color={change === 'new' ? c('red') : change === 'resolved' ? c('green') : change === 'gone' ? c('yellow') : undefined}>{CHANGE_MARK[change]}</Text>
          <Mark severity={result.severity} /> {result.checkId.padEnd(8)} {CHANGE_WORD[change]}
          {visible(result.summary)}
        </Text>
      ))}
    </Fill>
  );
}
