// `ncclx env` as text: the plan's exports and unsets in the chosen format,
// then the summary as comments (JSON has none: the summary is returned apart,
// for standard error). One renderer for the command and the TUI's Env view.

import { readerOf, type EnvPlan } from '../model/advice/env-plan.js';
import type { CheckContext } from '../model/doctor/types.js';
import { shExport } from '../model/shell/quote.js';
import { commentLine, dotenvNote, dotenvRefusal, formatEnv, type EnvFormat } from './env-formats.js';
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
  /** Errors these exports leave, that a person must fix first (the plan's blocking statements). */
  blocking: string[];
  /** Variables left out because the format cannot hold their value for every reader it targets (dotenv). */
  refused: { name: string; why: string }[];
}

export function envText(plan: EnvPlan, header: string, format: EnvFormat): EnvText {
  const unsetter = UNSET[format];
  const blocking = plan.statements.filter((st) => st.blocking).map((st) => st.text);
  const unsetNotes = unsetter ? [] : plan.unset.map((u) => `unset ${u.name} in the job's environment (${u.why}): ${format} cannot unset a variable`);
  const summary = [
    header,
    // What these exports cannot fix and the job needs first (NCCL_COMM_ID pointing nowhere): before anything else.
    ...plan.statements.filter((st) => st.blocking).map((st) => `NOT FIXED BY THESE EXPORTS: ${st.text}`),
    ...plan.vars.map((v) => `${v.name}: ${v.why}`),
    ...plan.unset.map((u) => `unset ${u.name}: ${u.why}`),
    ...plan.summary,
    ...plan.notes.map((n) => `note: ${n}`),
    ...unsetNotes.map((n) => `note: ${n}`),
    `copy to the peer node: ${plan.peerLine}`,
  ];
  const refused = format === 'dotenv' ? plan.vars.flatMap((v) => (dotenvRefusal(v.value) ? [{ name: v.name, why: dotenvRefusal(v.value)! }] : [])) : [];
  // nccl.conf carries only what NCCL reads; the rest is not lost, it is said where it belongs.
  const elsewhere = format === 'nccl-conf' ? plan.vars.filter((v) => !readerOf(v.name).ncclConf) : [];
  const vars = plan.vars.filter((v) => !refused.some((r) => r.name === v.name) && !elsewhere.includes(v));
  append(summary, refused.map((r) => `note: ${r.name} is not written: ${r.why}; use --format bash, fish or json for it`));
  append(summary, elsewhere.map((v) => `note: not in nccl.conf (${readerOf(v.name).reader}); export it in the job's environment: ${shExport(v.name, v.value)}`));
  const quoted = format === 'dotenv' ? dotenvNote(vars) : null;
  if (quoted) summary.push(`note: ${quoted}`);
  try {
    let body = formatEnv(vars, format);
    if (format === 'json' && plan.unset.length) {
      // JSON says "unset" as null.
      const obj = JSON.parse(body) as Record<string, string | null>;
      for (const u of plan.unset) obj[u.name] = null;
      body = JSON.stringify(obj, null, 2) + '\n';
    }
    if (unsetter) body = plan.unset.map((u) => unsetter(u.name)).join('') + body;
    if (format === 'json') return { body, summary, error: null, refused, blocking };
    return { body: body + '\n' + summary.map((l) => commentLine(l, format)).join('\n') + '\n', summary: [], error: null, refused, blocking };
  } catch (e) {
    return { body: '', summary, error: e instanceof Error ? e.message : String(e), refused, blocking };
  }
}

/** The first summary line: which node and which NCCL the plan is for. */
export function envHeader(ctx: CheckContext): string {
  return `ncclx env for ${ctx.snapshot.host.hostname}, NCCL ${ctx.reasoning.choice.version.raw} (${ctx.reasoning.profile.id})`;
}
