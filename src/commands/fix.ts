// `ncclx fix`: list the fixes the doctor proposes (dry run, the default),
// apply them with a journal and automatic rollback, or roll back a journal.
// Exit codes: 0 done or nothing to do, 1 an apply failed (and was undone) or
// a rollback was incomplete, 2 usage, not root, tools missing, nothing changed.

import { Option, type Command } from '../vendor/commander.js';
import { UserError } from '../model/errors.js';
import { FIX_ORDER } from '../model/result/types.js';
import { makeStyle, wantColor } from '../report/style.js';
import { addCandidateOptions, addVersionOption, candidateOptions, intOption, list, readNode, type CandidateFlags, type SourceOptions } from './options.js';
import { terminalText } from '../report/display.js';

interface FixCliOptions extends SourceOptions, CandidateFlags {
  apply?: boolean;
  dryRun?: boolean;
  yes?: boolean;
  only?: string;
  json?: boolean;
  journal?: string;
  rollback?: string;
  plan?: string;
  force?: boolean;
  persist?: boolean;
  sysctlFile: string;
  confFile: string;
  dscp?: string;
  markIface?: string;
  markSubnets?: boolean;
  markUid?: string;
  markCgroup?: string;
  markPorts?: string;
  markSport?: boolean;
  rate?: string;
  ncclVersion?: string;
  color?: boolean;
}

function portRanges(v: string | undefined): { lo: number; hi: number }[] | undefined {
  if (v === undefined) return undefined;
  return list(v)!.map((r) => {
    const m = /^(\d+)(?:[-:](\d+))?$/.exec(r);
    const lo = m ? Number(m[1]) : NaN;
    const hi = m ? Number(m[2] ?? m[1]) : NaN;
    if (!m || lo < 1 || hi > 65535 || lo > hi) throw new UserError(`--mark-ports: '${r}' is not a port or a range lo-hi within 1-65535`);
    return { lo, hi };
  });
}

export function registerFixCommand(program: Command): void {
  const cmd = program
    .command('fix')
    .description('fix what the doctor finds: dry run by default, --apply to change the node (journalled, rolled back on failure)')
    .option('--snapshot <file>', "plan from another node's snapshot (dry run only)")
    .option('--root <dir>', 'plan from a fixture tree (dry run only)')
    .option('--dry-run', 'print the exact commands and file writes (the default)')
    .option('--apply', 'apply the fixes (root; asks for confirmation unless --yes)')
    .option('-y, --yes', 'do not ask for confirmation')
    .option('--only <ids>', 'only these fixes (comma list): policy-routing, arp-sysctl, rp-filter, dscp-marking, qdisc-priority, nccl-conf — named fixes are planned even when no finding proposes them')
    .option('--json', 'print the plan as JSON (apply it later, exactly as reviewed, with --plan)')
    .option('--plan <file>', 'apply or show a plan saved with --json instead of planning again')
    .option('--journal <file>', 'journal path (default /var/lib/ncclx/fix-<time>-<pid>.json)')
    .option('--rollback <journal>', 'undo a completed apply from its journal')
    .option('--force', 'replace a multi-queue (mq) root qdisc; with --rollback, undo even what was changed since')
    .option('--persist', 'also write the sysctl settings to a drop-in under /etc/sysctl.d/')
    .option('--sysctl-file <file>', 'the sysctl drop-in for --persist', '/etc/sysctl.d/90-ncclx.conf')
    .option('--conf-file <file>', 'the NCCL config file the nccl-conf fix writes', '/etc/nccl.conf')
    .option('--dscp <n>', 'DSCP to mark (default: NCCL_IB_TC >> 2 when set, else 46 = EF)')
    .option('--mark-iface <list>', 'mark TCP leaving these interfaces (default: the interfaces NCCL\'s sockets use)')
    .option('--mark-subnets', 'mark TCP to the rails\' IPv4 subnets')
    .option('--mark-uid <uid>', 'mark TCP of sockets owned by this uid')
    .option('--mark-cgroup <path>', 'mark TCP of sockets in this cgroup v2 path (e.g. system.slice/train.service)')
    .option('--mark-ports <ranges>', 'mark TCP to these ports or ranges (e.g. 40000-40999): one rule per range')
    .option('--mark-sport', '--mark-ports are source ports')
    .option('--rate <mbit>', 'link rate for an htb priority qdisc when the link reports no speed');
  addCandidateOptions(addVersionOption(cmd))
    .addOption(new Option('--no-color', 'no colour'))
    .action(async (opts: FixCliOptions) => {
      process.exitCode = await runFix(opts);
    });
}

async function runFix(opts: FixCliOptions): Promise<number> {
  const style = makeStyle(wantColor(opts.color));
  const [fix, text] = await Promise.all([import('./fix-api.js'), import('../report/fix-text.js')]);
  // Text for a person: the node's data shown with control characters escaped (report/display.ts).
  const out = (s: string) => process.stdout.write(terminalText(s));
  const err = (s: string) => process.stderr.write(terminalText(s));
  if (opts.apply && opts.dryRun) throw new UserError('--apply and --dry-run cannot be used together');

  if (opts.rollback) {
    const problems = fix.preflight([], {}).filter((p) => p.startsWith('not root'));
    if (problems.length) {
      err(`ncclx fix: cannot roll back: ${problems.join('; ')}\nNothing was changed.\n`);
      return 2;
    }
    const total = await journalLength(opts.rollback);
    const outcome = await fix.rollbackJournal(opts.rollback, { onEvent: (e) => emit(text.renderEvent(e, total, style)), force: !!opts.force });
    out(text.renderOutcome(outcome, style, 'rollback'));
    return outcome.status === 'rollback-failed' ? 1 : 0;
  }

  const only = list(opts.only);
  const unknown = (only ?? []).filter((id) => !(FIX_ORDER as readonly string[]).includes(id));
  if (unknown.length) throw new UserError(`unknown fix id ${unknown.join(', ')} (fixes: ${FIX_ORDER.filter((f) => f !== 'sysctl-persist').join(', ')})`);

  const live = !opts.snapshot && !opts.root && !opts.plan;
  let plan: import('../model/fix/types.js').FixPlan;
  // The plan's end state checked in the model (not for a saved plan: its node data is not here).
  let check: import('../model/fix/types.js').PlanCheck | undefined;
  if (opts.plan) {
    if (opts.snapshot || opts.root) throw new UserError('--plan cannot be combined with --snapshot or --root');
    const [{ loadPlanFile }, { readBounded, LIMITS }] = await Promise.all([import('../fix/plan-file.js'), import('../probe/read-bounded.js')]);
    plan = loadPlanFile(opts.plan, (p) => readBounded(p, LIMITS.file));
    if (only) plan = { ...plan, fixes: plan.fixes.filter((f) => only.includes(f.id)) };
    // A saved plan applies only on the live node it was made on, during the same boot.
    const why = opts.apply ? fix.provenanceProblems(plan) : [];
    if (why.length) throw new UserError(`--plan ${opts.plan} cannot be applied here:\n${why.map((w) => `  - ${w}`).join('\n')}\nNothing was changed.`);
  } else {
    const cand = candidateOptions(opts);
    const [{ ALL_CHECKS }, { runDoctor }, { makeContext }, { verifyRun }] = await Promise.all([import('../checks/registry.js'), import('../checks/run.js'), import('../model/doctor/context.js'), import('../checks/verify.js')]);
    const snap = await readNode(opts, { kernel: true, rdma: true, topology: true });
    const ctx = makeContext(snap, { ncclVersion: opts.ncclVersion }, { ncclVersion: opts.ncclVersion, ...cand });
    const run = verifyRun(runDoctor(ALL_CHECKS, ctx));
    plan = await fix.proposeFixes(run, {
      source: { live, root: opts.root ?? '/' },
      snapshotPath: opts.snapshot,
      only,
      force: !!opts.force,
      persist: !!opts.persist,
      sysctlFile: opts.sysctlFile,
      confFile: opts.confFile,
      dscp: intOption('--dscp', opts.dscp, 0, 63),
      markIfaces: list(opts.markIface),
      markSubnets: !!opts.markSubnets,
      markUid: intOption('--mark-uid', opts.markUid, 0, 0xfffffffe),
      markCgroup: opts.markCgroup,
      markPorts: portRanges(opts.markPorts),
      markPortDir: opts.markSport ? 'sport' : 'dport',
      rateMbit: intOption('--rate', opts.rate, 1, 10_000_000),
    });
    if (plan.fixes.some((f) => !f.blocked && f.ops.length)) check = (await import('../fix/check-plan.js')).checkPlanInModel(run, plan.fixes);
  }

  if (!opts.apply) {
    if (opts.json) process.stdout.write(JSON.stringify({ ...plan, fixes: plan.fixes.map((f) => ({ ...f, commands: f.blocked ? [] : f.ops.flatMap(fix.commandsFor) })), modelCheck: check ?? null }, null, 2) + '\n');
    else out(text.renderPlan(plan, style, { applyHint: applyHint(opts), check }));
    return 0;
  }

  const active = plan.fixes.filter((f) => !f.blocked);
  if (plan.fixes.length === 0) {
    out(`Nothing to fix on ${plan.host}: the doctor proposes no fix, so nothing was changed.\n`);
    return 0;
  }
  if (active.length === 0) {
    err(`ncclx fix: nothing applicable:\n${plan.fixes.map((f) => `  [${f.id}] ${f.blocked}`).join('\n')}\nNothing was changed.\n`);
    return 2;
  }
  if (active.every((f) => f.ops.length === 0)) {
    const na = active.filter((f) => f.notes.some(fix.isNotApplicable));
    const inPlace = active.filter((f) => !na.includes(f));
    if (na.length) out(`Nothing to do for ${na.map((f) => f.id).join(', ')} on ${plan.host}: ${na[0]!.notes.find(fix.isNotApplicable)}.\n`);
    if (inPlace.length) out(`Nothing changed: ${inPlace.map((f) => f.id).join(', ')} already in place on ${plan.host}.\n`);
    return 0;
  }
  const problems = fix.preflight(active, { live: live || !!opts.plan });
  if (problems.length) {
    err(`ncclx fix: cannot apply:\n${problems.map((p) => `  - ${p}`).join('\n')}\nNothing was changed.\n`);
    return 2;
  }
  const skipped = plan.fixes.filter((f) => f.blocked);
  for (const f of skipped) err(`note: [${f.id}] not applied: ${f.blocked}\n`);
  const opCount = active.reduce((n, f) => n + f.ops.length, 0);
  if (!opts.yes) {
    if (!process.stdin.isTTY) {
      err('ncclx fix: --apply needs confirmation and standard input is not a terminal: add --yes. Nothing was changed.\n');
      return 2;
    }
    out(text.renderPlan({ ...plan, fixes: active }, style, { applyHint: [] }));
    const { createInterface } = await import('node:readline/promises');
    const rl = createInterface({ input: process.stdin, output: process.stdout });
    const answer = await rl.question(`Apply ${opCount} operation(s) of ${active.map((f) => f.id).join(', ')} on ${plan.host}? [y/N] `);
    rl.close();
    if (!/^y(es)?$/i.test(answer.trim())) {
      out('Cancelled; nothing was changed.\n');
      return 0;
    }
  }
  const outcome = await fix.applyPlan(active, { journal: opts.journal, onEvent: (e) => emit(text.renderEvent(e, opCount, style)) });
  out(text.renderOutcome(outcome, style, 'apply'));
  return outcome.status === 'applied' || outcome.status === 'unchanged' ? 0 : 1;
}

function emit(line: string) {
  if (line) process.stdout.write(terminalText(line) + '\n');
}

async function journalLength(path: string): Promise<number> {
  try {
    const { readFileSync } = await import('node:fs');
    return (JSON.parse(readFileSync(path, 'utf8')) as { ops?: unknown[] }).ops?.length ?? 0;
  } catch {
    return 0;
  }
}

/** The command that applies what the dry run showed. */
function applyHint(opts: FixCliOptions): string[] {
  // A plan from a snapshot or a --root tree is a preview: it applies nowhere, so no apply command is offered.
  if (opts.snapshot || opts.root) return [];
  const argv = ['ncclx', 'fix', '--apply'];
  if (opts.only) argv.push('--only', opts.only);
  for (const [flag, v] of [
    ['--dscp', opts.dscp],
    ['--mark-iface', opts.markIface],
    ['--mark-uid', opts.markUid],
    ['--mark-cgroup', opts.markCgroup],
    ['--mark-ports', opts.markPorts],
    ['--rate', opts.rate],
    ['--nccl-version', opts.ncclVersion],
  ] as const) {
    if (v !== undefined) argv.push(flag, v);
  }
  if (opts.markSubnets) argv.push('--mark-subnets');
  if (opts.markSport) argv.push('--mark-sport');
  if (opts.force) argv.push('--force');
  if (opts.persist) argv.push('--persist');
  if (opts.sysctlFile !== '/etc/sysctl.d/90-ncclx.conf') argv.push('--sysctl-file', opts.sysctlFile);
  if (opts.confFile !== '/etc/nccl.conf') argv.push('--conf-file', opts.confFile);
  return argv;
}
