// `ncclx topo`: the GPU ↔ NIC topology as NCCL sees it (src/model/topo):
// wiring only. Exit 0 without errors, 1 when a finding is an error, 2 for bad
// usage or input.

import type { Command } from '../vendor/commander.js';
import { UserError } from '../model/errors.js';
import { LIMITS, readBounded } from '../probe/read-bounded.js';
import type { TopoOverrides } from '../model/topo/report.js';
import { terminalText } from '../report/display.js';
import { makeStyle, wantColor } from '../report/style.js';
import { addJobOptions, addSourceOptions, addVersionOption, candidateOptions, DEFAULT_UPLINK_REGEX, readNode, type SourceOptions } from './options.js';

interface TopoOptions extends SourceOptions {
  ncclVersion?: string;
  hca?: string;
  gdrLevel?: string;
  pxnDisable?: boolean;
  topoFile?: string;
  json?: boolean;
  xml?: boolean;
  verbose?: boolean;
  color?: boolean;
}

export function registerTopoCommand(program: Command): void {
  addJobOptions(addSourceOptions(
    addVersionOption(
      program
        .command('topo')
        .description('the GPU ↔ NIC topology as NCCL sees it: PCI path types, the NIC each GPU uses, GPUDirect RDMA per pair')
        .option('--hca <spec>', 'NCCL_IB_HCA to model (overrides the environment)')
        .option('--gdr-level <level>', 'NCCL_NET_GDR_LEVEL to model (overrides the environment)')
        .option('--pxn-disable', 'model NCCL_PXN_DISABLE=1 (no PXN through NVLink peers)')
        .option('--topo-file <xml>', 'model NCCL_TOPO_FILE=XML: an NCCL topology file or an NCCL_TOPO_DUMP_FILE dump, read as NCCL reads it'),
    ),
  ))
    .option('--json', 'print JSON (schema in docs/topo-json.md)')
    .option('--xml', "print the topology as an NCCL_TOPO_FILE (NCCL's XML), e.g. for a container without /sys")
    .option('-v, --verbose', 'the NCCL log line of every decision, every GPU\'s PCI parents')
    .option('--no-color', 'no colour')
    .action(async (opts: TopoOptions) => {
      if (opts.json && opts.xml) throw new UserError('--json and --xml: give one');
      // The topology model loads here, not with the CLI: every other command's start-up skips it.
      const [{ topoFile, topoFlags, topoReport }, { renderTopo, topoJson }] = await Promise.all([import('../model/topo/report.js'), import('../report/topo-text.js')]);
      const snap = await readNode(opts, { rdma: true, topology: true });
      if (opts.xml) {
        const x = topoFile(snap, { ncclVersion: opts.ncclVersion, hca: opts.hca });
        if ('unavailable' in x) throw new UserError(`no topology to write: ${x.unavailable}`);
        process.stdout.write(x.xml);
        for (const n of x.notes) process.stderr.write(`ncclx topo: ${terminalText(n)}\n`);
        return;
      }
      let fileOverride: { path: string; text: string } | undefined;
      if (opts.topoFile !== undefined) {
        const r = readBounded(opts.topoFile, LIMITS.file);
        if (!r.ok) throw new UserError(`--topo-file ${opts.topoFile}: ${r.message}`);
        fileOverride = { path: opts.topoFile, text: r.text };
      }
      const overrides: TopoOverrides = { ncclVersion: opts.ncclVersion, hca: opts.hca, gdrLevel: opts.gdrLevel, pxnDisable: opts.pxnDisable, topoFile: fileOverride };
      let report = topoReport(snap, overrides);
      // Remediations that change the environment (the IB model's IB-035/IB-036) are checked in the model first, as ncclx ib checks them.
      if (report.findings.some((f) => f.remediation?.env)) {
        const { verifyFindings } = await import('../checks/verify.js');
        const flags: Record<string, string> = Object.fromEntries(topoFlags(overrides).flatMap(([name, value]) => (value === undefined ? [] : [[name, value]])));
        report = { ...report, findings: verifyFindings(snap, flags, { ncclVersion: opts.ncclVersion, ...candidateOptions({ uplinkRegex: DEFAULT_UPLINK_REGEX }) }, report.findings) };
      }
      if (opts.json) process.stdout.write(JSON.stringify(topoJson(report), null, 2) + '\n');
      else process.stdout.write(terminalText(renderTopo(report, makeStyle(wantColor(opts.color)), !!opts.verbose)));
      process.exitCode = report.findings.some((f) => f.severity === 'error') ? 1 : 0;
    });
}
