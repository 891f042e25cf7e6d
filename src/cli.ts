#!/usr/bin/env node
// ncclx command line: wires the process to the program in src/main.ts (one
// module per command under src/commands): its arguments in, its exit code
// out, and a reader that went away.

import { main } from './main.js';

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
