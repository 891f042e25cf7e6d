// The built binary in a real terminal: a private tmux server (Debian's
// package) per test file, sessions of a chosen size running a command, keys in
// with send-keys, the screen back with capture-pane, as a person sees it.
// CI installs tmux and never skips these tests; elsewhere they are skipped,
// with the reason, only when tmux is missing.

import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { tempDir } from '../helpers/tmp.js';

export const ROOT = join(__dirname, '../..');
export const HAVE_TMUX = spawnSync('tmux', ['-V']).status === 0;
export const IN_CI = !!process.env['CI'] && process.env['CI'] !== 'false' && process.env['CI'] !== '0';
/** Run the tmux suites: tmux is installed, or CI (where a missing tmux must fail, not skip). */
export const RUN_TMUX = HAVE_TMUX || IN_CI;
/** The one-line reason a suite is skipped. */
export const SKIP_REASON = 'skipped: tmux is not installed (apt-get install tmux); CI installs it and never skips';

export interface Tmux {
  /** tmux on this file's private server; throws with stderr on failure. */
  tmux(...args: string[]): string;
  /** Starts `sh -c CMD` in a detached session; the shell reports the exit code and stays, so the screen can be read after. */
  start(session: string, cmd: string, o?: { cols?: number; rows?: number; env?: Record<string, string> }): void;
  screen(session: string, escapes?: boolean): string;
  /**
   * Polls the screen until it matches (a RegExp or a predicate) and has
   * settled: two captures 40 ms apart are the same. A large frame reaches
   * tmux in several writes, and a capture between them can already match
   * while its last rows are still blank (a 200×50 frame's footer was read
   * empty on CI). A screen that matches but keeps changing for a whole
   * second is returned as last seen. Throws with the last screen.
   */
  waitScreen(session: string, re: RegExp | ((s: string) => boolean), ms?: number): Promise<string>;
  keys(session: string, ...k: string[]): void;
  /** Types text literally. */
  text(session: string, t: string): void;
  alternate(session: string): string;
  /** Kills the server (its socket directory is removed with the file's temp dirs, after the file). */
  close(): void;
}

/**
 * A private server on a socket in a temporary directory: nothing shared with
 * the user's tmux, nothing left behind. Call only when the suite runs (a
 * skipped file runs no hooks, so nothing would remove the directory).
 */
export function tmuxServer(prefix = 'ncclx-tmux-'): Tmux {
  const dir = tempDir(prefix);
  const socket = join(dir, 'sock');
  const tmux = (...args: string[]): string => {
    const r = spawnSync('tmux', ['-S', socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
    if (r.error) throw new Error(`tmux ${args.join(' ')}: ${r.error.message} (is the tmux package installed?)`);
    if (r.status !== 0) throw new Error(`tmux ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  const screen = (session: string, escapes = false) => tmux('capture-pane', '-p', ...(escapes ? ['-e'] : []), '-t', session);
  return {
    tmux,
    start(session, cmd, o = {}) {
      const exports = Object.entries(o.env ?? {})
        .map(([k, v]) => `export ${k}='${v}';`)
        .join(' ');
      tmux('new-session', '-d', '-s', session, '-x', String(o.cols ?? 80), '-y', String(o.rows ?? 24), '-c', ROOT, `${exports} ${cmd}; echo "EXIT=$?"; sleep 600`);
    },
    screen,
    async waitScreen(session, re, ms = 10_000) {
      const ok = (s: string) => (typeof re === 'function' ? re(s) : re.test(s));
      const t0 = Date.now();
      let s = '';
      let matched = null as { screen: string; since: number } | null;
      while (Date.now() - t0 < ms) {
        s = screen(session);
        if (!ok(s)) matched = null;
        else if (matched?.screen === s || (matched && Date.now() - matched.since >= 1_000)) return s;
        else matched = { screen: s, since: matched?.since ?? Date.now() };
        await new Promise((r) => setTimeout(r, 40));
      }
      throw new Error(`timed out waiting for ${re}; screen:\n${s}`);
    },
    keys: (session, ...k) => void tmux('send-keys', '-t', session, ...k),
    text: (session, t) => void tmux('send-keys', '-t', session, '-l', t),
    alternate: (session) => tmux('display-message', '-p', '-t', session, '#{alternate_on}').trim(),
    close() {
      spawnSync('tmux', ['-S', socket, 'kill-server']);
    },
  };
}
