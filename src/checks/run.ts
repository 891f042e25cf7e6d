// Running checks: a check that throws becomes an `unknown` result carrying the
// error, never a crash (expo-doctor's rule).

import { reasoningContext, type SocketOverrides } from '../commands/explain-model.js';
import { selectSocketInterfaces } from '../nccl/socket.js';
import type { NodeSnapshot } from '../snapshot/types.js';
import type { Check, CheckContext, CheckOptions, CheckResult } from './types.js';

export interface DoctorRun {
  results: CheckResult[];
  checks: Check[];
  context: CheckContext;
}

export function makeContext(snapshot: NodeSnapshot, overrides: SocketOverrides, options: CheckOptions): CheckContext {
  const reasoning = reasoningContext(snapshot, overrides);
  const selection = selectSocketInterfaces(reasoning.socketCtx);
  const cache = new Map<string, unknown>();
  return {
    snapshot,
    reasoning,
    selection,
    options,
    memo<T>(key: string, compute: () => T): T {
      if (!cache.has(key)) cache.set(key, compute());
      return cache.get(key) as T;
    },
  };
}

export function runCheck(check: Check, ctx: CheckContext): CheckResult[] {
  try {
    const out = check.run(ctx);
    const list = Array.isArray(out) ? out : [out];
    return list.map((r) => ({ ...r, checkId: check.id }));
  } catch (e) {
    const err = e instanceof Error ? e.message : String(e);
    return [
      {
        checkId: check.id,
        severity: 'unknown',
        summary: `${check.title}: the check itself failed (${err})`,
        evidence: [{ kind: 'value', source: 'exception', value: e instanceof Error && e.stack ? e.stack.split('\n').slice(0, 3).join(' | ') : err }],
        why: 'ncclx could not evaluate this check, so it cannot say whether the node is healthy here.',
        remediation: null,
        fixIds: [],
      },
    ];
  }
}

/** Select checks by --only / --skip (ids or id prefixes like SOCK or ARP-). */
export function selectChecks(all: Check[], only: string[] | undefined, skip: string[] | undefined): Check[] {
  const matches = (id: string, pats: string[]) => pats.some((p) => id === p || id.startsWith(p.endsWith('-') ? p : `${p}-`));
  return all.filter((c) => (!only || only.length === 0 || matches(c.id, only)) && !(skip && matches(c.id, skip)));
}

export function runDoctor(checks: Check[], ctx: CheckContext): DoctorRun {
  const results = checks.flatMap((c) => runCheck(c, ctx));
  return { results, checks, context: ctx };
}
