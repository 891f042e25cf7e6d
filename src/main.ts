// The ncclx program: builds the command line and turns errors into exit
// codes. Importing it does nothing; src/cli.ts runs it on process.argv and
// owns the process (exit code, EPIPE).
// Exit codes: 0 no errors, 1 errors found, 2 usage, bad input or internal error.

import { Command, CommanderError } from './vendor/commander.js';
import { UserError } from './model/errors.js';
import { visible } from './report/display.js';
import { toolVersion } from './probe/tool-version.js';
import { SYSTEM_PATH } from './probe/runner.js';

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

/**
 * Runs ncclx on `argv` (as process.argv: node, script, arguments) and returns
 * its exit code. Everything it reads, it reads now: the environment, the
 * files, the node. Nothing is kept from one call to the next, so the
 * namespace tests' batch driver (test/netns/batch-run.mjs) can call it once
 * per case in one process, as if each case were its own `ncclx` process.
 */
export async function main(argv: string[]): Promise<number> {
  // Slurm runs a Prolog or HealthCheckProgram with no PATH, and `env -i` gives
  // none: the commands ncclx reads the node with (ip, tc, nft, iptables-save,
  // ldconfig) would then not be found, and the doctor would call them missing.
  // Without a PATH, ncclx searches where root's shell would. A PATH that is set
  // is never changed.
  if (!process.env['PATH']) process.env['PATH'] = SYSTEM_PATH;
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
