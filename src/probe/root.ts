// Every file read goes through a Root: "/" on a live node, a fixture or a
// container's view with --root DIR. Reads never throw; a failure is data.

import { lstatSync, readdirSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { LIMITS, readBounded } from './read-bounded.js';

export type ReadResult = { ok: true; value: string } | { ok: false; error: string };

export class Root {
  readonly dir: string;
  constructor(dir = '/') {
    this.dir = resolve(dir);
  }

  get isLive(): boolean {
    return this.dir === '/';
  }

  /** Host path of a node path. */
  path(p: string): string {
    return this.isLive ? p : join(this.dir, p);
  }

  /** A file's text, bounded (read-bounded.ts): a non-regular file or one past `limit` (a page for a sysfs attribute) is an error, never a hang. */
  read(p: string, limit: number = p.startsWith('/sys/') ? LIMITS.attribute : LIMITS.file): ReadResult {
    // Files under /sys and /proc are attributes (regular files); anything else may be what a user pointed at.
    const r = readBounded(this.path(p), limit, { kind: !/^\/(sys|proc)\//.test(p), attribute: p.startsWith('/sys/') });
    return r.ok ? { ok: true, value: r.text } : { ok: false, error: r.code === r.message ? r.code : `${r.code}: ${r.message}` };
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

  exists(p: string): boolean {
    try {
      lstatSync(this.path(p));
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
      return lstatSync(this.path(p)).isSymbolicLink();
    } catch {
      return false;
    }
  }

  readlink(p: string): string | null {
    try {
      return readlinkSync(this.path(p));
    } catch {
      return null;
    }
  }

  /** realpath() inside the root, returned as a node path (root prefix removed). */
  realpath(p: string): string | null {
    try {
      const real = realpathSync(this.path(p));
      if (this.isLive) return real;
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
