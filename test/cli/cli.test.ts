// The built binary, as a user runs it.
import { spawnSync } from 'node:child_process';
import { writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/tmp.js';
import { describe, expect, it } from 'vitest';
import { snapshotOf, link } from '../unit/helpers.js';

const CLI = join(__dirname, '../../dist/cli.js');
const tmp = tempDir('ncclx-cli-');
function ncclx(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '', HOME: tmp, NO_COLOR: '1', ...env } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('ncclx explain on a snapshot file', () => {
  const file = join(tmp, 'node.json');
  writeFileSync(file, JSON.stringify(snapshotOf([link('lo', ['127.0.0.1/8']), link('eth1', ['10.0.1.1/24']), link('eth10', ['10.0.10.1/24'])], { env: { NCCL_SOCKET_IFNAME: 'eth1' } })));

  it('--json has the documented shape', () => {
    const r = ncclx(['explain', '--snapshot', file, '--json', '--nccl-version', '2.28.3']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j).toMatchObject({ ncclVersion: '2.28.3', profile: 'nccl>=2.28.3', versionSource: '--nccl-version 2.28.3' });
    for (const c of ['bootstrap', 'socket', 'ibOob']) {
      expect(j[c]).toHaveProperty('selected');
      expect(j[c]).toHaveProperty('stage');
      expect(Array.isArray(j[c].trace)).toBe(true);
    }
    expect(j.socket.selected).toEqual([
      { name: 'eth1', address: '10.0.1.1', family: 'AF_INET', display: '10.0.1.1' },
      { name: 'eth10', address: '10.0.10.1', family: 'AF_INET', display: '10.0.10.1' },
    ]);
    expect(j.findings.map((f: { id: string }) => f.id)).toContain('SOCK-004');
  });
  it('the environment from the snapshot is used, and flags override it', () => {
    const j = JSON.parse(ncclx(['explain', '--snapshot', file, '--json', '--ifname', '=eth10', '--nccl-version', '2.28']).out);
    expect(j.socket.selected.map((s: { name: string }) => s.name)).toEqual(['eth10']);
    expect(j.versionSource).toMatch(/2\.28\.3, the first 2\.28 release/);
  });
  it('text output has the selection, the trace and the findings', () => {
    const r = ncclx(['explain', '--snapshot', file, '--nccl-version', '2.28.3']);
    expect(r.out).toMatch(/Socket transport\s+\[0\]eth1 10\.0\.1\.1\s+\[1\]eth10 10\.0\.10\.1/);
    expect(r.out).toMatch(/lo\s+127\.0\.0\.1\s+not matched by NCCL_SOCKET_IFNAME 'eth1'/);
    expect(r.out).toMatch(/SOCK-004/);
    expect(r.out).not.toMatch(/\x1b\[/);
  });
  it('exit 1 when a finding is an error', () => {
    expect(ncclx(['explain', '--snapshot', file, '--ifname', 'nomatch', '--nccl-version', '2.28.3']).code).toBe(1);
  });
});

describe('bad input', () => {
  const cases: [string, string, RegExp][] = [
    ['missing.json', '', /missing\.json: cannot read: ENOENT/],
    ['empty.json', '', /empty\.json: file is empty/],
    ['garbage.json', '{not json', /garbage\.json: not JSON/],
    ['wrongver.json', JSON.stringify({ schemaVersion: 99 }), /wrongver\.json: schema version 99 is not supported/],
    ['shape.json', JSON.stringify({ ...snapshotOf([]), network: { links: 'x' } }), /shape\.json: not a valid ncclx snapshot: network\./],
  ];
  for (const [name, content, re] of cases) {
    it(`${name}: one-line error, exit 2`, () => {
      const f = join(tmp, name);
      if (name !== 'missing.json') writeFileSync(f, content);
      const r = ncclx(['explain', '--snapshot', f]);
      expect(r.code).toBe(2);
      expect(r.err.trim().split('\n')).toHaveLength(1);
      expect(r.err).toMatch(re);
    });
  }
  it('bad --nccl-version: exit 2 with the accepted forms', () => {
    const r = ncclx(['explain', '--nccl-version', 'latest']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/X\.Y\[\.Z\].*ncclx-X\.Y/);
  });
  it('unknown option: exit 2', () => {
    expect(ncclx(['explain', '--bogus']).code).toBe(2);
  });
  it('garbage in a variable never crashes, and is read and judged, not dropped', () => {
    // The NCCL_SOCKET_IFNAME finding each value must give (docs/nccl/socket.md §1, §3).
    const cases: [string, string][] = [
      ['[', 'SOCK-005'], // one character: ignored by NCCL
      ['[]', 'SOCK-011'], // a name that matches nothing
      ['[%]:', 'SOCK-011'],
      [':::', 'SOCK-017'], // entries with empty names are dropped
      ['\u00e9', 'SOCK-011'],
      [',,,', 'SOCK-003'], // no entry left: the empty list matches everything, lo included
      ['^=^=', 'SOCK-013'], // an exclusion list that re-admits lo
      ['x'.repeat(300), 'SOCK-017'], // longer than NCCL's 63-character field
    ];
    for (const [v, ifnameFinding] of cases) {
      const r = ncclx(['explain', '--json', '--nccl-version', '2.30.7'], { NCCL_SOCKET_IFNAME: v, NCCL_COMM_ID: v, NCCL_SOCKET_FAMILY: v });
      expect(r.code === 0 || r.code === 1).toBe(true);
      const j = JSON.parse(r.out);
      for (const name of ['NCCL_SOCKET_IFNAME', 'NCCL_COMM_ID', 'NCCL_SOCKET_FAMILY']) expect(j.inputs[name].value).toBe(v);
      const ids: string[] = j.findings.map((f: { id: string }) => f.id);
      expect(ids, v).toContain('SOCK-006'); // NCCL_SOCKET_FAMILY is neither AF_INET nor AF_INET6
      expect(ids.some((id) => ['SOCK-007', 'SOCK-019', 'SOCK-020'].includes(id)), v).toBe(true); // NCCL_COMM_ID is judged
      expect(ids, v).toContain(ifnameFinding);
    }
  });
});

describe('ncclx snapshot', () => {
  it('writes a snapshot that explain can read back', () => {
    const out = join(tmp, 'snap.json');
    const r = ncclx(['snapshot', '-o', out], { NCCL_SOCKET_IFNAME: 'lo' });
    expect(r.code).toBe(0);
    const snap = JSON.parse(readFileSync(out, 'utf8'));
    expect(snap.schemaVersion).toBe(1);
    expect(snap.env.process.NCCL_SOCKET_IFNAME).toBe('lo');
    expect(snap.network.links.some((l: { name: string }) => l.name === 'lo')).toBe(true);
    expect(snap.host.hostname.length).toBeGreaterThan(0);
    const j = JSON.parse(ncclx(['explain', '--snapshot', out, '--json']).out);
    expect(j.socket.selected.map((s: { name: string }) => s.name)).toEqual(['lo']);
  });
});

describe('flags that conflict or select nothing are usage errors (exit 2, one line)', () => {
  const root = join(__dirname, '../fixtures/roce-healthy');
  it('doctor --json --format prom', () => {
    const r = ncclx(['doctor', '--root', root, '--json', '--format', 'prom']);
    expect([r.code, r.out, r.err]).toEqual([2, '', 'ncclx: --json conflicts with --format prom: give one of them\n']);
    expect(ncclx(['doctor', '--root', root, '--json', '--format', 'json', '--only', 'SOCK-001']).code).toBe(0);
  });
  it('--list-checks --json prints JSON; with --format prom or --only it is a usage error', () => {
    const r = ncclx(['doctor', '--list-checks', '--json']);
    expect(r.code).toBe(0);
    const list = JSON.parse(r.out) as { id: string; family: string; title: string }[];
    expect(list.find((c) => c.id === 'SOCK-001')).toMatchObject({ family: 'socket' });
    expect(ncclx(['doctor', '--list-checks', '--format', 'prom']).code).toBe(2);
    expect(ncclx(['doctor', '--list-checks', '--only', 'SOCK']).code).toBe(2);
  });
  it('--only SOCK --skip SOCK checks nothing: exit 2, not a passing gate', () => {
    const r = ncclx(['doctor', '--root', root, '--only', 'SOCK', '--skip', 'SOCK', '--no-tui']);
    expect([r.code, r.err]).toEqual([2, 'ncclx: --only SOCK --skip SOCK selects no check\n']);
  });
  it('snapshot --help advertises only what snapshot accepts', () => {
    const help = ncclx(['snapshot', '--help']).out;
    expect(help).not.toMatch(/--snapshot/);
    expect(help).toMatch(/--root/);
  });
  it('a reader that goes away (| head) ends the command quietly, no EPIPE trace', () => {
    const sh = spawnSync('sh', ['-c', `"${process.execPath}" "${CLI}" doctor --root "${root}" -v --no-tui | head -1`], { encoding: 'utf8' });
    expect(sh.stdout.split('\n')[0]).toMatch(/^ncclx doctor/);
    expect(sh.stderr).toBe('');
  });
});
