#!/usr/bin/env node
// ncclx command line: one module per command under src/commands; this file
// builds the program and turns errors into exit codes.
// Exit codes: 0 no errors, 1 errors found, 2 usage, bad input or internal error.

import { Command, CommanderError } from 'commander';
import { registerCompareCommand } from './commands/compare.js';
import { registerDoctorCommand } from './commands/doctor.js';
import { registerEnvCommand } from './commands/env.js';
import { registerExplainCommand } from './commands/explain.js';
import { registerFixCommand } from './commands/fix.js';
import { registerIbCommands } from './commands/ib.js';
import { registerLogCommand } from './commands/log.js';
import { registerPsCommand } from './commands/ps.js';
import { registerTopoCommand } from './commands/topo.js';
import { registerSnapshotCommand } from './commands/snapshot.js';
import { UserError } from './model/errors.js';
import { visible } from './report/display.js';
import { toolVersion } from './probe/index.js';
import { SYSTEM_PATH } from './probe/runner.js';

// Slurm runs a Prolog or HealthCheckProgram with no PATH, and `env -i` gives
// none: the commands ncclx reads the node with (ip, tc, nft, iptables-save,
// ldconfig) would then not be found, and the doctor would call them missing.
// Without a PATH, ncclx searches where root's shell would. A PATH that is set
// is never changed.
if (!process.env['PATH']) process.env['PATH'] = SYSTEM_PATH;

export function buildProgram(): Command {
  const program = new Command();
  program
    .name('ncclx')
    .description('The network doctor for NCCL: what NCCL will really do on this node, and why.')
    .version(toolVersion())
    .showHelpAfterError()
    .exitOverride();
  registerSnapshotCommand(program);
  registerExplainCommand(program);
  registerDoctorCommand(program);
  registerIbCommands(program);
  registerFixCommand(program);
  registerCompareCommand(program);
  registerEnvCommand(program);
  registerLogCommand(program);
  registerTopoCommand(program);
  registerPsCommand(program);
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
