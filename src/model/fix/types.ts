// The shapes of `ncclx fix`. A fix is a plan of operations; an operation is
// plain data (so a plan can be printed, saved, reviewed and applied exactly as
// reviewed, and a journal can undo it later in another process). What an
// operation does — read, apply, verify, undo — lives in ops.ts, by kind.

import type { Severity } from '../result/types.js';

/** A DSCP marking selector: what identifies the job's socket traffic. */
export type MarkSelector =
  | { by: 'oif'; iface: string }
  | { by: 'daddr'; prefix: string; family: 4 | 6 }
  | { by: 'uid'; uid: number }
  | { by: 'cgroup'; path: string }
  | { by: 'ports'; lo: number; hi: number; dir: 'dport' | 'sport' };

export type OpSpec =
  /** Write /proc/sys/<key> (slash-separated: interface names may contain dots). */
  | { kind: 'sysctl'; key: string; value: string }
  /**
   * Write a whole file (the sysctl.d drop-in, nccl.conf). The content is merged
   * at plan time from what the file held then (`expect`: its sha256, null when
   * absent); if the file changed since, the apply refuses rather than lose it.
   * Undo restores the old content or removes the file.
   */
  | { kind: 'file'; path: string; content: string; mode: number; expect: string | null; what: string }
  | { kind: 'ip-rule'; from: string; table: number; priority?: number }
  /** A route in a per-NIC table: `ip route replace <dst> dev <dev> src <src> table <table>`. */
  | { kind: 'ip-route'; dst: string; dev: string; src: string; table: number }
  /** An nftables table of ncclx's own that sets DSCP on matching egress packets. */
  | { kind: 'nft-mark'; table: string; dscp: number; selectors: MarkSelector[] }
  /** Fallback when nft is missing: an iptables (and ip6tables) mangle chain of ncclx's own. */
  | { kind: 'iptables-mark'; chain: string; dscp: number; selectors: MarkSelector[]; ipv6: boolean }
  /** A root priority scheduler that puts packets marked `dscp` first. */
  /**
   * A root priority scheduler that puts packets marked `dscp` first. `replaces`
   * is the root qdisc kind the plan saw (a kernel default, handle 0:); if the
   * root is something else at apply time, the apply refuses.
   */
  | { kind: 'qdisc'; dev: string; scheduler: 'prio' | 'htb'; dscp: number; rateMbit?: number; replaces: string };

export type OpKind = OpSpec['kind'];

/** What the node held before an operation, as the operation reads it. */
export type Before = unknown;

export interface Fix {
  /** Stable id, as in doctor results' fixIds: arp-sysctl, rp-filter, policy-routing, dscp-marking, qdisc-priority, nccl-conf. */
  id: string;
  title: string;
  /** The doctor results this fix resolves (check id and summary). */
  resolves: { checkId: string; severity: string; summary: string }[];
  ops: OpSpec[];
  /** What the plan chose and why (scheduler picked, values, …). */
  notes: string[];
  /** Why this fix cannot be applied as planned (e.g. a non-default root qdisc without --force), or null. */
  blocked: string | null;
  /**
   * Per op, the state the plan read on the node (the same read the apply does), when the plan was made live:
   * `--apply` refuses an op whose state differs now, before any change. Absent for snapshot and --root plans.
   */
  seen?: unknown[];
}

/** The machine and boot a plan was made on (/etc/machine-id, hostname, /proc/sys/kernel/random/boot_id). */
export interface NodeIdentity {
  machineId: string | null;
  hostname: string | null;
  bootId: string | null;
}

/** Where a plan's data came from: only a plan made live can be applied, and only on the node it names. */
export type PlanOrigin = { kind: 'live'; node: NodeIdentity } | { kind: 'snapshot'; path: string } | { kind: 'root'; path: string };

export const PLAN_SCHEMA = 'ncclx.fix-plan/v2';

export interface FixPlan {
  schema: typeof PLAN_SCHEMA;
  host: string;
  origin: PlanOrigin;
  /** Every fix the doctor proposes, applicable or not. */
  fixes: Fix[];
}

/** One step of an apply or a rollback, for progress displays (text and TUI). */
export type ApplyEvent =
  | { type: 'journal'; path: string }
  | { type: 'op-start'; index: number; op: OpSpec; text: string }
  | { type: 'op-done'; index: number; op: OpSpec; text: string; changed: boolean }
  | { type: 'op-failed'; index: number; op: OpSpec; text: string; error: string }
  | { type: 'undo-start'; index: number; op: OpSpec; text: string }
  | { type: 'undo-done'; index: number; op: OpSpec; text: string }
  | { type: 'undo-failed'; index: number; op: OpSpec; text: string; error: string };

export interface ApplyOutcome {
  /**
   * applied: every op in place; unchanged: everything was already in place;
   * refused: a check made before any change failed (nothing changed, no journal);
   * rolled-back: an op failed and everything done was undone; rollback-failed: an undo failed too (see the journal).
   */
  status: 'applied' | 'unchanged' | 'refused' | 'rolled-back' | 'rollback-failed';
  journal: string | null;
  changed: number;
  unchanged: number;
  failure: { index: number; text: string; error: string } | null;
  undoErrors: string[];
}

/** What the planner needs to know about the node beyond the snapshot (src/probe/fix-facts.ts reads it). */
export interface PlanFacts {
  tools: { ip: boolean; tc: boolean; nft: boolean; iptables: boolean; ip6tables: boolean };
  /** Whether the kernel has each scheduler; null when it could not be told. Asked only when a qdisc is planned. */
  schedulers(): { prio: boolean | null; htb: boolean | null; how: string };
  linkSpeedMbit(dev: string): number | null;
  readFile(path: string): string | null;
}

/** A plan's end state checked in the model (src/fix/check-plan.ts). */
export interface PlanCheck {
  /** Results the fixes claim that are gone (or no longer warnings/errors) at the end state. */
  resolved: { checkId: string; summary: string }[];
  /** Claimed results still there at the end state. */
  remaining: { checkId: string; severity: Severity; summary: string }[];
  /** Warnings and errors that are not there now and would be at the end state. */
  newFindings: { checkId: string; severity: Severity; summary: string }[];
}
