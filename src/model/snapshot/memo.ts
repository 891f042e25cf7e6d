// Models of one node under many environments, remembered. Verifying advice
// runs the doctor on the same node again and again (src/checks/verify.ts):
// under other environments (withEnv copies every part but the environment)
// and after kernel commands (applyCommands copies the kernel part, and the
// network or RDMA part only for an MTU change). A model that is a pure
// function of the snapshot parts it reads, the environment and its options is
// the same model for the same inputs, so it is built once.
//
// The key is the identity of every snapshot part but those the model never
// reads (a part copied with a change is a new object, so a new key), and the
// content of the environment and the options. Entries live with the node (a
// WeakMap on one of its parts) and are bounded per node: the oldest go first.

import type { NodeSnapshot } from './types.js';

/** Entries kept per node and model: more environments than one doctor run's verification tries. */
const PER_NODE = 4096;

export type SnapshotMemo<T> = (snapshot: NodeSnapshot, options: unknown, build: () => T) => T;

/**
 * A memo for a model of the snapshot that never reads the parts named in
 * `notRead` (callers check their imports: no module the model reaches reads
 * them). The environment is keyed by content unless it is not read. `anchor`
 * is the part the entries live with.
 */
export function snapshotMemo<T>(notRead: readonly (keyof NodeSnapshot)[], anchor: (s: NodeSnapshot) => object): SnapshotMemo<T> {
  const skip = new Set<string>(['env', ...notRead]);
  const envRead = !notRead.includes('env');
  const memo = new WeakMap<object, Map<string, T>>();
  return (snapshot, options, build) => {
    const at = anchor(snapshot);
    let byKey = memo.get(at);
    if (!byKey) memo.set(at, (byKey = new Map()));
    let parts = '';
    for (const k of Object.keys(snapshot).sort()) if (!skip.has(k)) parts += `${k}=${partId(snapshot[k as keyof NodeSnapshot])};`;
    const key = JSON.stringify([parts, envRead ? snapshot.env : null, options]);
    let m = byKey.get(key);
    if (m === undefined) {
      m = build();
      if (byKey.size >= PER_NODE) byKey.delete(byKey.keys().next().value!);
      byKey.set(key, m);
    }
    return m;
  };
}

/** A stable id per object (its identity), or the value itself for primitives. */
const ids = new WeakMap<object, number>();
let nextId = 0;
function partId(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'undefined';
  let id = ids.get(v);
  if (id === undefined) ids.set(v, (id = ++nextId));
  return `#${id}`;
}

/**
 * A memo for a pure computation over a fixed input (`key`, e.g. a topology's
 * XML text and a release) and an environment it reads only in part: the
 * variables it read are recorded on its first run, and a later environment
 * with the same values for exactly those variables gets the same answer.
 * Verifying advice tries hundreds of environments on one node; NCCL's graph
 * search reads a dozen variables, so most of them share one search. A
 * computation that lists the environment's names depends on all of it.
 * Bounded: `perKey` answers per key, `keys` keys, the oldest go first.
 */
export function readsMemo<T>(o: { keys: number; perKey: number }): (key: string, vars: Record<string, string | undefined>, build: (vars: Record<string, string | undefined>) => T) => T {
  const memo = new Map<string, { read: Map<string, string | undefined> | null; vars: Record<string, string | undefined>; value: T }[]>();
  const same = (e: { read: Map<string, string | undefined> | null; vars: Record<string, string | undefined> }, vars: Record<string, string | undefined>) => {
    if (e.read) {
      for (const [k, v] of e.read) if (vars[k] !== v) return false;
      return true;
    }
    const a = Object.keys(e.vars).filter((k) => e.vars[k] !== undefined);
    const b = Object.keys(vars).filter((k) => vars[k] !== undefined);
    return a.length === b.length && a.every((k) => vars[k] === e.vars[k]);
  };
  return (key, vars, build) => {
    let entries = memo.get(key);
    const hit = entries?.find((e) => same(e, vars));
    if (hit) return hit.value;
    let read: Map<string, string | undefined> | null = new Map();
    const seen = new Proxy(vars, {
      get(t, p, r) {
        if (typeof p === 'string' && read) read.set(p, t[p]);
        return Reflect.get(t, p, r);
      },
      has(t, p) {
        if (typeof p === 'string' && read) read.set(p, t[p]);
        return Reflect.has(t, p);
      },
      ownKeys(t) {
        read = null;
        return Reflect.ownKeys(t);
      },
      getOwnPropertyDescriptor(t, p) {
        if (typeof p === 'string' && read) read.set(p, t[p]);
        return Reflect.getOwnPropertyDescriptor(t, p);
      },
    });
    const value = build(seen);
    if (!entries) {
      if (memo.size >= o.keys) memo.delete(memo.keys().next().value!);
      memo.set(key, (entries = []));
    }
    if (entries.length >= o.perKey) entries.shift();
    entries.push({ read, vars: { ...vars }, value });
    return value;
  };
}
