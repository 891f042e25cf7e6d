// startCommand (src/probe/runner.ts) runs a command without waiting, for
// `ncclx ps`, which starts `ip` before reading every maps file: its answer
// must be the one liveRunner gives, in every way a command can end.

import { describe, expect, it } from 'vitest';
import { liveRunner, runnerWith, startCommand, type CommandSpec } from '../../src/probe/runner.js';

const spec = (argv: string[], timeoutMs = 2000): CommandSpec => ({ argv, record: 'x', timeoutMs });

describe('startCommand gives what liveRunner gives', () => {
  const cases: [string, CommandSpec][] = [
    ['a command that is not installed', spec(['ncclx-no-such-command'])],
    ['a non-zero exit, with its standard error as the reason', spec(['sh', '-c', 'echo out; echo why >&2; exit 3'])],
    ['a command past its time limit', spec(['sleep', '5'], 300)],
    ['standard output', spec(['printf', 'a\\nb\\n'])],
  ];
  for (const [name, s] of cases) {
    it(name, async () => {
      const started = await startCommand(s).result;
      expect(started).toEqual(liveRunner().run(s));
      expect(started.ok).toBe(name === 'standard output');
    });
  }

  it('cancel stops the command', async () => {
    const t0 = Date.now();
    const c = startCommand(spec(['sleep', '5'], 10_000));
    c.cancel();
    const r = await c.result;
    expect(r).toEqual({ ok: false, error: 'sleep 5: cancelled', missing: false, from: 'live' });
    expect(Date.now() - t0).toBeLessThan(4000);
  });

  it('runnerWith answers its one command from the result in hand, and runs the others', () => {
    const held = { ok: true as const, stdout: 'held', from: 'live' as const };
    const r = runnerWith(spec(['ip', '-j', 'addr']), held);
    expect(r.run(spec(['ip', '-j', 'addr']))).toBe(held);
    expect(r.run(spec(['printf', 'live']))).toEqual({ ok: true, stdout: 'live', from: 'live' });
  });
});
