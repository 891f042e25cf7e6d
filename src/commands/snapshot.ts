// `ncclx snapshot`: read this node into a JSON snapshot.

import type { Command } from '../vendor/commander.js';
import { writeFileSync } from 'node:fs';
import { UserError } from '../model/errors.js';
import { probeNode } from '../probe/index.js';
import { pidOption } from './options.js';

export function registerSnapshotCommand(program: Command): void {
  program
    .command('snapshot')
    .description('read this node (links, addresses, NCCL environment, NCCL library, RDMA, kernel, host) into a JSON snapshot')
    .option('-o, --output <file>', 'write to FILE instead of standard output')
    .option('--root <dir>', 'read files under DIR instead of / (a fixture or a container view)')
    .option('--python <path>', "the job's Python interpreter: its torch's NCCL is recorded as the one a PyTorch job loads")
    .option('--pid <pid>', 'read a running process\'s view: its environment, mapped NCCL, conf files and network namespace')
    .action(async (opts: { root?: string; output?: string; python?: string; pid?: string }) => {
      if (opts.pid !== undefined && opts.root) throw new UserError('--pid reads the process through /proc/PID/root: it cannot be combined with --root');
      const snap = await probeNode({ root: opts.root, fullHost: true, python: opts.python, ...(opts.pid !== undefined ? { pid: pidOption(opts.pid) } : {}) });
      const text = JSON.stringify(snap, null, 2) + '\n';
      if (!opts.output) {
        process.stdout.write(text);
        return;
      }
      try {
        writeFileSync(opts.output, text);
      } catch (e) {
        throw new UserError(`${opts.output}: cannot write (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
      }
    });
}
