// Reading a file whatever it turns out to be: /dev/zero, a FIFO, a directory
// or a 200 MB file where a few lines were expected. A read never takes more
// than `limit` bytes into memory and never blocks on a FIFO; a non-regular
// file is refused by kind. Every file ncclx reads goes through here.

import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

export type BoundedRead = { ok: true; text: string; bytes: number } | { ok: false; code: string; message: string };

/** Limits, documented in docs/snapshot.md ("Limits"). */
export const LIMITS = {
  /** A procfs file or recorded command output under --root. */
  file: 16 * 1024 * 1024,
  /** A sysfs attribute: the kernel prints one into a single page, at most 64 KiB (src/model/snapshot/limits.ts). */
  attribute: 64 * 1024,
  /** An NCCL conf file (NCCL_CONF_FILE, ~/.nccl.conf, /etc/nccl.conf): a few lines in practice. */
  conf: 256 * 1024,
} as const;

function kindOf(st: import('node:fs').Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

/**
 * The file's text (UTF-8), or why not: ENOENT/EACCES… from open, EISDIR or
 * ENOTREG for something that is not a regular file, EFBIG past `limit`.
 * `attribute`: a sysfs attribute, whose first short read is the whole of it.
 */
export function readBounded(path: string, limit: number, o: { kind?: boolean; attribute?: boolean } = {}): BoundedRead {
  const checkKind = o.kind ?? true;
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO with no writer must not hang; harmless on regular files.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? 'EIO';
    return { ok: false, code, message: code };
  }
  try {
    // sysfs attributes under a --root tree skip the fstat (tens of thousands of them); a directory still fails the read (EISDIR).
    const st = checkKind ? fstatSync(fd) : null;
    if (st && !st.isFile()) {
      const kind = kindOf(st);
      return { ok: false, code: st.isDirectory() ? 'EISDIR' : 'ENOTREG', message: `${kind}, not a regular file` };
    }
    // sysfs and procfs report size 0 or 4096 whatever they hold: read until EOF, at most limit + 1 bytes.
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      // One scratch buffer for every read (a node has tens of thousands of tiny sysfs files); each chunk is copied out.
      const want = Math.min(SCRATCH.length, limit + 1 - total);
      let n: number;
      try {
        n = readSync(fd, SCRATCH, 0, want, null);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code ?? 'EIO';
        return { ok: false, code, message: code };
      }
      if (n === 0) break;
      // A sysfs attribute comes whole in one read (its show() fills at most a page): a short first read is all of it, and the EOF read is saved.
      if (o.attribute && total === 0 && n < want) return { ok: true, text: SCRATCH.toString('utf8', 0, n), bytes: n };
      chunks.push(Buffer.from(SCRATCH.subarray(0, n)));
      total += n;
      if (total > limit) return { ok: false, code: 'EFBIG', message: `larger than the ${limitText(limit)} ncclx reads for such a file` };
    }
    return { ok: true, text: chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks, total).toString('utf8'), bytes: total };
  } finally {
    closeSync(fd);
  }
}

const SCRATCH = Buffer.allocUnsafe(64 * 1024);

export function limitText(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${bytes / (1024 * 1024)} MiB` : `${bytes / 1024} KiB`;
}
