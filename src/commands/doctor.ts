// `ncclx doctor`: every check, as the interactive doctor on a terminal, else
// a plain report, JSON or Prometheus text. Exit 0 no error, 1 an error found,
// 2 usage or bad input.

import { Option, type Command } from 'commander';
import { UserError } from '../model/errors.js';
import { makeStyle, wantColor } from '../report/style.js';
import { addCandidateOptions, addSourceOptions, addVersionOption, candidateOptions, list, readNode, sourceOf, type CandidateFlags, type SourceOptions } from './options.js';

interface DoctorOptions extends SourceOptions, CandidateFlags {
  ncclVersion?: string;
  json?: boolean;
  format: 'text' | 'json' | 'prom';
  only?: string;
  skip?: string;
  listChecks?: boolean;
  tui?: boolean;
  verbose?: boolean;
  color?: boolean;
}

export function registerDoctorCommand(program: Command): void {
  addCandidateOptions(
    addVersionOption(
      addSourceOptions(
        program
          .command('doctor')
          .description('run every check and report (plain report when stdout is not a TTY or with --no-tui)')
          .option('--json', 'print every result as JSON (schema in docs/doctor-json.md)')
          .addOption(new Option('--format <format>', 'output format').choices(['text', 'json', 'prom']).default('text'))
          .option('--only <ids>', 'run only these checks (comma list of ids or prefixes, e.g. SOCK,ARP-001)')
          .option('--skip <ids>', 'skip these checks (comma list of ids or prefixes)')
          .option('--list-checks', 'list every check with its id and exit'),
      ),
    ),
  )
    .option('--no-tui', 'plain report even on a terminal')
    .option('-v, --verbose', 'evidence, why and fix for every result')
    .option('--no-color', 'no colour')
    .action(async (opts: DoctorOptions) => {
      const { ALL_CHECKS } = await import('../checks/registry.js');
      if (opts.listChecks) {
        const w = Math.max(...ALL_CHECKS.map((c) => c.id.length));
        process.stdout.write(ALL_CHECKS.map((c) => `${c.id.padEnd(w)}  ${c.family.padEnd(10)}  ${c.title}`).join('\n') + '\n');
        return;
      }
      const [{ runDoctor, selectChecks }, { makeContext }, { verifyRun }, report] = await Promise.all([import('../checks/run.js'), import('../model/doctor/context.js'), import('../checks/verify.js'), import('../report/doctor.js')]);
      const cand = candidateOptions(opts);
      const only = list(opts.only);
      const skip = list(opts.skip);
      const known = (p: string) => ALL_CHECKS.some((c) => c.id === p || c.id.startsWith(p.endsWith('-') ? p : `${p}-`));
      const unknown = [...(only ?? []), ...(skip ?? [])].filter((p) => !known(p));
      if (unknown.length) throw new UserError(`unknown check id ${unknown.join(', ')} (see ncclx doctor --list-checks)`);
      const checks = selectChecks(ALL_CHECKS, only, skip);
      const options = { ncclVersion: opts.ncclVersion, ...cand };
      const format = opts.json ? 'json' : opts.format;
      // A person at a terminal gets the interactive doctor (src/tui, loaded only here).
      if (format === 'text' && opts.tui !== false && process.stdout.isTTY && process.stdin.isTTY) {
        const { runTui } = await import('../tui/index.js');
        process.exitCode = await runTui({
          load: (onStep) => readNode(opts, { kernel: true, rdma: true, onStep }),
          checks,
          options,
          source: sourceOf(opts),
          color: wantColor(opts.color),
          fixApi: () => import('./fix-api.js'),
        });
        return;
      }
      const snap = await readNode(opts, { kernel: true, rdma: true });
      // Every remediation that changes the environment is checked in the model before it is shown.
      const run = verifyRun(runDoctor(checks, makeContext(snap, { ncclVersion: opts.ncclVersion }, options)));
      if (format === 'json') process.stdout.write(JSON.stringify(report.doctorJson(run), null, 2) + '\n');
      else if (format === 'prom') process.stdout.write(report.renderPrometheus(run));
      else process.stdout.write(report.renderDoctorText(run, makeStyle(wantColor(opts.color)), !!opts.verbose));
      process.exitCode = report.exitCodeFor(run.results);
    });
}
