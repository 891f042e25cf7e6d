// Array helpers that stay safe on long input. Spreading an array into a call's
// arguments (a push or Math.max over `...xs`) puts every element on the
// stack: past about 100,000 elements it throws "Maximum call stack size
// exceeded", and a snapshot or a log can hold that many addresses, routes or
// lines. test/arch/spread.test.ts keeps such calls out of src/. Pure.

/** Append the items of each list to `to`, in order; returns `to`. */
export function append<T>(to: T[], ...lists: readonly (readonly T[])[]): T[] {
  for (const list of lists) for (const x of list) to.push(x);
  return to;
}

/** Math.max over the values (NaN when one is NaN), or `empty` when there is none. */
export function maxOf(values: Iterable<number>, empty = -Infinity): number {
  let m: number | undefined;
  for (const v of values) m = m === undefined ? v : Math.max(m, v);
  return m ?? empty;
}

/** Math.min over the values (NaN when one is NaN), or `empty` when there is none. */
export function minOf(values: Iterable<number>, empty = Infinity): number {
  let m: number | undefined;
  for (const v of values) m = m === undefined ? v : Math.min(m, v);
  return m ?? empty;
}
