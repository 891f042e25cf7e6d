// In-process doctor runs on fixture nodes with a chosen environment, for the regression tests.
import { join } from 'node:path';
import { ALL_CHECKS } from '../../src/checks/registry.js';
import { runDoctor } from '../../src/checks/run.js';
import { verifyRun, withEnv, type VerifiedRun } from '../../src/checks/verify.js';
import { planEnv } from '../../src/model/advice/env-plan.js';
import { makeContext } from '../../src/model/doctor/context.js';
import type { NodeSnapshot } from '../../src/model/snapshot/types.js';
import { probeNode } from '../../src/probe/index.js';
import '../helpers/fixture-faults.js';

export const FIXTURES = join(__dirname, '../fixtures');
export const VERSION = '2.28.3';

export async function fixture(name: string): Promise<NodeSnapshot> {
  return probeNode({ root: join(FIXTURES, name), kernel: true, rdma: true, env: {} });
}

/** The node with `env` and, as if resolved at capture time, `localhost` → 127.0.0.1. */
export function withLocalhost(snap: NodeSnapshot, env: Record<string, string>): NodeSnapshot {
  const s = withEnv(snap, env);
  return { ...s, resolutions: { ...s.resolutions, localhost: { addresses: [{ address: '127.0.0.1', family: 'AF_INET' }], error: null } } };
}

export function doctor(snap: NodeSnapshot, version = VERSION): VerifiedRun {
  return verifyRun(runDoctor(ALL_CHECKS, makeContext(snap, { ncclVersion: version }, { uplinkRegex: /^eth[0-9]+$/, include: [], ncclVersion: version })));
}

/** The recommended environment (`ncclx env`) for the node as given. */
export const recommended = (run: VerifiedRun) => planEnv(run.plan);
