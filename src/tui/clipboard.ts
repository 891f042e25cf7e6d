// Where an OSC 52 copy goes. Outside tmux the terminal decides (most accept
// it). Inside tmux, a program's OSC 52 is taken only with `set-clipboard on`;
// tmux's default, `external`, and `off` drop it — so the UI asks tmux
// (`tmux show-options -gv set-clipboard`, an argument array, no shell, a
// bounded wait) and says what happened instead of claiming a copy.

import { execFile } from 'node:child_process';

export type ClipboardReport =
  /** Not in tmux: sent to the terminal, which may or may not support OSC 52. */
  | { via: 'terminal' }
  /** In tmux: its set-clipboard value ('on', 'external', 'off'), or null with why it could not be read. */
  | { via: 'tmux'; setting: string | null; error?: string }
  /** The copy itself failed. */
  | { via: 'failed'; error: string };

/** Runs a program with arguments (no shell) and resolves with its stdout; the default is child_process.execFile with a timeout. */
export type Exec = (file: string, args: string[], timeoutMs: number) => Promise<string>;

const execDefault: Exec = (file, args, timeoutMs) =>
  new Promise((resolve, reject) => {
    execFile(file, args, { timeout: timeoutMs, killSignal: 'SIGKILL', encoding: 'utf8', maxBuffer: 64 * 1024 }, (err, stdout, stderr) => {
      if (err) {
        const detail = (stderr || '').trim().split('\n')[0];
        reject(new Error(err.killed ? `no answer within ${timeoutMs} ms` : detail || err.message));
      } else resolve(stdout);
    });
  });

/** How long tmux gets to answer. */
export const TMUX_TIMEOUT_MS = 1000;

/** Where a copy went, given the environment ($TMUX set: inside tmux). */
export async function clipboardReport(env: NodeJS.ProcessEnv, exec: Exec = execDefault): Promise<ClipboardReport> {
  if (!env['TMUX']) return { via: 'terminal' };
  try {
    const out = (await exec('tmux', ['show-options', '-gv', 'set-clipboard'], TMUX_TIMEOUT_MS)).trim();
    return { via: 'tmux', setting: out || null, ...(out ? {} : { error: 'tmux printed nothing' }) };
  } catch (e) {
    return { via: 'tmux', setting: null, error: e instanceof Error ? e.message : String(e) };
  }
}

/** The tmux command that lets programs set the clipboard. */
export const TMUX_ENABLE = 'tmux set -g set-clipboard on';

/** What the UI says about a copy: a title, whether it worked, and lines of advice (the enabling command on its own line). */
export function clipboardMessage(r: ClipboardReport): { title: string; ok: boolean; advice: string[] } {
  if (r.via === 'terminal') return { title: 'Copied to the clipboard (OSC 52)', ok: true, advice: [] };
  if (r.via === 'failed') return { title: `Not copied: ${r.error}`, ok: false, advice: ['select the text below by hand:'] };
  if (r.setting === 'on') return { title: 'Copied to the clipboard (OSC 52; tmux set-clipboard on)', ok: true, advice: [] };
  const title =
    r.setting === null
      ? `Maybe not copied: could not ask tmux (${r.error ?? 'unknown error'})`
      : r.setting === 'external' || r.setting === 'off'
        ? `Not copied: tmux set-clipboard is ${r.setting}`
        : `Maybe not copied: tmux set-clipboard is '${r.setting}'`;
  return {
    title,
    ok: false,
    advice: [r.setting === null ? 'inside tmux OSC 52 needs set-clipboard on:' : 'tmux drops OSC 52 from programs unless set-clipboard is on:', `  ${TMUX_ENABLE}`, 'or select the text below by hand:'],
  };
}
