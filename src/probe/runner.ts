// The one way ncclx runs a command: an argument array, never a shell string.
// Under --root DIR the command is not run on this host; its recorded output
// is read from DIR/commands/<record> instead (see docs/snapshot.md).

import { spawnSync } from 'node:child_process';
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
      const r = spawnSync(cmd!, args, { encoding: 'utf8', timeout: spec.timeoutMs ?? 5000, maxBuffer: 64 * 1024 * 1024 });
      if (r.error) {
        const code = (r.error as NodeJS.ErrnoException).code ?? r.error.message;
        return { ok: false, error: `${spec.argv.join(' ')}: ${code}`, missing: code === 'ENOENT', from: 'live' };
      }
      if (r.status !== 0) {
        // Standard error is kept as the reason, cut to what a snapshot field holds (src/model/snapshot/limits.ts).
        return { ok: false, error: clip(`${spec.argv.join(' ')} exited ${r.status}: ${r.stderr.trim()}`, BOUNDS.sysfsValue), missing: false, from: 'live' };
      }
      return { ok: true, stdout: r.stdout, from: 'live' };
    },
  };
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
