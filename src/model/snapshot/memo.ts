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
