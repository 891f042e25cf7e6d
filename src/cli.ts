#!/usr/bin/env node
// ncclx command line: one module per command under src/commands; this file
// builds the program and turns errors into exit codes.
// Exit codes: 0 no errors, 1 errors found, 2 usage, bad input or internal error.

import { Command, CommanderError } from 'commander';
import { UserError } from './model/errors.js';
import { visible } from './report/display.js';
import { toolVersion } from './probe/tool-version.js';
import { SYSTEM_PATH } from './probe/runner.js';

// Slurm runs a Prolog or HealthCheckProgram with no PATH, and `env -i` gives
// none: the commands ncclx reads the node with (ip, tc, nft, iptables-save,
// ldconfig) would then not be found, and the doctor would call them missing.
// Without a PATH, ncclx searches where root's shell would. A PATH that is set
// is never changed.
if (!process.env['PATH']) process.env['PATH'] = SYSTEM_PATH;

type Register = (program: Command) => void;

// Each command's module, loaded only when it runs: `ncclx ps` on a node with
// 2,000 processes must answer in well under a second, and loading every
// command (and the model behind it) was most of its time. Help and unknown
// names load them all, in this order.
const COMMANDS: [string, () => Promise<Register>][] = [
  ['snapshot', async () => (await import('./commands/snapshot.js')).registerSnapshotCommand],
  ['explain', async () => (await import('./commands/explain.js')).registerExplainCommand],
  ['doctor', async () => (await import('./commands/doctor.js')).registerDoctorCommand],
  ['ib', async () => (await import('./commands/ib.js')).registerIbCommands],
  ['fix', async () => (await import('./commands/fix.js')).registerFixCommand],
  ['compare', async () => (await import('./commands/compare.js')).registerCompareCommand],
  ['env', async () => (await import('./commands/env.js')).registerEnvCommand],
  ['log', async () => (await import('./commands/log.js')).registerLogCommand],
  ['topo', async () => (await import('./commands/topo.js')).registerTopoCommand],
  ['ps', async () => (await import('./commands/ps.js')).registerPsCommand],
];

/** The program with the command `argv` names, or every command when it names none (help, a typo). */
export async function buildProgram(argv: string[] = []): Promise<Command> {
  const program = new Command();
  program
    .name('ncclx')
    .description('The network doctor for NCCL: what NCCL will really do on this node, and why.')
    .version(toolVersion())
    .showHelpAfterError()
    .exitOverride();
  const named = COMMANDS.filter(([name]) => name === argv[2]);
  for (const [, load] of named.length ? named : COMMANDS) (await load())(program);
  return program;
}

export async function main(argv: string[]): Promise<number> {
  try {
    const program = await buildProgram(argv);
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help') return 0;
      return 2;
    }
    const msg = e instanceof Error ? e.message : String(e);
    // Never a stack trace (NCCLX_DEBUG=1 shows it for a bug report); an internal error in one line.
    if (e instanceof UserError) process.stderr.write(`ncclx: ${visible(msg)}\n`);
    else process.stderr.write(`ncclx: internal error: ${visible(msg.split('\n')[0]!)} (a bug: please report it; NCCLX_DEBUG=1 prints the stack)\n${process.env['NCCLX_DEBUG'] ? `${(e as Error)?.stack ?? ''}\n` : ''}`);
    return 2;
  }
}

// `ncclx doctor -v | head`: the reader went away; stop quietly, as other tools do.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw e;
  });
}

main(process.argv).then((code) => {
  process.exitCode = code;
});
