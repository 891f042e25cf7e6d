// Bundles the interactive doctor (dist/tui/main.js, as tsc emitted it) with
// Ink, React and their dependencies into one file, in place. Loading Ink
// unbundled resolves ~1,500 modules (es-toolkit/compat alone is 1,339, for
// one `throttle`) and costs ~0.5 s on these machines; one file loads in ~0.1 s.
// The rest of ncclx (checks, models, reports, fix) stays external: the bundle
// imports the same dist modules the CLI uses, so there is one copy of each
// (errors keep their classes, options their identity).
//
// Run by `npm run build` after tsc.
import { build } from 'esbuild';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { esmInPlace, inkWithoutDevtools } from './esbuild-plugins.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tui = join(root, 'dist', 'tui');
const entry = join(tui, 'main.js');

const projectExternal = {
  name: 'ncclx-modules-external',
  setup(b) {
    b.onResolve({ filter: /^\.\.?\// }, (args) => {
      if (args.importer.includes(`${sep}node_modules${sep}`)) return undefined; // inside a package: bundled
      const abs = resolve(args.resolveDir, args.path);
      if (abs.startsWith(tui + sep)) return undefined; // the UI itself: bundled
      // Elsewhere in dist: keep the import, relative to the bundle's own place.
      const rel = relative(tui, abs).split(sep).join('/');
      return { path: rel.startsWith('.') ? rel : `./${rel}`, external: true };
    });
  },
};

const result = await build({
  ...esmInPlace(entry),
  define: { 'process.env.NODE_ENV': '"production"' },
  plugins: [inkWithoutDevtools, projectExternal],
  legalComments: 'none',
  metafile: true,
});

const inputs = Object.keys(result.metafile.inputs);
const pkgs = new Set(inputs.filter((p) => p.includes('node_modules/')).map((p) => p.split('node_modules/').pop().split('/').slice(0, p.includes('node_modules/@') ? 2 : 1).join('/')));
if (!pkgs.has('ink') || !pkgs.has('react')) throw new Error(`bundle-tui: Ink and React are not in the bundle (${[...pkgs].join(', ')})`);
