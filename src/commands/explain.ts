// `ncclx explain`: the three consumers' socket selection, the per-address
// trace and the findings (src/model/nccl/explain.ts), as text or JSON.

import { Option, type Command } from 'commander';
import { explain, type SocketOverrides } from '../model/nccl/explain.js';
import { explainJson, renderExplain } from '../report/explain-text.js';
import { makeStyle, wantColor } from '../report/style.js';
import { addSourceOptions, addVersionOption, readNode, type SourceOptions } from './options.js';

interface ExplainOptions extends SourceOptions, SocketOverrides {
  json?: boolean;
  verbose?: boolean;
  color?: boolean;
}

export function registerExplainCommand(program: Command): void {
  addVersionOption(
    addSourceOptions(
      program
        .command('explain')
        .description('which interfaces NCCL will use for bootstrap, the socket transport and the IB OOB, and why')
        .option('--ifname <spec>', 'NCCL_SOCKET_IFNAME to model (overrides the environment)')
        .option('--comm-id <addr>', 'NCCL_COMM_ID to model (overrides the environment)')
        .addOption(new Option('--family <family>', 'NCCL_SOCKET_FAMILY to model (AF_INET or AF_INET6; other values are modelled as NCCL ignores them)')),
    ),
  )
    .option('--json', 'print JSON (schema in docs/explain-json.md)')
    .option('-v, --verbose', 'show every trace')
    .option('--no-color', 'no colour')
    .action(async (opts: ExplainOptions) => {
      const snap = await readNode(opts, { extraHosts: [opts.commId] });
      const report = explain(snap, opts);
      if (opts.json) process.stdout.write(JSON.stringify(explainJson(report), null, 2) + '\n');
      else process.stdout.write(renderExplain(report, makeStyle(wantColor(opts.color)), !!opts.verbose));
      process.exitCode = report.findings.some((f) => f.severity === 'error') ? 1 : 0;
    });
}
