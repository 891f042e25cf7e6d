// esbuild plugins and options shared by the bundles ncclx builds: the
// interactive doctor's (bundle-tui.mjs), the vendored packages'
// (bundle-vendor.mjs) and the single executable's (build-exe.mjs).
import { readFileSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';

/**
 * One ES module for Node 20, written over the module tsc emitted. CommonJS
 * inside the bundle (React, commander) calls require() for Node's built-ins:
 * the bundle gets a require of its own.
 */
export function esmInPlace(entry) {
  return {
    entryPoints: [entry],
    outfile: entry,
    allowOverwrite: true,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    banner: { js: "import { createRequire as __ncclxCreateRequire } from 'node:module';\nconst require = __ncclxCreateRequire(import.meta.url);" },
    logLevel: 'warning',
  };
}

// Ink connects to React Devtools when DEV=true, via a dynamic import of its
// devtools.js, which imports react-devtools-core (not installed). Not in ncclx.
export const inkWithoutDevtools = {
  name: 'ink-without-devtools',
  setup(b) {
    b.onResolve({ filter: /^\.\/devtools\.js$/ }, (args) => (args.importer.includes(`${sep}ink${sep}`) ? { path: 'ink-devtools', namespace: 'empty' } : undefined));
    b.onLoad({ filter: /.*/, namespace: 'empty' }, () => ({ contents: 'export {};', loader: 'js' }));
  },
};

/** Replaces each pattern in a package file's text, or fails the build when one is no longer there. */
function rewrite(path, text, replacements, plugin) {
  for (const [from, to] of replacements) {
    if (!from.test(text)) throw new Error(`${plugin}: ${path} no longer has the shape this plugin rewrites (${from}); review the plugin`);
    text = text.replace(from, to);
  }
  return text;
}

// Ink's reconciler awaits at its top level, only when DEV=true: it loads React
// Devtools and reads its own package.json beside itself. A CommonJS bundle
// cannot hold a top-level await, and the single executable has neither: both
// branches are replaced by what they give without Devtools.
export const inkReconcilerWithoutAwait = {
  name: 'ink-reconciler-without-await',
  setup(b) {
    b.onLoad({ filter: /[\\/]ink[\\/]build[\\/]reconciler\.js$/ }, (args) => ({
      contents: rewrite(
        args.path,
        readFileSync(args.path, 'utf8'),
        [
          [/await import\('\.\/devtools\.js'\);/, 'void 0;'],
          [/\? await loadPackageJson\(\)/, '? { name: undefined, version: undefined }'],
        ],
        'ink-reconciler-without-await',
      ),
      loader: 'js',
    }));
  },
};

// yoga-layout (Ink's layout engine) starts its WebAssembly module with a
// top-level await, which a CommonJS bundle cannot hold, and the single
// executable's script must be CommonJS. Its Emscripten loader takes an
// `instantiateWasm` hook: given one that instantiates synchronously, the
// loader finishes before it returns, so the module can export the ready
// engine without awaiting. The wasm bytes are read from the package at build
// time; the build fails if the package's shape changes.
export const yogaSynchronous = {
  name: 'yoga-synchronous',
  setup(b) {
    b.onLoad({ filter: /[\\/]yoga-layout[\\/]dist[\\/]src[\\/]index\.js$/ }, (args) => {
      const loader = join(dirname(args.path), '..', 'binaries', 'yoga-wasm-base64-esm.js');
      const wasm = /data:application\/octet-stream;base64,([A-Za-z0-9+/=]+)/.exec(readFileSync(loader, 'utf8'))?.[1];
      if (!wasm) throw new Error(`yoga-synchronous: no base64 wasm module in ${loader}; review the plugin`);
      const contents = rewrite(
        args.path,
        readFileSync(args.path, 'utf8'),
        [
          [
            /const Yoga = wrapAssembly\(await loadYoga\(\)\);/,
            `const bytes = Buffer.from(${JSON.stringify(wasm)}, 'base64');
const yogaModule = {
  instantiateWasm(imports, done) {
    done(new WebAssembly.Instance(new WebAssembly.Module(bytes), imports));
    return {};
  },
};
loadYoga(yogaModule);
if (!yogaModule.calledRun) throw new Error('yoga-layout did not start synchronously');
const Yoga = wrapAssembly(yogaModule);`,
          ],
        ],
        'yoga-synchronous',
      );
      return { contents, loader: 'js' };
    });
  },
};
