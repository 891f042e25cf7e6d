// `ncclx env` as text: the plan's exports and unsets in the chosen format,
// then the summary as comments (JSON has none: the summary is returned apart,
// for standard error). One renderer for the command and the TUI's Env view.

import type { EnvPlan } from '../model/advice/env-plan.js';
import type { CheckContext } from '../model/doctor/types.js';
import { commentLine, dotenvRefusal, formatEnv, type EnvFormat } from './env-formats.js';
import { append } from '../model/list.js';

/** How each format unsets a variable; null where the format cannot (a note says so instead). */
const UNSET: Record<EnvFormat, ((name: string) => string) | null> = {
  bash: (n) => `unset ${n}\n`,
  fish: (n) => `set -e ${n}\n`,
  dotenv: null,
  json: null,
  'nccl-conf': null,
  k8s: null,
};

export interface EnvText {
  body: string;
  /** Summary lines for standard error (JSON only; other formats carry them as comments). */
  summary: string[];
  error: string | null;
  /** Variables left out because the format cannot hold their value for every reader it targets (dotenv). */
  refused: { name: string; why: string }[];
}

export function envText(plan: EnvPlan, header: string, format: EnvFormat): EnvText {
  const unsetter = UNSET[format];
  const unsetNotes = unsetter ? [] : plan.unset.map((u) => `unset ${u.name} in the job's environment (${u.why}): ${format} cannot unset a variable`);
  const summary = [
    header,
    ...plan.vars.map((v) => `${v.name}: ${v.why}`),
    ...plan.unset.map((u) => `unset ${u.name}: ${u.why}`),
    ...plan.summary,
    ...plan.notes.map((n) => `note: ${n}`),
    ...unsetNotes.map((n) => `note: ${n}`),
    `copy to the peer node: ${plan.peerLine}`,
  ];
  const refused = format === 'dotenv' ? plan.vars.flatMap((v) => (dotenvRefusal(v.value) ? [{ name: v.name, why: dotenvRefusal(v.value)! }] : [])) : [];
  const vars = plan.vars.filter((v) => !refused.some((r) => r.name === v.name));
  append(summary, refused.map((r) => `note: ${r.name} is not written: ${r.why}; use --format bash, fish or json for it`));
  try {
    let body = formatEnv(vars, format);
    if (format === 'json' && plan.unset.length) {
      // JSON says "unset" as null.
      const obj = JSON.parse(body) as Record<string, string | null>;
      for (const u of plan.unset) obj[u.name] = null;
      body = JSON.stringify(obj, null, 2) + '\n';
    }
    if (unsetter) body = plan.unset.map((u) => unsetter(u.name)).join('') + body;
    if (format === 'json') return { body, summary, error: null, refused };
    return { body: body + '\n' + summary.map((l) => commentLine(l, format)).join('\n') + '\n', summary: [], error: null, refused };
  } catch (e) {
    return { body: '', summary, error: e instanceof Error ? e.message : String(e), refused };
  }
}

/** The first summary line: which node and which NCCL the plan is for. */
export function envHeader(ctx: CheckContext): string {
  return `ncclx env for ${ctx.snapshot.host.hostname}, NCCL ${ctx.reasoning.choice.version.raw} (${ctx.reasoning.profile.id})`;
}
