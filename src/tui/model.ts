// The interactive doctor's data: one snapshot, read once, and everything the
// views show derived from it by the pure models (checks, explain, ib, env).
// The what-if editor changes NCCL variables and the version; each change is a
// new input to the same functions, memoized per input. No React, no I/O.

import { runDoctor } from '../checks/run.js';
import { verifyRun, type SimCache } from '../checks/verify.js';
import { makeContext } from '../model/doctor/context.js';
import type { Check, CheckOptions, DoctorRun } from '../model/doctor/types.js';
import type { CheckResult, Severity } from '../model/result/types.js';
import { explain, type ExplainReport } from '../model/nccl/explain.js';
import { ibModel, type IbModel } from '../model/nccl/ib-report.js';
import { topoReport, type TopoReport } from '../model/topo/report.js';
import { originLabel } from '../model/nccl/conf.js';
import { versionString } from '../model/nccl/versions.js';
import { countResults, exitCodeFor } from '../model/result/types.js';
import { shExport, shQuote } from '../model/shell/quote.js';
import type { NodeSnapshot } from '../model/snapshot/types.js';

/** Where the data came from: applying fixes is allowed only on the live node. */
export type NodeSource = { kind: 'live' } | { kind: 'root'; path: string } | { kind: 'snapshot'; path: string };

export interface NodeInput {
  snapshot: NodeSnapshot;
  /** The checks selected by --only / --skip. */
  checks: Check[];
  /** --nccl-version, --uplink-regex, --include. */
  options: CheckOptions;
  source: NodeSource;
}

/**
 * The variables the what-if editor changes, and the NCCL version. MASTER_ADDR
 * is PyTorch's, not NCCL's, but it decides where every rank finds NCCL's
 * unique id (SOCK-030): the same question as NCCL_COMM_ID, asked of a
 * PyTorch job.
 */
export const WHATIF_VARS = ['NCCL_SOCKET_IFNAME', 'NCCL_IB_HCA', 'NCCL_COMM_ID', 'MASTER_ADDR', 'NCCL_SOCKET_FAMILY', 'NCCL_IB_GID_INDEX'] as const;
export type WhatIfVar = (typeof WHATIF_VARS)[number];
export type WhatIfKey = WhatIfVar | 'version';
export const WHATIF_KEYS: WhatIfKey[] = [...WHATIF_VARS, 'version'];

/**
 * Edited values. A key that is absent keeps the node's value. For a variable,
 * '' means unset (removed from the environment and from the conf files); for
 * the version, '' means the detected (or --nccl-version) one.
 */
export type WhatIf = Partial<Record<WhatIfKey, string>>;

export interface Model {
  run: DoctorRun;
  explain: ExplainReport;
  ib: IbModel;
  /** NCCL's GPU ↔ NIC topology (ncclx topo), under the what-if. */
  topo: TopoReport;
  /** The version field does not parse (the model above is then the last good one). */
  error: string | null;
}

/** The node's own value of each what-if field and where it came from. */
export interface FieldValue {
  value: string | null;
  source: string;
}

const hasOverrides = (w: WhatIf) => Object.keys(w).length > 0;

/** The snapshot with the what-if variables applied the way NCCL would see them: in the process environment. */
export function whatIfSnapshot(snap: NodeSnapshot, w: WhatIf): NodeSnapshot {
  const vars = WHATIF_VARS.filter((k) => w[k] !== undefined);
  if (vars.length === 0) return snap;
  const proc = { ...snap.env.process };
  const unset = new Set<string>();
  for (const k of vars) {
    const v = w[k]!;
    if (v === '') {
      delete proc[k];
      unset.add(k);
    } else proc[k] = v;
  }
  // Unset means unset everywhere: blank the conf-file lines too (blank, not removed, so other values keep their line numbers).
  const confFiles = unset.size
    ? snap.env.confFiles.map((f) =>
        f.content === null ? f : { ...f, content: f.content.split('\n').map((l) => (l.indexOf('=') > 0 && unset.has(l.slice(0, l.indexOf('='))) ? '' : l)).join('\n') },
      )
    : snap.env.confFiles;
  return { ...snap, env: { ...snap.env, process: proc, confFiles } };
}

function versionOf(node: NodeInput, w: WhatIf): string | undefined {
  if (w.version === undefined || w.version === '') return node.options.ncclVersion;
  return w.version;
}

/** Everything the views need, for one what-if. Throws when the version does not parse. */
export function computeModel(node: NodeInput, w: WhatIf = {}, sims?: SimCache): Omit<Model, 'error'> {
  const snap = whatIfSnapshot(node.snapshot, w);
  const ncclVersion = versionOf(node, w);
  const options: CheckOptions = { ...node.options, ncclVersion };
  const ctx = makeContext(snap, { ncclVersion }, options);
  // The same aligned and model-checked remediations as the text report and --json (checks/verify.ts).
  const run = verifyRun(runDoctor(node.checks, ctx), sims);
  // The RDMA checks memoize the IB model under this key with these arguments: reuse it.
  const ib = ctx.memo('ibModel', () => ibModel(snap, { ncclVersion }));
  return { run, explain: explain(snap, { ncclVersion }), ib, topo: ctx.memo('topo-report', () => topoReport(snap, { ncclVersion })) };
}

export function whatIfKey(w: WhatIf): string {
  return JSON.stringify(WHATIF_KEYS.map((k) => w[k] ?? null));
}

const BASE_KEY = whatIfKey({});

/**
 * Models per what-if, computed once each (typing "2.28.3" and deleting back
 * to "2.2" costs nothing the second time). A version that does not parse
 * keeps the last good model and reports the error.
 */
export class ModelCache {
  private readonly cache = new Map<string, Omit<Model, 'error'>>();
  /** The verifiers' simulations, shared by every what-if of this node (a remediation's end state is often another what-if's). */
  private readonly sims: SimCache = new Map();
  private last: Omit<Model, 'error'> | null = null;
  constructor(
    readonly node: NodeInput,
    private readonly limit = 64,
  ) {}

  get(w: WhatIf = {}): Model {
    const key = whatIfKey(w);
    let m = this.cache.get(key);
    if (!m) {
      try {
        if (this.sims.size > 1024) this.sims.clear();
        m = computeModel(this.node, w, this.sims);
      } catch (e) {
        // The node's own model must exist (a bad --nccl-version is the caller's error); a what-if falls back.
        const fallback = this.last ?? (key === BASE_KEY ? null : this.get({}));
        if (!fallback) throw e;
        return { ...fallback, error: e instanceof Error ? e.message : String(e) };
      }
      if (this.cache.size >= this.limit) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(key, m);
    }
    this.last = m;
    return { ...m, error: null };
  }
}

/** The node's value of each field (before any what-if). */
export function fieldValues(base: Pick<Model, 'run'>): Record<WhatIfKey, FieldValue> {
  const env = base.run.context.reasoning.env;
  const out = {} as Record<WhatIfKey, FieldValue>;
  for (const k of WHATIF_VARS) out[k] = { value: env.vars[k] ?? null, source: originLabel(env.origins[k]) };
  const choice = base.run.context.reasoning.choice;
  out.version = { value: versionString(choice.version), source: choice.source };
  return out;
}

/** Shell lines that make a job see the what-if: exports, unsets, and a note for the version (no variable sets it). */
export function exportsFor(w: WhatIf, base: Pick<Model, 'run'>): string[] {
  const lines: string[] = [];
  const now = fieldValues(base);
  for (const k of WHATIF_VARS) {
    const v = w[k];
    if (v === undefined || (v !== '' && v === now[k].value) || (v === '' && now[k].value === null)) continue;
    if (v === '') {
      lines.push(`unset ${k}`);
      if (now[k].source.includes(':')) lines.push(`# ${k} is also set in ${now[k].source}: remove that line`);
    } else lines.push(shExport(k, v));
  }
  if (w.version) lines.push(`# modelled for NCCL ${w.version} (ncclx --nccl-version ${shQuote(w.version)})`);
  return lines;
}

export const activeWhatIf = (w: WhatIf): boolean => hasOverrides(w);

/** The header's verdict: worst severity and counts. */
export function verdict(results: CheckResult[]): { severity: Severity; text: string; exitCode: number } {
  const c = countResults(results);
  const parts = [c.errors ? `${c.errors} error${c.errors === 1 ? '' : 's'}` : '', c.warnings ? `${c.warnings} warning${c.warnings === 1 ? '' : 's'}` : '', c.unknown ? `${c.unknown} unknown` : '', `${c.ok} ok`].filter(Boolean);
  const severity: Severity = c.errors ? 'error' : c.warnings ? 'warn' : c.unknown ? 'unknown' : 'ok';
  return { severity, text: parts.join(', '), exitCode: exitCodeFor(results) };
}

/** A stable key for a result, to compare what-if results with the node's. */
export const resultKey = (r: CheckResult) => `${r.checkId}\u0000${r.severity}\u0000${r.summary}`;

/**
 * new: a problem the what-if brings; resolved: the node's problem is gone and
 * its check now judges the node ok; gone: it no longer applies — its check
 * cannot judge any more (not applicable, or unknown), usually because the
 * what-if broke what it depends on (a typo in NCCL_SOCKET_IFNAME leaves
 * nothing to compare default routes or GPUDirect RDMA with); same: unchanged.
 */
export type Change = 'new' | 'resolved' | 'gone' | 'same';

/** Problems (not ok) under the what-if, and the node's problems the what-if resolves or makes moot; new ones first. */
export function problemDiff(base: CheckResult[], now: CheckResult[]): { result: CheckResult; change: Change }[] {
  const problem = (r: CheckResult) => r.severity !== 'ok' && r.severity !== 'na';
  const baseKeys = new Set(base.filter(problem).map(resultKey));
  const nowKeys = new Set(now.filter(problem).map(resultKey));
  // A check that says "ok" about the node judged it and found it fine; one that only says "n/a" or "unknown" did not.
  const judgedOk = new Set(now.filter((r) => r.severity === 'ok').map((r) => r.checkId));
  const rank: Record<Change, number> = { new: 0, resolved: 1, gone: 2, same: 3 };
  const sev: Record<Severity, number> = { error: 0, warn: 1, unknown: 2, info: 3, ok: 4, na: 5 };
  const out = [
    ...now.filter(problem).map((r) => ({ result: r, change: (baseKeys.has(resultKey(r)) ? 'same' : 'new') as Change })),
    ...base.filter((r) => problem(r) && !nowKeys.has(resultKey(r))).map((r) => ({ result: r, change: (judgedOk.has(r.checkId) && !now.some((x) => x.checkId === r.checkId && x.severity === 'unknown') ? 'resolved' : 'gone') as Change })),
  ];
  return out.sort((a, b) => rank[a.change] - rank[b.change] || sev[a.result.severity] - sev[b.result.severity]);
}
