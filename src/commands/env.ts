// `ncclx env`: the exports that make NCCL do the right thing on this node
// (src/model/advice/env-plan.ts), in the format the consumer reads.

import { Option, type Command } from '../vendor/commander.js';
import { UserError } from '../model/errors.js';
import { addCandidateOptions, addJobOptions, addSourceOptions, addVersionOption, candidateOptions, readNode, type CandidateFlags, type SourceOptions } from './options.js';

interface EnvCommandOptions extends SourceOptions, CandidateFlags {
  format: string;
  debug?: boolean;
  peerIfaces?: string;
  ncclVersion?: string;
}

export function registerEnvCommand(program: Command): void {
  addCandidateOptions(
    addVersionOption(
      addJobOptions(addSourceOptions(
        program
          .command('env')
          .description('print the exports that make NCCL do the right thing on this node')
          .addOption(new Option('--format <format>', 'output format').choices(['bash', 'fish', 'dotenv', 'json', 'nccl-conf', 'k8s']).default('bash'))
          .option('--debug', 'add the NCCL debug bundle (NCCL_DEBUG, NCCL_DEBUG_SUBSYS, NCCL_DEBUG_FILE, NCCL_TOPO_DUMP_FILE)')
          .option('--peer-ifaces <list>', "the peer node's RDMA_PEER_IFACES (space- or comma-separated): advertise only the common set"),
      )),
    ),
    'RDMA_PEER_IFACES',
  ).action(async (opts: EnvCommandOptions) => {
    const [{ makeContext }, { envPlan }, { envHeader, envText }, { commentLine }] = await Promise.all([import('../model/doctor/context.js'), import('../model/advice/env-plan.js'), import('../report/env-text.js'), import('../report/env-formats.js')]);
    const cand = candidateOptions(opts);
    const peer = opts.peerIfaces === undefined ? undefined : opts.peerIfaces.split(/[\s,]+/).filter(Boolean);
    const snap = await readNode(opts, { kernel: true, rdma: true });
    const ctx = makeContext(snap, { ncclVersion: opts.ncclVersion }, { ncclVersion: opts.ncclVersion, ...cand });
    const plan = envPlan(ctx, { debug: !!opts.debug, peerIfaces: peer });
    const out = envText(plan, envHeader(ctx), opts.format as import('../report/env-formats.js').EnvFormat);
    if (out.error) throw new UserError(out.error);
    process.stdout.write(out.body);
    // JSON has no comments: the summary goes to standard error there.
    if (out.summary.length) process.stderr.write(out.summary.map((l) => commentLine(l, 'bash')).join('\n') + '\n');
    // An error these exports cannot fix (NCCL_COMM_ID pointing nowhere) must not pass as success: say it and exit 1.
    for (const b of out.blocking) process.stderr.write(`ncclx env: not fixed by these exports: ${(commentLine(b, 'bash') ?? '').slice(2)}\n`);
    if (out.blocking.length) process.exitCode = 1;
    // A file that silently lacks a variable would be worse than none: say it on standard error and exit 1.
    if (out.refused.length) {
      for (const r of out.refused) process.stderr.write(`ncclx env: ${r.name} left out of the ${opts.format} output: ${r.why}\n`);
      process.exitCode = 1;
    }
  });
}
