// The list grammar NCCL uses for NCCL_SOCKET_IFNAME, NCCL_IB_HCA and the
// NCCL_COMM_ID host: `[^][=]entry[,entry…]`, entry = `prefix[:port[:rail[:plane]]]`
// (docs/nccl/socket.md §3; docs/nccl/ib.md §2). Two parsers exist, selected by the profile.

import { atoi } from './cint.js';
import type { ListParser } from './versions.js';

/** Longest entry text that fits NCCL's 64-byte `prefix` field. */
export const ENTRY_TEXT_MAX = 63;

export interface ListEntry {
  /** The name prefix (or exact name in `=` mode). */
  prefix: string;
  /** -1 = any port. */
  port: number;
  /** -1 = unset (rail/plane only exist in the ≥ 2.30.7 tokenizer). */
  rail: number;
  plane: number;
  /** The entry as written, for messages. */
  text: string;
}

export type ListNoteKind =
  | 'overlong'
  | 'truncated'
  | 'empty-name'
  | 'empty-item'
  | 'non-numeric-field'
  | 'empty-port'
  | 'whitespace'
  | 'dropped';

export interface ListNote {
  kind: ListNoteKind;
  entry: string;
  message: string;
}

export interface ParsedList {
  spec: string;
  /** Leading `^`: the list names what to exclude. */
  not: boolean;
  /** `=` after the optional `^`: names must match exactly. */
  exact: boolean;
  entries: ListEntry[];
  /** Entries past the limit, which NCCL drops without a message. */
  dropped: string[];
  notes: ListNote[];
}

export interface ParseOptions {
  parser: ListParser;
  /** MAX_IFS (16) for interfaces, MAX_IB_DEVS (32, or 16 before 2.18.5) for HCAs. */
  maxEntries: number;
  /** Record notes about ports/rails (meaningless for socket interfaces). */
  fieldsMatter?: boolean;
}

/** Split off the `^` and `=` modifiers, in that order only. */
export function splitModifiers(spec: string): { not: boolean; exact: boolean; body: string } {
  let body = spec;
  const not = body.startsWith('^');
  if (not) body = body.slice(1);
  const exact = body.startsWith('=');
  if (exact) body = body.slice(1);
  return { not, exact, body };
}

export function parseList(spec: string, opts: ParseOptions): ParsedList {
  const { not, exact, body } = splitModifiers(spec);
  return { spec, not, exact, ...parseEntries(body, opts) };
}

/** `parseStringList` on text whose modifiers were already taken off (or that has none, like NCCL_COMM_ID). */
export function parseEntries(body: string, opts: ParseOptions): Omit<ParsedList, 'spec' | 'not' | 'exact'> {
  return opts.parser === 'tokenizer' ? tokenize(body, opts) : scan(body, opts);
}

/**
 * NCCL ≤ 2.30.4 `parseStringList`: a character scanner. The port is `atoi` of
 * everything after the first `:` (so `1:2` reads 1 and an empty port reads 0);
 * an entry with an empty name is skipped; parsing stops after maxEntries.
 */
function scan(body: string, opts: ParseOptions): Omit<ParsedList, 'spec' | 'not' | 'exact'> {
  const entries: ListEntry[] = [];
  const notes: ListNote[] = [];
  let i = 0;
  let cur = '';
  let entryStart = 0;
  for (;;) {
    if (entries.length >= opts.maxEntries) break;
    const c = i < body.length ? body[i]! : '\0';
    if (c === ':') {
      const fieldStart = i + 1;
      let j = i;
      while (j < body.length && body[j] !== ',') j++;
      const portText = body.slice(fieldStart, j);
      if (cur.length > 0) {
        const entry: ListEntry = { prefix: cur, port: atoi(portText), rail: -1, plane: -1, text: body.slice(entryStart, j) };
        noteEntry(entry, portText, notes, opts, 'scanner');
        entries.push(entry);
      } else {
        notes.push({ kind: 'empty-name', entry: body.slice(entryStart, j), message: `entry '${body.slice(entryStart, j)}' has no name and is skipped` });
      }
      cur = '';
      i = j; // at ',' or end
      if (i >= body.length) break;
      i++;
      entryStart = i;
      continue;
    }
    if (c === ',' || c === '\0') {
      if (cur.length > 0) {
        const entry: ListEntry = { prefix: cur, port: -1, rail: -1, plane: -1, text: cur };
        noteEntry(entry, null, notes, opts, 'scanner');
        entries.push(entry);
      } else if (c === ',') {
        notes.push({ kind: 'empty-item', entry: '', message: 'an empty list item is ignored' });
      }
      cur = '';
      if (c === '\0') break;
      i++;
      entryStart = i;
      continue;
    }
    cur += c;
    i++;
  }
  const rest = i < body.length ? body.slice(i) : '';
  const dropped = rest.length > 0 ? rest.split(',').filter((s) => s.length > 0) : [];
  for (const d of dropped) {
    notes.push({ kind: 'dropped', entry: d, message: `'${d}' is past the ${opts.maxEntries}-entry limit and is silently dropped` });
  }
  return { entries, dropped, notes };
}

/** NCCL ≥ 2.30.7: comma items, `:` fields, empty field = unset (-1), names cut to 63 characters. */
function tokenize(body: string, opts: ParseOptions): Omit<ParsedList, 'spec' | 'not' | 'exact'> {
  const entries: ListEntry[] = [];
  const notes: ListNote[] = [];
  const dropped: string[] = [];
  for (const item of body.split(',')) {
    if (item.length === 0) {
      if (body.length > 0) notes.push({ kind: 'empty-item', entry: '', message: 'an empty list item is ignored' });
      continue;
    }
    const fields = item.split(':');
    const name = fields[0]!;
    if (name.length === 0) {
      notes.push({ kind: 'empty-name', entry: item, message: `entry '${item}' has no name and is skipped` });
      continue;
    }
    if (entries.length >= opts.maxEntries) {
      dropped.push(item);
      notes.push({ kind: 'dropped', entry: item, message: `'${item}' is past the ${opts.maxEntries}-entry limit and is silently dropped` });
      continue;
    }
    const num = (f: string | undefined) => (f === undefined || f === '' ? -1 : atoi(f));
    const entry: ListEntry = {
      prefix: name.slice(0, ENTRY_TEXT_MAX),
      port: num(fields[1]),
      rail: num(fields[2]),
      plane: num(fields[3]),
      text: item,
    };
    if (name.length > ENTRY_TEXT_MAX) {
      notes.push({ kind: 'truncated', entry: item, message: `'${name}' is longer than ${ENTRY_TEXT_MAX} characters; NCCL ≥ 2.30.7 cuts it to '${entry.prefix}'` });
    }
    noteEntry(entry, fields[1] ?? null, notes, opts, 'tokenizer');
    entries.push(entry);
  }
  return { entries, dropped, notes };
}

function noteEntry(entry: ListEntry, portText: string | null, notes: ListNote[], opts: ParseOptions, parser: ListParser) {
  if (parser === 'scanner' && entry.prefix.length > ENTRY_TEXT_MAX) {
    notes.push({
      kind: 'overlong',
      entry: entry.text,
      message: `'${entry.prefix}' is longer than ${ENTRY_TEXT_MAX} characters and overflows NCCL's 64-byte field (NCCL ≤ 2.30.4 copies it unbounded: undefined behaviour)`,
    });
  }
  if (/\s/.test(entry.prefix)) {
    notes.push({ kind: 'whitespace', entry: entry.text, message: `'${entry.prefix}' contains whitespace; NCCL does not trim, so it matches no interface name` });
  }
  if (!opts.fieldsMatter || portText === null) return;
  if (portText === '') {
    notes.push({
      kind: 'empty-port',
      entry: entry.text,
      message:
        parser === 'scanner'
          ? `'${entry.text}' has an empty port, which NCCL ≤ 2.30.4 reads as port 0: it never matches (ports start at 1)`
          : `'${entry.text}' has an empty port, which NCCL ≥ 2.30.7 reads as "all ports"`,
    });
  } else if (!/^\s*[+-]?\d/.test(portText)) {
    notes.push({ kind: 'non-numeric-field', entry: entry.text, message: `the port in '${entry.text}' is not a number; C reads it as 0, which never matches` });
  }
}

/** `matchIf`: prefix mode compares strlen(entry) characters; exact mode the whole name. */
export function matchName(name: string, entry: ListEntry, exact: boolean): boolean {
  return exact ? name === entry.prefix : name.startsWith(entry.prefix);
}

/** `matchPort`: -1 on either side matches anything. */
export function matchPort(port: number, entryPort: number): boolean {
  return port === -1 || entryPort === -1 || port === entryPort;
}

export interface ListMatch {
  /** Whether the item passes the list (after applying `^`). */
  accepted: boolean;
  /** The entry that matched, if any (before `^` is applied). */
  entry: ListEntry | null;
}

/** `matchIfList(...) XOR searchNot`; an empty list matches everything. */
export function matchList(name: string, port: number, list: ParsedList): ListMatch {
  if (list.entries.length === 0) return { accepted: !list.not, entry: null };
  for (const e of list.entries) {
    if (matchName(name, e, list.exact) && matchPort(port, e.port)) {
      return { accepted: !list.not, entry: e };
    }
  }
  return { accepted: list.not, entry: null };
}

/** Render a list back in NCCL's grammar, e.g. for a suggestion. */
export function describeList(list: ParsedList): string {
  return `${list.not ? '^' : ''}${list.exact ? '=' : ''}${list.entries.map((e) => e.text).join(',')}`;
}

/** Notes of one kind said once: the first note, with how many more there are and a few of their entries (a 5,000-entry list gives one line, not 5,000). */
export function groupNotes(notes: ListNote[], shown = 3): { kind: ListNoteKind; count: number; message: string }[] {
  const byKind = new Map<ListNoteKind, ListNote[]>();
  for (const n of notes) byKind.set(n.kind, [...(byKind.get(n.kind) ?? []), n]);
  return [...byKind.entries()].map(([kind, list]) => {
    const more = list.slice(1);
    const shownMore = more.slice(0, shown).map((n) => `'${n.entry.length > 40 ? `${n.entry.slice(0, 39)}…` : n.entry}'`);
    const message = more.length ? `${list[0]!.message} (and ${more.length} more like it: ${shownMore.join(', ')}${more.length > shown ? ', …' : ''})` : list[0]!.message;
    return { kind, count: list.length, message };
  });
}
