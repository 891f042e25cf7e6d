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

const realWrite = { out: process.stdout.write, err: process.stderr.write };
const startCwd = process.cwd();

function capture(parts) {
  return function write(chunk, encoding, cb) {
    if (typeof encoding === 'function') [cb, encoding] = [encoding, undefined];
    parts.push(typeof chunk === 'string' ? Buffer.from(chunk, encoding ?? 'utf8') : Buffer.from(chunk));
    if (cb) process.nextTick(cb);
    return true;
  };
}

function setEnvironment(env) {
  for (const k of Object.keys(process.env)) delete process.env[k];
  for (const [k, v] of Object.entries(env)) process.env[k] = v;
}

const answers = openSync(answerPath, 'w');
const lines = createInterface({ input: createReadStream(requestPath), crlfDelay: Infinity });
for await (const line of lines) {
  if (!line) continue;
  const c = JSON.parse(line);
  setEnvironment(c.env);
  process.chdir(c.cwd ?? startCwd);
  process.argv = [...c.argv];
  process.exitCode = undefined;
  const out = [];
  const err = [];
  process.stdout.write = capture(out);
  process.stderr.write = capture(err);
  let code;
  try {
    code = await main(c.argv);
  } catch (e) {
    err.push(Buffer.from(`ncclx-server: main() threw: ${e instanceof Error ? e.stack : String(e)}\n`));
    code = -1;
  } finally {
    process.stdout.write = realWrite.out;
    process.stderr.write = realWrite.err;
  }
  writeSync(answers, `${JSON.stringify({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') })}\n`);
}
process.exitCode = 0;
