#!/usr/bin/env node
// ncclx command line: wires probes, pure rules and renderers; nothing else.
// Exit codes: 0 no errors, 1 errors found, 2 usage or internal error.

import { Command, CommanderError, Option } from 'commander';
import { writeFileSync } from 'node:fs';
import { explain, type SocketOverrides } from './commands/explain-model.js';
import { VersionError } from './nccl/versions.js';
import { hostsToResolve, probeNode, toolVersion } from './probe/index.js';
import { renderExplain } from './report/explain-text.js';
import { makeStyle, wantColor } from './report/style.js';
import type { NodeSnapshot } from './snapshot/types.js';

export class UsageError extends Error {}

interface SourceOptions {
  snapshot?: string;
  root?: string;
}

async function readNode(opts: SourceOptions, extraHosts: (string | undefined)[] = []): Promise<NodeSnapshot> {
  if (opts.snapshot && opts.root) throw new UsageError('--snapshot and --root cannot be used together');
  if (opts.snapshot) {
    const { loadSnapshot } = await import('./snapshot/schema.js');
    return loadSnapshot(opts.snapshot);
  }
  return probeNode({ root: opts.root, extraHosts: hostsToResolve(extraHosts) });
}

function addSourceOptions(cmd: Command): Command {
  return cmd
    .option('--snapshot <file>', "reason about another node's snapshot (from `ncclx snapshot`)")
    .option('--root <dir>', 'read files under DIR instead of / (a fixture or a container view)');
}

function print(s: string) {
  process.stdout.write(s);
}

export function buildProgram(): Command {
  const program = new Command();
  program
    .name('ncclx')
    .description('The network doctor for NCCL: what NCCL will really do on this node, and why.')
    .version(toolVersion())
    .showHelpAfterError()
    .exitOverride();

  addSourceOptions(
    program
      .command('snapshot')
      .description('read this node (links, addresses, NCCL environment, NCCL library, host) into a JSON snapshot')
      .option('-o, --output <file>', 'write to FILE instead of standard output'),
  ).action(async (opts: SourceOptions & { output?: string }) => {
    if (opts.snapshot) throw new UsageError('snapshot reads a node; use --root to read a fixture tree');
    const snap = await probeNode({ root: opts.root, fullHost: true });
    const text = JSON.stringify(snap, null, 2) + '\n';
    if (opts.output) writeFileSync(opts.output, text);
    else print(text);
  });

  addSourceOptions(
    program
      .command('explain')
      .description('which interfaces NCCL will use for bootstrap, the socket transport and the IB OOB, and why')
      .option('--ifname <spec>', 'NCCL_SOCKET_IFNAME to model (overrides the environment)')
      .option('--comm-id <addr>', 'NCCL_COMM_ID to model (overrides the environment)')
      .addOption(new Option('--family <family>', 'NCCL_SOCKET_FAMILY to model (AF_INET or AF_INET6; other values are modelled as NCCL ignores them)'))
      .option('--nccl-version <version>', 'NCCL version to model: X.Y[.Z] or ncclx-X.Y (default: detected on the node)')
      .option('--json', 'print JSON (schema in docs/explain-json.md)')
      .option('-v, --verbose', 'show every trace')
      .option('--no-color', 'no colour'),
  ).action(async (opts: SourceOptions & SocketOverrides & { json?: boolean; verbose?: boolean; color?: boolean }) => {
    const snap = await readNode(opts, [opts.commId]);
    const report = explain(snap, opts);
    if (opts.json) print(JSON.stringify(report, null, 2) + '\n');
    else print(renderExplain(report, makeStyle(wantColor(opts.color)), !!opts.verbose));
    process.exitCode = report.findings.some((f) => f.severity === 'error') ? 1 : 0;
  });

  return program;
}

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help') return 0;
      return 2;
    }
    const msg = e instanceof Error ? e.message : String(e);
    const known = e instanceof UsageError || e instanceof VersionError || (e as Error)?.constructor?.name === 'SnapshotError';
    process.stderr.write(`ncclx: ${known ? msg : `internal error: ${(e as Error)?.stack ?? msg}`}\n`);
    return 2;
  }
}

main(process.argv).then((code) => {
  process.exitCode = code;
});
