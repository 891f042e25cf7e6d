// `ncclx doctor`: every check, as the interactive doctor on a terminal, else
// a plain report, JSON or Prometheus text. Exit 0 no error, 1 an error found,
// 2 usage or bad input.

import { Option, type Command } from '../vendor/commander.js';
import { UserError } from '../model/errors.js';
import { makeStyle, wantColor } from '../report/style.js';
import { addCandidateOptions, addJobOptions, addSourceOptions, addVersionOption, candidateOptions, list, readNode, sourceOf, type CandidateFlags, type SourceOptions } from './options.js';
import { terminalText } from '../report/display.js';
import { maxOf } from '../model/list.js';

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
      addJobOptions(addSourceOptions(
        program
          .command('doctor')
          .description('run every check and report (plain report when stdout is not a TTY or with --no-tui)')
          .option('--json', 'print every result as JSON (schema in docs/doctor-json.md)')
          .addOption(new Option('--format <format>', 'output format').choices(['text', 'json', 'prom']).default('text'))
          .option('--only <ids>', 'run only these checks (comma list of ids or prefixes, e.g. SOCK,ARP-001)')
          .option('--skip <ids>', 'skip these checks (comma list of ids or prefixes)')
          .option('--list-checks', 'list every check with its id and exit'),
      )),
    ),
  )
    .option('--no-tui', 'plain report even on a terminal')
    .option('-v, --verbose', 'evidence, why and fix for every result')
    .option('--no-color', 'no colour')
    .action(async (opts: DoctorOptions, cmd: Command) => {
      const { ALL_CHECKS } = await import('../checks/registry.js');
      // --json is --format json: asking for both with different formats is a usage error, not a silent choice.
      const formatGiven = cmd.getOptionValueSource('format') === 'cli';
      if (opts.json && formatGiven && opts.format !== 'json') throw new UserError(`--json conflicts with --format ${opts.format}: give one of them`);
      const format = opts.json ? 'json' : opts.format;
      if (opts.listChecks) {
        if (format === 'prom') throw new UserError('--list-checks prints text or JSON, not --format prom');
        if (opts.only !== undefined || opts.skip !== undefined) throw new UserError('--list-checks lists every check: it takes no --only or --skip');
        if (format === 'json') {
          process.stdout.write(JSON.stringify(ALL_CHECKS.map((c) => ({ id: c.id, family: c.family, title: c.title })), null, 2) + '\n');
          return;
        }
        const w = maxOf(ALL_CHECKS.map((c) => c.id.length));
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
      // A gate that checks nothing must not pass.
      if (checks.length === 0) throw new UserError(`--only ${opts.only ?? '(all)'}${opts.skip !== undefined ? ` --skip ${opts.skip}` : ''} selects no check`);
      const options = { ncclVersion: opts.ncclVersion, ...cand };
      // A person at a terminal gets the interactive doctor (src/tui, loaded only here).
      if (format === 'text' && opts.tui !== false && process.stdout.isTTY && process.stdin.isTTY) {
        const { runTui } = await import('../tui/index.js');
        process.exitCode = await runTui({
          load: (onStep) => readNode(opts, { kernel: true, rdma: true, topology: true, onStep }),
          checks,
          options,
          source: sourceOf(opts),
          color: wantColor(opts.color),
          fixApi: () => import('./fix-api.js'),
        });
        return;
      }
      const snap = await readNode(opts, { kernel: true, rdma: true, topology: true });
      // Every remediation that changes the environment is checked in the model before it is shown.
      const run = verifyRun(runDoctor(checks, makeContext(snap, { ncclVersion: opts.ncclVersion }, options)));
      if (format === 'json') process.stdout.write(JSON.stringify(report.doctorJson(run), null, 2) + '\n');
      else if (format === 'prom') process.stdout.write(report.renderPrometheus(run));
      else process.stdout.write(terminalText(report.renderDoctorText(run, makeStyle(wantColor(opts.color)), !!opts.verbose)));
      process.exitCode = report.exitCodeFor(run.results);
    });
}
