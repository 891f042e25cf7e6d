// NCCL environment checks: variables NCCL does not know (typos), and integer
// values NCCL parses differently from what the user wrote (§0.2).

import { parseNcclInt } from '../nccl/cint.js';
import { didYouMean, isKnownVar, KNOWN_VARS } from '../nccl/known-vars.js';
import { shExport } from '../report/quote.js';
import { ok } from './result.js';
import type { Check, CheckContext, CheckResult, Evidence } from './types.js';

function sourceOf(ctx: CheckContext, name: string): Evidence {
  const o = ctx.reasoning.env.origins[name];
  const value = `${name}=${ctx.reasoning.env.vars[name] ?? ''}`;
  if (o?.source === 'conf') return { kind: 'file', source: `${o.path}:${o.line}`, value };
  if (o?.source === 'flag') return { kind: 'value', source: o.flag, value };
  return { kind: 'value', source: 'environment', value };
}

function ncclVars(ctx: CheckContext): string[] {
  return Object.keys(ctx.reasoning.env.vars)
    .filter((k) => k.startsWith('NCCL_'))
    .sort();
}

const unknownVars: Check = {
  id: 'ENV-001',
  title: 'Every NCCL_* variable is one NCCL reads',
  family: 'env',
  run(ctx) {
    const out: CheckResult[] = [];
    const isNcclx = ctx.reasoning.profile.version.vendor === 'ncclx';
    for (const name of ncclVars(ctx)) {
      const known = KNOWN_VARS[name];
      if (known?.ncclx && !isNcclx) {
        out.push({
          checkId: '', severity: 'warn', summary: `${name} is an NCCLX variable; NVIDIA NCCL ${ctx.reasoning.choice.version.raw} ignores it`, evidence: [sourceOf(ctx, name)],
          why: 'Meta\'s NCCLX adds cvars that upstream NCCL never reads, so the setting has no effect with this library.', remediation: 'Use NCCLX, or drop the variable', fixIds: [],
        });
        continue;
      }
      if (isKnownVar(name)) continue;
      const guess = didYouMean(name);
      out.push({
        checkId: '',
        severity: guess ? 'warn' : 'info',
        summary: guess ? `${name} is not an NCCL variable — did you mean ${guess}?` : `${name} is not a variable ncclx knows NCCL to read`,
        evidence: [sourceOf(ctx, name)],
        why: 'NCCL silently ignores variables it does not read, so a typo leaves the default in place.',
        remediation: guess ? `unset ${name}; ${shExport(guess, ctx.reasoning.env.vars[name] ?? '')}` : null,
        fixIds: [],
      });
    }
    if (out.length === 0) out.push(ok('every NCCL_* variable is one NCCL reads'));
    return out;
  },
};

const integerParsing: Check = {
  id: 'ENV-002',
  title: 'Integer variables mean what they say',
  family: 'env',
  run(ctx) {
    const out: CheckResult[] = [];
    for (const name of ncclVars(ctx)) {
      const spec = KNOWN_VARS[name]?.int;
      if (!spec) continue;
      const raw = ctx.reasoning.env.vars[name]!;
      const p = parseNcclInt(raw, spec.default);
      if (!p.surprising) continue;
      const boolWord = /^(true|yes|on|false|no|off)$/i.test(raw.trim());
      // What the user most likely meant: words as booleans, 010 as ten, 5abc as five.
      const word = raw.trim();
      const meant = /^(true|yes|on)$/i.test(word)
        ? '1'
        : /^(false|no|off)$/i.test(word)
          ? '0'
          : /^[+-]?0\d+$/.test(word)
            ? String(parseInt(word, 10))
            : String(p.value);
      out.push({
        checkId: '',
        severity: boolWord && meant !== String(p.value) ? 'error' : 'warn',
        summary: `${name}=${raw}: NCCL reads ${p.value}${/_DISABLE$/.test(name) && p.value === 0 ? ` — ${name.replace('NCCL_', '')} is NOT in effect` : ''} (${p.surprising})`,
        evidence: [sourceOf(ctx, name)],
        why: 'NCCL parses integers with strtoll(s, NULL, 0): a leading 0 means octal, words read as 0 and trailing text is ignored, all without a message.',
        remediation: shExport(name, meant),
        fixIds: [],
      });
    }
    if (out.length === 0) out.push(ok('integer variables parse as written'));
    return out;
  },
};

export const envChecks: Check[] = [unknownVars, integerParsing];
