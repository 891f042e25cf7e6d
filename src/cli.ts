#!/usr/bin/env node
// ncclx command line: wires probes, pure rules and renderers; nothing else.
// Exit codes: 0 no errors, 1 errors found, 2 usage or internal error.

import { Command, CommanderError, Option } from 'commander';
import { writeFileSync } from 'node:fs';
import { registerCompareCommand } from './commands/compare.js';
import { explain, type SocketOverrides } from './commands/explain-model.js';
import { registerFixCommand } from './commands/fix.js';
import { registerIbCommands } from './commands/ib.js';
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

/**
 * Read the node. `kernel` adds sysctls, routes, qdiscs and firewall rules and
 * `rdma` the RDMA devices: the doctor needs both, explain neither (it must stay fast).
 */
export async function readNode(opts: SourceOptions, extraHosts: (string | undefined)[] = [], probe: { kernel?: boolean; rdma?: boolean; onStep?: (what: string) => void } = {}): Promise<NodeSnapshot> {
  if (opts.snapshot && opts.root) throw new UsageError('--snapshot and --root cannot be used together');
  if (opts.snapshot) {
    const { loadSnapshot } = await import('./snapshot/schema.js');
    return loadSnapshot(opts.snapshot);
  }
  return probeNode({ root: opts.root, extraHosts: hostsToResolve(extraHosts), kernel: probe.kernel ?? false, rdma: probe.rdma ?? false, onStep: probe.onStep });
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

  addSourceOptions(
    program
      .command('doctor')
      .description('run every check and report (plain report when stdout is not a TTY or with --no-tui)')
      .option('--nccl-version <version>', 'NCCL version to model: X.Y[.Z] or ncclx-X.Y (default: detected on the node)')
      .option('--json', 'print every result as JSON (schema in docs/doctor-json.md)')
      .addOption(new Option('--format <format>', 'output format').choices(['text', 'json', 'prom']).default('text'))
      .option('--only <ids>', 'run only these checks (comma list of ids or prefixes, e.g. SOCK,ARP-001)')
      .option('--skip <ids>', 'skip these checks (comma list of ids or prefixes)')
      .option('--list-checks', 'list every check with its id and exit')
      .option('--uplink-regex <regex>', 'netdevs that look like uplinks, left out of the RDMA candidate set', '^eth[0-9]+$')
      .option('--include <netdevs>', 'netdevs always in the RDMA candidate set (comma list)')
      .option('--no-tui', 'plain report even on a terminal')
      .option('-v, --verbose', 'evidence, why and fix for every result')
      .option('--no-color', 'no colour'),
  ).action(async (opts: SourceOptions & DoctorOptions) => {
    const { ALL_CHECKS } = await import('./checks/registry.js');
    if (opts.listChecks) {
      const w = Math.max(...ALL_CHECKS.map((c) => c.id.length));
      print(ALL_CHECKS.map((c) => `${c.id.padEnd(w)}  ${c.family.padEnd(10)}  ${c.title}`).join('\n') + '\n');
      return;
    }
    const { makeContext, runDoctor, selectChecks } = await import('./checks/run.js');
    const report = await import('./report/doctor.js');
    const list = (v?: string) => v?.split(',').map((x) => x.trim()).filter(Boolean);
    let uplinkRegex: RegExp;
    try {
      uplinkRegex = new RegExp(opts.uplinkRegex);
    } catch (e) {
      throw new UsageError(`--uplink-regex: ${(e as Error).message}`);
    }
    const only = list(opts.only);
    const skip = list(opts.skip);
    const known = (p: string) => ALL_CHECKS.some((c) => c.id === p || c.id.startsWith(p.endsWith('-') ? p : `${p}-`));
    const unknown = [...(only ?? []), ...(skip ?? [])].filter((p) => !known(p));
    if (unknown.length) throw new UsageError(`unknown check id ${unknown.join(', ')} (see ncclx doctor --list-checks)`);
    // A person at a terminal gets the interactive doctor (src/tui, loaded only here).
    if ((opts.json ? 'json' : opts.format) === 'text' && opts.tui !== false && process.stdout.isTTY && process.stdin.isTTY) {
      const { runTui } = await import('./tui/index.js');
      process.exitCode = await runTui({
        load: (onStep) => readNode(opts, [], { kernel: true, rdma: true, onStep }),
        checks: selectChecks(ALL_CHECKS, only, skip),
        options: { ncclVersion: opts.ncclVersion, uplinkRegex, include: list(opts.include) ?? [] },
        source: opts.snapshot ? { kind: 'snapshot', path: opts.snapshot } : opts.root ? { kind: 'root', path: opts.root } : { kind: 'live' },
        color: wantColor(opts.color),
      });
      return;
    }
    const snap = await readNode(opts, [], { kernel: true, rdma: true });
    const ctx = makeContext(snap, { ncclVersion: opts.ncclVersion }, { ncclVersion: opts.ncclVersion, uplinkRegex, include: list(opts.include) ?? [] });
    const run = runDoctor(selectChecks(ALL_CHECKS, only, skip), ctx);
    const format = opts.json ? 'json' : opts.format;
    if (format === 'json') print(JSON.stringify(report.doctorJson(run), null, 2) + '\n');
    else if (format === 'prom') print(report.renderPrometheus(run));
    else print(report.renderDoctorText(run, makeStyle(wantColor(opts.color)), !!opts.verbose));
    process.exitCode = report.exitCodeFor(run.results);
  });

  registerIbCommands(program);
  registerFixCommand(program, (o) => readNode(o, [], { kernel: true, rdma: true }));
  registerCompareCommand(program);

  addSourceOptions(
    program
      .command('env')
      .description('print the exports that make NCCL do the right thing on this node')
      .addOption(new Option('--format <format>', 'output format').choices(['bash', 'fish', 'dotenv', 'json', 'nccl-conf', 'k8s']).default('bash'))
      .option('--debug', 'add the NCCL debug bundle (NCCL_DEBUG, NCCL_DEBUG_SUBSYS, NCCL_DEBUG_FILE, NCCL_TOPO_DUMP_FILE)')
      .option('--peer-ifaces <list>', "the peer node's RDMA_PEER_IFACES (space- or comma-separated): advertise only the common set")
      .option('--nccl-version <version>', 'NCCL version to model: X.Y[.Z] or ncclx-X.Y (default: detected on the node)')
      .option('--uplink-regex <regex>', 'netdevs that look like uplinks, left out of RDMA_PEER_IFACES', '^eth[0-9]+$')
      .option('--include <netdevs>', 'netdevs always in RDMA_PEER_IFACES (comma list)'),
  ).action(async (opts: SourceOptions & EnvCommandOptions) => {
    const [{ makeContext }, { envPlan }, fmt] = await Promise.all([import('./checks/run.js'), import('./commands/env-model.js'), import('./report/env-formats.js')]);
    let uplinkRegex: RegExp;
    try {
      uplinkRegex = new RegExp(opts.uplinkRegex);
    } catch (e) {
      throw new UsageError(`--uplink-regex: ${(e as Error).message}`);
    }
    const include = opts.include?.split(',').map((x) => x.trim()).filter(Boolean) ?? [];
    const peer = opts.peerIfaces === undefined ? undefined : opts.peerIfaces.split(/[\s,]+/).filter(Boolean);
    const snap = await readNode(opts, [], { kernel: true, rdma: true });
    const ctx = makeContext(snap, { ncclVersion: opts.ncclVersion }, { ncclVersion: opts.ncclVersion, uplinkRegex, include });
    const plan = envPlan(ctx, { debug: !!opts.debug, peerIfaces: peer });
    const format = opts.format as import('./report/env-formats.js').EnvFormat;
    let body: string;
    try {
      body = fmt.formatEnv(plan.vars, format);
    } catch (e) {
      if (e instanceof fmt.EnvFormatError) throw new UsageError(e.message);
      throw e;
    }
    const summary = [
      `ncclx env for ${snap.host.hostname}, NCCL ${ctx.reasoning.choice.version.raw} (${ctx.reasoning.profile.id})`,
      ...plan.vars.map((v) => `${v.name}: ${v.why}`),
      ...plan.summary,
      ...plan.notes.map((n) => `note: ${n}`),
      `copy to the peer node: ${plan.peerLine}`,
    ];
    print(body);
    // JSON has no comments: the summary goes to standard error there.
    if (format === 'json') process.stderr.write(summary.map((l) => `# ${l}`).join('\n') + '\n');
    else print('\n' + summary.map((l) => fmt.commentLine(l, format)).join('\n') + '\n');
  });

  return program;
}

interface EnvCommandOptions {
  format: string;
  debug?: boolean;
  peerIfaces?: string;
  ncclVersion?: string;
  uplinkRegex: string;
  include?: string;
}

interface DoctorOptions {
  ncclVersion?: string;
  json?: boolean;
  format: 'text' | 'json' | 'prom';
  only?: string;
  skip?: string;
  listChecks?: boolean;
  uplinkRegex: string;
  include?: string;
  tui?: boolean;
  verbose?: boolean;
  color?: boolean;
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
    const known = e instanceof UsageError || e instanceof VersionError || ['SnapshotError', 'FixUsageError'].includes((e as Error)?.constructor?.name);
    process.stderr.write(`ncclx: ${known ? msg : `internal error: ${(e as Error)?.stack ?? msg}`}\n`);
    return 2;
  }
}

main(process.argv).then((code) => {
  process.exitCode = code;
});
