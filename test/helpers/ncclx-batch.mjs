#!/usr/bin/env node
// Many runs of the built CLI on fixture trees in one process: `node
// test/helpers/ncclx-batch.mjs < cases.json` is test/netns/batch-run.mjs
// (main() once per case, each with its own argv, environment, exit code and
// captured output) with the fixtures' failing reads injected first, as
// test/helpers/ncclx.mjs does for one run (./faults.mjs). test/helpers/batch.ts
// calls it; the tests that use it check a sample against separate processes.

import { fileURLToPath } from 'node:url';
import { injectFaults } from './faults.mjs';

const { Root } = await import('../../dist/probe/root.js');
injectFaults(Root);
process.argv = [process.argv[0], fileURLToPath(new URL('../netns/batch-run.mjs', import.meta.url)), fileURLToPath(new URL('../../dist/main.js', import.meta.url))];
await import('../netns/batch-run.mjs');
