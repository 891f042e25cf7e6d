// Files that are not what they should be: devices, FIFOs, directories, binary
// and oversized files, as --snapshot and as NCCL_CONF_FILE. Every one gives a
// one-line answer in bounded time: exit 2 naming the file, or a finding that
// says what NCCL does with it.

import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tmp.js';

const CLI = join(__dirname, '../../dist/cli.js');
const tmp = tempDir('ncclx-bad-input-');
const fifo = join(tmp, 'fifo');
spawnSync('mkfifo', [fifo]);

function ncclx(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 30_000, env: { PATH: process.env['PATH'] ?? '', HOME: tmp, NO_COLOR: '1', ...env } });
  return { code: r.status, out: r.stdout, err: r.stderr, signal: r.signal };
}

describe('--snapshot that is not a regular file: refused by kind, at once', () => {
  it.each([
    ['/dev/zero', '/dev/zero: a character device, not a regular file'],
    [fifo, `${fifo}: a FIFO, not a regular file`],
    [tmp, `${tmp}: a directory, not a regular file`],
  ])('%s', (file, msg) => {
    const r = ncclx(['explain', '--snapshot', file]);
    expect(r.signal).toBeNull();
    expect([r.code, r.out, r.err]).toEqual([2, '', `ncclx: ${msg}\n`]);
  });
});

describe('NCCL_CONF_FILE past the documented limit: one line, exit 2', () => {
  it('400k lines', () => {
    const big = join(tmp, 'big.conf');
    writeFileSync(big, Array.from({ length: 400_000 }, (_, i) => `NCCL_X${i}=v${i}`).join('\n'));
    for (const cmd of ['explain', 'doctor', 'env']) {
      const r = ncclx([cmd, '--no-tui'].filter((a) => cmd === 'doctor' || a !== '--no-tui'), { NCCL_CONF_FILE: big });
      expect([r.code, r.err]).toEqual([2, `ncclx: NCCL_CONF_FILE ${big}: larger than the 256 KiB ncclx reads for an NCCL conf file (see "Limits" in docs/snapshot.md)\n`]);
    }
  });
  it('a single 300 KB line: the same one line, no RangeError', () => {
    const one = join(tmp, 'one.conf');
    writeFileSync(one, `NCCL_SOCKET_IFNAME=${'a'.repeat(300_000)}`);
    const r = ncclx(['explain'], { NCCL_CONF_FILE: one });
    expect(r.code).toBe(2);
    expect(r.err.split('\n')).toHaveLength(2);
  });
});

describe('ENV-003: what NCCL does with an NCCL_CONF_FILE it cannot use', () => {
  const env3 = (file: string) => {
    const r = ncclx(['doctor', '--json', '--only', 'ENV-003'], { NCCL_CONF_FILE: file });
    expect(r.signal).toBeNull();
    return (JSON.parse(r.out).results as { severity: string; summary: string }[])[0]!;
  };
  it('missing: ignored, and ~/.nccl.conf is not read either', () => {
    expect(env3(join(tmp, 'nope.conf'))).toMatchObject({ severity: 'warn', summary: expect.stringMatching(/does not exist: NCCL's fopen\(\) fails .*does not read ~\/\.nccl\.conf either/) });
  });
  it('a directory: read as nothing', () => {
    expect(env3(tmp)).toMatchObject({ severity: 'warn', summary: expect.stringMatching(/is a directory: fopen\(\) succeeds, getline\(\) fails/) });
  });
  it('/dev/zero: NCCL never ends a line (error), ncclx does not read it', () => {
    expect(env3('/dev/zero')).toMatchObject({ severity: 'error', summary: expect.stringMatching(/character device: .*never ends a line/) });
  });
  it('a FIFO: NCCL blocks in fopen (error), ncclx does not', () => {
    expect(env3(fifo)).toMatchObject({ severity: 'error', summary: expect.stringMatching(/is a FIFO: NCCL's fopen\(\) blocks/) });
  });
  it('binary: NCCL keeps what precedes a NUL byte; the values it sets are modelled', () => {
    const bin = join(tmp, 'bin.conf');
    writeFileSync(bin, Buffer.concat([Buffer.from('NCCL_SOCKET_IFNAME=eth9\0garbage\n\0NCCL_IB_HCA=x\n'), Buffer.from([0xff, 0xfe, 0x0a])]));
    expect(env3(bin)).toMatchObject({ severity: 'warn', summary: expect.stringMatching(/is binary .*1 variable\(s\) from it: NCCL_SOCKET_IFNAME/) });
    const j = JSON.parse(ncclx(['explain', '--json'], { NCCL_CONF_FILE: bin }).out);
    expect(j.inputs.NCCL_SOCKET_IFNAME).toMatchObject({ value: 'eth9' });
    expect(j.inputs.NCCL_IB_HCA?.value ?? null).toBeNull();
  });
  it('a regular text file: ok', () => {
    const good = join(tmp, 'good.conf');
    writeFileSync(good, 'NCCL_DEBUG=INFO\n');
    expect(env3(good).severity).toBe('ok');
  });
});

describe('thousands of entries: one finding per kind, with a count and the first few', () => {
  const root = join(__dirname, '../fixtures/roce-healthy');
  const results = (env: Record<string, string>, id: string) => {
    const r = ncclx(['doctor', '--json', '--root', root, '--only', id, '--nccl-version', '2.28.3'], env);
    return (JSON.parse(r.out).results as { id: string; summary: string }[]).filter((x) => x.id === id);
  };
  it('a 5,000-line conf file of unknown variables: one ENV-001', () => {
    const conf = join(tmp, 'many.conf');
    writeFileSync(conf, Array.from({ length: 5000 }, (_, i) => `NCCL_X${i}=v`).join('\n'));
    const r = ncclx(['doctor', '--json', '--only', 'ENV-001'], { NCCL_CONF_FILE: conf });
    const env1 = (JSON.parse(r.out).results as { summary: string }[]);
    expect(env1).toHaveLength(1);
    expect(env1[0]!.summary).toMatch(/^NCCL_X0 is not a variable ncclx knows NCCL to read \(and 4999 more like it: NCCL_X1, NCCL_X10, NCCL_X100, …\)$/);
  });
  it('a 5,000-entry NCCL_IB_HCA: one IB-030 per problem kind', () => {
    const hca = Array.from({ length: 5000 }, (_, i) => (i % 3 ? `mlx5_${i}:x` : `bad${i}`)).join(',');
    const ib030 = results({ NCCL_IB_HCA: hca }, 'IB-030');
    expect(ib030.length).toBeGreaterThan(0);
    expect(ib030.length).toBeLessThanOrEqual(3);
    expect(ib030.map((x) => x.summary).join('\n')).toMatch(/past the 32-entry limit .*\(and 4967 more like it/);
  });
});
