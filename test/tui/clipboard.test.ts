// Where an OSC 52 copy went: outside tmux the terminal has it; inside tmux
// only `set-clipboard on` takes it, and the UI must say so otherwise.

import { describe, expect, it } from 'vitest';
import { clipboardMessage, clipboardReport, TMUX_ENABLE, type Exec } from '../../src/tui/clipboard.js';

describe('clipboardReport', () => {
  it('outside tmux ($TMUX unset) nothing is run', async () => {
    const calls: string[][] = [];
    const exec: Exec = async (f, a) => (calls.push([f, ...a]), 'on\n');
    expect(await clipboardReport({}, exec)).toEqual({ via: 'terminal' });
    expect(calls).toEqual([]);
  });

  it('inside tmux: asks tmux (an argument array, a bounded wait) for set-clipboard', async () => {
    const calls: [string, string[], number][] = [];
    const exec: Exec = async (f, a, t) => (calls.push([f, a, t]), 'external\n');
    expect(await clipboardReport({ TMUX: '/tmp/tmux-0/default,1,0' }, exec)).toEqual({ via: 'tmux', setting: 'external' });
    expect(calls).toEqual([['tmux', ['show-options', '-gv', 'set-clipboard'], 1000]]);
  });

  it('tmux that cannot be asked (missing, timing out) gives no setting and why', async () => {
    const exec: Exec = async () => {
      throw new Error('no answer within 1000 ms');
    };
    expect(await clipboardReport({ TMUX: 'x' }, exec)).toEqual({ via: 'tmux', setting: null, error: 'no answer within 1000 ms' });
  });

  it('the real execFile path reports a missing tmux instead of throwing', async () => {
    const r = await clipboardReport({ TMUX: 'x' }, async (_f, a, t) => {
      const { execFile } = await import('node:child_process');
      return new Promise((res, rej) => execFile('/nonexistent/tmux', a, { timeout: t }, (e, out) => (e ? rej(e) : res(out))));
    });
    expect(r).toMatchObject({ via: 'tmux', setting: null });
  });
});

describe('clipboardMessage', () => {
  it('claims a copy only when it happened', () => {
    expect(clipboardMessage({ via: 'terminal' })).toMatchObject({ ok: true, title: 'Copied to the clipboard (OSC 52)' });
    expect(clipboardMessage({ via: 'tmux', setting: 'on' })).toMatchObject({ ok: true, title: expect.stringMatching(/^Copied to the clipboard/) });
    for (const setting of ['external', 'off', null]) {
      const m = clipboardMessage({ via: 'tmux', setting, ...(setting === null ? { error: 'timeout' } : {}) });
      expect(m.ok).toBe(false);
      expect(m.title).toMatch(/^(Not|Maybe not) copied/);
      expect(m.advice).toContain(`  ${TMUX_ENABLE}`);
      expect(m.advice.join('\n')).toMatch(/select the text below by hand/);
    }
    expect(clipboardMessage({ via: 'tmux', setting: 'external' }).title).toBe('Not copied: tmux set-clipboard is external');
    expect(clipboardMessage({ via: 'tmux', setting: 'off' }).title).toBe('Not copied: tmux set-clipboard is off');
    expect(clipboardMessage({ via: 'failed', error: 'EPIPE' })).toMatchObject({ ok: false, title: 'Not copied: EPIPE' });
  });
});
