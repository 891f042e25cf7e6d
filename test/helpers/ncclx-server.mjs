#!/usr/bin/env node
// ncclx's main() as a long-lived process for the tests' synchronous calls
// (test/helpers/cli-server.ts): one request a line on the REQUEST fifo, one
// answer a line on the ANSWER fifo, in order, until the request fifo closes.
//
//   node ncclx-server.mjs REQUEST ANSWER [--faults]
//
// A request is { argv, env, cwd }. As test/netns/batch-run.mjs does for a
// batch: process.env becomes exactly `env` (real setenv/unsetenv), the
// working directory `cwd`, process.argv and process.exitCode what a fresh
// process has, and what ncclx writes is captured. Its standard input is
// /dev/null (the server is started so): a command that reads it sees an
// empty stream, never a test's terminal. With --faults the fixtures' failing
// reads are injected first, as test/helpers/ncclx.mjs does.

import { createReadStream, openSync, writeSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { runCase } from './run-main.mjs';

const [requestPath, answerPath, flag] = process.argv.slice(2);
if (!requestPath || !answerPath) {
  process.stderr.write('usage: ncclx-server.mjs REQUEST ANSWER [--faults]\n');
  process.exit(2);
}
if (flag === '--faults') {
  const { injectFaults } = await import('./faults.mjs');
  const { Root } = await import('../../dist/probe/root.js');
  injectFaults(Root);
}
const { main } = await import(fileURLToPath(new URL('../../dist/main.js', import.meta.url)));

const answers = openSync(answerPath, 'w');
const lines = createInterface({ input: createReadStream(requestPath), crlfDelay: Infinity });
for await (const line of lines) {
  if (!line) continue;
  const a = await runCase(main, JSON.parse(line), 'ncclx-server');
  writeSync(answers, `${JSON.stringify(a)}\n`);
}
process.exitCode = 0;
