// Control characters from the node — an interface name, a conf-file value, a
// snapshot string — are shown escaped in every text output, never sent to the
// terminal; ncclx's own colours still work and cannot be forged by data.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tmp.js';
import { link, snapshotOf } from '../unit/helpers.js';
import { terminalText, visible } from '../../src/report/display.js';
import { makeStyle } from '../../src/report/style.js';
import { cliServer, sameAsOwnProcess } from '../helpers/cli-server.js';

// Every CLI call in one ncclx process (test/helpers/cli-server.ts), one checked against its own process.
const server = cliServer({ faults: false });
const tmp = tempDir('ncclx-escape-');
// A name Linux accepts (no '/', no whitespace, ≤ 15 bytes) that clears the screen and reverses the line.
const EVIL = 'e\x1b[2J\u202ex\x9b1m';
const snap = join(tmp, 'evil.json');
const conf = join(tmp, 'evil.conf');
writeFileSync(conf, `NCCL_IB_HCA=m\x1b]0;pwned\x07x\nNCCL_SOCKET_IFAC=\x1b[31mred\n`);
writeFileSync(snap, JSON.stringify(snapshotOf([link('lo', ['127.0.0.1/8']), link(EVIL, ['10.0.0.5/24'])], { env: { NCCL_SOCKET_IFNAME: `=${EVIL}`, NCCL_DEBUG_SUBSYSTEM: '\x1b[2J' } })));

const run = (args: string[], env: Record<string, string> = {}) => server.spawnSync([...args], { encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '', HOME: tmp, ...env } });
/** Escape sequences other than ncclx's own colours (ESC [ digits m). */
const foreign = (s: string) => s.replace(/\x1b\[\d+m/g, '').match(/[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g) ?? [];

describe('text outputs show control characters escaped', () => {
  const commands = [
    ['doctor', '--snapshot', snap, '-v', '--no-tui', '--nccl-version', '2.28.3'],
    ['explain', '--snapshot', snap, '-v', '--nccl-version', '2.28.3'],
    ['ib', '--snapshot', snap, '-v', '--nccl-version', '2.28.3'],
    ['fix', '--snapshot', snap, '--nccl-version', '2.28.3'],
  ];
  for (const argv of commands) {
    it(`${argv[0]}: without colour, no control character at all; the name is shown as \\x1b…`, () => {
      const r = run(argv, { NO_COLOR: '1' });
      expect(r.stdout.length).toBeGreaterThan(0);
      expect(foreign(r.stdout + r.stderr)).toEqual([]);
      if (argv[0] === 'doctor' || argv[0] === 'explain') expect(r.stdout).toContain('e\\x1b[2J\\u202ex\\x9b1m');
    });
    it(`${argv[0]}: with colour, only ncclx's own colour sequences`, () => {
      const r = run(argv, { FORCE_COLOR: '1' });
      if (argv[0] === 'doctor' || argv[0] === 'explain') expect(r.stdout).toMatch(/\x1b\[\d+m/);
      expect(foreign(r.stdout + r.stderr)).toEqual([]);
    });
  }
  it('a conf-file value with an OSC title sequence, live: escaped', () => {
    const r = run(['explain', '-v'], { NO_COLOR: '1', NCCL_CONF_FILE: conf });
    expect(foreign(r.stdout + r.stderr)).toEqual([]);
  });
  it('errors naming a file escape it too', () => {
    const r = run(['explain', '--snapshot', join(tmp, 'no\x1b[2Jfile')]);
    expect(r.status).toBe(2);
    expect(foreign(r.stderr)).toEqual([]);
    expect(r.stderr).toContain('no\\x1b[2Jfile');
  });
});

describe('terminalText', () => {
  it('data cannot forge a colour: a marker-like string in data is escaped, a real one becomes SGR', () => {
    const s = makeStyle(true);
    expect(terminalText(`${s.bold('ok')} \x1b[31mred`)).toBe('\x1b[1mok\x1b[22m \\x1b[31mred');
    expect(visible('\uE000abc:1\uE001')).toBe('\\ue000abc:1\\ue001');
    expect(visible('tab\tand\nnewline stay')).toBe('tab\tand\nnewline stay');
  });
});

it('the CLI server answers as its own process does', () => {
  sameAsOwnProcess(server, ['explain', '--snapshot', snap, '--nccl-version', '2.28.3'], { PATH: process.env['PATH'] ?? '', HOME: '/nonexistent' });
});
