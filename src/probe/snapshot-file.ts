// Reading a snapshot file (`--snapshot FILE`): size first, then JSON, then the
// schema (src/model/snapshot/schema.ts). Every failure is a SnapshotError
// naming the file, which the CLI prints on one line (exit 2).

import { readBounded } from './read-bounded.js';
import { MAX_SNAPSHOT_BYTES, SnapshotError, validateSnapshot } from '../model/snapshot/schema.js';
import type { NodeSnapshot } from '../model/snapshot/types.js';

export function loadSnapshot(file: string): NodeSnapshot {
  // Bounded whatever the file is: /dev/zero, a FIFO or a directory is refused by kind, not read forever.
  const r = readBounded(file, MAX_SNAPSHOT_BYTES);
  if (!r.ok) {
    if (r.code === 'EFBIG') throw new SnapshotError(file, `larger than the ${MAX_SNAPSHOT_BYTES}-byte limit for a snapshot`);
    throw new SnapshotError(file, r.code === 'ENOTREG' || r.code === 'EISDIR' ? r.message : `cannot read: ${r.code}`);
  }
  const text = r.text;
  if (text.trim() === '') throw new SnapshotError(file, 'file is empty');
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new SnapshotError(file, `not JSON (${(e as Error).message})`);
  }
  return { ...validateSnapshot(data, file), loadedFrom: file };
}
