// The command output ncclx keeps as printed (iproute2 and nft JSON objects),
// held to the bounds of a snapshot (src/model/snapshot/limits.ts) as it is
// read: a recorded file under --root can say anything. Output that breaks a
// bound is refused whole, naming the entry and the field — dropping one route
// or rule would change what the routing model answers — and the part that
// needed it becomes unknown, with that reason, like any unreadable output.

import { BOUNDS, intIn, plausibleName } from './bound.js';

/** A field check: true when the value is acceptable (absent fields are checked by `required`). */
type Check = (v: unknown) => boolean;

const U32 = 0xffff_ffff;
export const str =
  (max: number): Check =>
  (v) =>
    typeof v === 'string' && v.length <= max;
export const ifname: Check = (v) => plausibleName(v, BOUNDS.ifname);
export const u32: Check = (v) => intIn(v, 0, U32);
export const bool: Check = (v) => typeof v === 'boolean';
export const int =
  (min: number, max: number): Check =>
  (v) =>
    intIn(v, min, max);

export interface Shape {
  /** Fields that must be present, and pass their check. */
  required?: Record<string, Check>;
  /** Fields that may be absent; present, they must pass. */
  optional?: Record<string, Check>;
}

/** Why an object breaks the shape (the first field that does), or null. */
export function shapeProblem(o: unknown, shape: Shape): string | null {
  if (o === null || typeof o !== 'object' || Array.isArray(o)) return 'not an object';
  const r = o as Record<string, unknown>;
  for (const [k, check] of Object.entries(shape.required ?? {})) if (!check(r[k])) return `${k} ${r[k] === undefined ? 'is missing' : 'is out of bounds'}`;
  for (const [k, check] of Object.entries(shape.optional ?? {})) if (r[k] !== undefined && !check(r[k])) return `${k} is out of bounds`;
  return null;
}

/** How deep arrays and objects nest in a value (walked with a stack, never recursion). */
export function depthOf(v: unknown): number {
  let max = 0;
  const stack: [unknown, number][] = [[v, 0]];
  while (stack.length) {
    const [x, d] = stack.pop()!;
    if (x === null || typeof x !== 'object') continue;
    if (d + 1 > max) max = d + 1;
    if (max > BOUNDS.depth) return max;
    for (const y of Object.values(x)) stack.push([y, d + 1]);
  }
  return max;
}

/** An array of at most `max` objects of this shape (`what` names them in the error); throws otherwise. */
export function checkedArray<T>(v: unknown, max: number, what: string, shape: Shape): T[] {
  if (!Array.isArray(v)) throw new Error('expected a JSON array');
  if (v.length > max) throw new Error(`${v.length} ${what}, more than the ${max} a snapshot holds (docs/snapshot.md "Limits")`);
  v.forEach((o, i) => {
    const problem = shapeProblem(o, shape);
    if (problem) throw new Error(`${what} entry ${i}: ${problem}`);
  });
  // Nested values are kept as printed: bounded nesting, so no reader of them can overflow the stack.
  if (depthOf(v) > BOUNDS.depth / 2) throw new Error(`${what}: nested more than ${BOUNDS.depth / 2} levels deep`);
  return v as T[];
}
