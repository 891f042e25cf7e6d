// `ncclx fix` as a library: propose, preview, check, apply, roll back.
// The CLI (src/commands/fix.ts) and the TUI's Fixes view both use this; it
// wires the fix engine (src/fix) to the facts the probe reads (src/probe).

import { accessSync, constants } from 'node:fs';
import { hostname } from 'node:os';
import type { DoctorRun } from '../model/doctor/types.js';
import { applyFixes, rollbackJournal as rollback } from '../fix/apply.js';
import { gatherFacts, type FactSource } from '../probe/fix-facts.js';
import { liveHost, type Host } from '../fix/host.js';
import { which } from '../probe/runner.js';
import { toolsFor } from '../fix/ops.js';
import { DEFAULT_PLAN_OPTIONS, planFixes, type PlanOptions } from '../fix/plan.js';
import type { ApplyEvent, ApplyOutcome, Fix, FixPlan, NodeIdentity, PlanOrigin } from '../model/fix/types.js';
import { nodeIdentity } from '../probe/identity.js';
import { observe } from '../fix/apply.js';
import { resolve } from 'node:path';

export { commandsFor, opText } from '../fix/ops.js';
export { isNotApplicable } from '../fix/plan.js';
export type { ApplyEvent, ApplyOutcome, Fix, FixPlan, OpSpec } from '../model/fix/types.js';

export interface ProposeOptions extends Partial<PlanOptions> {
  /** Where the run's data came from: the node itself (default) or a fixture/snapshot (dry-run only). */
  source?: FactSource;
}

export interface ProposeSource {
  /** The snapshot file the run was read from, if any (for the plan's origin). */
  snapshotPath?: string;
}

export async function proposeFixes(run: DoctorRun, opts: ProposeOptions & ProposeSource = {}): Promise<FixPlan> {
  const { source, snapshotPath, ...rest } = opts;
  const src = source ?? { live: true, root: '/' };
  const origin: PlanOrigin = src.live ? { kind: 'live', node: nodeIdentity() } : snapshotPath ? { kind: 'snapshot', path: resolve(snapshotPath) } : { kind: 'root', path: resolve(src.root) };
  const plan = planFixes(run, { ...DEFAULT_PLAN_OPTIONS, ...rest, origin }, gatherFacts(src));
  if (!src.live) return plan;
  // What each operation finds on the node now, read as the apply will read it: the apply refuses what changed since.
  const host = liveHost();
  return { ...plan, fixes: plan.fixes.map((f) => (f.blocked ? f : { ...f, seen: f.ops.map((op) => observe(op, host)) })) };
}

/** Why this plan must not be applied here, one line each (empty when it may). */
export function provenanceProblems(plan: FixPlan, here: NodeIdentity = nodeIdentity()): string[] {
  const o = plan.origin;
  if (o.kind === 'snapshot') return [`the plan was made from the snapshot ${o.path}, not on a live node: plan again on the node itself`];
  if (o.kind === 'root') return [`the plan was made from the tree ${o.path} (--root), not on a live node: plan again on the node itself`];
  const out: string[] = [];
  const differs = (a: string | null, b: string | null) => a !== null && b !== null && a !== b;
  if (differs(o.node.machineId, here.machineId)) out.push(`the plan was made on machine-id ${o.node.machineId}; this node is ${here.machineId}`);
  if (differs(o.node.hostname, here.hostname)) out.push(`the plan was made on host ${o.node.hostname}; this is ${here.hostname}`);
  if (differs(o.node.bootId, here.bootId)) out.push(`the plan was made during another boot (boot id ${o.node.bootId}; now ${here.bootId}): rules, routes and table ids do not survive a reboot, plan again`);
  if (out.length === 0 && (o.node.machineId === null || here.machineId === null) && (o.node.bootId === null || here.bootId === null)) out.push('neither the machine-id nor the boot id could be read, so this cannot be told to be the node the plan was made on');
  return out;
}

/** Why these fixes cannot be applied here: not root, tools missing, /proc/sys read-only. Empty when they can. */
export function preflight(fixes: Fix[], opts: { live?: boolean } = {}): string[] {
  const problems: string[] = [];
  const active = fixes.filter((f) => !f.blocked);
  if (opts.live === false) problems.push('the plan was made from a snapshot or --root tree: fixes apply only to the node ncclx runs on');
  if (process.getuid?.() !== 0) problems.push(`not root (uid ${process.getuid?.() ?? '?'}): applying changes kernel settings; run with sudo`);
  const tools = [...new Set(active.flatMap((f) => f.ops.flatMap(toolsFor)))];
  const missing = tools.filter((t) => which(t) === null);
  if (missing.length) problems.push(`missing ${missing.join(', ')} on PATH (apt-get install ${[...new Set(missing.map(packageOf))].join(' ')})`);
  if (active.some((f) => f.ops.some((o) => o.kind === 'sysctl'))) {
    try {
      accessSync('/proc/sys/net/ipv4/conf/all/arp_ignore', constants.W_OK);
    } catch (e) {
      problems.push(`/proc/sys is not writable (${(e as NodeJS.ErrnoException).code}): a container without CAP_NET_ADMIN or with a read-only /proc/sys cannot change sysctls`);
    }
  }
  return problems;
}

function packageOf(tool: string): string {
  if (tool === 'ip' || tool === 'tc') return 'iproute2';
  if (tool === 'nft') return 'nftables';
  return 'iptables';
}

export function applyPlan(fixes: Fix[], opts: { journal?: string; onEvent?: (e: ApplyEvent) => void; host?: Host } = {}): Promise<ApplyOutcome> {
  return applyFixes(fixes, { host: opts.host ?? liveHost(), hostname: hostname(), journal: opts.journal, onEvent: opts.onEvent });
}

/** Undo a journal. Operations changed by someone since the apply are left alone unless `force`. */
export function rollbackJournal(path: string, opts: { onEvent?: (e: ApplyEvent) => void; host?: Host; force?: boolean } = {}): Promise<ApplyOutcome> {
  return rollback(path, { host: opts.host ?? liveHost(), onEvent: opts.onEvent, force: opts.force });
}
