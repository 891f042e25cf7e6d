// Where the dynamic loader finds a library by name, as ld.so(8) searches:
// a name with a '/' is a path; else DT_RPATH of the object asking (when it
// has no DT_RUNPATH), LD_LIBRARY_PATH, DT_RUNPATH, the cache
// /etc/ld.so.cache, then the system directories. $ORIGIN is the directory
// of the object asking.
//
// The cache is read from the file, not from `ldconfig -p`: a container (or
// the root of a process, with --pid) has its own cache and often no
// ldconfig, and the host's ldconfig would print the host's.

import { posix } from 'node:path';
import type { Root } from './root.js';

export interface CacheEntry {
  name: string;
  path: string;
}

export interface LdCache {
  entries: CacheEntry[];
  error: string | null;
}

const NEW_MAGIC = Buffer.from('glibc-ld.so.cache1.1');
const NEW_HEADER = 48;
const NEW_ENTRY = 24;
const OLD_MAGIC = 'ld.so-1.7.0';

/** The flag bits of this machine's libraries in the cache (glibc dl-cache.h FLAG_X8664_LIB64, FLAG_AARCH64_LIB64). */
function archFlag(arch: string): number | null {
  if (arch === 'x64') return 0x0300;
  if (arch === 'arm64') return 0x0a00;
  return null;
}

/** Parse /etc/ld.so.cache (the new format, alone or after the old one). Bounded: a cache is well under LIMIT. */
export function parseLdCache(buf: Buffer, arch: string = process.arch): LdCache {
  const at = buf.subarray(0, Math.min(buf.length, 1 << 20)).indexOf(NEW_MAGIC);
  if (at < 0) {
    const old = buf.toString('latin1', 0, OLD_MAGIC.length) === OLD_MAGIC;
    return { entries: [], error: old ? 'only the old ld.so-1.7.0 format (not read)' : 'not an ld.so.cache file' };
  }
  if (buf.length < at + NEW_HEADER) return { entries: [], error: 'truncated' };
  const nlibs = buf.readUInt32LE(at + 20);
  if (at + NEW_HEADER + nlibs * NEW_ENTRY > buf.length) return { entries: [], error: 'truncated' };
  const want = archFlag(arch);
  const str = (off: number): string | null => {
    const start = at + off;
    if (off <= 0 || start >= buf.length) return null;
    const end = buf.indexOf(0, start);
    return buf.toString('utf8', start, end < 0 ? buf.length : end);
  };
  const entries: CacheEntry[] = [];
  for (let i = 0; i < nlibs; i++) {
    const e = at + NEW_HEADER + i * NEW_ENTRY;
    const flags = buf.readInt32LE(e);
    // FLAG_ELF_LIBC6 (3) libraries of this architecture; other architectures' entries are never used here.
    if ((flags & 0xff) !== 3 || (want !== null && (flags & 0xff00) !== want)) continue;
    const name = str(buf.readUInt32LE(e + 4));
    const path = str(buf.readUInt32LE(e + 8));
    if (name && path) entries.push({ name, path });
  }
  return { entries, error: null };
}

const CACHE_LIMIT = 64 * 1024 * 1024;

export function readLdCache(root: Root): LdCache {
  const buf = root.readBytes('/etc/ld.so.cache', CACHE_LIMIT);
  if (!buf) return { entries: [], error: root.exists('/etc/ld.so.cache') ? 'unreadable or larger than 64 MiB' : 'no /etc/ld.so.cache' };
  return parseLdCache(buf);
}

/** The system directories ld.so searches last (Debian multiarch first, then the lib64 and lib directories). */
export function systemDirs(arch: string = process.arch): string[] {
  const triplet = arch === 'arm64' ? 'aarch64-linux-gnu' : 'x86_64-linux-gnu';
  return [`/lib/${triplet}`, `/usr/lib/${triplet}`, '/lib64', '/usr/lib64', '/lib', '/usr/lib'];
}

export interface SearchContext {
  root: Root;
  ldLibraryPath: string | undefined;
  cache: LdCache;
}

export interface Asker {
  /** The object asking: its path (for $ORIGIN) and its DT_RPATH / DT_RUNPATH. */
  path: string;
  rpath: string[] | null;
  runpath: string[] | null;
}

export interface Found {
  path: string;
  /** Which step found it: 'path', 'DT_RPATH', 'LD_LIBRARY_PATH', 'DT_RUNPATH', 'ld.so.cache', 'system directory'. */
  step: string;
  dir: string;
}

function expandOrigin(dir: string, asker: Asker | null): string {
  if (!asker) return dir;
  const origin = asker.path.slice(0, asker.path.lastIndexOf('/')) || '/';
  // Normalised for the report ($ORIGIN/../../nvidia/nccl/lib); ld.so opens the same file either way.
  return posix.normalize(dir.replace(/\$(ORIGIN|\{ORIGIN\})/g, origin));
}

/** Where ld.so would find `name` for `asker` (null: the main program); null when nowhere. */
export function findLibrary(name: string, ctx: SearchContext, asker: Asker | null = null): Found | null {
  const has = (p: string) => ctx.root.exists(p) && !ctx.root.isDir(p);
  if (name.includes('/')) return has(name) ? { path: name, step: 'path', dir: name.slice(0, name.lastIndexOf('/')) } : null;
  const inDirs = (dirs: string[], step: string): Found | null => {
    for (const raw of dirs) {
      // An empty entry is the current directory, which ncclx cannot know for the job: skipped.
      if (raw === '') continue;
      const dir = expandOrigin(raw, asker).replace(/\/+$/, '') || '/';
      if (!dir.startsWith('/')) continue;
      const p = `${dir === '/' ? '' : dir}/${name}`;
      if (has(p)) return { path: p, step, dir };
    }
    return null;
  };
  const rpath = asker && !asker.runpath ? asker.rpath : null;
  return (
    (rpath && inDirs(rpath, 'DT_RPATH')) ||
    inDirs((ctx.ldLibraryPath ?? '').split(/[:;]/), 'LD_LIBRARY_PATH') ||
    (asker?.runpath && inDirs(asker.runpath, 'DT_RUNPATH')) ||
    cacheHit(name, ctx) ||
    inDirs(systemDirs(), 'system directory')
  );
}

function cacheHit(name: string, ctx: SearchContext): Found | null {
  const e = ctx.cache.entries.find((x) => x.name === name);
  if (!e || !ctx.root.exists(e.path)) return null;
  return { path: e.path, step: 'ld.so.cache', dir: e.path.slice(0, e.path.lastIndexOf('/')) };
}
