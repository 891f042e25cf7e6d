// The shapes of a doctor run. A check is a small object: a stable id, a title,
// a family, and a pure function from the node's model to outcomes (cf.
// react-native cli-doctor's health checks, Homebrew's diagnostic.rb).

import type { ReasoningContext } from '../nccl/explain.js';
import type { SocketSelection } from '../nccl/socket.js';
import type { CheckInfo, CheckResult, Outcome } from '../result/types.js';
import type { NodeSnapshot } from '../snapshot/types.js';

export interface CheckOptions {
  ncclVersion?: string;
  /** Netdev names looking like uplinks, excluded from the RDMA candidate set. */
  uplinkRegex: RegExp;
  /** Netdevs always included in the candidate set. */
  include: string[];
}

/** The node as every check sees it: the snapshot, NCCL's reasoning over it, and a per-run cache. */
export interface CheckContext {
  snapshot: NodeSnapshot;
  reasoning: ReasoningContext;
  selection: SocketSelection;
  options: CheckOptions;
  /** Per-run cache so checks of one family share expensive derivations. */
  memo<T>(key: string, compute: () => T): T;
}

export interface Check extends CheckInfo {
  run(ctx: CheckContext): Outcome[] | Outcome;
}

export interface DoctorRun {
  results: CheckResult[];
  checks: CheckInfo[];
  context: CheckContext;
}
