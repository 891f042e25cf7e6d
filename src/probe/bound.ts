// The bounds of a snapshot (src/model/snapshot/limits.ts) applied while a tree
// is read: a file under --root (or a recorded command's output) can say what
// no kernel would — a GID entry at index 4096, 100,000 GPUs, a 30 MB name. An
// entry past a bound is dropped with a warning saying what and why, so every
// snapshot the probe makes passes the schema a snapshot file is checked with.

import { SNAPSHOT_LIMITS } from '../model/snapshot/limits.js';
import type { ProbeWarning } from '../model/snapshot/types.js';

export { SNAPSHOT_LIMITS as BOUNDS };

/** The first `max` items; when there are more, a warning names what was dropped. */
export function firstOf<T>(items: T[], max: number, what: string, source: string, warnings: ProbeWarning[] | undefined): T[] {
  if (items.length <= max) return items;
  warnings?.push({ source, message: `${items.length} ${what}: only the first ${max} are read (a bound of every snapshot, docs/snapshot.md "Limits")` });
  return items.slice(0, max);
}

/** A name the kernel could have given: 1 to `max` characters, no '/'. */
export function plausibleName(s: unknown, max: number): s is string {
  return typeof s === 'string' && s.length > 0 && s.length <= max && !s.includes('/');
}

/** An integer in [min, max]. */
export function intIn(v: unknown, min: number, max: number): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;
}

/** Text cut to what a field may hold (a message quoting data). */
export function clip(s: string, max: number = SNAPSHOT_LIMITS.text): string {
  return s.length <= max ? s : `${s.slice(0, max - 3)}...`;
}
