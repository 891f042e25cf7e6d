// The shapes every judgement of ncclx shares: a severity, the evidence it
// rests on, and a remediation as data. Checks (src/checks), the NCCL findings
// (explain, ib) and compare all produce these; only src/report turns them into
// text, quoted for where the text goes.

/** `na`: the check does not apply to this node (no RDMA device for an RDMA check); ranked below ok and counted apart. */
export type Severity = 'na' | 'ok' | 'info' | 'warn' | 'error' | 'unknown';

/** Severities a finding (something NCCL will do that the user did not mean) can have. */
export type FindingSeverity = 'error' | 'warn' | 'info';

export const SEVERITY_RANK: Record<Severity, number> = { na: 0, ok: 1, info: 2, unknown: 3, warn: 4, error: 5 };

export type Family = 'socket' | 'env' | 'network' | 'rdma' | 'arp' | 'candidates' | 'qos' | 'gdr' | 'topology';

export const FAMILY_TITLE: Record<Family, string> = {
  socket: 'Socket interfaces',
  env: 'NCCL environment',
  network: 'Network transport (net plugins, IB, sockets)',
  rdma: 'RDMA devices and GIDs',
  arp: 'Multi-rail ARP and routing',
  candidates: 'RDMA candidate set',
  qos: 'QoS and DSCP',
  gdr: 'GPUDirect RDMA',
  topology: 'Topology',
};

/** Every `ncclx fix` fix, in the order a plan applies them. */
export const FIX_ORDER = ['policy-routing', 'arp-sysctl', 'rp-filter', 'dscp-marking', 'qdisc-priority', 'nccl-conf', 'sysctl-persist'] as const;
export type FixId = (typeof FIX_ORDER)[number];

export interface Evidence {
  /** A file and what it held, a command and what it printed, or a derived value. */
  kind: 'file' | 'command' | 'value';
  source: string;
  value: string;
}

/**
 * What resolves a finding, as data. `env` changes the environment (null =
 * unset; key order is the order to apply them), `commands` are argument
 * arrays (never shell strings), `advice` is what a person has to do or know
 * when no command says it, and `fixIds` name `ncclx fix` fixes that apply it.
 */
export interface Remediation {
  env?: Record<string, string | null>;
  commands?: string[][];
  advice?: string;
  fixIds?: FixId[];
}

/** What a check returns: one judgement. The runner adds the check's id. */
export interface Outcome {
  severity: Severity;
  /** One line: what was found. */
  summary: string;
  /** What the result rests on. */
  evidence: Evidence[];
  /** Why it matters, one or two sentences ('' for ok results). */
  why: string;
  /** What resolves it, or null when nothing needs doing. */
  remediation: Remediation | null;
}

/**
 * The model's verdict on a remediation that changes the environment: applied
 * to the same node data, with the model and every check run again.
 */
export interface RemediationVerdict {
  /** The result is gone (or no longer a warning/error) and nothing new went wrong. */
  resolves: boolean;
  /** Warnings and errors that appear once the change is applied. */
  newFindings: { checkId: string; severity: Severity; summary: string }[];
  /** What is left of the result, when it is not resolved. */
  remaining: string[];
  /** The environment change that was checked; when it did not pass, it is not offered (withheld). */
  env: Record<string, string | null>;
  withheld: boolean;
  /** Errors of the result's family that were there before and stay after the change (they need their own fix). */
  stillFailing?: { checkId: string; summary: string }[];
}

export interface CheckResult extends Outcome {
  checkId: string;
  /** Set by the doctor's verification (src/checks/verify.ts) for remediations that change the environment. */
  verdict?: RemediationVerdict | null;
}

/** A finding of the NCCL models (explain, ib): what NCCL will do that the user probably did not intend. */
export interface Finding {
  /** Stable id, e.g. SOCK-004. */
  id: string;
  severity: FindingSeverity;
  message: string;
  remediation: Remediation;
  /** The consumers a socket finding concerns (bootstrap, socket, ibOob; comma-joined when merged). */
  consumer?: string;
}

/** A check as the report and the registry see it. */
export interface CheckInfo {
  id: string;
  title: string;
  family: Family;
}

export interface Counts {
  errors: number;
  warnings: number;
  ok: number;
  info: number;
  unknown: number;
  /** Checks that do not apply to this node. */
  notApplicable: number;
}

export function countResults(results: { severity: Severity }[]): Counts {
  const c: Counts = { errors: 0, warnings: 0, ok: 0, info: 0, unknown: 0, notApplicable: 0 };
  for (const r of results) {
    if (r.severity === 'error') c.errors++;
    else if (r.severity === 'warn') c.warnings++;
    else if (r.severity === 'ok') c.ok++;
    else if (r.severity === 'info') c.info++;
    else if (r.severity === 'na') c.notApplicable++;
    else c.unknown++;
  }
  return c;
}

/** Exit codes of every reasoning command: 0 no error, 1 an error found (2, usage and bad input, is the CLI's). */
export function exitCodeFor(results: { severity: Severity }[]): 0 | 1 {
  return results.some((r) => r.severity === 'error') ? 1 : 0;
}

/** The worst severity of a list (ok for an empty one). */
export function worstSeverity(results: { severity: Severity }[]): Severity {
  return results.reduce<Severity>((w, r) => (SEVERITY_RANK[r.severity] > SEVERITY_RANK[w] ? r.severity : w), 'ok');
}
