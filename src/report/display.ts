// What reaches a terminal: data from the node (interface names, conf-file
// values, snapshot strings) may hold control characters — `\x1b[2J` clears
// the screen, a bidi override reorders a line. Every text renderer's output
// goes through terminalText(), which shows each such character escaped
// (`\x1b`, `\u202e`). Colours are written by ncclx's own Style as markers
// carrying a per-process nonce, turned into escape sequences only here, so a
// string from the node can neither forge a colour nor hide one.
// JSON and Prometheus output keep the raw bytes (their readers escape).

import { closeSync, openSync, readSync } from 'node:fs';

/**
 * Six random bytes, hex. Read from the kernel's /dev/urandom: every ncclx run
 * renders through this module, and loading node:crypto for six bytes cost
 * each start ~5 ms on these machines. Web Crypto where /dev/urandom cannot be
 * read (a sandbox without /dev).
 */
function nonce(): string {
  const bytes = Buffer.alloc(6);
  try {
    const fd = openSync('/dev/urandom', 'r');
    try {
      if (readSync(fd, bytes, 0, bytes.length, null) !== bytes.length) throw new Error('short read');
    } finally {
      closeSync(fd);
    }
  } catch {
    globalThis.crypto.getRandomValues(bytes);
  }
  return bytes.toString('hex');
}

const NONCE = nonce();
const OPEN = `\uE000${NONCE}:`;
const CLOSE = '\uE001';
const MARKER = new RegExp(`\\uE000${NONCE}:(\\d+)\\uE001`, 'g');

/** A style marker for SGR code `code` (written as ESC [ code m by terminalText). */
export const sgr = (code: number) => `${OPEN}${code}${CLOSE}`;

// C0 controls but tab and newline, DEL, C1 controls, bidi and invisible format characters, and the markers' own characters.
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ue000\ue001]/g;

/** One character as it is shown: `\x1b`, `\u202e`. */
function escapeChar(c: string): string {
  const n = c.codePointAt(0)!;
  return n <= 0xff ? `\\x${n.toString(16).padStart(2, '0')}` : `\\u${n.toString(16).padStart(4, '0')}`;
}

// Half of a UTF-16 pair with no other half (a hand-made snapshot): no character at all, and UTF-8 output would hide it as U+FFFD.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Data made safe to show: every control or format character, and every lone surrogate, visibly escaped. */
export function visible(s: string): string {
  return s.replace(UNSAFE, escapeChar).replace(LONE_SURROGATE, escapeChar);
}

/** The final text for a terminal or a pipe: data escaped, then ncclx's own colours emitted. */
export function terminalText(s: string): string {
  let out = '';
  let last = 0;
  for (const m of s.matchAll(MARKER)) {
    out += visible(s.slice(last, m.index)) + `\x1b[${m[1]}m`;
    last = m.index! + m[0].length;
  }
  return out + visible(s.slice(last));
}
