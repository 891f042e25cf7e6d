// Reading a snapshot file (`--snapshot FILE`): size first, then JSON, then the
// schema (src/model/snapshot/schema.ts). Every failure is a SnapshotError
// naming the file, which the CLI prints on one line (exit 2).

import { readFileSync, statSync } from 'node:fs';
import { MAX_SNAPSHOT_BYTES, SnapshotError, validateSnapshot } from '../model/snapshot/schema.js';
import type { NodeSnapshot } from '../model/snapshot/types.js';

export function loadSnapshot(file: string): NodeSnapshot {
  let size: number;
  try {
    size = statSync(file).size;
  } catch (e) {
    throw new SnapshotError(file, `cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  if (size > MAX_SNAPSHOT_BYTES) throw new SnapshotError(file, `file is ${size} bytes, larger than the ${MAX_SNAPSHOT_BYTES}-byte limit for a snapshot`);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new SnapshotError(file, `cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  if (text.trim() === '') throw new SnapshotError(file, 'file is empty');
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new SnapshotError(file, `not JSON (${(e as Error).message})`);
  }
  return validateSnapshot(data, file);
}
