// NCCL environment checks: variables NCCL does not know (typos), and integer
// values NCCL parses differently from what the user wrote (§0.2). The
// judgements are src/model/nccl/env-findings.ts; this gives them evidence.

import type { Check, CheckContext } from '../model/doctor/types.js';
import { confFileFindings } from '../model/nccl/conf-findings.js';
import { integerFindings, unknownVarFindings, type VarFinding } from '../model/nccl/env-findings.js';
import { ok, result } from '../model/result/build.js';
import type { Evidence, Outcome } from '../model/result/types.js';
import { append } from '../model/list.js';

function sourceOf(ctx: CheckContext, name: string): Evidence {
  const o = ctx.reasoning.env.origins[name];
  const value = `${name}=${ctx.reasoning.env.vars[name] ?? ''}`;
  if (o?.source === 'conf') return { kind: 'file', source: `${o.path}:${o.line}`, value };
  if (o?.source === 'flag') return { kind: 'value', source: o.flag, value };
  return { kind: 'value', source: 'environment', value };
}

/** Past this many findings of one kind, one result says how many and names the first few (a 5,000-line conf file). */
const GROUP_AT = 5;

function outcomes(ctx: CheckContext, findings: VarFinding[], why: (f: VarFinding) => string, okText: string, kindOf: (f: VarFinding) => string = (f) => f.severity): Outcome[] {
  if (findings.length === 0) return [ok(okText)];
  const kinds = new Map<string, VarFinding[]>();
  for (const f of findings) {
    const k = kindOf(f);
    const group = kinds.get(k);
    if (group) group.push(f);
    else kinds.set(k, [f]);
  }
  const out: Outcome[] = [];
  for (const group of kinds.values()) {
    if (group.length <= GROUP_AT) {
      append(out, group.map((f) => result(f.severity, f.message, [sourceOf(ctx, f.variable)], why(f), f.remediation)));
      continue;
    }
    const [first] = group as [VarFinding];
    // One change for the whole group: every variable's own change, together.
    const env = group.reduce<Record<string, string | null>>((all, f) => Object.assign(all, f.remediation.env ?? {}), {});
    const remediation = Object.keys(env).length ? { ...first.remediation, env } : first.remediation;
    out.push(result(first.severity, `${first.message} (and ${group.length - 1} more like it: ${group.slice(1, 4).map((f) => f.variable).join(', ')}, …)`, group.slice(0, 3).map((f) => sourceOf(ctx, f.variable)), why(first), remediation));
  }
  return out;
}

const unknownVars: Check = {
  id: 'ENV-001',
  title: 'Every NCCL_* variable is one NCCL reads',
  family: 'env',
  run: (ctx) =>
    outcomes(
      ctx,
      unknownVarFindings(ctx.reasoning.env, ctx.reasoning.profile),
      (f) => (/NCCLX variable/.test(f.message) ? "Meta's NCCLX adds cvars that upstream NCCL never reads, so the setting has no effect with this library." : 'NCCL silently ignores variables it does not read, so a typo leaves the default in place.'),
      'every NCCL_* variable is one NCCL reads',
      (f) => `${f.severity} ${/NCCLX variable/.test(f.message) ? 'ncclx' : /did you mean/.test(f.message) ? 'typo' : 'unknown'}`,
    ),
};

const integerParsing: Check = {
  id: 'ENV-002',
  title: 'Integer variables mean what they say',
  family: 'env',
  run: (ctx) =>
    outcomes(
      ctx,
      integerFindings(ctx.reasoning.env),
      () => 'NCCL parses integers with strtoll(s, NULL, 0): a leading 0 means octal, words read as 0 and trailing text is ignored, all without a message.',
      'integer variables parse as written',
    ),
};

const confFiles: Check = {
  id: 'ENV-003',
  title: "NCCL's conf files are files NCCL can read",
  family: 'env',
  run: (ctx) => {
    const found = confFileFindings(ctx.reasoning.env, ctx.snapshot.env.confFiles);
    if (found.length === 0) return [ok(`conf files NCCL opens: ${ctx.reasoning.env.filesRead.map((f) => `${f.path} (${f.status})`).join(', ') || 'none'}`)];
    return found.map((f) => result(f.severity, f.message, [{ kind: 'file', source: f.path, value: ctx.reasoning.env.filesRead.find((x) => x.path === f.path)?.error ?? f.path }], 'NCCL never reports a conf file it cannot use: the variables in it silently do not apply.', f.remediation));
  },
};

export const envChecks: Check[] = [unknownVars, integerParsing, confFiles];
