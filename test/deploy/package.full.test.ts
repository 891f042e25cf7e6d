// The npm package as a user gets it: a fresh copy of the checkout (what git
// tracks or would track, no node_modules, no dist), `npm install` (the Quick
// start's: it builds, through the `dependencies` script), `npm pack` (which
// builds again: `prepack`), then `npm install -g` of the tarball into a
// temporary prefix, from the local npm cache where it can, with npm's strict
// install-script policy (a future npm's default). The installed `ncclx` must
// run with only its production dependencies.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tmp.js';
import { HAVE_TMUX, IN_CI, tmuxServer } from '../tui/tmux-harness.js';

const ROOT = join(__dirname, '../..');
const FIX = join(ROOT, 'test/fixtures');
const VERSION = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version as string;
const work = tempDir('ncclx-pack-');
const clone = join(work, 'clone');
const prefix = join(work, 'prefix');
const installed = join(prefix, 'lib/node_modules/ncclx');
const bin = join(prefix, 'bin/ncclx');
/** What a user's shell has: the prefix's bin and a node, nothing of the checkout. */
const userEnv = { PATH: `${join(prefix, 'bin')}:${dirname(process.execPath)}:/usr/bin:/bin`, HOME: work };
const logs: Record<string, string> = {};
let tarball = '';
let built = false;

function npm(args: string[], cwd: string) {
  const r = spawnSync('npm', [...args, '--no-audit', '--no-fund'], { cwd, encoding: 'utf8', timeout: 300_000, env: { ...process.env, npm_config_update_notifier: 'false' } });
  if (r.status !== 0) throw new Error(`npm ${args.join(' ')} exited ${r.status}: ${r.stderr.split('\n').filter((l) => !l.includes('EBADENGINE')).join('\n')}`);
  return r;
}

describe('the npm package', () => {
  beforeAll(() => {
    // The checkout as a fresh clone of this tree would hold it, less test/ (50,000 fixture
    // files that neither building nor packing reads): tracked and untracked-but-not-ignored files.
    mkdirSync(clone);
    const copy = spawnSync('bash', ['-c', 'git ls-files -z --cached --others --exclude-standard | grep -zv "^test/" | tar --null --ignore-failed-read -T - -cf - | tar -xf - -C "$1"', '_', clone], { cwd: ROOT, encoding: 'utf8' });
    expect(copy.status, copy.stderr).toBe(0);
    expect(existsSync(join(clone, 'node_modules'))).toBe(false);
    expect(existsSync(join(clone, 'dist'))).toBe(false);
    logs['dev'] = npm(['install', '--prefer-offline'], clone).stderr;
    built = existsSync(join(clone, 'dist/cli.js'));
    const packed = npm(['pack', '--json', '--pack-destination', work], clone);
    tarball = join(work, JSON.parse(packed.stdout)[0].filename);
    mkdirSync(prefix);
    mkdirSync(join(prefix, 'lib'), { recursive: true });
    logs['install'] = npm(['install', '-g', '--prefix', prefix, '--prefer-offline', '--strict-allow-scripts', tarball], work).stderr;
  }, 600_000);

  it('the Quick start\'s npm install builds dist/', () => {
    expect(built).toBe(true);
  });

  it('npm pack builds (prepack) and packs the built CLI and the docs, not the sources, tests or the executable entry', () => {
    const list = spawnSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean);
    expect(list).toEqual(expect.arrayContaining(['package/package.json', 'package/README.md', 'package/dist/cli.js', 'package/dist/tui/main.js', 'package/dist/probe/log-worker.js', 'package/dist/compare/worker.js', 'package/docs/deploy/README.md']));
    expect(list.filter((f) => /^package\/(src|test|bench|scripts|wasm|container)\//.test(f))).toEqual([]);
    expect(list).not.toContain('package/dist/sea.js');
  });

  it('no install script in what a user installs: npm\'s strict script policy installs it without --allow-scripts', () => {
    // (A `prepare` script fails this: npm counts it as an install script of a tarball.)
    const manifest = JSON.parse(spawnSync('tar', ['-xzOf', tarball, 'package/package.json'], { encoding: 'utf8' }).stdout);
    for (const s of ['preinstall', 'install', 'postinstall', 'prepare']) expect(manifest.scripts[s], s).toBeUndefined();
    expect(logs['install']).not.toMatch(/install-scripts|allowScripts/);
    // The developer's install: esbuild's postinstall is reviewed in package.json's allowScripts.
    expect(logs['dev']).not.toMatch(/install-scripts/);
  });

  it('installed with its production dependencies only', () => {
    const deps = readdirSync(join(installed, 'node_modules'));
    expect(deps).toEqual(expect.arrayContaining(['chalk', 'commander', 'systeminformation', 'zod']));
    for (const dev of ['typescript', 'vitest', 'esbuild', 'postject', 'ink', 'react', 'yoga-layout', 'kubernetes-models']) expect(deps, dev).not.toContain(dev);
  });

  it('ncclx on PATH: --version', () => {
    const r = spawnSync('ncclx', ['--version'], { env: userEnv, cwd: work, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${VERSION}\n`);
  });

  it('ncclx doctor --snapshot S --json: the answer of the checkout\'s own build', () => {
    const snap = join(work, 'node.json');
    expect(spawnSync(bin, ['snapshot', '--root', join(FIX, 'roce-one-subnet'), '-o', snap], { env: userEnv, cwd: work }).status).toBe(0);
    const r = spawnSync('ncclx', ['doctor', '--snapshot', snap, '--json'], { env: userEnv, cwd: work, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(1);
    const here = spawnSync(process.execPath, [join(clone, 'dist/cli.js'), 'doctor', '--snapshot', snap, '--json'], { cwd: work, encoding: 'utf8' });
    expect(r.stdout).toBe(here.stdout);
    expect(JSON.parse(r.stdout).summary.errors).toBeGreaterThan(0);
  });

  it.runIf(HAVE_TMUX || IN_CI)('the interactive doctor draws without Ink or React installed (they are bundled)', async () => {
    const t = tmuxServer('ncclx-pack-tmux-');
    try {
      t.start('pkg', `env -i TERM=xterm-256color PATH='${userEnv.PATH}' ncclx doctor --root '${join(FIX, 'roce-healthy')}' --nccl-version 2.28.3`, { cols: 100, rows: 30 });
      const screen = await t.waitScreen('pkg', /ncclx doctor · h100-roce-12/, 30_000);
      expect(screen).toMatch(/1 Summary\s+2 Interfaces/);
      t.keys('pkg', 'q');
      await t.waitScreen('pkg', /EXIT=0/, 10_000);
    } finally {
      t.close();
    }
  });
});
