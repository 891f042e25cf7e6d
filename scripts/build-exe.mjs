// npm run build:exe: ncclx as one self-contained file, release/ncclx-linux-<arch>
// (x64 or arm64: the architecture of the Node that runs this script), with
// its sha256 in release/ncclx-linux-<arch>.sha256 (`sha256sum -c` reads it).
//
// Node's single executable applications: the code is bundled by esbuild into
// one CommonJS script (src/sea.ts → cli.ts and everything it loads, the
// interactive doctor included), the worker threads' scripts into two more
// carried as assets (src/probe/bundle.ts), and the blob Node prepares from
// them is injected into a copy of this Node binary with postject. Nothing is
// downloaded: the Node inside is the one running this script, so build with
// the Node release you mean to ship (≥ 20.12, an official build: it is linked
// statically against everything but the C and C++ runtimes; Node 20's needs
// glibc ≥ 2.28).
//
//   node scripts/build-exe.mjs [--out DIR]      (default: release/)
import { build, formatMessages } from 'esbuild';
import { createHash } from 'node:crypto';
import { copyFileSync, chmodSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'postject';
import { inkReconcilerWithoutAwait, inkWithoutDevtools, yogaSynchronous } from './esbuild-plugins.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const SENTINEL = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
const ARCH = { x64: 'x64', arm64: 'arm64' };

function fail(msg) {
  process.stderr.write(`build-exe: ${msg}\n`);
  process.exit(2);
}

function args(argv) {
  const o = { out: join(root, 'release') };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--out' && argv[i + 1]) o.out = resolve(argv[++i]);
    else fail(`unknown argument '${argv[i]}' (usage: node scripts/build-exe.mjs [--out DIR])`);
  }
  return o;
}

/** The Node binary to copy must be able to become a single executable, and stand on its own. */
function checkNode() {
  if (process.platform !== 'linux') fail(`builds Linux executables only (this is ${process.platform})`);
  if (!ARCH[process.arch]) fail(`no release name for architecture ${process.arch} (x64 and arm64 are built)`);
  const [major, minor] = process.versions.node.split('.').map(Number);
  // Assets in the single executable (the worker scripts) arrived in Node 20.12.
  if (major < 20 || (major === 20 && minor < 12)) fail(`Node ${process.versions.node} cannot carry assets in a single executable: build with Node ≥ 20.12`);
  // A distribution's Node often links libnode, OpenSSL, libuv, ICU … as shared libraries a GPU node may lack.
  const shared = Object.entries(process.config.variables).filter(([k, v]) => k.startsWith('node_shared') && v === true).map(([k]) => k.replace('node_shared_', '').replace('node_shared', 'libnode'));
  if (shared.length) fail(`${process.execPath} uses shared ${shared.join(', ')}: the executable would not stand on its own; build with an official Node binary`);
  if (!readFileSync(process.execPath).includes(SENTINEL)) fail(`${process.execPath} has no single-executable fuse (${SENTINEL}): build with an official Node binary`);
}

const common = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: `node${process.versions.node.split('.')[0]}`,
  define: { 'process.env.NODE_ENV': '"production"' },
  logLevel: 'silent',
  legalComments: 'none',
  // Smaller script, faster start; names are kept for error messages.
  minifyWhitespace: true,
  minifySyntax: true,
  keepNames: true,
};

// import.meta is empty in a CommonJS bundle. These modules use it only to find
// files beside themselves, after asking src/probe/bundle.ts, which the
// executable's entry fills: any other use is a bug the build refuses.
const IMPORT_META_CHECKED = new Set(['src/probe/index.ts', 'src/probe/log-parallel.ts', 'src/compare/pool.ts']);

async function bundleOne(entry, outfile, plugins = []) {
  const r = await build({ ...common, tsconfig: join(root, 'tsconfig.json'), entryPoints: [join(root, entry)], outfile, plugins });
  const meta = r.warnings.filter((w) => w.id === 'empty-import-meta');
  const unchecked = meta.filter((w) => !IMPORT_META_CHECKED.has(w.location?.file ?? ''));
  const other = r.warnings.filter((w) => w.id !== 'empty-import-meta');
  if (other.length) process.stderr.write((await formatMessages(other, { kind: 'warning' })).join(''));
  if (unchecked.length) {
    process.stderr.write((await formatMessages(unchecked, { kind: 'error' })).join(''));
    fail(`import.meta used where the single executable has no files (see IMPORT_META_CHECKED in scripts/build-exe.mjs)`);
  }
}

async function bundle(work) {
  await bundleOne('src/sea.ts', join(work, 'ncclx.cjs'), [inkWithoutDevtools, inkReconcilerWithoutAwait, yogaSynchronous]);
  await bundleOne('src/probe/log-worker.ts', join(work, 'log-worker.cjs'));
  await bundleOne('src/compare/worker.ts', join(work, 'compare-worker.cjs'));
}

function seaBlob(work, version) {
  writeFileSync(join(work, 'version'), version);
  const config = {
    main: join(work, 'ncclx.cjs'),
    output: join(work, 'ncclx.blob'),
    disableExperimentalSEAWarning: true,
    // V8's compiled code for the script, made here: the executable skips compiling it at every start.
    useCodeCache: true,
    assets: { version: join(work, 'version'), 'log-worker.js': join(work, 'log-worker.cjs'), 'compare-worker.js': join(work, 'compare-worker.cjs') },
  };
  writeFileSync(join(work, 'sea-config.json'), JSON.stringify(config, null, 2));
  const r = spawnSync(process.execPath, ['--experimental-sea-config', join(work, 'sea-config.json')], { encoding: 'utf8' });
  if (r.status !== 0) fail(`node --experimental-sea-config failed: ${r.stderr || r.stdout}`);
  return readFileSync(config.output);
}

/** The executable answers --version with nothing in its environment, from another directory. */
function smokeTest(exe, version) {
  const cwd = mkdtempSync(join(tmpdir(), 'ncclx-exe-'));
  try {
    const r = spawnSync(exe, ['--version'], { env: {}, cwd, encoding: 'utf8', timeout: 30_000 });
    if (r.status !== 0 || r.stdout.trim() !== version) fail(`the built executable does not run: --version exited ${r.status}: ${(r.stdout + r.stderr).trim()}`);
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

async function main() {
  const o = args(process.argv.slice(2));
  checkNode();
  const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;
  const name = `ncclx-linux-${ARCH[process.arch]}`;
  const work = mkdtempSync(join(tmpdir(), 'ncclx-build-exe-'));
  try {
    await bundle(work);
    const blob = seaBlob(work, version);
    mkdirSync(o.out, { recursive: true });
    const exe = join(o.out, name);
    // Written beside the target, renamed over it only once it works: a failed build leaves the last good one.
    const tmp = `${exe}.tmp-${process.pid}`;
    copyFileSync(process.execPath, tmp);
    chmodSync(tmp, 0o755);
    try {
      await inject(tmp, 'NODE_SEA_BLOB', blob, { sentinelFuse: SENTINEL });
      smokeTest(tmp, version);
      renameSync(tmp, exe);
    } finally {
      rmSync(tmp, { force: true });
    }
    const sha = createHash('sha256').update(readFileSync(exe)).digest('hex');
    writeFileSync(`${exe}.sha256`, `${sha}  ${name}\n`);
    const mb = (statSync(exe).size / 2 ** 20).toFixed(1);
    console.log(`${exe}: ncclx ${version}, Node ${process.versions.node} ${process.arch}, ${mb} MiB\nsha256 ${sha} (${name}.sha256)`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

await main().catch((e) => fail(e instanceof Error ? e.message : String(e)));
