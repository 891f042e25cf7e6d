// Every file read goes through a Root: "/" on a live node, a fixture or a
// container's view with --root DIR. Reads never throw; a failure is data.

import { lstatSync, readdirSync, readFileSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { LIMITS, readBounded } from './read-bounded.js';

export type ReadResult = { ok: true; value: string } | { ok: false; error: string };

export class Root {
  readonly dir: string;
  /** Reads that fail on purpose in a fixture (see loadFixtureErrors). */
  private readonly failing: Map<string, string> | null;
  constructor(dir = '/') {
    this.dir = resolve(dir);
    this.failing = this.isLive ? null : loadFixtureErrors(join(this.dir, 'errors.json'));
  }

  get isLive(): boolean {
    return this.dir === '/';
  }

  /** Host path of a node path. */
  path(p: string): string {
    return this.isLive ? p : join(this.dir, p);
  }

  /** A file's text, bounded (read-bounded.ts): a non-regular file or one past `limit` is an error, never a hang. */
  read(p: string, limit: number = LIMITS.file): ReadResult {
    const forced = this.failing?.get(p);
    if (forced !== undefined) return { ok: false, error: forced };
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

/**
 * A plain file cannot fail with EINVAL the way a sysfs attribute does (unset
 * GID entries, entries hidden from a container). A fixture root may carry
 * `errors.json`: {"ncclxFixtureErrors": 1, "errors": {"<node path>": "EINVAL"}},
 * where the last path component may be a range `{0..254}`. Listed paths still
 * exist (so directory listings stay real); reading them fails with that errno.
 * Ignored on a live root and without the marker. See docs/fixtures.md.
 */
function loadFixtureErrors(file: string): Map<string, string> | null {
  let data: { ncclxFixtureErrors?: unknown; errors?: Record<string, string> };
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
  if (data?.ncclxFixtureErrors !== 1 || typeof data.errors !== 'object' || data.errors === null) return null;
  const out = new Map<string, string>();
  for (const [key, errno] of Object.entries(data.errors)) {
    const m = /^(.*\/)\{(\d+)\.\.(\d+)\}$/.exec(key);
    if (!m) {
      out.set(key, String(errno));
      continue;
    }
    for (let i = Number(m[2]); i <= Number(m[3]); i++) out.set(`${m[1]}${i}`, String(errno));
  }
  return out;
}

export function errCode(e: unknown): string {
  if (e && typeof e === 'object' && 'code' in e && typeof (e as { code: unknown }).code === 'string') {
    return (e as { code: string }).code;
  }
  return e instanceof Error ? e.message : String(e);
}
