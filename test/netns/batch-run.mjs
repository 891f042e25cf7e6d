// Many ncclx runs in one process (docs/testing.md, "One process per scenario").
//
//   ip netns exec NS node batch-run.mjs DIST/main.js < cases.json > results.json
//
// cases.json is [{ argv: [node, cli.js, ...args], env: {NAME: value} }, ...].
// For each case, in order: process.env becomes exactly the case's environment
// (every other variable is unset, through the real setenv/unsetenv, so the
// resolver and child processes see it too), process.argv and process.exitCode
// are what a fresh process has, and ncclx's main() runs with what it writes to
// stdout and stderr captured. The answer is one JSON array of
// { code, stdout, stderr }, written to the real stdout at the end.
//
// What a fresh process would not share with the case before it is reset
// here; what ncclx itself keeps between calls is nothing (src/main.ts), and
// the tests compare this driver's answers with separate processes' byte for
// byte to hold it so. What Node reads only when it starts (NODE_OPTIONS, the
// ICU locale from LANG/LC_*) is this driver's, not the case's: no scenario
// sets those variables.

import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { runCase } from '../helpers/run-main.mjs';

const mainPath = process.argv[2];
if (!mainPath) {
  process.stderr.write('usage: batch-run.mjs DIST/main.js < cases.json\n');
  process.exit(2);
}
const cases = JSON.parse(readFileSync(0, 'utf8'));
const { main } = await import(pathToFileURL(mainPath).href);

const startArgv = [...process.argv];

const results = [];
for (const c of cases) results.push(await runCase(main, c, 'batch-run'));
process.argv = startArgv;
process.exitCode = 0;
process.stdout.write(JSON.stringify(results));
