// Colour for text output, off for NO_COLOR, --no-color and non-TTY output.

import { Chalk } from 'chalk';

export interface Style {
  ok(s: string): string;
  warn(s: string): string;
  err(s: string): string;
  dim(s: string): string;
  bold(s: string): string;
}

export function makeStyle(color: boolean): Style {
  const c = new Chalk({ level: color ? 1 : 0 });
  return { ok: c.green, warn: c.yellow, err: c.red, dim: c.dim, bold: c.bold };
}

export function wantColor(flag: boolean | undefined, stream: NodeJS.WriteStream = process.stdout): boolean {
  if (flag === false) return false;
  if (process.env['NO_COLOR'] !== undefined && process.env['NO_COLOR'] !== '') return false;
  if (process.env['FORCE_COLOR'] !== undefined && process.env['FORCE_COLOR'] !== '0') return true;
  return !!stream.isTTY;
}
