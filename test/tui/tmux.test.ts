// The built binary in a real terminal: tmux (Debian's package) runs
// `ncclx doctor` on the largest fixture; keys go in with send-keys and the
// screen comes back with capture-pane, as a person would see it.
// CI installs tmux and never skips this file; elsewhere it is skipped, with
// the reason, only when tmux is missing.

import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, RUN_TMUX, SKIP_REASON, tmuxServer, type Tmux } from './tmux-harness.js';
import { tempDir } from '../helpers/tmp.js';

// Made only when the suite runs: a skipped file runs no hooks, so nothing would remove it.
const T: Tmux = RUN_TMUX ? tmuxServer() : (null as unknown as Tmux);
const tmux = (...a: string[]) => T.tmux(...a);
const start = (session: string, cmd: string, env: Record<string, string> = {}) => T.start(session, cmd, { env });
const screen = (session: string, escapes = false) => T.screen(session, escapes);
const waitScreen = (session: string, re: RegExp, ms?: number) => T.waitScreen(session, re, ms);
const keys = (session: string, ...k: string[]) => T.keys(session, ...k);
const text = (session: string, t: string) => T.text(session, t);
const alternate = (session: string) => T.alternate(session);

// The built CLI with the fixtures' failing reads (test/helpers/faults.mjs).
const DOCTOR = 'node test/helpers/ncclx.mjs doctor --root test/fixtures/ib8-storage';

describe.skipIf(!RUN_TMUX)('ncclx doctor in a real terminal (tmux)', () => {
  afterAll(() => T.close());

  it('navigates, opens a result, edits a what-if, copies exports, adapts to resize, refuses fixes off-node, and quits cleanly', async () => {
    start('main', DOCTOR);
    tmux('set-option', '-g', 'set-clipboard', 'on');
    // First full frame: the header and the summary.
    let s = await waitScreen('main', /results/);
    expect(s).toMatch(/^ncclx doctor · dgx-h100-01 \[!\] 3 warnings, 83 ok/m);
    expect(s).toMatch(/^NCCL 2\.30\.7 \(nccl>=2\.28\.3\)/m);
    expect(s).toMatch(/15 links · 12 RDMA ports · root test\/fixtures\/ib8-storage/);
    expect(s).toMatch(/ 1 Summary +2 Interfaces +3 RDMA +4 What-if +5 Fixes +6 Env +7 Topology/);
    expect(s).toMatch(/› \[!\] IB-009/);
    expect(s.trimEnd().split('\n').length).toBeLessThanOrEqual(24);
    expect(alternate('main')).toBe('1');

    keys('main', 'Enter');
    s = await waitScreen('main', /Esc back/);
    expect(s).toMatch(/^Why$/m);
    keys('main', 'Escape');
    await waitScreen('main', /results/);

    keys('main', '?');
    s = await waitScreen('main', /any key closes/);
    expect(s).toMatch(/q +Ctrl-C +quit/);
    keys('main', 'x');

    keys('main', '3');
    await waitScreen('main', /GID table — mlx5_0:1/);
    keys('main', 'Down', 'Down', 'Down', 'Down');
    s = await waitScreen('main', /GID table — mlx5_4:1/);
    expect(s).toMatch(/▶ 3 +::ffff:10\.100\.0\.21 +RoCE v2 +chosen/);

    keys('main', '4');
    await waitScreen('main', /^Result/m);
    keys('main', 'Enter');
    await waitScreen('main', /editing/);
    text('main', '=eno1');
    s = await waitScreen('main', /^bootstrap +eno1 192\.168\.10\.21/m);
    expect(s).toMatch(/NCCL_SOCKET_IFNAME +=eno1/);
    keys('main', 'Enter');
    keys('main', 'c');
    await waitScreen('main', /Copied to the clipboard/);
    // OSC 52 reached the terminal: tmux (set-clipboard on) made a paste buffer of it.
    const t0 = Date.now();
    let buffer = '';
    while (Date.now() - t0 < 5000 && !buffer.includes('NCCL_SOCKET_IFNAME')) {
      try {
        buffer = tmux('show-buffer');
      } catch {
        buffer = '';
      }
      await new Promise((r) => setTimeout(r, 40));
    }
    expect(buffer).toBe("export NCCL_SOCKET_IFNAME='=eno1'\n");

    // Resize: the layout follows (wider columns, more rows).
    tmux('resize-window', '-t', 'main', '-x', '120', '-y', '40');
    s = await waitScreen('main', /assuming the newest known release 2\.30\.7$/m);
    // The footer moved to the new last line (one line stays free), the what-if edit survived.
    expect(s.split('\n')[38]).toMatch(/Tab view +\? keys +q quit/);
    expect(s).toMatch(/^bootstrap +eno1 192\.168\.10\.21/m);
    tmux('resize-window', '-t', 'main', '-x', '80', '-y', '24');
    await new Promise((r) => setTimeout(r, 200));

    keys('main', '5');
    s = await waitScreen('main', /proposed for dgx-h100-01/);
    keys('main', 'Space', 'Enter');
    s = await waitScreen('main', /Not applied: fixes apply to this node only/);

    keys('main', 'q');
    s = await waitScreen('main', /EXIT=\d/);
    // The terminal is back: no alternate screen, the UI gone, one summary line left.
    expect(alternate('main')).toBe('0');
    expect(s).toMatch(/ncclx doctor · dgx-h100-01 \(root test\/fixtures\/ib8-storage\): 3 warnings, 83 ok/);
    expect(s).toMatch(/EXIT=0/);
    expect(s).not.toMatch(/1 Summary/);
  });

  it('Ctrl-C quits and restores the terminal', async () => {
    start('ctrlc', DOCTOR);
    await waitScreen('ctrlc', /results/);
    keys('ctrlc', 'C-c');
    const s = await waitScreen('ctrlc', /EXIT=\d/);
    expect(alternate('ctrlc')).toBe('0');
    expect(s).not.toMatch(/1 Summary/);
    // The terminal is out of raw mode: what is typed now is echoed by the line discipline.
    text('ctrlc', 'typed-after-quit');
    expect(await waitScreen('ctrlc', /typed-after-quit/)).toMatch(/EXIT=0/);
  });

  it('NO_COLOR and --no-color: no colour codes on screen; by default there are', async () => {
    start('color', DOCTOR);
    start('nocolor', DOCTOR, { NO_COLOR: '1' });
    start('nocolorflag', `${DOCTOR} --no-color`);
    for (const s of ['color', 'nocolor', 'nocolorflag']) await waitScreen(s, /results/);
    // eslint-disable-next-line no-control-regex
    const colour = /\x1b\[[0-9;]*(3[0-7]|9[0-7]|38;[0-9;]+)m/;
    expect(screen('color', true)).toMatch(colour);
    expect(screen('nocolor', true)).not.toMatch(colour);
    expect(screen('nocolorflag', true)).not.toMatch(colour);
    // Without colour the selection still shows (inverse video and the › marker).
    expect(screen('nocolor', true)).toMatch(/\x1b\[7m› /);
    for (const s of ['color', 'nocolor', 'nocolorflag']) keys(s, 'q');
  });

  it("--snapshot: another node's data in the UI", async () => {
    // Removed after the file whether this test passes or not.
    const dir = tempDir('ncclx-tui-snap-');
    const file = join(dir, 'node7.json');
    expect(spawnSync(process.execPath, ['dist/cli.js', 'snapshot', '--root', 'test/fixtures/ib8-storage', '-o', file], { cwd: ROOT }).status).toBe(0);
    start('snap', `node dist/cli.js doctor --snapshot ${file}`);
    const s = await waitScreen('snap', /results/);
    expect(s).toMatch(/^ncclx doctor · dgx-h100-01 \[!\] 3 warnings, 83 ok/m);
    expect(s).toContain(`12 RDMA ports · snapshot ${dir}`);
    keys('snap', 'q');
    await waitScreen('snap', /EXIT=0/);
  });

  it('a snapshot that cannot be read: the terminal is restored, the error printed, exit 2', async () => {
    start('bad', 'node dist/cli.js doctor --snapshot /nonexistent/node7.json');
    const s = await waitScreen('bad', /EXIT=\d/);
    expect(s).toMatch(/ncclx: .*node7\.json: cannot read: ENOENT/);
    expect(s).toMatch(/EXIT=2/);
    expect(alternate('bad')).toBe('0');
  });

  it('--no-tui prints the plain report on a terminal', async () => {
    start('plain', `${DOCTOR} --no-tui`);
    const s = await waitScreen('plain', /EXIT=\d/);
    expect(s).toMatch(/0 errors, 3 warnings, 0 unknown, 2 info, 83 ok, 5 not applicable$/m);
    expect(s).not.toMatch(/1 Summary/);
  });
});

if (!RUN_TMUX) {
  describe('ncclx doctor in a real terminal', () => {
    it.skip(SKIP_REASON, () => {});
  });
}
