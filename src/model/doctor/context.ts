// The doctor's context for one node: NCCL's reasoning (version, profile,
// effective environment) and its socket selection, computed once and shared
// by every check, with a cache for the derivations checks share.

import { reasoningContext, type SocketOverrides } from '../nccl/explain.js';
import { selectSocketInterfaces } from '../nccl/socket.js';
import type { NodeSnapshot } from '../snapshot/types.js';
import type { CheckContext, CheckOptions } from './types.js';

export function makeContext(snapshot: NodeSnapshot, overrides: SocketOverrides, options: CheckOptions): CheckContext {
  const reasoning = reasoningContext(snapshot, overrides);
  const selection = selectSocketInterfaces(reasoning.socketCtx);
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
