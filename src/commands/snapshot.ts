// `ncclx snapshot`: read this node into a JSON snapshot.

import type { Command } from 'commander';
import { writeFileSync } from 'node:fs';
import { UserError } from '../model/errors.js';
import { probeNode } from '../probe/index.js';

export function registerSnapshotCommand(program: Command): void {
  program
    .command('snapshot')
    .description('read this node (links, addresses, NCCL environment, NCCL library, RDMA, kernel, host) into a JSON snapshot')
    .option('-o, --output <file>', 'write to FILE instead of standard output')
    .option('--root <dir>', 'read files under DIR instead of / (a fixture or a container view)')
    .action(async (opts: { root?: string; output?: string }) => {
      const snap = await probeNode({ root: opts.root, fullHost: true });
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
