// Grouping nodes by a value: the building block of every cross-node
// comparison. Linear in the number of nodes (one Map pass).

import type { ValueGroup } from './types.js';

export interface Group<T> {
  value: T;
  /** Node indexes, in input order. */
  members: number[];
}

/**
 * Groups by value, most common first (ties: first seen first). Primitive
 * values are their own Map keys (no string is built per node × field × rail);
 * other values are keyed by keyOf, JSON by default.
 */
export function groupNodes<T>(n: number, valueOf: (i: number) => T | undefined, keyOf: (v: T) => unknown = (v) => (v !== null && typeof v === 'object' ? JSON.stringify(v) : v)): Group<T>[] {
  const byKey = new Map<unknown, Group<T>>();
  for (let i = 0; i < n; i++) {
    const v = valueOf(i);
    if (v === undefined) continue;
    const k = keyOf(v);
    let g = byKey.get(k);
    if (!g) byKey.set(k, (g = { value: v, members: [] }));
    g.members.push(i);
  }
  // Map keeps insertion order, so a stable sort leaves ties in first-seen order.
  return [...byKey.values()].sort((a, b) => b.members.length - a.members.length);
}

/** For reports: the most common value lists no nodes (it is everyone not listed elsewhere). */
export function valueGroups<T>(groups: Group<T>[], names: string[]): ValueGroup<T>[] {
  return groups.map((g, i) => ({ value: g.value, count: g.members.length, nodes: i === 0 ? null : g.members.map((m) => names[m]!) }));
}

/** Every node outside the most common group. */
export function outliers<T>(groups: Group<T>[]): number[] {
  return groups.slice(1).flatMap((g) => g.members).sort((a, b) => a - b);
}

/** "a, b, c and 12 more" for one-line summaries; JSON carries the full lists. */
export function nameList(names: string[], max = 5): string {
  if (names.length <= max) return names.join(', ');
  return `${names.slice(0, max).join(', ')} and ${names.length - max} more`;
}

export const plural = (n: number, word: string, many = `${word}s`): string => `${n} ${n === 1 ? word : many}`;
