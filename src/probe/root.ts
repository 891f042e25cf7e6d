// Every file read goes through a Root: "/" on a live node, a fixture or a
// container's view with --root DIR. Reads never throw; a failure is data.

import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readlinkSync, readSync, realpathSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { LIMITS, readBounded } from './read-bounded.js';

export type ReadResult = { ok: true; value: string } | { ok: false; error: string };

export class Root {
  readonly dir: string;
  /**
   * A process's root (/proc/PID/root, for --pid): every path is resolved
   * inside it as chroot would, because the kernel would resolve an absolute
   * symlink met under /proc/PID/root against this process's own root.
   */
  readonly confined: boolean;
  constructor(dir = '/', opts: { confined?: boolean } = {}) {
    this.dir = resolve(dir);
    this.confined = !!opts.confined && this.dir !== '/';
  }

  get isLive(): boolean {
    return this.dir === '/';
  }

  /** Host path of a node path. */
  path(p: string): string {
    if (this.isLive) return p;
    return join(this.dir, this.confined ? (this.resolve(p) ?? p) : p);
  }

  /**
   * The node path with every symlink resolved inside the root (an absolute
   * target starts again at the root, `..` stops at it), as the kernel does
   * for a process whose root this is; null when a component is missing or
   * links loop (more than 40, the kernel's limit).
   */
  resolve(p: string): string | null {
    if (this.isLive) {
      try {
        return realpathSync(p);
      } catch {
        return null;
      }
    }
    const todo = p.split('/').filter((c) => c !== '' && c !== '.').reverse();
    const done: string[] = [];
    let links = 0;
    while (todo.length) {
      const c = todo.pop()!;
      if (c === '..') {
        done.pop();
        continue;
      }
      const here = `/${[...done, c].join('/')}`;
      let target: string;
      try {
        if (!lstatSync(join(this.dir, here)).isSymbolicLink()) {
          done.push(c);
          continue;
        }
        target = readlinkSync(join(this.dir, here));
      } catch {
        return null;
      }
      if (++links > 40) return null;
      if (target.startsWith('/')) done.length = 0;
      for (const x of target.split('/').filter((x) => x !== '' && x !== '.').reverse()) todo.push(x);
    }
    return `/${done.join('/')}`;
  }

  /** A file's text, bounded (read-bounded.ts): a non-regular file or one past `limit` (a page for a sysfs attribute) is an error, never a hang. */
  read(p: string, limit: number = p.startsWith('/sys/') ? LIMITS.attribute : LIMITS.file): ReadResult {
    // Files under /sys and /proc are attributes (regular files); anything else may be what a user pointed at.
    const r = readBounded(this.path(p), limit, { kind: !/^\/(sys|proc)\//.test(p), attribute: p.startsWith('/sys/') });
    return r.ok ? { ok: true, value: r.text } : { ok: false, error: r.code === r.message ? r.code : `${r.code}: ${r.message}` };
  }

  /** A regular file's bytes, at most `limit` of them; null when it cannot be read, is not a regular file or is larger. */
  readBytes(p: string, limit: number): Buffer | null {
    let fd: number;
    try {
      fd = openSync(this.path(p), constants.O_RDONLY | constants.O_NONBLOCK);
    } catch {
      return null;
    }
    try {
      const st = fstatSync(fd);
      if (!st.isFile() || st.size > limit) return null;
      const buf = Buffer.allocUnsafe(st.size);
      let got = 0;
      while (got < st.size) {
        const n = readSync(fd, buf, got, st.size - got, got);
        if (n === 0) break;
        got += n;
      }
      return buf.subarray(0, got);
    } catch {
      return null;
    } finally {
      closeSync(fd);
    }
  }

  /** File content with the trailing newline removed, or null. */
  readTrim(p: string): string | null {
    const r = this.read(p);
    return r.ok ? r.value.replace(/\n$/, '') : null;
  }

  list(p: string): string[] {
    try {
      return readdirSync(this.path(p)).sort();
    } catch {
      return [];
    }
  }

  /** Host path of a node path whose last component is not followed (for lstat and readlink). */
  private linkPath(p: string): string {
    if (!this.confined) return this.path(p);
    const cut = p.replace(/\/+$/, '').lastIndexOf('/');
    const parent = cut <= 0 ? '/' : p.slice(0, cut);
    return join(this.dir, this.resolve(parent) ?? parent, p.slice(cut + 1));
  }

  exists(p: string): boolean {
    try {
      lstatSync(this.linkPath(p));
      return true;
    } catch {
      return false;
    }
  }

  isDir(p: string): boolean {
    try {
      return statSync(this.path(p)).isDirectory();
    } catch {
      return false;
    }
  }

  isSymlink(p: string): boolean {
    try {
      return lstatSync(this.linkPath(p)).isSymbolicLink();
    } catch {
      return false;
    }
  }

  readlink(p: string): string | null {
    try {
      return readlinkSync(this.linkPath(p));
    } catch {
      return null;
    }
  }

  /**
   * realpath() inside the root, returned as a node path: symlinks resolve
   * inside the root, as for a chroot (see resolve). A tree whose links point
   * at absolute host paths (a copy made by a tool that absolutises them)
   * falls back to the host's realpath, the root prefix removed when present.
   */
  realpath(p: string): string | null {
    const inside = this.resolve(p);
    if (inside !== null || this.confined || this.isLive) return inside;
    try {
      const real = realpathSync(this.path(p));
      return real.startsWith(this.dir) ? real.slice(this.dir.length) || '/' : real;
    } catch {
      return null;
    }
  }


}

export function errCode(e: unknown): string {
  if (e && typeof e === 'object' && 'code' in e && typeof (e as { code: unknown }).code === 'string') {
    return (e as { code: string }).code;
  }
  return e instanceof Error ? e.message : String(e);
}
