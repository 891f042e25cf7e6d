// `ncclx log FILE... | -`: what NCCL really did, read from its debug log
// (src/model/log), and — with --snapshot, --root or --here — held against
// what ncclx predicts for that node. Exit 0 when the log shows no error, 1
// when it does, 2 for bad usage or input.

import type { Command } from '../vendor/commander.js';
import { UserError } from '../model/errors.js';
import { terminalText } from '../report/display.js';
import { makeStyle, wantColor } from '../report/style.js';
import { addJobOptions, addSourceOptions, readNode, type SourceOptions } from './options.js';

interface LogOptions extends SourceOptions {
  here?: boolean;
  host?: string;
  ncclVersion?: string;
  json?: boolean;
  verbose?: boolean;
  color?: boolean;
}

export function registerLogCommand(program: Command): void {
  addJobOptions(addSourceOptions(
    program
      .command('log')
      .description("read what NCCL did from its debug log (NCCL_DEBUG=INFO): versions, interfaces, devices, transports, problems, hosts that differ; with --here/--snapshot/--root, against the prediction")
      .argument('[files...]', "log files or directories ('-' or nothing: standard input; gzip accepted)")
      .option('--here', 'hold the log against the prediction for this node')
      .option('--host <name>', 'the log host that is the predicted node (default: the node\'s hostname, else the only host)')
      .option('--nccl-version <version>', 'NCCL version to predict with (default: the one the log states)'),
  ))
    .option('--json', 'print JSON (schema in docs/log-json.md)')
    .option('-v, --verbose', 'every host and rank, every cause')
    .option('--no-color', 'no colour')
    .action(async (files: string[], opts: LogOptions) => {
      const sources = [opts.here, opts.snapshot, opts.root, opts.pid].filter(Boolean).length;
      if (sources > 1) throw new UserError('--here, --snapshot, --root and --pid choose the node to predict for: give one');
      if (files.filter((f) => f === '-').length > 1) throw new UserError("standard input ('-') can be read once");
      // Usage is settled before the log is read (a large log takes seconds).
      if (sources === 0 && (opts.host !== undefined || opts.ncclVersion !== undefined)) throw new UserError('--host and --nccl-version apply to the prediction: add --here, --snapshot, --root or --pid');
      // The reader, the collector and its renderer load here, not with the CLI: every other command's start-up skips them.
      const [{ logExitCode }, { collectLogs }, { logJson, renderLog }, { logScanner }] = await Promise.all([import('../model/log/analyze.js'), import('../probe/log-parallel.js'), import('../report/log-text.js'), import('../probe/log-scan.js')]);
      const { collector, inputs, parts } = await collectLogs(files, process.stdin, (name, why) => process.stderr.write(`ncclx log: skipped ${terminalText(name)}: ${why}\n`));
      // How it was read, for a bug report (and the single executable's tests: its worker threads ran).
      if (process.env['NCCLX_DEBUG']) process.stderr.write(`ncclx log: ${parts ? `read in ${parts} parts side by side (${parts - 1} worker thread${parts === 2 ? '' : 's'})` : 'read in one pass'}, WebAssembly scanner ${logScanner() ? 'on' : 'off'}\n`);
      let analysis = collector.result();
      if (analysis.input.ncclLines === 0) {
        const what = inputs.length === 1 ? (inputs[0]!.name === '-' ? 'standard input' : inputs[0]!.name) : `${inputs.length} files`;
        throw new UserError(`${what}: no NCCL lines (${analysis.input.lines} lines read; run the job with NCCL_DEBUG=INFO)`);
      }
      let prediction = null;
      let snap = null;
      if (sources === 1) {
        snap = await readNode(opts, { rdma: true });
        const { comparePrediction } = await import('../model/log/predict.js');
        prediction = comparePrediction(analysis, snap, { host: opts.host, ncclVersion: opts.ncclVersion });
      }
      // The fallback's advice is the network verdict the doctor gives (an EFA node must not be told NCCL_NET=IB).
      const { withNetworkAdvice } = await import('../model/log/network.js');
      analysis = withNetworkAdvice(analysis, snap, prediction?.logHost || null);
      if (opts.json) process.stdout.write(JSON.stringify(logJson(analysis, inputs, prediction), null, 2) + '\n');
      else process.stdout.write(terminalText(renderLog(analysis, inputs, prediction, makeStyle(wantColor(opts.color)), !!opts.verbose)));
      process.exitCode = logExitCode(analysis);
    });
}
