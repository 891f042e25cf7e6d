// Entry of the single executable (release/ncclx-linux-<arch>, built by
// scripts/build-exe.mjs): registers what the executable carries as assets
// (the version, the worker threads' scripts), then runs the CLI. Never
// loaded when ncclx runs from its files.

import { getAsset } from 'node:sea';
import { setBundle } from './probe/bundle.js';

setBundle({
  version: getAsset('version', 'utf8'),
  workers: {
    log: () => getAsset('log-worker.js', 'utf8'),
    compare: () => getAsset('compare-worker.js', 'utf8'),
  },
});
// After the bundle is set: the CLI reads the version while it builds its program.
void import('./cli.js');
