// The built CLI on hostile input, as a user would meet it: corrupted fixture
// trees, random bytes as snapshot and conf files, hostile environment values
// and interface names. Every run ends with exit 0, 1 or 2, no stack trace,
// in bounded time, valid JSON under --json, and no command run by the
// exports it prints (bash evaluates them in a directory with a canary).

import fc from 'fast-check';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tmp.js';
import { link, snapshotOf } from '../unit/helpers.js';
import { count, runs, TIMEOUT, triedSoFar } from './lib.js';

const CLI = join(__dirname, '../../dist/cli.js');
const FIXTURES = join(__dirname, '../fixtures');
const tmp = tempDir('ncclx-fuzz-');
afterAll(() => console.log(`fuzz (cli): ${triedSoFar()} inputs tried`));

function ncclx(args: string[], env: Record<string, string> = {}, cwd = tmp) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', cwd, timeout: 30_000, maxBuffer: 64 * 1024 * 1024, env: { PATH: process.env['PATH'] ?? '', HOME: tmp, NO_COLOR: '1', ...env } });
  return r;
}

/** The contract of every run: a known exit code, no stack trace, valid JSON when asked and not refused. */
function contract(r: ReturnType<typeof ncclx>, json: boolean): void {
  expect(r.signal, 'killed (hang or crash)').toBeNull();
  expect([0, 1, 2]).toContain(r.status);
  expect(r.stderr).not.toMatch(/^\s+at .+\(.+:\d+:\d+\)$/m);
  expect(r.stderr).not.toMatch(/internal error/);
  if (json && r.status !== 2) expect(() => JSON.parse(r.stdout)).not.toThrow();
  if (r.status === 2) expect(r.stderr.trim().split('\n').length).toBeLessThanOrEqual(12);
}

function files(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...files(p));
    else if (e.isFile()) out.push(p);
  }
  return out.sort();
}

describe('the CLI on hostile input', () => {
  writeFileSync(join(tmp, 'plain.json'), JSON.stringify(snapshotOf([link('lo', ['127.0.0.1/8']), link('eth0', ['10.0.0.5/24'])])));

  it('corrupted fixture trees (truncated, random bytes, a file turned into a directory, deleted): doctor --json and ib --json hold the contract', () => {
    const src = join(FIXTURES, 'roce-bond');
    const all = files(src).map((f) => relative(src, f));
    // The tree (2,600 files) is copied once; each run's edited files are put back after it.
    const root = join(tmp, 'tree');
    cpSync(src, root, { recursive: true });
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat({ max: all.length - 1 }), fc.integer({ min: 0, max: 3 }), fc.uint8Array({ maxLength: 64 })), { minLength: 1, maxLength: 6 }), (edits) => {
        count();
        const edited = new Set<string>();
        try {
          for (const [i, kind, bytes] of edits) {
            const f = join(root, all[i]!);
            if (!existsSync(f) || !statSync(f).isFile()) continue;
            edited.add(all[i]!);
            if (kind === 0) writeFileSync(f, Buffer.from(bytes));
            else if (kind === 1) rmSync(f);
            else if (kind === 2) {
              rmSync(f);
              mkdirSync(f);
            } else writeFileSync(f, '');
          }
          for (const cmd of [['doctor', '--json'], ['ib', '--json']]) contract(ncclx([...cmd, '--root', root, '--nccl-version', '2.28.3']), true);
        } finally {
          for (const rel of edited) {
            rmSync(join(root, rel), { recursive: true, force: true });
            cpSync(join(src, rel), join(root, rel));
          }
        }
      }),
      runs(5),
    );
  }, TIMEOUT);

  it('random bytes as --snapshot and as NCCL_CONF_FILE: exit 2 naming the file, or a normal answer', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2048 }), fc.boolean(), (bytes, asConf) => {
        count();
        const f = join(tmp, 'random.bin');
        writeFileSync(f, Buffer.from(bytes));
        const r = asConf ? ncclx(['explain', '--json', '--snapshot', join(tmp, 'plain.json')], { NCCL_CONF_FILE: f }) : ncclx(['explain', '--json', '--snapshot', f]);
        contract(r, true);
        if (!asConf) expect(r.status).toBe(2);
      }),
      runs(10),
    );
  }, TIMEOUT);

  it('hostile interface names and environment values: the exports evaluated by bash set exactly the values and run nothing', () => {
    const name = fc.stringMatching(/^[a-z0-9$;()'"`\\{}|&<>!*?~#=:,^.-]{1,15}$/).filter((s) => !s.includes('/'));
    fc.assert(
      fc.property(name, fc.constantFrom('=', '^', ''), (ifname, prefix) => {
        count();
        const dir = join(tmp, 'canary');
        rmSync(dir, { recursive: true, force: true });
        mkdirSync(dir);
        const snap = join(tmp, 'named.json');
        writeFileSync(snap, JSON.stringify(snapshotOf([link('lo', ['127.0.0.1/8']), link(ifname, ['10.0.0.5/24'])], { env: { NCCL_SOCKET_IFNAME: `${prefix}${ifname}` } })));
        const r = ncclx(['env', '--snapshot', snap, '--nccl-version', '2.28.3'], {}, dir);
        contract(r, false);
        if (r.status !== 0) return;
        // Every metacharacter an interface may hold, evaluated: a command would create files in dir.
        const sh = spawnSync('bash', ['-c', `${r.stdout}\nprintf '%s' "\${NCCL_SOCKET_IFNAME-}"`], { encoding: 'utf8', cwd: dir, env: { PATH: process.env['PATH'] ?? '' } });
        expect(sh.status, sh.stderr).toBe(0);
        expect(readdirSync(dir)).toEqual([]);
        if (sh.stdout !== '') expect(sh.stdout).toBe(`=${ifname}`);
      }),
      runs(8),
    );
  }, TIMEOUT);
});
