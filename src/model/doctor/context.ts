// The doctor's context for one node: NCCL's reasoning (version, profile,
// effective environment) and its socket selection, computed once and shared
// by every check, with a cache for the derivations checks share.

import { reasoningContext, type SocketOverrides } from '../nccl/explain.js';
import { selectSocketInterfaces } from '../nccl/socket.js';
import { snapshotMemo } from '../snapshot/memo.js';
import type { NodeSnapshot } from '../snapshot/types.js';
import type { CheckContext, CheckOptions } from './types.js';

// Verifying advice makes a context per environment and per kernel change
// (src/checks/verify.ts): the reasoning and the socket selection read no
// kernel part (src/model/nccl), so a kernel change's context reuses them.
const reasoningMemo = snapshotMemo<Pick<CheckContext, 'reasoning' | 'selection'>>(['kernel'], (s) => s.network);

export function makeContext(snapshot: NodeSnapshot, overrides: SocketOverrides, options: CheckOptions): CheckContext {
  const { reasoning, selection } = reasoningMemo(snapshot, overrides, () => {
    const r = reasoningContext(snapshot, overrides);
    return { reasoning: r, selection: selectSocketInterfaces(r.socketCtx) };
  });
  const cache = new Map<string, unknown>();
  return {
    snapshot,
    reasoning,
    selection,
    options,
    memo<T>(key: string, compute: () => T): T {
      if (!cache.has(key)) cache.set(key, compute());
      return cache.get(key) as T;
    },
  };
}
