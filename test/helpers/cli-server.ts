// The built CLI for tests that call it many times, synchronously, without a
// Node start-up per call (docs/testing.md, "One process per scenario"): a
// run of `node dist/cli.js ARGS` costs ~0.3 s of CPU, almost all of it Node
// starting and loading modules. One ncclx-server.mjs per test file runs
// main() for each call, with the call's argv, environment and working
// directory, and answers through two FIFOs, so `ncclx(args)` stays a plain
// synchronous call. Every file that uses it checks at least one call
// against its own process (sameAsOwnProcess): a state carried from one call
// to the next would show there.
//
// Not for what only a process shows: exit by signal, EPIPE, a terminal,
// stdin, start-up without PATH. Those tests spawn the CLI themselves.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readFileSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect } from 'vitest';

const SERVER = join(__dirname, 'ncclx-server.mjs');
const CLI = join(__dirname, '../../dist/cli.js');
const WITH_FAULTS = join(__dirname, 'ncclx.mjs');
/** How long the server may take to start, and one call to answer: past them the test fails rather than hangs. */
const START_MS = 30_000;
const CALL_MS = 120_000;
const SLEEP = new Int32Array(new SharedArrayBuffer(4));
/** Waits ms milliseconds without returning to the event loop (the calls are synchronous). */
const pause = (ms: number) => Atomics.wait(SLEEP, 0, 0, ms);

export interface ServerRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

export interface CliServer {
  /** `ncclx ARGS` with exactly this environment (and working directory). */
  run(args: string[], env: Record<string, string>, cwd?: string): ServerRun;
  /** The same call as its own process, exactly as a user runs it. */
  own(args: string[], env: Record<string, string>, cwd?: string): ServerRun;
  /**
   * In place of `spawnSync(process.execPath, [CLI, ...args], opts)`: the same answer's fields (status,
   * stdout, stderr; signal null). A call with `input` runs as its own process (the server's stdin is empty).
   */
  spawnSync(args: string[], opts?: { env?: Record<string, string | undefined>; cwd?: string; input?: string | Buffer; [option: string]: unknown }): ServerRun & { signal: null };
}

/** An environment as spawnSync takes it, without the unset entries. */
function definedEnv(env: Record<string, string | undefined> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env ?? process.env)) if (v !== undefined) out[k] = v;
  return out;
}

/**
 * A server for this test file, stopped after it. `faults`: the fixtures'
 * failing reads injected (test/helpers/ncclx.mjs); without, dist/cli.js as is.
 */
export function cliServer(opts: { faults: boolean }): CliServer {
  let state: { child: ChildProcess; req: number; ans: number; dir: string; buf: Buffer; have: number } | null = null;
  /** Whether the server process is still running (synchronously: a zombie has ended). */
  const alive = (pid: number) => {
    try {
      return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
    } catch {
      return false;
    }
  };
  const start = () => {
    const dir = mkdtempSync(join(tmpdir(), 'ncclx-server-'));
    const reqPath = join(dir, 'request');
    const ansPath = join(dir, 'answer');
    for (const p of [reqPath, ansPath]) {
      const r = spawnSync('mkfifo', [p]);
      if (r.status !== 0) throw new Error(`mkfifo ${p} failed (coreutils): ${r.stderr}`);
    }
    const child = spawn(process.execPath, [SERVER, reqPath, ansPath, ...(opts.faults ? ['--faults'] : [])], { stdio: ['ignore', 'inherit', 'inherit'] });
    // Both ends open without blocking, so a server that never starts is an error, not a hang.
    const ans = openSync(ansPath, constants.O_RDONLY | constants.O_NONBLOCK);
    const deadline = Date.now() + START_MS;
    let req = -1;
    while (req < 0) {
      try {
        req = openSync(reqPath, constants.O_WRONLY | constants.O_NONBLOCK);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENXIO') throw e;
        if (!alive(child.pid!) || Date.now() > deadline) throw new Error(`ncclx-server.mjs did not start (${alive(child.pid!) ? 'timed out' : 'it ended'}; see its standard error above)`);
        pause(5);
      }
    }
    state = { child, req, ans, dir, buf: Buffer.alloc(1 << 20), have: 0 };
    return state;
  };
  afterAll(() => {
    if (!state) return;
    closeSync(state.req);
    closeSync(state.ans);
    state.child.kill();
    rmSync(state.dir, { recursive: true, force: true });
    state = null;
  });
  const readLine = (s: NonNullable<typeof state>): string => {
    const deadline = Date.now() + CALL_MS;
    for (;;) {
      const nl = s.buf.subarray(0, s.have).indexOf(10);
      if (nl >= 0) {
        const line = s.buf.toString('utf8', 0, nl);
        s.buf.copy(s.buf, 0, nl + 1, s.have);
        s.have -= nl + 1;
        return line;
      }
      if (s.have === s.buf.length) {
        const bigger = Buffer.alloc(s.buf.length * 2);
        s.buf.copy(bigger, 0, 0, s.have);
        s.buf = bigger;
      }
      let n = 0;
      try {
        n = readSync(s.ans, s.buf, s.have, s.buf.length - s.have, null);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e;
      }
      if (n > 0) {
        s.have += n;
        continue;
      }
      // Nothing yet (EAGAIN), or no writer yet (0): wait, unless the server has ended or the call takes too long.
      if (!alive(s.child.pid!)) throw new Error('ncclx-server.mjs ended without an answer (see its standard error above)');
      if (Date.now() > deadline) throw new Error(`ncclx-server.mjs gave no answer in ${CALL_MS / 1000} s`);
      pause(1);
    }
  };
  const entry = opts.faults ? WITH_FAULTS : CLI;
  return {
    run(args, env, cwd) {
      const s = state ?? start();
      writeSync(s.req, `${JSON.stringify({ argv: [process.execPath, entry, ...args], env, cwd })}\n`);
      const a = JSON.parse(readLine(s)) as { code: number | null; stdout: string; stderr: string };
      return { status: a.code, stdout: a.stdout, stderr: a.stderr };
    },
    own(args, env, cwd) {
      const r = spawnSync(process.execPath, [entry, ...args], { encoding: 'utf8', env, cwd, maxBuffer: 512 * 1024 * 1024 });
      return { status: r.status, stdout: r.stdout, stderr: r.stderr };
    },
    spawnSync(args, opts = {}) {
      if (opts.input !== undefined) {
        const r = spawnSync(process.execPath, [entry, ...args], { encoding: 'utf8', env: definedEnv(opts.env), cwd: opts.cwd, input: opts.input, maxBuffer: 512 * 1024 * 1024 });
        return { status: r.status, stdout: r.stdout, stderr: r.stderr, signal: null };
      }
      return { ...this.run(args, definedEnv(opts.env), opts.cwd), signal: null };
    },
  };
}

/** The fidelity guard: the server's answer for a call is its own process's, byte for byte. */
export function sameAsOwnProcess(server: CliServer, args: string[], env: Record<string, string>, cwd?: string): void {
  expect(server.run(args, env, cwd), `ncclx ${args.join(' ')}: the server and its own process differ`).toEqual(server.own(args, env, cwd));
}
