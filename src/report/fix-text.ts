// Text for `ncclx fix`: the plan as a dry run (every command quoted for
// pasting) and the progress lines of an apply or a rollback.

import { commandsFor } from '../model/fix/describe.js';
import type { ApplyEvent, ApplyOutcome, Fix, FixPlan, PlanCheck } from '../model/fix/types.js';
import { shJoin } from '../model/shell/quote.js';
import type { Style } from './style.js';
import { append } from '../model/list.js';

const MARK: Record<string, string> = { error: '✗', warn: '!', info: 'i', unknown: '?' };

export function renderPlan(plan: FixPlan, s: Style, o: { applyHint: string[]; check?: PlanCheck }): string {
  const out: string[] = [];
  const active = plan.fixes.filter((f) => !f.blocked && f.ops.length > 0);
  if (plan.fixes.length === 0) {
    return `Nothing to fix on ${plan.host}: the doctor proposes no fix (name one with --only to plan it anyway).\n`;
  }
  out.push(s.bold(`ncclx fix — ${plan.host}: ${plan.fixes.length} fix${plan.fixes.length === 1 ? '' : 'es'} proposed, ${active.length} applicable (dry run: nothing is changed)`), '');
  for (const f of plan.fixes) append(out, renderFix(f, s), ['']);
  if (o.check) append(out, renderCheck(o.check, s), ['']);
  if (active.length && plan.origin.kind !== 'live') {
    const from = plan.origin.kind === 'snapshot' ? `the snapshot ${plan.origin.path}` : `the tree ${plan.origin.path}`;
    out.push(s.dim(`# A preview, planned from ${from}: it applies nowhere. Run ncclx fix on the node itself to apply.`));
  } else if (active.length && o.applyHint.length) {
    out.push(s.dim('# Apply (as root; a journal of every previous value is written first, and a failure undoes everything):'));
    out.push(shJoin(o.applyHint));
  }
  return out.join('\n') + '\n';
}

/** What the model says of the plan's end state: claimed results resolved, left, and anything new. */
function renderCheck(c: PlanCheck, s: Style): string[] {
  const ids = (xs: { checkId: string }[]) => {
    const n = new Map<string, number>();
    for (const x of xs) n.set(x.checkId, (n.get(x.checkId) ?? 0) + 1);
    return [...n.entries()].map(([id, k]) => (k > 1 ? `${id} ×${k}` : id)).join(', ');
  };
  const out = [s.bold('Checked in the model (the doctor run on the node as these fixes leave it):')];
  if (c.resolved.length) out.push(`  ${s.ok('✓')} resolved: ${ids(c.resolved)}`);
  for (const r of c.remaining) out.push(`  ${s.warn('!')} still there: ${r.checkId} ${r.summary}`);
  for (const r of c.newFindings) out.push(`  ${s.err('✗')} new: ${r.checkId} ${r.summary}`);
  if (!c.remaining.length && !c.newFindings.length) out.push(s.dim('  nothing new goes wrong'));
  return out;
}

function renderFix(f: Fix, s: Style): string[] {
  const out = [`${s.bold(`[${f.id}]`)} ${f.title}`];
  if (f.resolves.length) {
    out.push('  resolves:');
    // One line per check: the first finding's summary and how many more there are.
    const byCheck = new Map<string, Fix['resolves']>();
    for (const r of f.resolves) byCheck.set(r.checkId, [...(byCheck.get(r.checkId) ?? []), r]);
    for (const [id, rs] of byCheck) {
      const worst = rs.find((r) => r.severity === 'error') ?? rs[0]!;
      const color = worst.severity === 'error' ? s.err : worst.severity === 'warn' ? s.warn : s.dim;
      const first = rs[0]!.summary.length > 100 ? `${rs[0]!.summary.slice(0, 99)}…` : rs[0]!.summary;
      out.push(`    ${color(MARK[worst.severity] ?? '·')} ${id}  ${first}${rs.length > 1 ? s.dim(` (+${rs.length - 1} more)`) : ''}`);
    }
  }
  for (const n of f.notes) out.push(s.dim(`  # ${n}`));
  if (f.blocked) {
    out.push(s.warn(`  not applicable: ${f.blocked}`));
    return out;
  }
  for (const op of f.ops) for (const c of commandsFor(op)) append(out, c.split('\n').map((l, i) => (i === 0 ? `  ${l}` : l)));
  return out;
}

/** One progress line per event. */
export function renderEvent(e: ApplyEvent, total: number, s: Style): string {
  const n = 'index' in e ? `[${e.index + 1}/${total}]` : '';
  switch (e.type) {
    case 'journal':
      return s.dim(`journal: ${e.path}`);
    case 'op-start':
      return '';
    case 'op-done':
      return `${n} ${e.text} … ${e.changed ? s.ok('done') : s.dim('already in place')}`;
    case 'op-failed':
      return `${n} ${e.text} … ${s.err(`FAILED: ${e.error}`)}`;
    case 'undo-start':
      return '';
    case 'undo-done':
      return `  undo ${n} ${e.text} … ${s.ok('restored')}`;
    case 'undo-failed':
      return `  undo ${n} ${e.text} … ${s.err(e.error)}`;
  }
}

export function renderOutcome(o: ApplyOutcome, s: Style, what: 'apply' | 'rollback'): string {
  const j = o.journal ? ` Journal: ${o.journal}` : '';
  if (what === 'rollback') {
    if (o.status === 'unchanged') return `Nothing to undo: no applied operation is left in ${o.journal}.\n`;
    if (o.status === 'rolled-back') return s.ok(`Rolled back: ${o.changed} operation(s) restored to their previous values.`) + '\n';
    return (
      s.err(`Rollback incomplete: ${o.undoErrors.length} operation(s) not restored:\n${o.undoErrors.map((e) => `  - ${e}`).join('\n')}`) +
      `\n${j.trim()}\n` +
      `Run the same rollback again to retry what failed (it resumes where it stopped), or add --force to undo what was changed since the apply as well.\n`
    );
  }
  switch (o.status) {
    case 'unchanged':
      return `Nothing changed: all ${o.unchanged} operation(s) were already in place.\n`;
    case 'applied':
      return (
        s.ok(`Applied: ${o.changed} change(s)${o.unchanged ? `, ${o.unchanged} already in place` : ''}.`) +
        `${j}\nUndo later with: ${shJoin(['ncclx', 'fix', '--rollback', o.journal!])}\n`
      );
    case 'refused':
      return s.err(`Refused before any change: ${o.failure!.text}: ${o.failure!.error}`) + '\nNothing was changed.\n';
    case 'rolled-back':
      return s.err(`FAILED: ${o.failure!.text}: ${o.failure!.error}`) + `\nEverything already done was undone in reverse order; the node is as it was.${j}\n`;
    case 'rollback-failed':
      return (
        s.err(`FAILED: ${o.failure!.text}: ${o.failure!.error}`) +
        `\n${s.err(`and ${o.undoErrors.length} undo(s) failed — these are NOT restored:`)}\n${o.undoErrors.map((e) => `  - ${e}`).join('\n')}${j}\n`
      );
  }
}
