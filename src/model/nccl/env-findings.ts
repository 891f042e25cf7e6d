// What is wrong with the NCCL variables themselves (ENV-001, ENV-002): names
// NCCL does not read (typos, NCCLX cvars under NVIDIA NCCL) and integers NCCL
// parses differently from what was written (§0.2). Pure: the doctor's checks
// and the recommended environment both read these.

import { advise, setEnv } from '../result/build.js';
import type { Finding } from '../result/types.js';
import { parseNcclInt } from './cint.js';
import type { EffectiveEnv } from './conf.js';
import { didYouMean, isKnownVar, KNOWN_VARS } from './known-vars.js';
import type { Profile } from './versions.js';

/** A finding about one variable. */
export interface VarFinding extends Finding {
  variable: string;
}

const ncclVars = (env: EffectiveEnv) =>
  Object.keys(env.vars)
    .filter((k) => k.startsWith('NCCL_'))
    .sort();

/** ENV-001: variables NCCL does not read. */
export function unknownVarFindings(env: EffectiveEnv, profile: Profile): VarFinding[] {
  const out: VarFinding[] = [];
  const isNcclx = profile.version.vendor === 'ncclx';
  for (const name of ncclVars(env)) {
    const known = KNOWN_VARS[name];
    if (known?.ncclx && !isNcclx) {
      out.push({ id: 'ENV-001', variable: name, severity: 'warn', message: `${name} is an NCCLX variable; NVIDIA NCCL ${profile.version.raw} ignores it`, remediation: setEnv({ [name]: null }, 'Use NCCLX, or drop the variable') });
      continue;
    }
    if (isKnownVar(name)) continue;
    const guess = didYouMean(name);
    out.push({
      id: 'ENV-001',
      variable: name,
      severity: guess ? 'warn' : 'info',
      message: guess ? `${name} is not an NCCL variable — did you mean ${guess}?` : `${name} is not a variable ncclx knows NCCL to read`,
      remediation: guess ? setEnv({ [name]: null, [guess]: env.vars[name] ?? '' }) : advise('Nothing to do unless it is a typo: NCCL ignores variables it does not read'),
    });
  }
  return out;
}

/** The value a person most likely meant: words as booleans, 010 as ten, 5abc as five. */
function meantValue(raw: string, parsed: number): string {
  const word = raw.trim();
  if (/^(true|yes|on)$/i.test(word)) return '1';
  if (/^(false|no|off)$/i.test(word)) return '0';
  if (/^[+-]?0\d+$/.test(word)) return String(parseInt(word, 10));
  return String(parsed);
}

/** ENV-002: integers NCCL reads differently from what was written. */
export function integerFindings(env: EffectiveEnv): VarFinding[] {
  const out: VarFinding[] = [];
  for (const name of ncclVars(env)) {
    const spec = KNOWN_VARS[name]?.int;
    if (!spec) continue;
    const raw = env.vars[name]!;
    const p = parseNcclInt(raw, spec.default);
    if (!p.surprising) continue;
    const boolWord = /^(true|yes|on|false|no|off)$/i.test(raw.trim());
    const meant = meantValue(raw, p.value);
    out.push({
      id: 'ENV-002',
      variable: name,
      severity: boolWord && meant !== String(p.value) ? 'error' : 'warn',
      message: `${name}=${raw}: NCCL reads ${p.value}${/_DISABLE$/.test(name) && p.value === 0 ? ` — ${name.replace('NCCL_', '')} is NOT in effect` : ''} (${p.surprising})`,
      remediation: setEnv({ [name]: meant }),
    });
  }
  return out;
}
