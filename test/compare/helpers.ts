// Clusters for compare tests: fixture nodes read as `ncclx snapshot --root`
// reads them, re-addressed per node by src/compare/generate.ts.
import { join } from 'node:path';
import { compareNodes, type CompareReport } from '../../src/model/compare/analyze.js';
import { nodeFacts, type FactsOptions } from '../../src/model/compare/facts.js';
import { clusterNode, meshNode, prepareTemplate, type Fault, type TemplateInfo } from '../../src/compare/generate.js';
import type { CompareFinding, NodeFacts } from '../../src/model/compare/types.js';
import { probeNode } from '../../src/probe/index.js';
import '../helpers/fixture-faults.js';
import type { NodeSnapshot } from '../../src/model/snapshot/types.js';

export const FIXTURES = join(__dirname, '..', 'fixtures');

const templates = new Map<string, Promise<TemplateInfo>>();
export function template(fixture: string): Promise<TemplateInfo> {
  let t = templates.get(fixture);
  if (!t) templates.set(fixture, (t = probeNode({ root: join(FIXTURES, fixture), env: {} }).then(prepareTemplate)));
  return t;
}

export const OPTS: FactsOptions = { uplinkRegex: /^eth[0-9]+$/, include: [] };

/** n nodes of the roce-healthy type; faults[i] (if any) applied to node i. */
export async function cluster(n: number, faults: Record<number, Fault> = {}, fixture = 'roce-healthy'): Promise<NodeSnapshot[]> {
  const info = await template(fixture);
  return Array.from({ length: n }, (_, i) => clusterNode(info, i, faults[i] ?? null));
}

export async function mesh(n: number, o: Parameters<typeof meshNode>[3] = {}): Promise<NodeSnapshot[]> {
  const info = await template('mesh-direct');
  // meshNode shares parts of the template (the environment among them): a copy, so a test that sets a
  // variable on its nodes does not set it for the tests after it.
  return Array.from({ length: n }, (_, i) => structuredClone(meshNode(info, i, n, o)));
}

export function facts(snaps: NodeSnapshot[], o: Partial<FactsOptions> = {}): NodeFacts[] {
  return snaps.map((s, i) => nodeFacts(s, `/snap/${s.host.hostname}-${i}.json`, { ...OPTS, ...o }));
}

export function compare(snaps: NodeSnapshot[], o: Partial<FactsOptions> & { topology?: 'auto' | 'mesh' | 'switched' } = {}): CompareReport {
  const { topology, ...fo } = o;
  return compareNodes(facts(snaps, fo), [], { topology });
}

export const byId = (r: CompareReport, id: string): CompareFinding[] => r.findings.filter((f) => f.checkId === id);
export const problems = (r: CompareReport): CompareFinding[] => r.findings.filter((f) => f.severity === 'error' || f.severity === 'warn');

/** A structural copy to change one node by hand. */
export const clone = <T>(x: T): T => structuredClone(x);
