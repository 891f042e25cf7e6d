// `ncclx ps`: the processes on this node with an NCCL library mapped, each
// with its NCCL, environment, container, network namespace and TCP sockets,
// held against the prediction for it. Exit 1 when a socket shows the classic
// hang (a connection to the bootstrap root or PyTorch's store stuck in
// SYN_SENT), 0 otherwise, 2 for bad usage.

import type { Command } from '../vendor/commander.js';
import { terminalText } from '../report/display.js';
import { makeStyle, wantColor } from '../report/style.js';
import type { PsScan } from '../model/snapshot/process-types.js';
import type { PsRow } from '../report/ps-text.js';

interface PsOptions {
  json?: boolean;
  verbose?: boolean;
  color?: boolean;
  ncclVersion?: string;
}

export function registerPsCommand(program: Command): void {
  program
    .command('ps')
    .description('the processes on this node with an NCCL library mapped: their NCCL, environment, container, sockets, and the prediction held against them')
    .option('--json', 'print JSON (schema in docs/ps-json.md)')
    .option('--nccl-version <version>', 'NCCL version to model (default: the library each process has mapped)')
    .option('-v, --verbose', 'every socket and variable')
    .option('--no-color', 'no colour')
    .action(async (opts: PsOptions) => {
      if (opts.ncclVersion !== undefined) (await import('../model/nccl/versions.js')).parseVersion(opts.ncclVersion);
      // The first pass is cheap and loads nothing else; the model is loaded only for processes that map NCCL.
      const { candidatePids } = await import('../probe/ps-scan.js');
      const first = candidatePids();
      const report = await import('../report/ps-text.js');
      let scan: PsScan = { processes: [], scanned: first.scanned, unreadable: first.unreadable, asRoot: typeof process.getuid === 'function' && process.getuid() === 0, warnings: [] };
      let rows: PsRow[] = [];
      if (first.pids.length) {
        const [{ scanProcesses }, { judgeProcess }] = await Promise.all([import('../probe/ps.js'), import('../model/nccl/process.js')]);
        scan = scanProcesses(first);
        rows = scan.processes.map((entry) => ({ entry, prediction: judgeProcess(entry.snapshot, entry.sockets, opts.ncclVersion) }));
      }
      if (opts.json) process.stdout.write(JSON.stringify(report.psJson(scan, rows), null, 2) + '\n');
      else process.stdout.write(terminalText(report.renderPs(scan, rows, makeStyle(wantColor(opts.color)), !!opts.verbose)));
      process.exitCode = rows.some((r) => r.prediction.hang !== null) ? 1 : 0;
    });
}
