// The TUI's text layout (src/tui/text.ts): commands wrapped so that a shell
// reads them back unchanged, and lines scrolled sideways with ◀ ▶ marks.

import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { commandLines, commandRows, CONTINUED, hband, hslice, hstep, shellWords, table, tableBand, type Seg } from '../../src/tui/text.js';

/** What a shell makes of wrapped lines: `\` + newline removed (the indent of the next line is blanks between words). */
const rejoin = (lines: string[], indent = '') => lines.map((l) => l.slice(indent.length)).join('\n').replace(/ \\\n/g, ' ');
const text = (segs: Seg[]) => segs.map((s) => s.text).join('');

const ARP =
  'sysctl -w net/ipv4/conf/enp12s0np0/arp_announce=2 net/ipv4/conf/enp12s0np0/arp_ignore=1 net/ipv4/conf/enp12s0np0/arp_filter=1';

describe('shellWords', () => {
  it('splits at unquoted blanks and keeps quotes with their word', () => {
    expect(shellWords(`export A='x y' "b c"d e\\ f`)).toEqual(['export', "A='x y'", '"b c"d', 'e\\ f']);
    expect(shellWords(`export N='=x'\\''y'`)).toEqual(['export', `N='=x'\\''y'`]);
  });
  it('refuses what a continuation would change: open quotes, comments, newlines, a trailing backslash', () => {
    expect(shellWords("echo 'open")).toBeNull();
    expect(shellWords('# a comment')).toBeNull();
    expect(shellWords('echo a # trailing comment')).toBeNull();
    expect(shellWords('cat <<EOF\nx\nEOF')).toBeNull();
    expect(shellWords('echo \\')).toBeNull();
  });
});

describe('commandLines', () => {
  it('breaks only between words, every line but the last ends in ` \\`, and the shell reads the same command', () => {
    for (const cols of [50, 60, 80, 100]) {
      const lines = commandLines(ARP, cols, '  ');
      expect(lines.length).toBeGreaterThan(1);
      for (const l of lines) expect(l.length).toBeLessThanOrEqual(cols);
      for (const l of lines.slice(0, -1)) expect(l.endsWith(CONTINUED)).toBe(true);
      expect(lines[lines.length - 1]!.endsWith('\\')).toBe(false);
      expect(rejoin(lines, '  ')).toBe(ARP);
    }
  });

  it('a command that fits, or cannot be split, is one line', () => {
    expect(commandLines('ip rule add from 10.0.0.1 lookup 100', 80)).toEqual(['ip rule add from 10.0.0.1 lookup 100']);
    const heredoc = "cat > /etc/nccl.conf <<'EOF'";
    expect(commandLines(`echo '${'x '.repeat(50)}'`, 40)).toEqual([`echo '${'x '.repeat(50)}'`]);
    expect(commandLines(heredoc, 30)).toEqual([heredoc]);
    expect(commandLines(heredoc, 16)).toEqual(['cat > \\', '/etc/nccl.conf \\', "<<'EOF'"]);
  });

  it('a word wider than the line stays whole on its line (it is scrolled to, not cut)', () => {
    const cmd = `export NCCL_IB_HCA='=${Array.from({ length: 12 }, (_, i) => `mlx5_${i}:1`).join(',')}'`;
    expect(commandLines(cmd, 60)).toEqual([cmd]);
    const lines = commandLines(`sudo ${cmd} --flag`, 60);
    expect(lines).toEqual([`sudo ${cmd} \\`, '--flag']);
    expect(rejoin(lines)).toBe(`sudo ${cmd} --flag`);
  });

  it('the wrapped command runs as the original in a real shell', () => {
    const cmd = `printf '%s|' one 'two three' "four five" six seven eight nine ten eleven twelve`;
    const lines = commandLines(cmd, 24, '    ');
    expect(lines.length).toBeGreaterThan(2);
    const sh = (script: string) => spawnSync('sh', ['-c', script], { encoding: 'utf8' }).stdout;
    expect(sh(lines.join('\n'))).toBe(sh(cmd));
    expect(sh(cmd)).toBe('one|two three|four five|six|seven|eight|nine|ten|eleven|twelve|');
  });
});

describe('commandRows', () => {
  it('comments wrap with `# `, raw lines (a heredoc body) are never changed, and the band scrolls what stays wide', () => {
    const long = `NCCL_SOCKET_IFNAME==${'ibp24s0,'.repeat(12)}x`;
    const { rows, band } = commandRows([{ text: '# nccl-conf: NCCL configuration file with the exports of ncclx env' }, { text: long, raw: true }, { text: 'a b', raw: true }], 40);
    expect(rows[0]).toBe('# nccl-conf: NCCL configuration file');
    expect(rows[1]).toBe('# with the exports of ncclx env');
    expect(rows).toContain(long);
    expect(band.scrolls).toBe(true);
    expect(band.total).toBe(long.length);
  });
});

describe('commandRows escapes what it lays out', () => {
  it('a control character from the node is shown escaped, and the width counts the escape', () => {
    const { rows, band } = commandRows([`export NCCL_SOCKET_IFNAME='=e\x1b[2J'`], 80);
    expect(rows).toEqual([`export NCCL_SOCKET_IFNAME='=e\\x1b[2J'`]);
    expect(band.total).toBe(rows[0]!.length);
    expect(rows.join('')).not.toContain('\x1b');
  });
});

describe('horizontal scrolling', () => {
  it('marks text hidden on either side, only on lines that have some', () => {
    const b = hband(30, 12);
    const line = [{ text: 'abcdefghijklmnopqrstuvwxyz0123' }];
    const short = [{ text: 'abc' }];
    expect(text(hslice(b, line, 0).segs)).toBe('abcdefghijk▶');
    expect(text(hslice(b, short, 0).segs)).toBe('abc         ');
    const off = hstep(b, 0, 1);
    expect(off).toBeGreaterThan(0);
    const s = hslice(b, line, off);
    expect(s.left && s.right).toBe(true);
    expect(text(s.segs)).toMatch(/^◀.{10}▶$/u);
    expect(text(hslice(b, short, off).segs)).toMatch(/^◀ +$/u);
    // The end of the text is reachable and unmarked on the right.
    let o = 0;
    for (let i = 0; i < 10; i++) o = hstep(b, o, 1);
    expect(text(hslice(b, line, o).segs).replace(/^◀/, '').trimEnd().endsWith('0123')).toBe(true);
    expect(hslice(b, line, o).right).toBe(false);
    for (let i = 0; i < 10; i++) o = hstep(b, o, -1);
    expect(o).toBe(0);
  });

  it('nothing scrolls or is marked when everything fits', () => {
    const b = hband(10, 20);
    expect(b.scrolls).toBe(false);
    expect(text(hslice(b, [{ text: '0123456789' }], 5).segs)).toBe('0123456789          ');
    expect(hstep(b, 0, 1)).toBe(0);
  });

  it('a table scrolls a column at a time; its first column stays', () => {
    const head = ['DEV:PORT', 'STATE', 'LINK', 'NETDEV', 'IPv4', 'GID', 'NCCL'].map((t) => ({ text: t }));
    const rows = [['mlx5_0:1', 'ACTIVE', 'RoCE', 'enp12s0np0', '172.16.0.11/24', 'GID 3', 'yes [0]']].map((r) => r.map((t) => ({ text: t })));
    const t = table(head, rows);
    const b = tableBand(t, 60, 2 + t.firstW);
    expect(b.scrolls).toBe(true);
    const r = t.row(rows[0]!);
    expect(r.first.text).toBe('mlx5_0:1');
    expect(text(hslice(b, r.body, 0).segs)).not.toContain('yes [0]');
    const off = hstep(b, 0, 1);
    expect(off).toBe('ACTIVE '.length);
    expect(text(hslice(b, r.body, off).segs)).toMatch(/^◀RoCE enp12s0np0 +172\.16\.0\.11\/24 GID 3 yes \[0\] *$/);
    expect(hstep(b, off, -1)).toBe(0);
  });
});
