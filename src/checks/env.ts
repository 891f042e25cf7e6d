// NCCL environment checks: variables NCCL does not know (typos), and integer
// values NCCL parses differently from what the user wrote (§0.2).

import { parseNcclInt } from '../model/nccl/cint.js';
import { didYouMean, isKnownVar, KNOWN_VARS } from '../model/nccl/known-vars.js';
import type { Check, CheckContext } from '../model/doctor/types.js';
import { ok, result, setEnv } from '../model/result/build.js';
import type { Evidence, Outcome } from '../model/result/types.js';

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
    const out: Outcome[] = [];
    const isNcclx = ctx.reasoning.profile.version.vendor === 'ncclx';
    for (const name of ncclVars(ctx)) {
      const known = KNOWN_VARS[name];
      if (known?.ncclx && !isNcclx) {
        out.push(
          result(
            'warn',
            `${name} is an NCCLX variable; NVIDIA NCCL ${ctx.reasoning.choice.version.raw} ignores it`,
            [sourceOf(ctx, name)],
            "Meta's NCCLX adds cvars that upstream NCCL never reads, so the setting has no effect with this library.",
            setEnv({ [name]: null }, 'Use NCCLX, or drop the variable'),
          ),
        );
        continue;
      }
      if (isKnownVar(name)) continue;
      const guess = didYouMean(name);
      out.push(
        result(
          guess ? 'warn' : 'info',
          guess ? `${name} is not an NCCL variable — did you mean ${guess}?` : `${name} is not a variable ncclx knows NCCL to read`,
          [sourceOf(ctx, name)],
          'NCCL silently ignores variables it does not read, so a typo leaves the default in place.',
          guess ? setEnv({ [name]: null, [guess]: ctx.reasoning.env.vars[name] ?? '' }) : null,
        ),
      );
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
    const out: Outcome[] = [];
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
      out.push(
        result(
          boolWord && meant !== String(p.value) ? 'error' : 'warn',
          `${name}=${raw}: NCCL reads ${p.value}${/_DISABLE$/.test(name) && p.value === 0 ? ` — ${name.replace('NCCL_', '')} is NOT in effect` : ''} (${p.surprising})`,
          [sourceOf(ctx, name)],
          'NCCL parses integers with strtoll(s, NULL, 0): a leading 0 means octal, words read as 0 and trailing text is ignored, all without a message.',
          setEnv({ [name]: meant }),
        ),
      );
    }
    if (out.length === 0) out.push(ok('integer variables parse as written'));
    return out;
  },
};

export const envChecks: Check[] = [unknownVars, integerParsing];
