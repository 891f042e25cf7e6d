#!/usr/bin/env node
// The built CLI (dist/cli.js) as tests run it on fixture trees: `node
// test/helpers/ncclx.mjs <args>` is `ncclx <args>`, with the reads a
// fixture's `<tree>.faults.json` lists failing as they do on a real kernel
// (./faults.mjs). The product has no such hook; this file is the seam.

import { injectFaults } from './faults.mjs';

const { Root } = await import('../../dist/probe/root.js');
injectFaults(Root);
await import('../../dist/cli.js');
