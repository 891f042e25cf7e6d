// The node an apply acts on: commands as argument arrays (never a shell) and
// a few file operations. One interface so the engine's ordering and rollback
// can be tested with a fake, while every operation is tested on a real kernel.

import { spawnSync } from 'node:child_process';
import { chmodSync, closeSync, fsyncSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { dirname, basename, join } from 'node:path';

export interface RunResult {
  ok: boolean;
  stdout: string;
  /** stderr, or why the command could not start. */
  error: string;
}

export interface Host {
  run(argv: readonly string[], input?: string): RunResult;
  /** File content, or null when it does not exist; other errors throw. */
  read(path: string): string | null;
  /** File mode bits, or null when it does not exist. */
  mode(path: string): number | null;
  /** Replace a file atomically (write beside it, fsync, rename). */
  write(path: string, content: string, mode: number): void;
  /** Write a file in place, as /proc/sys needs (no rename there). */
  writeInPlace(path: string, content: string): void;
  remove(path: string): void;
}

export function liveHost(): Host {
  return {
    run(argv, input) {
      const [cmd, ...args] = argv;
      const r = spawnSync(cmd!, args, { encoding: 'utf8', input, timeout: 30_000, maxBuffer: 64 * 1024 * 1024 });
      if (r.error) return { ok: false, stdout: '', error: `${cmd}: ${(r.error as NodeJS.ErrnoException).code ?? r.error.message}` };
      if (r.status !== 0) return { ok: false, stdout: r.stdout, error: r.stderr.trim() || `exited ${r.status ?? r.signal}` };
      return { ok: true, stdout: r.stdout, error: '' };
    },
    read(path) {
      try {
        return readFileSync(path, 'utf8');
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw e;
      }
    },
    mode(path) {
      try {
        return statSync(path).mode & 0o7777;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw e;
      }
    },
    write(path, content, mode) {
      const tmp = join(dirname(path), `.${basename(path)}.ncclx-${process.pid}`);
      const fd = openSync(tmp, 'w', mode);
      try {
        writeSync(fd, content);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      chmodSync(tmp, mode); // openSync's mode is filtered by the umask
      renameSync(tmp, path);
    },
    writeInPlace(path, content) {
      const fd = openSync(path, 'w');
      try {
        writeSync(fd, content);
      } finally {
        closeSync(fd);
      }
    },
    remove(path) {
      try {
        unlinkSync(path);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      }
    },
  };
}
