// Applying a plan: read every operation's current state first (a refusal or
// an unreadable state stops the apply before anything changes), write the
// journal, then apply, verify and record each operation in order. When one
// fails or does not verify, everything done so far is undone in reverse order
// from the recorded states, and each undo is checked against them.

import { UserError } from '../model/errors.js';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Host } from './host.js';
import { handler, OpError, opText } from './ops.js';
import type { ApplyEvent, ApplyOutcome, Fix, OpSpec } from '../model/fix/types.js';
import { heredoc } from '../model/fix/describe.js';
import { shJoin, shQuote } from '../model/shell/quote.js';

export const DEFAULT_JOURNAL_DIR = '/var/lib/ncclx';

export type OpState = 'pending' | 'applying' | 'applied' | 'unchanged' | 'failed' | 'undone' | 'undo-failed' | 'skipped';

export interface JournalOp {
  fix: string;
  op: OpSpec;
  text: string;
  state: OpState;
  /** The state read just before the change: what undo restores. */
  before?: unknown;
  error?: string;
}

export interface Journal {
  schema: 'ncclx.fix-journal/v1';
  host: string;
  created: string;
  updated: string;
  status: 'applying' | 'applied' | 'rolled-back' | 'rollback-failed';
  fixes: string[];
  ops: JournalOp[];
}

export class JournalError extends UserError {}

export interface ApplyOptions {
  host: Host;
  hostname: string;
  /** Journal path; default DEFAULT_JOURNAL_DIR/fix-<time>-<pid>.json. */
  journal?: string;
  onEvent?: (e: ApplyEvent) => void;
  now?: () => Date;
}

function errText(e: unknown): string {
  return e instanceof OpError ? e.message : e instanceof Error ? e.message : String(e);
}

function defaultJournalPath(now: Date): string {
  const stamp = now.toISOString().replace(/[:.]/g, '-');
  return `${DEFAULT_JOURNAL_DIR}/fix-${stamp}-${process.pid}.json`;
}

function saveJournal(host: Host, path: string, j: Journal, now: () => Date) {
  j.updated = now().toISOString();
  host.write(path, JSON.stringify(j, null, 2) + '\n', 0o600);
}

/** Undo one operation and check the node is back to the recorded state. */
function restore(h: ReturnType<typeof handler>, e: JournalOp, host: Host): void {
  h.undo(e.op, host, e.before);
  const diff = h.restored(e.op, host, e.before);
  if (diff) throw new OpError(`undo did not restore it: ${diff}`);
}

/** Commands that would undo `e` by hand: the undo run against a host that records what it would change. */
function undoCommands(h: ReturnType<typeof handler>, e: JournalOp, host: Host): string[] {
  const out: string[] = [];
  // Reads go to the node (the undo decides from them); changes are written down instead of made.
  const reads = /^(show|list|get|-save|save)$|-save$/;
  const recorder: Host = {
    ...host,
    run(argv, input) {
      if (argv.some((a) => reads.test(a)) || (argv[0] === 'tc' && argv.includes('show'))) return host.run(argv, input);
      out.push(input !== undefined ? heredoc(shJoin(argv), input) : shJoin(argv));
      return { ok: true, stdout: '', error: '' };
    },
    write(path, content) {
      out.push(heredoc(`cat > ${shQuote(path)}`, content));
    },
    writeInPlace(path, content) {
      // One line for a one-line value (a sysctl), so it pastes as one command.
      const line = /^[^\n]*\n$/.test(content);
      out.push(line ? `printf '%s\\n' ${shQuote(content.slice(0, -1))} > ${shQuote(path)}` : heredoc(`cat > ${shQuote(path)}`, content));
    },
    remove(path) {
      out.push(`rm -f ${shQuote(path)}`);
    },
  };
  try {
    h.undo(e.op, recorder, e.before);
  } catch {
    // What could be recorded before the failure is still useful.
  }
  return out;
}

/** Undo, newest first, every op of the journal that may have changed the node. */
function undoAll(j: Journal, path: string, o: { host: Host; onEvent?: (e: ApplyEvent) => void; now: () => Date; driftCheck: boolean }): string[] {
  const errors: string[] = [];
  for (let i = j.ops.length - 1; i >= 0; i--) {
    const e = j.ops[i]!;
    // skipped (changed by someone) and undo-failed ops are picked up again by the next rollback: it is resumable.
    if (e.state !== 'applied' && e.state !== 'applying' && e.state !== 'failed' && e.state !== 'skipped' && e.state !== 'undo-failed') continue;
    if (e.before === undefined) continue; // failed while reading: nothing was changed
    const h = handler(e.op);
    if (e.state === 'failed') {
      // The op that failed may have done part of its work (a qdisc without its filters): clean that up quietly.
      try {
        if (h.restored(e.op, o.host, e.before) === null) continue; // it changed nothing
        restore(h, e, o.host);
      } catch (err) {
        errors.push(`${e.text}: ${errText(err)}`);
        o.onEvent?.({ type: 'undo-failed', index: i, op: e.op, text: e.text, error: errText(err) });
      }
      continue;
    }
    o.onEvent?.({ type: 'undo-start', index: i, op: e.op, text: e.text });
    try {
      // Already back where it started (someone removed the rule by hand): that is restored; nothing to touch.
      if (h.restored(e.op, o.host, e.before) === null) {
        e.state = 'undone';
        e.error = undefined;
        o.onEvent?.({ type: 'undo-done', index: i, op: e.op, text: `${e.text} (already back in its previous state)` });
        saveJournal(o.host, path, j, o.now);
        continue;
      }
      // A later rollback must not overwrite what someone changed since: only undo what still holds our value.
      if (o.driftCheck && (e.state === 'applied' || e.state === 'skipped')) {
        const drift = h.verify(e.op, o.host);
        if (drift) {
          e.state = 'skipped';
          const cmds = undoCommands(h, e, o.host);
          e.error = `changed since the apply (${drift}); left as it is${cmds.length ? `. To restore it by hand:\n${cmds.map((c) => `      ${c}`).join('\n')}` : ''}`;
          errors.push(`${e.text}: ${e.error}`);
          o.onEvent?.({ type: 'undo-failed', index: i, op: e.op, text: e.text, error: e.error });
          saveJournal(o.host, path, j, o.now);
          continue;
        }
      }
      restore(h, e, o.host);
      e.state = 'undone';
      o.onEvent?.({ type: 'undo-done', index: i, op: e.op, text: e.text });
    } catch (err) {
      e.state = 'undo-failed';
      e.error = errText(err);
      errors.push(`${e.text}: ${e.error}`);
      o.onEvent?.({ type: 'undo-failed', index: i, op: e.op, text: e.text, error: e.error });
    }
    saveJournal(o.host, path, j, o.now);
  }
  return errors;
}

/** The state an op finds on the node, as the apply reads it; null when it cannot be read (the apply will say why). */
export function observe(op: OpSpec, host: Host): unknown {
  try {
    return handler(op).read(op, host) ?? null;
  } catch {
    return null;
  }
}

export async function applyFixes(fixes: Fix[], opts: ApplyOptions): Promise<ApplyOutcome> {
  const now = opts.now ?? (() => new Date());
  const { host, onEvent } = opts;
  const seenOf = new Map<JournalOp, unknown>();
  const entries: JournalOp[] = fixes
    .filter((f) => !f.blocked)
    .flatMap((f) =>
      f.ops.map((op, k) => {
        const e: JournalOp = { fix: f.id, op, text: opText(op), state: 'pending' as OpState };
        if (f.seen && k < f.seen.length) seenOf.set(e, f.seen[k]);
        return e;
      }),
    );
  const outcome: ApplyOutcome = { status: 'unchanged', journal: null, changed: 0, unchanged: 0, failure: null, undoErrors: [] };

  // 1. Read everything first: a refusal (a file edited since the plan, a configured qdisc) stops here, with nothing changed.
  const pending: boolean[] = [];
  for (const [i, e] of entries.entries()) {
    const h = handler(e.op);
    try {
      const now = h.read(e.op, host);
      const done = h.inPlace(e.op, now);
      // A plan made live recorded what it saw; what changed since was not reviewed (an op already in place changes nothing).
      const seen = seenOf.get(e);
      if (!done && seen !== undefined && JSON.stringify(now) !== JSON.stringify(seen)) {
        throw new OpError(`the node changed since the plan: the plan saw ${JSON.stringify(seen)}, now ${JSON.stringify(now)}; plan again`);
      }
      pending.push(!done);
    } catch (err) {
      const error = errText(err);
      onEvent?.({ type: 'op-failed', index: i, op: e.op, text: e.text, error });
      return { ...outcome, status: 'refused', failure: { index: i, text: e.text, error } };
    }
  }
  if (!pending.some(Boolean)) {
    entries.forEach((e, i) => onEvent?.({ type: 'op-done', index: i, op: e.op, text: e.text, changed: false }));
    return { ...outcome, unchanged: entries.length };
  }

  // 2. The journal exists before the first change.
  const path = opts.journal ?? defaultJournalPath(now());
  const journal: Journal = { schema: 'ncclx.fix-journal/v1', host: opts.hostname, created: now().toISOString(), updated: '', status: 'applying', fixes: [...new Set(entries.map((e) => e.fix))], ops: entries };
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    saveJournal(host, path, journal, now);
  } catch (err) {
    throw new JournalError(`cannot write the journal ${path}: ${errText(err)}; nothing was changed`);
  }
  outcome.journal = path;
  onEvent?.({ type: 'journal', path });

  // 3. Apply in order.
  for (const [i, e] of entries.entries()) {
    const h = handler(e.op);
    onEvent?.({ type: 'op-start', index: i, op: e.op, text: e.text });
    try {
      const before = h.read(e.op, host);
      if (h.inPlace(e.op, before)) {
        e.state = 'unchanged';
        outcome.unchanged++;
        saveJournal(host, path, journal, now);
        onEvent?.({ type: 'op-done', index: i, op: e.op, text: e.text, changed: false });
        continue;
      }
      e.before = before;
      e.state = 'applying';
      saveJournal(host, path, journal, now);
      h.apply(e.op, host, before);
      const diff = h.verify(e.op, host);
      if (diff) throw new OpError(`applied, but it does not verify: ${diff}`);
      e.state = 'applied';
      outcome.changed++;
      saveJournal(host, path, journal, now);
      onEvent?.({ type: 'op-done', index: i, op: e.op, text: e.text, changed: true });
    } catch (err) {
      e.state = 'failed';
      e.error = errText(err);
      saveJournal(host, path, journal, now);
      onEvent?.({ type: 'op-failed', index: i, op: e.op, text: e.text, error: e.error });
      outcome.failure = { index: i, text: e.text, error: e.error };
      outcome.undoErrors = undoAll(journal, path, { host, onEvent, now, driftCheck: false });
      journal.status = outcome.undoErrors.length ? 'rollback-failed' : 'rolled-back';
      saveJournal(host, path, journal, now);
      return { ...outcome, status: journal.status };
    }
  }
  journal.status = 'applied';
  saveJournal(host, path, journal, now);
  return { ...outcome, status: 'applied' };
}

export function loadJournal(host: Host, path: string): Journal {
  let text: string | null;
  try {
    text = host.read(path);
  } catch (err) {
    throw new JournalError(`cannot read the journal ${path}: ${errText(err)}`);
  }
  if (text === null) throw new JournalError(`no journal at ${path}`);
  let j: Journal;
  try {
    j = JSON.parse(text) as Journal;
  } catch (err) {
    throw new JournalError(`${path} is not a journal (${errText(err)})`);
  }
  if (j?.schema !== 'ncclx.fix-journal/v1' || !Array.isArray(j.ops)) throw new JournalError(`${path} is not an ncclx fix journal (schema ${String(j?.schema)})`);
  return j;
}

/** Undo a completed (or interrupted) apply from its journal. */
export async function rollbackJournal(path: string, opts: { host: Host; onEvent?: (e: ApplyEvent) => void; now?: () => Date; force?: boolean }): Promise<ApplyOutcome> {
  const now = opts.now ?? (() => new Date());
  const j = loadJournal(opts.host, path);
  const todo = j.ops.filter((e) => e.state === 'applied' || e.state === 'applying' || e.state === 'skipped' || e.state === 'undo-failed');
  const outcome: ApplyOutcome = { status: 'unchanged', journal: path, changed: 0, unchanged: 0, failure: null, undoErrors: [] };
  if (todo.length === 0) return outcome;
  outcome.undoErrors = undoAll(j, path, { host: opts.host, onEvent: opts.onEvent, now, driftCheck: !opts.force });
  outcome.changed = j.ops.filter((e) => e.state === 'undone').length;
  j.status = outcome.undoErrors.length ? 'rollback-failed' : 'rolled-back';
  saveJournal(opts.host, path, j, now);
  return { ...outcome, status: j.status };
}
