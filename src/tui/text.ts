// Text layout for the views, pure (no React, no I/O): commands wrapped the way
// a shell reads them back, and horizontal scrolling of lines wider than the
// screen. Widths count code points, as the rest of the UI does.

import { visible } from '../report/display.js';
import { maxOf } from '../model/list.js';

/** Code points of a string (what the UI counts as its width). */
export const cps = (s: string): string[] => Array.from(s);
export const width = (s: string): number => cps(s).length;

// ---- commands -------------------------------------------------------------

/**
 * The words of one shell command line, each with its quotes, split at
 * unquoted blanks; null when the line cannot be split safely (an open quote,
 * a trailing backslash, a comment, a newline).
 */
export function shellWords(line: string): string[] | null {
  if (line.includes('\n') || /^\s*#/.test(line)) return null;
  const words: string[] = [];
  let cur = '';
  let quote: "'" | '"' | null = null;
  const chars = cps(line);
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    if (quote === "'") {
      cur += ch;
      if (ch === "'") quote = null;
    } else if (ch === '\\') {
      if (i + 1 >= chars.length) return null;
      cur += ch + chars[++i]!;
    } else if (quote === '"') {
      cur += ch;
      if (ch === '"') quote = null;
    } else if (ch === "'" || ch === '"') {
      cur += ch;
      quote = ch;
    } else if (ch === ' ' || ch === '\t') {
      if (cur) words.push(cur);
      cur = '';
    } else if (ch === '#' && cur === '') {
      // An unquoted # starting a word begins a comment: a continuation would not continue it.
      return null;
    } else cur += ch;
  }
  if (quote) return null;
  if (cur) words.push(cur);
  return words;
}

/** The continuation mark ending every line of a command but its last. */
export const CONTINUED = ' \\';

/**
 * One command as screen lines of at most `cols` characters (indent included),
 * broken only between shell words, every line but the last ending in ` \`:
 * pasted, the shell reads the same command. Continuation lines keep the
 * indent, so removing `\` + newline + indent gives the command back exactly.
 * A word wider than a line is never broken: its line is wider than `cols`
 * (the view scrolls it sideways). A line that cannot be split (quotes left
 * open, a comment, a heredoc's body) is returned whole.
 */
export function commandLines(cmd: string, cols: number, indent = ''): string[] {
  const room = cols - width(indent);
  if (width(cmd) <= room) return [indent + cmd];
  const words = shellWords(cmd);
  if (!words || words.length < 2) return [indent + cmd];
  const lines: string[] = [];
  let line = '';
  for (const [i, w] of words.entries()) {
    if (!line) {
      line = w;
      continue;
    }
    // The line must leave room for ` \` unless it is the command's last.
    const last = i === words.length - 1;
    const fits = width(line) + 1 + width(w) + (last ? 0 : CONTINUED.length) <= room;
    // A word that fits no line on its own stays on this one: breaking before it would gain nothing.
    if (fits || width(w) + (last ? 0 : CONTINUED.length) > room) line += ` ${w}`;
    else {
      lines.push(line + CONTINUED);
      line = w;
    }
  }
  lines.push(line);
  return lines.map((l) => indent + l);
}

/** Prose (a `# comment`) wrapped at word boundaries, each continuation starting with `lead` (e.g. `# `). */
export function proseLines(text: string, cols: number, lead = ''): string[] {
  if (width(text) <= cols) return [text];
  const out: string[] = [];
  let line = '';
  for (const w of text.split(' ')) {
    if (!line) line = w;
    else if (width(line) + 1 + width(w) <= cols) line += ` ${w}`;
    else {
      out.push(line);
      line = lead + w;
    }
  }
  out.push(line);
  return out;
}

// ---- horizontal scrolling ---------------------------------------------------

/**
 * A band of text scrolled sideways in `room` columns: text is shown from
 * offset `off`; when the band is wider than the room, the last column is kept
 * for ▶ (text hidden to the right) and, once scrolled, the first for ◀.
 */
export interface HBand {
  /** Some line is wider than the room: lines show ◀ ▶ gutters. */
  scrolls: boolean;
  /** Columns of the band. */
  room: number;
  /** Characters of text shown per line once scrolled (both gutters). */
  avail: number;
  /** The largest offset: the rest of the text in view (at a column start when there are columns). */
  maxOff: number;
  /** Where columns start (offsets the arrows stop at); [] for free text. */
  stops: number[];
  /** Where columns end (exclusive), parallel to stops. */
  ends: number[];
  /** The widest line. */
  total: number;
}

export function hband(total: number, room: number, columns: { start: number; end: number }[] = []): HBand {
  room = Math.max(3, room);
  const scrolls = total > room;
  const avail = Math.max(1, scrolls ? room - 2 : room);
  // Columns scroll to a column start: the last screen starts at the first column from which the rest fits.
  const last = columns.find((c) => c.start + avail >= total);
  const maxOff = !scrolls ? 0 : last ? last.start : Math.max(0, total - avail);
  return { scrolls, room, avail, maxOff, stops: columns.map((c) => c.start), ends: columns.map((c) => c.end), total };
}

/**
 * The offset after → (dir 1) or ← (dir -1): a column at a time (→ hides the
 * leftmost scrolled column, ← shows it again), and half a screen at a time
 * through a column — or free text — wider than the screen.
 */
export function hstep(b: HBand, off: number, dir: 1 | -1): number {
  const page = Math.max(1, Math.floor(b.avail / 2));
  off = Math.max(0, Math.min(off, b.maxOff));
  if (dir > 0) {
    if (off >= b.maxOff) return b.maxOff;
    const next = b.stops.find((s) => s > off);
    return Math.min(b.maxOff, next ?? off + page);
  }
  if (off <= 0) return 0;
  let prev = -1;
  for (const s of b.stops) if (s < off) prev = s;
  if (prev < 0) return Math.max(0, off - page);
  // Inside a column wider than the screen: a page back, not past its start.
  return off - prev > page && b.stops[b.stops.length - 1] === prev ? off - page : prev;
}

/** A styled piece of a line. */
export interface Seg {
  text: string;
  color?: string | undefined;
  bold?: boolean | undefined;
  dim?: boolean | undefined;
  inverse?: boolean | undefined;
  underline?: boolean | undefined;
}

export const segsWidth = (segs: Seg[]): number => segs.reduce((n, s) => n + width(s.text), 0);

/** Width without trailing blanks (padding is not hidden text). */
export const segsContent = (segs: Seg[]): number => width(segs.map((s) => s.text).join('').trimEnd());

/** The characters [from, from + len) of a styled line, padded with blanks to exactly len. */
export function sliceSegs(segs: Seg[], from: number, len: number): Seg[] {
  const out: Seg[] = [];
  let pos = 0;
  let got = 0;
  for (const s of segs) {
    const c = cps(s.text);
    const a = Math.max(from, pos);
    const z = Math.min(from + len, pos + c.length);
    if (z > a) {
      out.push({ ...s, text: c.slice(a - pos, z - pos).join('') });
      got += z - a;
    }
    pos += c.length;
    if (pos >= from + len) break;
  }
  if (got < len) out.push({ text: ' '.repeat(len - got) });
  return out;
}

/**
 * One line of a band as shown at offset `off`, exactly `room` wide: the ◀
 * gutter (once scrolled), the visible text, the ▶ gutter (when the band
 * scrolls). Marks appear only where this line really has text out of view.
 */
export function hslice(b: HBand, segs: Seg[], off: number): { segs: Seg[]; left: boolean; right: boolean } {
  off = Math.max(0, Math.min(off, b.maxOff));
  if (!b.scrolls) return { segs: sliceSegs(segs, 0, b.room), left: false, right: false };
  const content = segsContent(segs);
  // Unscrolled, the text starts in the first column: only ▶'s column is kept.
  const shown = off > 0 ? b.avail : b.avail + 1;
  const left = off > 0 && content > 0;
  const right = content > off + shown;
  return { segs: [...(off > 0 ? [{ text: left ? '◀' : ' ' }] : []), ...sliceSegs(segs, off, shown), { text: right ? '▶' : ' ' }], left, right };
}

// ---- tables with a fixed first column ---------------------------------------

const pad = (s: Seg, w: number): Seg => ({ ...s, text: s.text + ' '.repeat(Math.max(0, w - width(s.text))) });

/**
 * A table whose first column stays and whose other columns scroll sideways
 * as one band. Column widths come from the content (nothing is cut: what does
 * not fit is scrolled to, with marks); the last column is as wide as its
 * widest cell.
 */
export interface Table {
  /** Width of the first column. */
  firstW: number;
  /** The band's columns (offsets within the band). */
  columns: { start: number; end: number }[];
  /** The band's widest line. */
  total: number;
  /** A row's cells as the fixed first cell (padded) and the band's pieces. */
  row(cells: Seg[]): { first: Seg; body: Seg[] };
}

export function table(head: Seg[], rows: Seg[][]): Table {
  const n = head.length;
  const w = head.map((h, k) => Math.max(width(h.text), maxOf(rows.map((r) => width(r[k]?.text ?? '')))));
  const columns: { start: number; end: number }[] = [];
  let pos = 0;
  for (let k = 1; k < n; k++) {
    columns.push({ start: pos, end: pos + w[k]! });
    pos += w[k]! + 1;
  }
  return {
    firstW: w[0]!,
    columns,
    total: Math.max(0, pos - 1),
    row(cells) {
      const body: Seg[] = [];
      for (let k = 1; k < n; k++) {
        const c = cells[k] ?? { text: '' };
        body.push(k === n - 1 ? c : pad(c, w[k]!));
        if (k < n - 1) body.push({ text: ' ' });
      }
      return { first: pad(cells[0] ?? { text: '' }, w[0]!), body };
    },
  };
}

/** The band of a table shown in `cols` columns after a fixed part `fixedW` wide and a blank. */
export function tableBand(t: Table, cols: number, fixedW: number): HBand {
  return hband(t.total, cols - fixedW - 1, t.columns);
}

// ---- blocks of commands -------------------------------------------------------

/** A line of a block to paste: a command (wrapped with ` \`), a `# comment` (wrapped with `# `), or raw (a heredoc's body: never changed). */
export interface BlockItem {
  text: string;
  raw?: boolean;
}

/**
 * Screen rows (escaped) for lines to paste, `cols` wide, and the band that scrolls the
 * rows still wider (one unbreakable word, a raw line). When the band scrolls,
 * its ◀ ▶ gutters take two columns, so the block is laid out again for the
 * narrower room.
 */
export function commandRows(items: (string | BlockItem)[], cols: number): { rows: string[]; band: HBand } {
  // Laid out as shown: control characters from the node escaped first (report/display.ts).
  const its = items.map((i) => (typeof i === 'string' ? { text: visible(i) } : { ...i, text: visible(i.text) }));
  const layout = (w: number) => its.flatMap((i) => (i.raw ? [i.text] : /^\s*#/.test(i.text) ? proseLines(i.text, w, '# ') : commandLines(i.text, w)));
  let rows = layout(cols);
  let total = Math.max(0, maxOf(rows.map(width)));
  if (total > cols) {
    rows = layout(Math.max(1, cols - 2));
    total = Math.max(0, maxOf(rows.map(width)));
  }
  return { rows, band: hband(total, cols) };
}
