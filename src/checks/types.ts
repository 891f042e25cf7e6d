// The check registry's shapes. A check is a small object: a stable id, a
// title, a family, and a pure function from the node's data to results
// (cf. react-native cli-doctor's health checks, Homebrew's diagnostic.rb).

import type { ReasoningContext } from '../commands/explain-model.js';
import type { SocketSelection } from '../nccl/socket.js';
import type { NodeSnapshot } from '../snapshot/types.js';

export type Severity = 'ok' | 'info' | 'warn' | 'error' | 'unknown';

export type Family = 'socket' | 'env' | 'rdma' | 'arp' | 'candidates' | 'qos' | 'gdr' | 'topology';

export const FAMILY_TITLE: Record<Family, string> = {
  socket: 'Socket interfaces',
  env: 'NCCL environment',
  rdma: 'RDMA devices and GIDs',
  arp: 'Multi-rail ARP and routing',
  candidates: 'RDMA candidate set',
  qos: 'QoS and DSCP',
  gdr: 'GPUDirect RDMA',
  topology: 'Topology',
};

export interface Evidence {
  /** A file and what it held, a command and what it printed, or a derived value. */
  kind: 'file' | 'command' | 'value';
  source: string;
  value: string;
}

export interface CheckResult {
  checkId: string;
  severity: Severity;
  /** One line: what was found. */
  summary: string;
  /** What the result rests on. */
  evidence: Evidence[];
  /** Why it matters, one or two sentences. */
  why: string;
  /** A remediation that can be pasted, or null when nothing needs doing. */
  remediation: string | null;
  /** Ids of `ncclx fix` fixes that would resolve it. */
  fixIds: string[];
}

export interface CheckOptions {
  ncclVersion?: string;
  /** Netdev names looking like uplinks, excluded from the RDMA candidate set. */
  uplinkRegex: RegExp;
  /** Netdevs always included in the candidate set. */
  include: string[];
}

export interface CheckContext {
  snapshot: NodeSnapshot;
  reasoning: ReasoningContext;
  selection: SocketSelection;
  options: CheckOptions;
  /** Per-run cache so checks of one family share expensive derivations. */
  memo<T>(key: string, compute: () => T): T;
}

export interface Check {
  id: string;
  title: string;
  family: Family;
  run(ctx: CheckContext): CheckResult[] | CheckResult;
}

export const SEVERITY_RANK: Record<Severity, number> = { ok: 0, info: 1, unknown: 2, warn: 3, error: 4 };
