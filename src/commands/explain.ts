// `ncclx explain`: the three consumers' socket selection, the per-address
// trace and the findings (src/model/nccl/explain.ts), as text or JSON.

import { Option, type Command } from '../vendor/commander.js';
import { explain, type SocketOverrides } from '../model/nccl/explain.js';
import { explainJson, renderExplain } from '../report/explain-text.js';
import { makeStyle, wantColor } from '../report/style.js';
import { addJobOptions, addSourceOptions, addVersionOption, candidateOptions, DEFAULT_UPLINK_REGEX, readNode, type SourceOptions } from './options.js';
import { terminalText } from '../report/display.js';

interface ExplainOptions extends SourceOptions, SocketOverrides {
  json?: boolean;
  verbose?: boolean;
  color?: boolean;
}

export function registerExplainCommand(program: Command): void {
  addVersionOption(
    addJobOptions(addSourceOptions(
      program
        .command('explain')
        .description('which interfaces NCCL will use for bootstrap, the socket transport and the IB OOB, and why')
        .option('--ifname <spec>', 'NCCL_SOCKET_IFNAME to model (overrides the environment)')
        .option('--comm-id <addr>', 'NCCL_COMM_ID to model (overrides the environment)')
        .addOption(new Option('--family <family>', 'NCCL_SOCKET_FAMILY to model (AF_INET or AF_INET6; other values are modelled as NCCL ignores them)')),
    )),
  )
    .option('--json', 'print JSON (schema in docs/explain-json.md)')
    .option('-v, --verbose', 'show every trace')
    .option('--no-color', 'no colour')
    .action(async (opts: ExplainOptions) => {
      // Devices and ports (no GID tables) tell NCCL's "NET/IB : Using …" line from "No device found.".
      const snap = await readNode(opts, { extraHosts: [opts.commId], rdma: 'ports' });
      const report = explain(snap, opts);
      // Remediations that change the environment are aligned with \`ncclx env\` and checked in the model first.
      if (report.findings.some((f) => f.remediation.env)) {
        const { verifyFindings } = await import('../checks/verify.js');
        const flags = Object.fromEntries(
          ([['NCCL_SOCKET_IFNAME', opts.ifname], ['NCCL_COMM_ID', opts.commId], ['NCCL_SOCKET_FAMILY', opts.family]] as const).filter(([, v]) => v !== undefined),
        ) as Record<string, string>;
        report.findings = verifyFindings(snap, flags, { ncclVersion: opts.ncclVersion, ...candidateOptions({ uplinkRegex: DEFAULT_UPLINK_REGEX }) }, report.findings);
      }
      if (opts.json) process.stdout.write(JSON.stringify(explainJson(report), null, 2) + '\n');
      else process.stdout.write(terminalText(renderExplain(report, makeStyle(wantColor(opts.color)), !!opts.verbose)));
      process.exitCode = report.findings.some((f) => f.severity === 'error') ? 1 : 0;
    });
}
