// The one way ncclx runs a command: an argument array, never a shell string.
// Under --root DIR the command is not run on this host; its recorded output
// is read from DIR/commands/<record> instead (see docs/snapshot.md).

import { spawn, spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { BOUNDS, clip } from './bound.js';
import type { Root } from './root.js';

export interface CommandSpec {
  argv: readonly string[];
  /** File name under <root>/commands/ holding this command's recorded stdout. */
  record: string;
  timeoutMs?: number;
}

/** The links and addresses of the reader's network namespace (src/probe/links.ts). */
export const IP_ADDR_COMMAND = { argv: ['ip', '-j', '-d', 'addr', 'show'], record: 'ip-addr.json' } as const;

export type CommandResult =
  | { ok: true; stdout: string; from: 'live' | 'recorded' }
  | { ok: false; error: string; missing: boolean; from: 'live' | 'recorded' };

export interface Runner {
  run(spec: CommandSpec): CommandResult;
}

export function liveRunner(): Runner {
  return {
    run(spec) {
      const [cmd, ...args] = spec.argv;
      const r = spawnSync(cmd!, args, { encoding: 'utf8', timeout: spec.timeoutMs ?? 5000, maxBuffer: MAX_OUTPUT });
      return liveResult(spec, r.error, r.status, r.stdout, r.stderr);
    },
  };
}

const MAX_OUTPUT = 64 * 1024 * 1024;

/** What a command that ran (or failed to start) gives, the same for liveRunner and startCommand. */
function liveResult(spec: CommandSpec, error: Error | undefined, status: number | null, stdout: string, stderr: string): CommandResult {
  if (error) {
    const code = (error as NodeJS.ErrnoException).code ?? error.message;
    return { ok: false, error: `${spec.argv.join(' ')}: ${code}`, missing: code === 'ENOENT', from: 'live' };
  }
  if (status !== 0) {
    // Standard error is kept as the reason, cut to what a snapshot field holds (src/model/snapshot/limits.ts).
    return { ok: false, error: clip(`${spec.argv.join(' ')} exited ${status}: ${stderr.trim()}`, BOUNDS.sysfsValue), missing: false, from: 'live' };
  }
  return { ok: true, stdout, from: 'live' };
}

/** A command started without waiting for it. */
export interface StartedCommand {
  spec: CommandSpec;
  /** What liveRunner would have given for it. */
  result: Promise<CommandResult>;
  /** Stops it when its answer is not needed. */
  cancel(): void;
}

/**
 * Starts a command now and lets the caller go on: `ncclx ps` starts `ip -j -d
 * addr show` before it reads 2,000 maps files, so the command runs on another
 * core meanwhile. Same limits and result as liveRunner (timeout, output cap).
 */
export function startCommand(spec: CommandSpec): StartedCommand {
  const [cmd, ...args] = spec.argv;
  const child = spawn(cmd!, args, { stdio: ['ignore', 'pipe', 'pipe'], timeout: spec.timeoutMs ?? 5000 });
  let cancelled = false;
  const result = new Promise<CommandResult>((resolve) => {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let size = 0;
    let failure: Error | undefined;
    const keep = (to: Buffer[]) => (b: Buffer) => {
      size += b.length;
      if (size > MAX_OUTPUT) {
        failure ??= Object.assign(new Error('ENOBUFS'), { code: 'ENOBUFS' });
        child.kill();
      } else to.push(b);
    };
    child.stdout!.on('data', keep(out));
    child.stderr!.on('data', keep(err));
    child.on('error', (e) => {
      failure ??= e;
    });
    child.on('close', (status, signal) => {
      // Killed by spawn's timeout (as spawnSync says it), or by cancel().
      if (signal !== null && failure === undefined) failure = Object.assign(new Error(cancelled ? 'cancelled' : 'ETIMEDOUT'), { code: cancelled ? 'cancelled' : 'ETIMEDOUT' });
      resolve(liveResult(spec, failure, status, Buffer.concat(out).toString('utf8'), Buffer.concat(err).toString('utf8')));
    });
  });
  return {
    spec,
    result,
    cancel: () => {
      cancelled = true;
      child.kill();
    },
  };
}

/** A runner that answers one command with a result already in hand and runs every other one live. */
export function runnerWith(spec: CommandSpec, result: CommandResult): Runner {
  const live = liveRunner();
  const same = (a: CommandSpec) => a.argv.length === spec.argv.length && a.argv.every((x, i) => x === spec.argv[i]);
  return { run: (s) => (same(s) ? result : live.run(s)) };
}

export function recordedRunner(root: Root): Runner {
  return {
    run(spec) {
      const r = root.read(`/commands/${spec.record}`);
      if (!r.ok) return { ok: false, error: `no recorded output commands/${spec.record} under ${root.dir} (${r.error})`, missing: true, from: 'recorded' };
      return { ok: true, stdout: r.value, from: 'recorded' };
    },
  };
}

export function runnerFor(root: Root): Runner {
  return root.isLive ? liveRunner() : recordedRunner(root);
}

/** The search path root's shell gives: where ip, tc, nft, iptables-save and ldconfig live. */
export const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** Where a command is on PATH, or null. */
export function which(cmd: string, path = process.env['PATH'] || SYSTEM_PATH): string | null {
  for (const dir of path.split(':')) {
    if (!dir) continue;
    const p = join(dir, cmd);
    try {
      const st = statSync(p);
      if (st.isFile() && st.mode & 0o111) return p;
    } catch {
      /* not here */
    }
  }
  return null;
}
