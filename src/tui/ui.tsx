// Small shared pieces: flutter-doctor marks, one-line text that never wraps,
// column fitting, word wrapping, list windows, and lines scrolled sideways
// with ◀ ▶ marks (text.ts does the arithmetic).

import { Box, Text } from 'ink';
import { Children, type ReactNode } from 'react';
import type { Severity } from '../model/result/types.js';
import { visible } from '../report/display.js';
import { useColor, type ColorName } from './screen.js';
import { hslice, type HBand, type Seg } from './text.js';

export const MARKS: Record<Severity, string> = { na: '[-]', ok: '[✓]', info: '[i]', warn: '[!]', error: '[✗]', unknown: '[?]' };
export const SEVERITY_COLOR: Record<Severity, ColorName> = { na: 'gray', ok: 'green', info: 'blue', warn: 'yellow', error: 'red', unknown: 'magenta' };

export function Mark({ severity }: { severity: Severity }) {
  const c = useColor();
  return <Text color={c(SEVERITY_COLOR[severity])}>{MARKS[severity]}</Text>;
}

/**
 * Text children with every string escaped (report/display.ts): a host name or
 * an interface name between literal parts (`ncclx doctor · {hostname}`) is
 * shown, never sent to the terminal. Nested elements escape their own.
 */
export function escaped(children: ReactNode): ReactNode {
  if (typeof children === 'string') return visible(children);
  return Children.map(children, (c) => (typeof c === 'string' ? visible(c) : c));
}

/** One terminal line: truncated at the box edge, never wrapped. */
export function Line({ children, dim, bold, inverse, color }: { children?: ReactNode; dim?: boolean; bold?: boolean; inverse?: boolean; color?: ColorName | undefined }) {
  return (
    <Text wrap="truncate-end" dimColor={dim} bold={bold} inverse={inverse} color={color}>
      {children === undefined || children === null || children === '' ? ' ' : escaped(children)}
    </Text>
  );
}

/** Pad or cut a string to exactly `w` characters (cut with …). */
export function fit(text: string, w: number): string {
  // The node's data is shown with control characters escaped (report/display.ts), never sent to the terminal.
  const s = visible(text);
  if (w <= 0) return '';
  if (s.length <= w) return s.padEnd(w);
  return w === 1 ? '…' : `${s.slice(0, w - 1)}…`;
}

/** Word wrap to `width`; words longer than a line are cut. Keeps explicit newlines. */
export function wrap(text: string, width: number, indent = ''): string[] {
  const w = Math.max(10, width - indent.length);
  const out: string[] = [];
  for (const para of visible(text).split('\n')) {
    let line = '';
    for (const word of para.split(' ')) {
      let rest = word;
      while (rest.length > w) {
        if (line) {
          out.push(line);
          line = '';
        }
        out.push(rest.slice(0, w));
        rest = rest.slice(w);
      }
      if (!line) line = rest;
      else if (line.length + 1 + rest.length <= w) line += ` ${rest}`;
      else {
        out.push(line);
        line = rest;
      }
    }
    out.push(line);
  }
  return out.map((l) => indent + l);
}

/** First visible index of a list of `n` rows shown `height` at a time, keeping `selected` in view. */
export function windowStart(n: number, height: number, selected: number): number {
  if (n <= height) return 0;
  const start = selected - Math.floor(height / 2);
  return Math.max(0, Math.min(start, n - height));
}

/** "12–28 of 76" for a title line, or '' when everything fits. */
export function position(n: number, height: number, start: number): string {
  if (n <= height) return '';
  return `${start + 1}–${Math.min(n, start + height)} of ${n}`;
}

export function clamp(i: number, n: number): number {
  return Math.max(0, Math.min(i, n - 1));
}

/** A bold title line with an optional dim note on the right side; one line, whatever the width. */
export function Title({ children, note }: { children: ReactNode; note?: string | undefined }) {
  return (
    <Box height={1} flexShrink={0}>
      <Box flexShrink={1}>
        <Text bold wrap="truncate-end">
          {escaped(children)}
        </Text>
      </Box>
      {note ? (
        <Box flexGrow={1} flexShrink={0} justifyContent="flex-end">
          <Text dimColor wrap="truncate-start">
            {' '}
            {visible(note)}
          </Text>
        </Box>
      ) : null}
    </Box>
  );
}

/**
 * Exactly `height` lines: the given ones, then blanks (keeps the footer in
 * place). Rows are never squeezed: a view that computed too many loses its
 * last rows, never one in the middle (Yoga would shrink rows to nothing and
 * let their text land on a neighbour's line).
 */
export function Fill({ height, children }: { height: number; children: ReactNode }) {
  return (
    <Box flexDirection="column" height={Math.max(0, height)} overflow="hidden" flexShrink={0}>
      <Box flexDirection="column" flexGrow={1} flexShrink={0}>
        {children}
      </Box>
    </Box>
  );
}

/** A piece of a line from the node or the model, escaped for the terminal. */
export function seg(text: string, style: Omit<Seg, 'text'> = {}): Seg {
  return { text: visible(text), ...style };
}

/** One line of styled pieces (already escaped and fitted: see seg and hslice), never wrapped. */
export function Segs({ segs, inverse, bold, dim, color }: { segs: Seg[]; inverse?: boolean; bold?: boolean; dim?: boolean; color?: ColorName | undefined }) {
  return (
    <Text wrap="truncate-end" inverse={inverse} bold={bold} dimColor={dim} color={color}>
      {segs.length === 0
        ? ' '
        : segs.map((s, i) => (
            <Text key={i} color={s.color as ColorName | undefined} bold={s.bold} dimColor={s.dim} inverse={s.inverse} underline={s.underline}>
              {s.text}
            </Text>
          ))}
    </Text>
  );
}

/**
 * A line whose `fixed` part stays (a table's first column, an indent) and
 * whose `body` scrolls sideways in `band` at offset `off`, with ◀ / ▶ where
 * text is out of view.
 */
export function HLine({ fixed = [], body, band, off, inverse, bold, dim, color }: { fixed?: Seg[]; body: Seg[]; band: HBand; off: number; inverse?: boolean; bold?: boolean; dim?: boolean; color?: ColorName | undefined }) {
  const c = useColor();
  const { segs } = hslice(band, body, off);
  if (band.scrolls) {
    const first = segs[0]!;
    const last = segs[segs.length - 1]!;
    if (first.text === '◀') segs[0] = { text: '◀', color: c('cyan'), bold: true };
    if (last.text === '▶') segs[segs.length - 1] = { text: '▶', color: c('cyan'), bold: true };
  }
  return <Segs segs={[...fixed, ...segs]} inverse={inverse} bold={bold} dim={dim} color={color} />;
}

/** Movement keys shared by every list: ↑/↓ (k/j), PgUp/PgDn, Home/End (g/G). Returns the new index or null. */
export function moveIndex(input: string, key: { upArrow: boolean; downArrow: boolean; pageUp: boolean; pageDown: boolean; home: boolean; end: boolean }, i: number, n: number, page: number): number | null {
  if (n === 0) return null;
  if (key.upArrow || input === 'k') return clamp(i - 1, n);
  if (key.downArrow || input === 'j') return clamp(i + 1, n);
  if (key.pageUp) return clamp(i - Math.max(1, page), n);
  if (key.pageDown) return clamp(i + Math.max(1, page), n);
  if (key.home || input === 'g') return 0;
  if (key.end || input === 'G') return n - 1;
  return null;
}
