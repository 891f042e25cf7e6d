// Bundles dist/vendor/*.js (as tsc emitted them: re-exports of a CommonJS
// package) in place into one ES module each, the package inside. Loading
// commander through Node's CommonJS loader from an ES module costs every
// ncclx start ~10 ms more than one bundled module does on these machines
// (src/vendor/commander.ts). Node's built-in modules stay external; the
// bundle gets a `require` of its own for the package's require() calls.
//
// Run by `npm run build` after tsc.
import { build } from 'esbuild';
import { esmInPlace } from './esbuild-plugins.mjs';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const vendor = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'vendor');
for (const name of readdirSync(vendor).filter((n) => n.endsWith('.js'))) {
  await build(esmInPlace(join(vendor, name)));
}
