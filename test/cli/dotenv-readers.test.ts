// `ncclx env --format dotenv` read by the programs that read such files:
// bash and dash (`set -a; . file`), python-dotenv (Debian's 0.21 and a newer
// one when present), npm dotenv, and docker's env-file rules (verbatim
// NAME=VALUE; docker itself needs an engine, which CI machines lack). Names a
// Linux interface may legally have are written only when every reader gets
// the exact bytes; otherwise left out with a note, and nothing ever runs.

import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as npmDotenv } from 'dotenv';
import { describe, expect, it } from 'vitest';
import { cliServer, sameAsOwnProcess } from '../helpers/cli-server.js';
import { tempDir } from '../helpers/tmp.js';
import { link, snapshotOf } from '../unit/helpers.js';

// The built CLI's main() per call, without a Node start-up each (docs/testing.md, "One process per scenario").
const ncclx = cliServer({ faults: false });
const IN_CI = !!process.env['CI'] && process.env['CI'] !== 'false' && process.env['CI'] !== '0';
const tmp = tempDir('ncclx-dotenv-');
const canary = join(tmp, 'ran');

/** Every python3 with python-dotenv importable (Debian's /usr/bin/python3 gets python3-dotenv). */
const PYTHONS = [...new Set(['/usr/bin/python3', 'python3'])].filter((py) => spawnSync(py, ['-c', 'import dotenv'], { encoding: 'utf8' }).status === 0);

// Names Linux accepts (≤ 15 bytes, no '/', no whitespace): a command substitution, quotes, a backslash, ${HOME}.
const NAMES = ['r$(id)3', `e'q`, 'd"q', 'b\\s', `t\`id\``, '${HOME}', '$(>ran)', 'a;>ran', 'ens1f0np0'];

/** `ncclx env --format dotenv` on a node whose interface has this name: its arguments and environment. */
function envCall(name: string): { args: string[]; env: Record<string, string> } {
  const snap = join(tmp, `${Buffer.from(name).toString('hex')}.json`);
  writeFileSync(snap, JSON.stringify(snapshotOf([link('lo', ['127.0.0.1/8']), link(name, ['10.0.0.5/24'])])));
  return { args: ['env', '--snapshot', snap, '--format', 'dotenv', '--nccl-version', '2.28.3'], env: { PATH: process.env['PATH'] ?? '', HOME: tmp } };
}

function envFile(name: string): { file: string; stdout: string; stderr: string; code: number | null } {
  const { args, env } = envCall(name);
  const snap = args[2]!;
  const r = ncclx.run(args, env);
  const file = `${snap}.env`;
  writeFileSync(file, r.stdout);
  return { file, stdout: r.stdout, stderr: r.stderr, code: r.status };
}

function shell(sh: string, file: string): Record<string, string> {
  const r = spawnSync(sh, ['-c', `set -a; . "$1"; printf '%s\\0%s\\0' "\${NCCL_SOCKET_IFNAME-<unset>}" "\${GLOO_SOCKET_IFNAME-<unset>}"`, 'sh', file], { encoding: 'utf8', cwd: tmp, env: { PATH: process.env['PATH'] ?? '', HOME: '/home/nobody' } });
  expect(r.status, r.stderr).toBe(0);
  const [a, b] = r.stdout.split('\0');
  return { NCCL_SOCKET_IFNAME: a!, GLOO_SOCKET_IFNAME: b! };
}

function python(py: string, file: string): Record<string, string | null> {
  const r = spawnSync(py, ['-c', 'import json,sys,dotenv; print(json.dumps(dotenv.dotenv_values(sys.argv[1])))', file], { encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '', HOME: '/home/nobody' } });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

/** docker run --env-file: each non-comment, non-blank line is NAME=VALUE taken verbatim. */
function dockerEnvFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
    const eq = line.indexOf('=');
    out[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return out;
}

describe('dotenv output read by its readers', () => {
  if (PYTHONS.length === 0 && !IN_CI) it.skip('python-dotenv — skipped: not installed (apt-get install python3-dotenv); CI installs it and never skips', () => {});
  else if (PYTHONS.length === 0) it('python-dotenv is installed in CI', () => expect(PYTHONS, 'apt-get install python3-dotenv').not.toHaveLength(0));

  it('the CLI server answers as its own process (a name left out: exit 1, the note)', () => {
    const { args, env } = envCall(NAMES[0]!);
    sameAsOwnProcess(ncclx, args, env);
  });

  for (const name of NAMES) {
    it(`interface ${JSON.stringify(name)}: every reader gets the exact value, or it is left out with a note; nothing runs`, () => {
      const out = envFile(name);
      const readers: [string, Record<string, string | null | undefined>][] = [
        ['bash', shell('bash', out.file)],
        ['dash', shell('dash', out.file)],
        ['npm dotenv', npmDotenv(readFileSync(out.file))],
        ['docker --env-file', dockerEnvFile(out.stdout)],
        ...PYTHONS.map((py): [string, Record<string, string | null>] => [`python-dotenv (${py})`, python(py, out.file)]),
      ];
      const safe = /^[A-Za-z0-9_.,:/=+@%^-]*$/.test(name);
      for (const [reader, got] of readers) {
        const ifname = got['NCCL_SOCKET_IFNAME'];
        if (safe) {
          expect(ifname, reader).toBe(`=${name}`);
          expect(got['GLOO_SOCKET_IFNAME'], reader).toBe(name);
        } else {
          expect(ifname === undefined || ifname === '<unset>', `${reader}: ${ifname}`).toBe(true);
        }
      }
      if (!safe) {
        expect(out.code).toBe(1);
        expect(out.stderr).toMatch(/^ncclx env: NCCL_SOCKET_IFNAME left out of the dotenv output: its value holds /m);
        expect(out.stdout).toMatch(/^# note: GLOO_SOCKET_IFNAME is not written/m);
      } else expect(out.code).toBe(0);
      expect(existsSync(canary)).toBe(false);
    });
  }
});

// A multi-rail node: RDMA_PEER_IFACES is a list with spaces (#25). Double-quoted, every reader but docker/kubectl
// reads it exactly (the file says so); nccl.conf gets only what NCCL reads at its init.
describe('a multi-rail node (roce-healthy): RDMA_PEER_IFACES, a list with spaces', () => {
  const FIXTURE = join(__dirname, '../fixtures/roce-healthy');
  const env = (format: string) => ncclx.run(['env', '--root', FIXTURE, '--format', format, '--nccl-version', '2.28.3'], { PATH: process.env['PATH'] ?? '', HOME: tmp });
  const want = JSON.parse(env('json').stdout) as Record<string, string>;

  it('dotenv: exit 0, and bash, dash, npm dotenv and python-dotenv read every value exactly; docker keeps the quotes, which the file says', () => {
    expect(want['RDMA_PEER_IFACES']).toMatch(/^enp\S+( enp\S+){7}$/);
    const out = env('dotenv');
    expect(out.status, out.stderr).toBe(0);
    const file = join(tmp, 'multi-rail.env');
    writeFileSync(file, out.stdout);
    const peer = (sh: string) => {
      const r = spawnSync(sh, ['-c', `set -a; . "$1"; printf '%s' "$RDMA_PEER_IFACES"`, 'sh', file], { encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '' } });
      expect(r.status, r.stderr).toBe(0);
      return r.stdout;
    };
    expect(peer('bash')).toBe(want['RDMA_PEER_IFACES']);
    expect(peer('dash')).toBe(want['RDMA_PEER_IFACES']);
    expect(npmDotenv(readFileSync(file))).toEqual(want);
    for (const py of PYTHONS) expect(python(py, file), py).toEqual(want);
    expect(dockerEnvFile(out.stdout)['RDMA_PEER_IFACES']).toBe(`"${want['RDMA_PEER_IFACES']}"`);
    expect(out.stdout).toMatch(/^# note: RDMA_PEER_IFACES is double-quoted .*docker --env-file and kubectl --from-env-file keep the quotes/m);
  });

  it('nccl-conf: only what NCCL reads at its init; GLOO_SOCKET_IFNAME and RDMA_PEER_IFACES are notes to export instead', () => {
    const out = env('nccl-conf');
    expect(out.status, out.stderr).toBe(0);
    const lines = out.stdout.split('\n').filter((l) => l && !l.startsWith('#'));
    expect(lines.map((l) => l.split('=')[0])).toEqual(['NCCL_SOCKET_IFNAME', 'NCCL_IB_HCA']);
    expect(out.stdout).toMatch(/^# note: not in nccl\.conf \(PyTorch's Gloo .*export GLOO_SOCKET_IFNAME=eno1$/m);
    expect(out.stdout).toMatch(/^# note: not in nccl\.conf .*export RDMA_PEER_IFACES='enp/m);
  });
});
