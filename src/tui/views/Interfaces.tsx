// View 2: the socket interface selection for NCCL's three consumers and the
// per-address trace of one of them, as a table that fits 80 columns.

import { Box, Text } from 'ink';
import type { ExplainReport } from '../../model/nccl/explain.js';
import type { ConsumerResult, TraceEntry } from '../../model/nccl/socket.js';
import { useColor, useKeys, usePersisted } from '../screen.js';
import { clamp, Fill, fit, Line, moveIndex, position, Title, windowStart, wrap } from '../ui.js';
import { visible } from '../../report/display.js';

const CONSUMERS = ['bootstrap', 'socket', 'ibOob'] as const;
const LABEL: Record<(typeof CONSUMERS)[number], string> = { bootstrap: 'bootstrap', socket: 'socket', ibOob: 'IB OOB' };
const LONG: Record<(typeof CONSUMERS)[number], string> = { bootstrap: 'bootstrap', socket: 'socket transport', ibOob: 'IB transport OOB' };
const VERDICT: Record<TraceEntry['verdict'], string> = { selected: 'selected', skipped: 'skipped', duplicate: 'dup', 'not-examined': 'not seen' };

type Row = { kind: 'stage'; stage: string; spec: string; found: string[] } | { kind: 'entry'; e: TraceEntry };

export function traceRows(r: ConsumerResult): Row[] {
  const rows: Row[] = [];
  for (const st of r.stages) {
    rows.push({ kind: 'stage', stage: st.stage, spec: st.spec, found: st.found });
    for (const e of r.trace.filter((t) => t.stage === st.stage)) rows.push({ kind: 'entry', e });
  }
  return rows;
}

/** Column widths for the trace table at a terminal width. */
export function traceColumns(width: number) {
  const name = width >= 100 ? 16 : 12;
  const addr = width >= 100 ? 26 : 18;
  const verdict = 8;
  return { name, addr, verdict, reason: Math.max(10, width - 2 - name - addr - verdict - 3) };
}

function ConsumerLine({ r }: { r: ConsumerResult }) {
  const c = useColor();
  const label = fit(LABEL[r.consumer], 10);
  if (r.indeterminate)
    return (
      <Text wrap="truncate-end">
        {label} <Text color={c('yellow')}>? cannot predict: {visible(r.indeterminate)}</Text>
      </Text>
    );
  if (r.error)
    return (
      <Text wrap="truncate-end">
        {label} <Text color={c('red')}>✗ none — NCCL WARN {visible(r.error.log.join('; '))}</Text>
      </Text>
    );
  const list = r.selected.map((x, i) => `${r.consumer === 'socket' ? `[${i}]` : ''}${x.name} ${x.display}`).join('  ');
  return (
    <Text wrap="truncate-end">
      {label} <Text color={c('green')}>{visible(list)}</Text> <Text dimColor>({r.stage})</Text>
    </Text>
  );
}

export function InterfacesView({ report, height, width, active, banner }: { report: ExplainReport; height: number; width: number; active: boolean; banner: string | null }) {
  const c = useColor();
  const [ci, setCi] = usePersisted('interfaces.consumer', 1);
  const [sel, setSel] = usePersisted('interfaces.selected', 0);
  const consumer = CONSUMERS[ci]!;
  const rows = traceRows(report[consumer]);
  const selected = clamp(sel, rows.length);
  const cols = traceColumns(width);
  const top = (banner ? 1 : 0) + 1 + 3 + 2; // banner, inputs, consumers, trace title + column heads
  const bottom = 2; // the selected row's full reason
  const listHeight = Math.max(1, height - top - bottom);

  useKeys((input, key) => {
    if (key.leftArrow || input === 'h') {
      setCi((ci + CONSUMERS.length - 1) % CONSUMERS.length);
      setSel(0);
      return;
    }
    if (key.rightArrow || input === 'l') {
      setCi((ci + 1) % CONSUMERS.length);
      setSel(0);
      return;
    }
    const next = moveIndex(input, key, selected, rows.length, listHeight - 1);
    if (next !== null) setSel(next);
  }, active);

  const start = windowStart(rows.length, listHeight, selected);
  const cur = rows[selected];
  const detail = !cur ? '' : cur.kind === 'stage' ? `${cur.stage} [${cur.spec}] → ${cur.found.length ? cur.found.join(', ') : 'nothing'}` : `${cur.e.name} ${cur.e.address}: ${cur.e.reason}`;
  const inputs = Object.entries(report.inputs)
    .map(([k, v]) => (v.value === null ? `${k} unset` : `${k}=${JSON.stringify(v.value)} (${v.source})`))
    .join(' · ');
  return (
    <Fill height={height}>
      {banner ? <Line color={c('yellow')}>{banner}</Line> : null}
      <Line dim>{inputs}</Line>
      {CONSUMERS.map((k) => (
        <ConsumerLine key={k} r={report[k]} />
      ))}
      <Title note={position(rows.length, listHeight, start) || undefined}>
        Trace ◀ {LONG[consumer]} ▶
      </Title>
      <Line dim>
        {'  '}
        {fit('NAME', cols.name)} {fit('ADDRESS', cols.addr)} {fit('VERDICT', cols.verdict)} REASON
      </Line>
      <Box flexDirection="column" height={listHeight}>
        {rows.slice(start, start + listHeight).map((r, i) => {
          const isSel = start + i === selected;
          if (r.kind === 'stage')
            return (
              <Text key={i} wrap="truncate-end" inverse={isSel} bold>
                {isSel ? '› ' : '  '}
                {r.stage} <Text dimColor>[{visible(r.spec)}] → {r.found.length ? visible(r.found.join(', ')) : 'nothing'}</Text>
              </Text>
            );
          const v = r.e.verdict;
          return (
            <Text key={i} wrap="truncate-end" inverse={isSel}>
              {isSel ? '› ' : '  '}
              {fit(r.e.name, cols.name)} {fit(r.e.address, cols.addr)}{' '}
              <Text color={v === 'selected' ? c('green') : undefined} dimColor={v !== 'selected'}>
                {fit(VERDICT[v], cols.verdict)}
              </Text>{' '}
              {visible(r.e.reason)}
            </Text>
          );
        })}
      </Box>
      {wrap(detail, width)
        .slice(0, bottom)
        .map((l, i) => (
          <Line key={`d${i}`} dim>
            {l}
          </Line>
        ))}
    </Fill>
  );
}
