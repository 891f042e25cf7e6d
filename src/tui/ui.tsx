// Small shared pieces: flutter-doctor marks, one-line text that never wraps,
// column fitting, word wrapping and list windows.

import { Box, Text } from 'ink';
import { type ReactNode } from 'react';
import type { Severity } from '../model/result/types.js';
import { visible } from '../report/display.js';
import { useColor, type ColorName } from './screen.js';

export const MARKS: Record<Severity, string> = { na: '[-]', ok: '[✓]', info: '[i]', warn: '[!]', error: '[✗]', unknown: '[?]' };
export const SEVERITY_COLOR: Record<Severity, ColorName> = { na: 'gray', ok: 'green', info: 'blue', warn: 'yellow', error: 'red', unknown: 'magenta' };

export function Mark({ severity }: { severity: Severity }) {
  const c = useColor();
  return <Text color={c(SEVERITY_COLOR[severity])}>{MARKS[severity]}</Text>;
}

/** One terminal line: truncated at the box edge, never wrapped. */
export function Line({ children, dim, bold, inverse, color }: { children?: ReactNode; dim?: boolean; bold?: boolean; inverse?: boolean; color?: ColorName | undefined }) {
  return (
    <Text wrap="truncate-end" dimColor={dim} bold={bold} inverse={inverse} color={color}>
      {typeof children === 'string' ? visible(children) : (children ?? ' ')}
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
          {children}
        </Text>
      </Box>
      {note ? (
        <Box flexGrow={1} flexShrink={0} justifyContent="flex-end">
          <Text dimColor wrap="truncate-start">
            {' '}
            {note}
          </Text>
        </Box>
      ) : null}
    </Box>
  );
}

/** Exactly `height` lines: the given ones, then blanks (keeps the footer in place). */
export function Fill({ height, children }: { height: number; children: ReactNode }) {
  return (
    <Box flexDirection="column" height={Math.max(0, height)} overflow="hidden">
      {children}
    </Box>
  );
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
