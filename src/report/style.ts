// Colour for text output, off for NO_COLOR, --no-color and non-TTY output.

import { sgr } from './display.js';

export interface Style {
  ok(s: string): string;
  warn(s: string): string;
  err(s: string): string;
  dim(s: string): string;
  bold(s: string): string;
}

/**
 * Colours as markers (report/display.ts): the renderers' output goes through
 * terminalText(), which escapes the node's data and only then turns the
 * markers into escape sequences.
 */
export function makeStyle(color: boolean): Style {
  if (!color) {
    const id = (s: string) => s;
    return { ok: id, warn: id, err: id, dim: id, bold: id };
  }
  const wrap = (open: number, close: number) => (s: string) => `${sgr(open)}${s}${sgr(close)}`;
  return { ok: wrap(32, 39), warn: wrap(33, 39), err: wrap(31, 39), dim: wrap(2, 22), bold: wrap(1, 22) };
}

export function wantColor(flag: boolean | undefined, stream: NodeJS.WriteStream = process.stdout): boolean {
  if (flag === false) return false;
  if (process.env['NO_COLOR'] !== undefined && process.env['NO_COLOR'] !== '') return false;
  if (process.env['FORCE_COLOR'] !== undefined && process.env['FORCE_COLOR'] !== '0') return true;
  return !!stream.isTTY;
}
