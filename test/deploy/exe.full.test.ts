// The single executable (npm run build:exe → scripts/build-exe.mjs), built
// into a temporary directory and run as on a GPU node without Node: with an
// empty environment, from an empty directory. Its answers must be the
// installed CLI's (node dist/cli.js) byte for byte, its worker threads and its
// WebAssembly scanner must run inside it, and the interactive doctor must draw.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tmp.js';
import { HAVE_TMUX, IN_CI, tmuxServer } from '../tui/tmux-harness.js';

const ROOT = join(__dirname, '../..');
const CLI = join(ROOT, 'dist/cli.js');
const FIX = join(ROOT, 'test/fixtures');
const VERSION = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version as string;
const ARCH = ({ x64: 'x64', arm64: 'arm64' } as Record<string, string>)[process.arch];
const NAME = `ncclx-linux-${ARCH}`;

const out = tempDir('ncclx-exe-out-');
const exe = join(out, NAME);
/** An empty directory to run from: nothing of the checkout is reachable by a relative path. */
const empty = tempDir('ncclx-exe-cwd-');
const work = tempDir('ncclx-exe-work-');

function runExe(args: string[], env: Record<string, string> = {}) {
  return spawnSync(exe, args, { env, cwd: empty, encoding: 'utf8', timeout: 120_000, maxBuffer: 256 << 20 });
}
function runNode(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [CLI, ...args], { env: { PATH: process.env['PATH'] ?? '', ...env }, cwd: empty, encoding: 'utf8', timeout: 120_000, maxBuffer: 256 << 20 });
}

describe.skipIf(!ARCH)(`the single executable ${NAME}`, () => {
  beforeAll(() => {
    const r = spawnSync(process.execPath, [join(ROOT, 'scripts/build-exe.mjs'), '--out', out], { encoding: 'utf8', timeout: 300_000 });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`${NAME}: ncclx ${VERSION.replace(/\./g, '\\.')}, Node `));
  }, 320_000);

  it('one file with its checksum beside it; sha256sum -c accepts it, and rejects a changed file', () => {
    expect(statSync(exe).mode & 0o111).not.toBe(0);
    expect(readFileSync(`${exe}.sha256`, 'utf8')).toMatch(new RegExp(`^[0-9a-f]{64}  ${NAME}\\n$`));
    const ok = spawnSync('sha256sum', ['-c', `${NAME}.sha256`], { cwd: out, encoding: 'utf8' });
    expect(ok.status, ok.stderr).toBe(0);
    // Control: a copy one byte longer fails the same check.
    const bad = join(work, 'tampered');
    mkdirSync(bad);
    copyFileSync(exe, join(bad, NAME));
    copyFileSync(`${exe}.sha256`, join(bad, `${NAME}.sha256`));
    writeFileSync(join(bad, NAME), Buffer.from('x'), { flag: 'a' });
    expect(spawnSync('sha256sum', ['-c', `${NAME}.sha256`], { cwd: bad }).status).not.toBe(0);
  });

  it('env -i, from an empty directory: --version is the package version', () => {
    const r = runExe(['--version']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${VERSION}\n`);
  });

  it('env -i doctor --snapshot S --json: the same report and exit code as node dist/cli.js', () => {
    const snap = join(work, 'node.json');
    const s = runExe(['snapshot', '--root', join(FIX, 'roce-one-subnet'), '-o', snap]);
    expect(s.status, s.stderr).toBe(0);
    const exeRun = runExe(['doctor', '--snapshot', snap, '--json']);
    const nodeRun = runNode(['doctor', '--snapshot', snap, '--json']);
    expect(exeRun.stderr).toBe('');
    expect(exeRun.status).toBe(1); // this node has errors: the exit code is the gate's answer
    expect(JSON.parse(exeRun.stdout).summary.errors).toBeGreaterThan(0);
    expect(exeRun.stdout).toBe(nodeRun.stdout);
    expect(exeRun.status).toBe(nodeRun.status);
  });

  it('a bad snapshot is one line and exit 2, never a stack trace', () => {
    const bad = join(work, 'bad.json');
    writeFileSync(bad, '{"schemaVersion": 3, "links": [');
    const r = runExe(['doctor', '--snapshot', bad, '--json']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^ncclx: [^\n]*bad\.json[^\n]*\n$/);
  });

  it('log FILE --json: worker threads and the WebAssembly scanner run inside it, and the answer is the one read whole', () => {
    const log = join(ROOT, 'test/log/corpus/v2.21-merged.log');
    const parts = runExe(['log', log, '--json'], { NCCLX_LOG_WORKERS: '3', NCCLX_DEBUG: '1' });
    expect(parts.stderr).toBe('ncclx log: read in 3 parts side by side (2 worker threads), WebAssembly scanner on\n');
    const whole = runNode(['log', log, '--json'], { NCCLX_LOG_WORKERS: '0', NCCLX_DEBUG: '1' });
    expect(whole.stderr).toBe('ncclx log: read in one pass, WebAssembly scanner on\n');
    expect(parts.stdout).toBe(whole.stdout);
    expect(parts.status).toBe(whole.status);
  });

  it('compare on 100 snapshots reads them on worker threads inside it, with the answer of node dist/cli.js', () => {
    const dir = join(work, 'snaps');
    mkdirSync(dir);
    const first = join(dir, 'n000.json');
    expect(runExe(['snapshot', '--root', join(FIX, 'roce-healthy'), '-o', first]).status).toBe(0);
    for (let i = 1; i < 100; i++) copyFileSync(first, join(dir, `n${String(i).padStart(3, '0')}.json`));
    const exeRun = runExe(['compare', '--jobs', '2', '--json', dir], { NCCLX_COMPARE_TIMING: '1' });
    expect(exeRun.stderr).toMatch(/compare timing: reading on 2 worker threads\n/);
    const nodeRun = runNode(['compare', '--jobs', '2', '--json', dir]);
    expect(exeRun.stdout).toBe(nodeRun.stdout);
    expect(exeRun.status).toBe(nodeRun.status);
  });

  it.runIf(HAVE_TMUX || IN_CI)('on a terminal, the interactive doctor (Ink, React, yoga) draws and quits', async () => {
    const t = tmuxServer('ncclx-exe-tmux-');
    try {
      t.start('exe', `env -i TERM=xterm-256color '${exe}' doctor --root '${join(FIX, 'roce-healthy')}' --nccl-version 2.28.3`, { cols: 100, rows: 30 });
      // The first frame says "reading…"; the doctor's frame follows.
      const screen = await t.waitScreen('exe', /ncclx doctor · h100-roce-12/, 30_000);
      expect(screen).toMatch(/1 Summary\s+2 Interfaces/);
      expect(screen).toMatch(/\[✓\] SOCK-001/);
      t.keys('exe', 'q');
      await t.waitScreen('exe', /EXIT=0/, 10_000);
    } finally {
      t.close();
    }
  });
});
