// The interactive doctor's layout in a real terminal (tmux), at 60×20,
// 80×24 and 200×50, in every view: the tab bar names every view, no line is
// wider than the terminal, the focused row is on screen, tall terminals are
// filled while there is more to show; and the defects of issue #16: the
// RDMA columns scroll sideways with ◀ ▶, wrapped commands end in ` \` and
// rejoin into the exact command, the Env view's long values scroll instead of
// being cut, and a copy that tmux drops says so.

import { spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, RUN_TMUX, SKIP_REASON, tmuxServer, type Tmux } from './tmux-harness.js';

const T: Tmux = RUN_TMUX ? tmuxServer('ncclx-layout-') : (null as unknown as Tmux);
// The built CLI with the fixtures' failing reads (test/helpers/faults.mjs).
const doctor = (fixture: string) => `node test/helpers/ncclx.mjs doctor --root test/fixtures/${fixture}`;

const SIZES = [
  { cols: 60, rows: 20 },
  { cols: 80, rows: 24 },
  { cols: 200, rows: 50 },
] as const;

// Full titles where they fit, the short ones (still naming every view) where they do not.
const TABS = /^ ?1 (?:Summary +2 Interfaces +3 RDMA +4 What-if\*? +5 Fixes +6 Env +7 Topology|Sum +2 Iface +3 RDMA +4 What\*? +5 Fix +6 Env +7 Topo) ?$/;

/** The screen's lines (capture-pane gives one per row; trailing blank rows may be dropped). */
const linesOf = (s: string) => s.replace(/\n$/, '').split('\n');

/** Every check that holds in every view at every size. */
function checkFrame(s: string, cols: number, rows: number, what: string) {
  const lines = linesOf(s);
  expect(lines.length, `${what}: rows`).toBeLessThanOrEqual(rows);
  for (const l of lines) expect([...l].length, `${what}: line wider than ${cols}: ${l}`).toBeLessThanOrEqual(cols);
  // The tab bar (the 4th line) names every view.
  expect(lines[3], `${what}: tab bar`).toMatch(TABS);
  // The footer is on the last row but one (one row stays free for the cursor).
  expect(lines[rows - 2] ?? '', `${what}: footer`).toMatch(/Tab view +\? keys +q quit$/);
  // A tall terminal is used while there is more to show: no blank stretch while a list says "x–y of n".
  const body = lines.slice(4, rows - 2);
  let run = 0;
  let worst = 0;
  for (const l of body) {
    run = l.trim() === '' ? run + 1 : 0;
    worst = Math.max(worst, run);
  }
  if (/\d+–\d+ of \d+/.test(body.join('\n'))) expect(worst, `${what}: ${worst} blank rows while some rows are hidden:\n${s}`).toBeLessThanOrEqual(2);
}

/** The exact command from the doctor's JSON: ARP-002 on enp12s0np0 (roce-one-subnet). */
function arpCommand(): string {
  const r = spawnSync(process.execPath, ['dist/cli.js', 'doctor', '--root', 'test/fixtures/roce-one-subnet', '--json'], { cwd: ROOT, encoding: 'utf8' });
  const doc = JSON.parse(r.stdout) as { results: { id: string; summary: string; remediation: { commands: string[][] } | null }[] };
  const res = doc.results.find((x) => x.id === 'ARP-002' && x.summary.startsWith('enp12s0np0'))!;
  const argv = res.remediation!.commands[0]!;
  // Every argument is a plain word here (no quoting needed), so the pasteable line is the words joined.
  expect(argv.every((a) => /^[A-Za-z0-9_=/.-]+$/.test(a))).toBe(true);
  return argv.join(' ');
}

/** Text seen through a window scrolled sideways: the ◀ ▶ gutters removed. */
const unmark = (l: string) => l.replace(/^◀/, '').replace(/▶$/, '');

/** True when the windows, found in order in `full`, cover all of it. */
function covers(full: string, windows: string[]): boolean {
  let reach = 0;
  let from = 0;
  for (const w of windows) {
    const at = full.indexOf(w, from);
    if (at < 0 || at > reach) return false;
    reach = Math.max(reach, at + w.length);
    from = at;
  }
  return reach === full.length;
}

/** tmux's paste buffer, '' when there is none. */
function buffer(): string {
  try {
    return T.tmux('show-buffer');
  } catch {
    return '';
  }
}

let n = 0;
const session = () => `s${n++}`;

describe.skipIf(!RUN_TMUX)('layout in a real terminal (tmux)', () => {
  afterAll(() => T.close());

  describe.each(SIZES)('$cols×$rows', ({ cols, rows }) => {
    it('every view: the tab bar names every view, nothing is wider than the terminal, the focused row is on screen', async () => {
      const s = session();
      T.start(s, doctor('ib8-storage'), { cols, rows });
      const views: [string, RegExp, RegExp][] = [
        ['1', /\d+ results/, /^› \[!\] IB-009 /m],
        ['2', /^Trace ◀ socket transport ▶/m, /^› auto: ib \[ib\]/m],
        ['3', /GID table — mlx5_0:1/, /^› mlx5_0:1 /m],
        ['4', /^What-if/m, /^› NCCL_SOCKET_IFNAME +unset/m],
        ['5', /fix(es)? proposed for dgx-h100-01/, /^› \[ \] nccl-conf /m],
        ['6', /ncclx env --format/, /^export NCCL_SOCKET_IFNAME='=ibp24s0'/m],
        ['7', /ncclx topo — NCCL/, /^ {2}GPU0 +PHB\*/m],
      ];
      await T.waitScreen(s, /\d+ results/);
      for (const [key, ready, focused] of views) {
        T.keys(s, key);
        const f = await T.waitScreen(s, ready);
        checkFrame(f, cols, rows, `view ${key}`);
        expect(f, `view ${key}: focused row`).toMatch(focused);
        T.keys(s, '?');
        const h = await T.waitScreen(s, /any key closes/);
        checkFrame(h, cols, rows, `help of view ${key}`);
        expect(h).toMatch(/^ {2}q +Ctrl-C +quit/m);
        T.keys(s, 'x');
        await T.waitScreen(s, (x) => !/any key closes/.test(x));
      }
      // The Summary's cursor stays visible while it moves to the end and back.
      T.keys(s, '1', 'G');
      let f = await T.waitScreen(s, /^› \[.\] TOPO-010 /m);
      checkFrame(f, cols, rows, 'summary at the end');
      T.keys(s, 'g');
      f = await T.waitScreen(s, /^› \[✓\] SOCK-001 /m);
      checkFrame(f, cols, rows, 'summary at the top');
    });

    it('What-if: the field being edited stays on screen with its note on its own row', async () => {
      const s = session();
      T.start(s, doctor('ib8-storage'), { cols, rows });
      await T.waitScreen(s, /\d+ results/);
      T.keys(s, '4', 'Enter');
      await T.waitScreen(s, /editing/);
      T.text(s, '=eno1');
      let f = await T.waitScreen(s, /^bootstrap +eno1 192\.168\.10\.21/m);
      checkFrame(f, cols, rows, 'editing NCCL_SOCKET_IFNAME');
      expect(f).toMatch(/^› NCCL_SOCKET_IFNAME +=eno1▏ +what-if \(node: unset\)$/m);
      // The note is on the edited field's row only; the next field keeps its own.
      expect(f).toMatch(/^ {2}NCCL_IB_HCA +unset$/m);
      expect(f.match(/what-if \(node: unset\)/g)).toHaveLength(1);
      // The last field too: the NCCL version, prefilled, with a bad value and its error.
      T.keys(s, 'Enter', 'Down', 'Down', 'Down', 'Down', 'Down', 'Down', 'Enter', 'C-u');
      T.text(s, '2.x');
      f = await T.waitScreen(s, /^› NCCL version +2\.x▏.*\n✗ last valid version shown — cannot read NCCL version '2\.x'/m);
      checkFrame(f, cols, rows, 'editing the version');
      expect(f).toMatch(/^› NCCL version +2\.x▏ +what-if \(node: 2\.30\.7\)$/m);
      expect(f).toMatch(/^› NCCL_SOCKET_IFNAME|^ {2}NCCL_SOCKET_IFNAME +=eno1 +what-if/m);
    });
  });

  it('RDMA at 60×20: hidden columns are marked ◀ ▶; → brings the NCCL column into view, ← goes back', async () => {
    const s = session();
    T.start(s, doctor('roce-one-subnet'), { cols: 60, rows: 20 });
    await T.waitScreen(s, /\d+ results/);
    T.keys(s, '3');
    let f = await T.waitScreen(s, /GID table — mlx5_0:1/);
    checkFrame(f, 60, 20, 'RDMA');
    const head = (x: string) => linesOf(x).find((l) => /^ {2}DEV:PORT /.test(l))!;
    const port0 = (x: string) => linesOf(x).find((l) => /^› mlx5_0:1 /.test(l))!;
    // The first column stays; the rest is cut at the right edge with ▶, never silently.
    expect(head(f)).toMatch(/^ {2}DEV:PORT STATE +LINK NETDEV +IPv4 +GID +\S*▶$/);
    expect(port0(f)).toMatch(/^› mlx5_0:1 ACTIVE +RoCE enp12s0np0 +172\.16\.0\.11\/24 +GID 3 +\S*▶$/);
    expect(port0(f)).not.toMatch(/yes \[0\]/);
    T.keys(s, 'Right');
    f = await T.waitScreen(s, /^ {2}DEV:PORT ◀/m);
    checkFrame(f, 60, 20, 'RDMA scrolled');
    expect(head(f)).toMatch(/^ {2}DEV:PORT ◀LINK NETDEV +IPv4 +GID +NCCL$/);
    expect(port0(f)).toMatch(/^› mlx5_0:1 ◀RoCE enp12s0np0 +172\.16\.0\.11\/24 +GID 3 yes \[0\]$/);
    // The GID table scrolls on its own, once focused (Enter): its REASON column comes into view.
    const gidHead = (x: string) => linesOf(x).find((l) => /^ {2}IDX /.test(l))!;
    expect(gidHead(f)).toMatch(/▶$/);
    T.keys(s, 'Enter', 'Right', 'Right', 'Right');
    f = await T.waitScreen(s, /^ {2}IDX +◀REASON/m);
    expect(f).toMatch(/^▶ 3 +◀valid AF_INET; GID 2 is v1/m);
    T.keys(s, 'Enter', 'Left');
    f = await T.waitScreen(s, /^ {2}DEV:PORT STATE/m);
    expect(head(f)).toMatch(/▶$/);
  });

  it.each([
    ['ib8-storage', 12],
    ['roce-one-subnet', 8],
  ])('RDMA at 200×50 on %s: every one of the %i ports, whole rows, no empty area while rows are hidden', async (fixture, nports) => {
    const s = session();
    T.start(s, doctor(fixture), { cols: 200, rows: 50 });
    await T.waitScreen(s, /\d+ results/);
    T.keys(s, '3');
    const f = await T.waitScreen(s, /GID table — mlx5_0:1/);
    checkFrame(f, 200, 50, 'RDMA 200×50');
    expect(f).not.toMatch(/ports \d+–\d+ of/);
    for (let i = 0; i < nports; i++) expect(f).toMatch(new RegExp(`^[› ] mlx5_${i}:1 +(ACTIVE|DOWN) `, 'm'));
    expect(f).not.toMatch(/[◀▶]$/m);
    // The GID table follows the ports directly, its detail under it: the spare rows are at the bottom.
    const lines = linesOf(f);
    const gidTitle = lines.findIndex((l) => l.startsWith('GID table'));
    expect(gidTitle).toBe(4 + 2 + nports);
  });

  it('a remediation wider than the screen: rows end in ` \\` and rejoin into the exact command; a wider word scrolls', async () => {
    const cmd = arpCommand();
    for (const { cols, rows } of SIZES) {
      const s = session();
      T.start(s, doctor('roce-one-subnet'), { cols, rows });
      // The cursor starts on the first error: ARP-002 on enp12s0np0.
      await T.waitScreen(s, /^› \[✗\] ARP-002 +enp12s0np0/m);
      T.keys(s, 'Enter', 'NPage', 'NPage', 'NPage');
      const f = await T.waitScreen(s, /^Remediation$/m);
      checkFrame(f, cols, rows, `ARP-002 at ${cols}×${rows}`);
      const lines = linesOf(f);
      const from = lines.indexOf('Remediation') + 1;
      const block = lines.slice(from, lines.findIndex((l, i) => i >= from && !/ \\$/.test(l)) + 1);
      if (cmd.length + 2 <= cols) expect(block).toEqual([`  ${cmd}`]);
      else {
        expect(block.length).toBeGreaterThan(1);
        for (const l of block.slice(0, -1)) expect(l).toMatch(/\S \\$/);
        expect(block[block.length - 1]).not.toMatch(/\\$/);
        // As a shell reads it: backslash-newline removed, the indent is blanks between words.
        expect(block.map((l) => l.replace(/^ {2}/, '')).join('\n').replace(/\\\n/g, '')).toBe(cmd);
      }
    }
    // One word wider than the screen (NCCL_IB_HCA='=…' of IB-015) is not cut: it scrolls, marked.
    const s = session();
    T.start(s, doctor('ib8-storage'), { cols: 80, rows: 24 });
    await T.waitScreen(s, /\d+ results/);
    T.keys(s, 'f', 'g', 'Down', 'Down');
    await T.waitScreen(s, /^› \[!\] IB-015/m);
    T.keys(s, 'Enter', 'NPage', 'NPage');
    let f = await T.waitScreen(s, /^ {2}export NCCL_IB_HCA='=/m);
    const full = "export NCCL_IB_HCA='=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_6:1,mlx5_7:1,mlx5_8:1,mlx5_9:1'";
    const row = (x: string) => linesOf(x).find((l) => /^ {2}(◀|export NCCL_IB_HCA)/.test(l))!.slice(2);
    const seen = [row(f)];
    expect(seen[0]).toMatch(/▶$/);
    for (let i = 0; i < 6 && /▶$/.test(row(f)); i++) {
      const before = row(f);
      T.keys(s, 'Right');
      f = await T.waitScreen(s, (x) => row(x) !== before);
      seen.push(row(f));
    }
    expect(row(f)).toMatch(/^◀.*mlx5_9:1'$/);
    expect(covers(full, seen.map(unmark))).toBe(true);
    // ← scrolls back first, then closes the result.
    T.keys(s, 'Left', 'Left', 'Left', 'Left', 'Left', 'Left');
    await T.waitScreen(s, /^› \[!\] IB-015/m);
  });

  it('Env at 80×24: a long value is not cut; scrolled with → it is seen whole', async () => {
    const env = spawnSync(process.execPath, ['dist/cli.js', 'env', '--root', 'test/fixtures/roce-one-subnet', '--format', 'bash'], { cwd: ROOT, encoding: 'utf8' }).stdout;
    const full = env.split('\n').find((l) => l.startsWith('export NCCL_IB_HCA='))!;
    expect(full.length).toBeGreaterThan(80);
    const s = session();
    T.start(s, doctor('roce-one-subnet'), { cols: 80, rows: 24 });
    await T.waitScreen(s, /\d+ results/);
    T.keys(s, '6');
    let f = await T.waitScreen(s, /ncclx env --format/);
    checkFrame(f, 80, 24, 'Env');
    // The third line of the exports: NCCL_SOCKET_IFNAME and GLOO_SOCKET_IFNAME (one interface: the socket policy) come first.
    const row = (x: string) => linesOf(x)[7]!;
    expect(row(f)).toMatch(/^export NCCL_IB_HCA='=.*▶$/);
    expect(linesOf(f).slice(5).join('\n')).not.toContain('…');
    const seen = [row(f)];
    for (let i = 0; i < 6 && /▶$/.test(row(f)); i++) {
      const before = row(f);
      T.keys(s, 'Right');
      f = await T.waitScreen(s, (x) => row(x) !== before);
      checkFrame(f, 80, 24, 'Env scrolled');
      seen.push(row(f));
    }
    expect(row(f)).toMatch(/^◀/);
    expect(row(f)).not.toMatch(/▶$/);
    expect(covers(full, seen.map(unmark))).toBe(true);
    // f changes the format (← → no longer do).
    T.keys(s, 'f');
    await T.waitScreen(s, /^set -gx NCCL_SOCKET_IFNAME /m);
  });

  it('copy under tmux with set-clipboard external: says it was not copied, how to allow it, and shows the text', async () => {
    // This server has tmux's default.
    expect(T.tmux('show-options', '-gv', 'set-clipboard').trim()).toBe('external');
    const s = session();
    T.start(s, doctor('ib8-storage'), { cols: 80, rows: 24 });
    await T.waitScreen(s, /\d+ results/);
    T.keys(s, '4', 'Enter');
    await T.waitScreen(s, /editing/);
    T.text(s, '=eno1');
    await T.waitScreen(s, /^bootstrap +eno1/m);
    T.keys(s, 'Enter', 'c');
    let f = await T.waitScreen(s, /Not copied: tmux set-clipboard is external/);
    expect(f).toMatch(/^tmux drops OSC 52 from programs unless set-clipboard is on:$/m);
    checkFrame(f, 80, 24, 'copy dropped');
    expect(f).not.toMatch(/Copied to the clipboard/);
    expect(f).toMatch(/^ {2}tmux set -g set-clipboard on$/m);
    expect(f).toMatch(/select the text below by hand/);
    expect(f).toMatch(/^export NCCL_SOCKET_IFNAME='=eno1'$/m);
    // And it is true: tmux kept nothing.
    expect(buffer()).toBe('');
    // After the command it suggests, the copy works and says so.
    T.tmux('set-option', '-g', 'set-clipboard', 'on');
    T.keys(s, 'Escape', 'c');
    f = await T.waitScreen(s, /Copied to the clipboard/);
    expect(f).not.toMatch(/Not copied/);
    const t0 = Date.now();
    let got = '';
    while (Date.now() - t0 < 5000 && !got) {
      got = buffer();
      await new Promise((r) => setTimeout(r, 40));
    }
    expect(got).toBe("export NCCL_SOCKET_IFNAME='=eno1'\n");
    T.tmux('set-option', '-g', 'set-clipboard', 'external');
  });
});

if (!RUN_TMUX) {
  describe('layout in a real terminal', () => {
    it.skip(SKIP_REASON, () => {});
  });
}
