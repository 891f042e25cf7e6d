// README.md against the program it documents: every command is in the
// commands table, and the Prometheus example, run by a real shell, leaves
// node_exporter's textfile directory with whole files only.

import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/main.js';
import { tempDir } from '../helpers/tmp.js';

const README = readFileSync(join(__dirname, '../../README.md'), 'utf8');
const tmp = tempDir('ncclx-readme-');

describe('README', () => {
  it('the commands table has a row for every command the program registers', async () => {
    const rows = [...README.matchAll(/^\| `ncclx ([a-z]+)/gm)].map((m) => m[1]);
    const commands = (await buildProgram()).commands.map((c) => c.name());
    expect(commands).toContain('compare');
    for (const c of commands) expect(rows, c).toContain(c);
  });

  it('the Prometheus example writes aside and renames: node_exporter never reads a partial file, and a failed run leaves the old one', () => {
    const block = /```sh\n([\s\S]*?)```/.exec(README.slice(README.indexOf('## Commands')))![1]!;
    const lines = block.split('\n').filter((l) => /node_exporter|\.prom/.test(l));
    expect(lines.join('\n')).toMatch(/\bmv\b/);
    const dir = join(tmp, 'textfile');
    const bin = join(tmp, 'bin');
    mkdirSync(dir, { recursive: true });
    mkdirSync(bin, { recursive: true });
    // A stand-in ncclx: prints a metric, then exits as told (1 = error findings, 2 = bad input).
    writeFileSync(join(bin, 'ncclx'), '#!/bin/sh\nprintf "ncclx_check_status 1\\n"\nexit "${NCCLX_EXIT:-0}"\n');
    chmodSync(join(bin, 'ncclx'), 0o755);
    const script = lines.map((l) => l.replace('/var/lib/node_exporter/textfile', dir)).join('\n');
    const run = (code: number) => spawnSync('sh', ['-c', script], { encoding: 'utf8', env: { PATH: `${bin}:${process.env['PATH']}`, NCCLX_EXIT: String(code) } });
    run(1);
    expect(readdirSync(dir)).toEqual(['ncclx.prom']);
    expect(readFileSync(join(dir, 'ncclx.prom'), 'utf8')).toBe('ncclx_check_status 1\n');
    writeFileSync(join(dir, 'ncclx.prom'), 'old\n');
    run(2);
    expect(readFileSync(join(dir, 'ncclx.prom'), 'utf8')).toBe('old\n');
    expect(readdirSync(dir)).toEqual(['ncclx.prom']);
  });
});
