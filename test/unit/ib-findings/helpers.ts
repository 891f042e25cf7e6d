// Shared pieces of the IB finding tests (one module per finding id, as the
// findings are one function per id: src/model/nccl/ib-findings/; all run by
// test/unit/ib-findings.test.ts). Findings are read through ibModel, as
// `ncclx ib` reads them. Fixture nodes are probed once per run.
import { join } from 'node:path';
import { beforeAll, expect } from 'vitest';
import { ibModel, type IbOverrides } from '../../../src/model/nccl/ib-report.js';
import type { Finding } from '../../../src/model/nccl/socket-findings.js';
import type { NodeSnapshot } from '../../../src/model/snapshot/types.js';
import { probeNode } from '../../../src/probe/index.js';
import { link, type LinkSpec } from '../helpers.js';

export { fixText } from '../../helpers/remediation.js';
export { device, EINVAL, ENOENT, gids, ll, rdmaSnapshot, v4gid, v6gid, Z } from '../../rdma/helpers.js';

const FIX = join(__dirname, '../../fixtures');
const nodes: Record<string, NodeSnapshot> = {};

/** Probe these fixture nodes once, before the file's tests. */
export function useNodes(...names: string[]): void {
  beforeAll(async () => {
    for (const n of names) nodes[n] ??= await probeNode({ root: join(FIX, n), env: {} });
  });
}

export const node = (name: string): NodeSnapshot => nodes[name]!;

export function findings(n: string | NodeSnapshot, version: string, o: Omit<IbOverrides, 'ncclVersion'> = {}): Finding[] {
  return ibModel(typeof n === 'string' ? node(n) : n, { ...o, ncclVersion: version }).report.findings;
}
export const ids = (fs: Finding[]) => fs.map((f) => `${f.id}:${f.severity}`);
export const of = (fs: Finding[], id: string) => fs.filter((f) => f.id === id);
/** The one finding with this id. */
export function one(fs: Finding[], id: string): Finding {
  const hit = of(fs, id);
  expect(hit, `${id} in ${ids(fs).join(' ')}`).toHaveLength(1);
  return hit[0]!;
}
export const above = (fs: Finding[]) => fs.filter((f) => f.severity !== 'info');

export const LINKS: LinkSpec[] = [link('lo', ['127.0.0.1/8']), link('eth0', ['10.0.0.9/24'])];
