// A node with its process environment changed: what a shell `export` / `unset`
// does before the job starts. How advice is tried on the model.

import type { NodeSnapshot } from './types.js';

/** The snapshot with these variables set (null = unset) in the process environment. */
export function withEnv(snapshot: NodeSnapshot, env: Record<string, string | null>): NodeSnapshot {
  const process = { ...snapshot.env.process };
  for (const [k, v] of Object.entries(env)) {
    if (v === null) delete process[k];
    else process[k] = v;
  }
  return { ...snapshot, env: { ...snapshot.env, process } };
}
