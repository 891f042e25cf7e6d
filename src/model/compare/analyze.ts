// All nodes at once: NodeFacts[] (plus the inputs that could not be read) →
// one CompareReport. Pure; the I/O is in run.ts.

import { countResults, exitCodeFor, SEVERITY_RANK, type Counts } from '../result/types.js';
import { bootstrapReport, type BootstrapReport } from './bootstrap.js';
import { consistency, type Consistency } from './consistency.js';
import { finding } from './finding.js';
import { detectMesh, meshReport, type MeshReport, type TopologyChoice } from './mesh.js';
import { railPlan, railsOf, type RailPlan } from './rails.js';
import { symmetricSet, type SymmetricSet } from './symmetric.js';
import type { CompareFinding, NodeFacts, SkippedInput } from './types.js';
import { append } from '../list.js';

export const COMPARE_SCHEMA_VERSION = 2;

export interface NodeSummary {
  node: string;
  file: string;
  host: string;
  ncclVersion: string;
  versionAssumed: boolean;
  network: string;
  rails: number;
  netDevices: number;
  bootstrap: string | null;
  gdr: string;
}

export interface CompareReport {
  schemaVersion: typeof COMPARE_SCHEMA_VERSION;
  inputs: { files: number; analysed: number; skipped: SkippedInput[] };
  nodes: NodeSummary[];
  symmetric: SymmetricSet;
  rails: RailPlan;
  mesh: MeshReport | null;
  bootstrap: BootstrapReport;
  consistency: Consistency;
  findings: CompareFinding[];
  summary: Counts;
  exitCode: number;
}

export interface AnalyzeOptions {
  topology?: TopologyChoice;
  /** List every node's rails up to this many nodes (default PER_NODE_LIMIT). */
  perNodeLimit?: number;
}

/** Names for reports: the hostname, or hostname (file) when two snapshots share one. */
export function nodeNames(facts: NodeFacts[]): string[] {
  const seen = new Map<string, number>();
  for (const f of facts) seen.set(f.host, (seen.get(f.host) ?? 0) + 1);
  return facts.map((f) => (seen.get(f.host)! > 1 ? `${f.host} (${f.file.split('/').pop()})` : f.host));
}

export function compareNodes(facts: NodeFacts[], skipped: SkippedInput[], o: AnalyzeOptions = {}): CompareReport {
  const names = nodeNames(facts);
  const findings: CompareFinding[] = [];
  for (const s of skipped) {
    findings.push(finding('CMP-001', 'error', `${s.file}: skipped — ${s.problem}`, [], 'A snapshot that cannot be read is left out; the other nodes are still compared, but the answer is incomplete.', 'Re-take it with ncclx snapshot -o FILE on that node'));
  }
  const sym = symmetricSet(facts, names);
  const meshWhy = detectMesh(facts, o.topology ?? 'auto');
  const mesh = meshWhy ? meshReport(facts, names, meshWhy) : null;
  const rails = railPlan(facts, names, { mesh: mesh !== null, perNodeLimit: o.perNodeLimit });
  const boot = bootstrapReport(facts, names);
  const cons = consistency(facts, names);
  append(findings, cons.findings, sym.findings, rails.findings, mesh?.findings ?? [], boot.findings);
  if (facts.length === 1) findings.push(finding('CMP-002', 'info', `only one node (${names[0]}) to compare`, [], 'Cross-node checks need two or more snapshots.'));

  // Stable order: severity first (errors on top), then the check id.
  const order = findings.map((f, i) => ({ f, i }));
  order.sort((a, b) => SEVERITY_RANK[b.f.severity] - SEVERITY_RANK[a.f.severity] || a.f.checkId.localeCompare(b.f.checkId) || a.i - b.i);
  const sorted = order.map((x) => x.f);

  const nodes: NodeSummary[] = facts.map((f, i) => ({
    node: names[i]!,
    file: f.file,
    host: f.host,
    ncclVersion: f.nccl.version,
    versionAssumed: f.nccl.assumed,
    network: f.transport.network,
    rails: railsOf(f).length,
    netDevices: f.netDevices,
    bootstrap: f.bootstrap.iface ? `${f.bootstrap.iface} ${f.bootstrap.address}${f.bootstrap.prefixlen !== null ? `/${f.bootstrap.prefixlen}` : ''}` : null,
    gdr: f.gdr.verdict,
  }));
  const exitCode = skipped.length || facts.length === 0 ? 2 : exitCodeFor(sorted);
  return {
    schemaVersion: COMPARE_SCHEMA_VERSION,
    inputs: { files: facts.length + skipped.length, analysed: facts.length, skipped },
    nodes,
    symmetric: sym.set,
    rails: rails.plan,
    mesh: mesh?.mesh ?? null,
    bootstrap: boot.report,
    consistency: cons.consistency,
    findings: sorted,
    summary: countResults(sorted),
    exitCode,
  };
}

