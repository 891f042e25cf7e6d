// NCCL's version as the library itself states it. init.cc builds
// VERSION_STRING = "NCCL version " MAJOR "." MINOR "." PATCH SUFFIX "+cuda"
// CUDA_MAJOR "." CUDA_MINOR as one literal (NCCL v2.4.8 … v2.30.7 src/init.cc,
// "so that running strings on the lib can quickly reveal the version"), so
// it is in the library's read-only data whether NCCL is libnccl.so or linked
// statically into another library (older libtorch_cuda.so).
//
// Libraries are 100 MB – 1 GB: the ELF section table says where .rodata is
// and only that is scanned; a file that is not ELF (or whose .rodata lacks the
// string) is streamed in chunks up to MAX_SCAN, never read whole.

import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { readElfFd } from './elf.js';

export interface BinaryVersion {
  /** X.Y.Z */
  version: string;
  /** The whole string, e.g. "NCCL version 2.28.9+cuda12.9". */
  text: string;
}

export type BinaryScan = { found: BinaryVersion } | { found: null; why: string };

const NEEDLE = Buffer.from('NCCL version ');
const CHUNK = 8 * 1024 * 1024;
/** A file past this many bytes outside .rodata is not scanned further (a library is at most ~1 GB). */
export const MAX_SCAN = 2 * 1024 * 1024 * 1024;
const VERSION_RE = /^NCCL version (\d{1,3})\.(\d{1,3})\.(\d{1,3})([A-Za-z0-9.~_-]{0,32})(\+cuda\d{1,3}\.\d{1,3})?/;

/** The first "NCCL version X.Y.Z…" in buf, or null. */
export function findVersionIn(buf: Buffer): BinaryVersion | null {
  for (let at = buf.indexOf(NEEDLE); at >= 0; at = buf.indexOf(NEEDLE, at + 1)) {
    const end = buf.indexOf(0, at);
    const text = buf.toString('latin1', at, Math.min(end < 0 ? buf.length : end, at + 96));
    const m = VERSION_RE.exec(text);
    if (m) return { version: `${m[1]}.${m[2]}.${m[3]}`, text: m[0] };
  }
  return null;
}

function scanRange(fd: number, offset: number, length: number, buf: Buffer): BinaryVersion | null {
  // Chunks overlap by 128 bytes so a string across a boundary is seen whole.
  const overlap = 128;
  for (let pos = offset; pos < offset + length; pos += CHUNK - overlap) {
    const want = Math.min(CHUNK, offset + length - pos);
    let got = 0;
    while (got < want) {
      const n = readSync(fd, buf, got, want - got, pos + got);
      if (n === 0) break;
      got += n;
    }
    const hit = findVersionIn(buf.subarray(0, got));
    if (hit) return hit;
    if (got < want || pos + want >= offset + length) break;
  }
  return null;
}

const cache = new Map<string, BinaryScan>();

/** The NCCL version the file states, read as described above; cached per inode, size and mtime. */
export function scanNcclVersion(path: string): BinaryScan {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    return { found: null, why: (e as NodeJS.ErrnoException).code ?? 'EIO' };
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return { found: null, why: 'not a regular file' };
    const key = `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`;
    const known = cache.get(key);
    if (known) return known;
    const buf = Buffer.allocUnsafe(Math.min(CHUNK, Math.max(st.size, 1)));
    const elf = readElfFd(fd);
    let hit: BinaryVersion | null = null;
    for (const r of elf?.rodata ?? []) hit ??= scanRange(fd, r.offset, r.size, buf);
    if (!hit && !(elf?.rodata.length)) {
      if (st.size > MAX_SCAN) return { found: null, why: `no .rodata section to scan and larger than ${MAX_SCAN / 2 ** 30} GiB` };
      hit = scanRange(fd, 0, st.size, buf);
    }
    const out: BinaryScan = hit ? { found: hit } : { found: null, why: st.size === 0 ? 'an empty file' : 'the file states no "NCCL version"' };
    if (cache.size > 4096) cache.clear();
    cache.set(key, out);
    return out;
  } catch (e) {
    return { found: null, why: (e as NodeJS.ErrnoException).code ?? String(e) };
  } finally {
    closeSync(fd);
  }
}
