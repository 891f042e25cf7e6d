// Component and flow tests of the interactive doctor, on the largest fixture
// node, at 80×24: what a person sees in each view and on the main key paths.

import { afterEach, describe, expect, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import type { NodeSnapshot } from '../../src/model/snapshot/types.js';
import { fakeFixApi, fits, fixture, KEY, renderApp, sleep } from './helpers.js';

let snap: NodeSnapshot;
const load = async () => (snap ??= await fixture());

afterEach(() => cleanup());

describe('start-up', () => {
  it('shows progress while the node is read, then the header and the summary', async () => {
    const s = await load();
    let finish!: () => void;
    const gate = new Promise<void>((r) => (finish = r));
    const app = renderApp({
      snapshot: s,
      load: async (onStep) => {
        onStep('links and addresses');
        await sleep(20);
        onStep('RDMA devices, ports and GID tables');
        await gate;
        return s;
      },
    });
    const reading = await app.waitFor(/RDMA devices, ports and GID tables…/);
    expect(reading).toMatch(/Reading the node/);
    expect(reading).toMatch(/\[✓\] links and addresses/);
    expect(reading).toMatch(/reading root test\/fixtures\/ib8-storage/);
    finish();
    const f = await app.waitFor(/results/);
    expect(f).toMatch(/ncclx doctor · dgx-h100-01 \[!\] 3 warnings, 83 ok/);
    expect(f).toMatch(/NCCL 2\.30\.7 \(nccl>=2\.28\.3\) · from no NCCL library found/);
    expect(f).toMatch(/15 links · 12 RDMA ports · root test\/fixtures\/ib8-storage/);
    expect(f).toMatch(/1 Summary +2 Interfaces +3 RDMA +4 What-if +5 Fixes +6 Env +7 Topology/);
    expect(fits(f)).toBeNull();
  });

  it('a failed read is handed to the caller (the CLI reports it and exits 2)', async () => {
    let err: unknown;
    const app = renderApp({ snapshot: await load(), load: async () => Promise.reject(new Error('cannot read x.json')), onError: (e) => (err = e) });
    await sleep(50);
    expect((err as Error).message).toBe('cannot read x.json');
    expect(app.frame()).not.toMatch(/results/);
  });
});

describe('Summary', () => {
  it('groups results by family with flutter-doctor marks; the cursor starts on the first problem', async () => {
    const app = renderApp({ snapshot: await load() });
    const f = await app.waitFor(/results/);
    expect(f).toMatch(/› \[!\] IB-009 +Port\(s\) not ACTIVE/);
    expect(f).toMatch(/\[✓\] IB-001 /);
    await app.press('g');
    const top = await app.waitFor(/› \[✓\] SOCK-001/);
    expect(top).toMatch(/^Socket interfaces$/m);
    expect(top).toMatch(/\[✓\] SOCK-002 +no consumer uses an IPv6 link-local address/);
  });

  it('Enter opens the result: evidence, why and remediation; Esc closes it', async () => {
    const app = renderApp({ snapshot: await load() });
    await app.waitFor(/results/);
    await app.press(KEY.enter);
    const d = await app.waitFor(/Esc back/);
    expect(d).toMatch(/\[!\] IB-009/);
    expect(d).toMatch(/^Why$/m);
    expect(d).toMatch(/^Evidence$/m);
    expect(d).toMatch(/ports used: mlx5_0:1 GID 0/);
    await app.press(KEY.pageDown);
    const rem = (await app.waitFor(/^Remediation$/m)).split(/^Remediation$/m)[1]!;
    // The text report's remediation, checked in the model: IB ports only (the RoCE mlx5_4/mlx5_10 would raise IB-015).
    expect(rem).toMatch(/NCCL_IB_HCA='=mlx5_0:1,mlx5_1:1/);
    expect(rem).not.toMatch(/mlx5_10:1/);
    expect(rem).toMatch(/checked: applied to this node in the model/);
    await app.press(KEY.esc);
    expect(await app.waitFor(/results/)).toMatch(/› \[!\] IB-009/);
  });

  it('f shows problems only; ↓ moves the cursor', async () => {
    const app = renderApp({ snapshot: await load() });
    await app.waitFor(/results/);
    await app.press('f');
    const f = await app.waitFor(/problems only \(f: all\)/);
    expect(f).not.toMatch(/\[✓\]/);
    expect(f).toMatch(/\[i\] SOCK-021/);
    await app.press(KEY.down);
    expect(app.frame()).toMatch(/› \[!\] IB-009/);
  });
});

describe('navigation', () => {
  it('Tab, Shift-Tab and number keys switch views; ? shows the keys; every view fits 80×24', async () => {
    const app = renderApp({ snapshot: await load() });
    await app.waitFor(/results/);
    const seen: string[] = [];
    for (const [key, marker] of [
      [KEY.tab, /Trace ◀ socket transport ▶/],
      [KEY.tab, /GID table — mlx5_0:1/],
      [KEY.tab, /^What-if/m],
      [KEY.tab, /Planning fixes|fix(es)? proposed|Loading the fix planner/],
      [KEY.tab, /ncclx env --format/],
      [KEY.tab, /ncclx topo — NCCL/],
      [KEY.tab, /results/],
      [KEY.shiftTab, /ncclx topo — NCCL/],
      [KEY.shiftTab, /ncclx env --format/],
      ['7', /GPU0 +PHB\*/],
      ['3', /GID table/],
      ['1', /results/],
    ] as const) {
      await app.press(key);
      const f = await app.waitFor(marker);
      expect(fits(f)).toBeNull();
      seen.push(f);
    }
    await app.press('?');
    const help = await app.waitFor(/any key closes/);
    expect(help).toMatch(/Tab \/ Shift-Tab +next \/ previous view/);
    expect(help).toMatch(/f +all results \/ problems only/);
    await app.press('x');
    await app.waitFor((f) => !/any key closes/.test(f));
  });

  it('Topology: the same text as `ncclx topo`, under the what-if; long lines scroll sideways', async () => {
    const app = renderApp({ snapshot: await load() });
    await app.waitFor(/results/);
    await app.press('7');
    let f = await app.waitFor(/ncclx topo — NCCL/);
    expect(f).toMatch(/^ {2}GPU0 +PHB\* +PHB/m);
    expect(f).toMatch(/▶$/m);
    await app.press(KEY.right);
    f = await app.waitFor(/◀/);
    expect(fits(f)).toBeNull();
    // The movement keys every list has: End (G) shows the last line, Home (g) the first, ↓ one line on.
    const [, n] = /\d+–\d+ of (\d+)/.exec(f) ?? [];
    expect(Number(n)).toBeGreaterThan(0);
    await app.press('G');
    f = await app.waitFor(new RegExp(`\\d+–${n} of ${n}`));
    await app.press('g');
    f = await app.waitFor(new RegExp(`1–\\d+ of ${n}`));
    await app.press(KEY.down);
    await app.waitFor(new RegExp(`2–\\d+ of ${n}`));
  });

  it('adapts to the terminal size', async () => {
    const s = await load();
    const app = renderApp({ snapshot: s });
    await app.waitFor(/results/);
    const small = app.frame();
    const { App } = await import('../../src/tui/App.js');
    const { ALL_CHECKS } = await import('../../src/checks/registry.js');
    app.rerender(
      <App load={async () => s} checks={ALL_CHECKS} options={{ uplinkRegex: /^eth[0-9]+$/, include: [] }} source={{ kind: 'live' }} color={false} size={{ cols: 100, rows: 40 }} />,
    );
    const big = await app.waitFor((f) => f.split('\n').length > 30);
    expect(fits(big, 100, 40)).toBeNull();
    expect(small.split('\n').length).toBeLessThanOrEqual(23);
    app.rerender(
      <App load={async () => s} checks={ALL_CHECKS} options={{ uplinkRegex: /^eth[0-9]+$/, include: [] }} source={{ kind: 'live' }} color={false} size={{ cols: 30, rows: 10 }} />,
    );
    expect(await app.waitFor(/Terminal too small/)).toMatch(/30×10/);
  });
});

describe('Interfaces', () => {
  it('shows the three consumers and the per-address trace; ← → switch consumer', async () => {
    const app = renderApp({ snapshot: await load(), initialView: 'interfaces' });
    const f = await app.waitFor(/Trace/);
    expect(f).toMatch(/^bootstrap +ibp24s0 10\.10\.0\.21 \(auto: ib\)/m);
    expect(f).toMatch(/^socket +\[0\]ibp24s0 10\.10\.0\.21 +\[1\]ibp64s0/m);
    expect(f).toMatch(/^IB OOB +ibp24s0 10\.10\.0\.21/m);
    expect(f).toMatch(/eno1 +192\.168\.10\.21 +skipped +name does not start with 'ib'/);
    expect(f).toMatch(/ibp24s0 +10\.10\.0\.21 +selected +matched entry 'ib'/);
    await app.press(KEY.right);
    expect(await app.waitFor(/Trace ◀ IB transport OOB ▶/)).toBeTruthy();
    await app.press(KEY.left, KEY.left);
    expect(await app.waitFor(/Trace ◀ bootstrap ▶/)).toBeTruthy();
    await app.press(KEY.down, KEY.down);
    // The selected row's full reason under the table.
    expect(app.frame().split('\n').slice(-3).join('\n')).toMatch(/eno1 192\.168\.10\.21: name does not start with 'ib'/);
  });
});

describe('RDMA', () => {
  it('lists ports; the GID table highlights NCCL’s entry and gives every other entry’s reason', async () => {
    const app = renderApp({ snapshot: await load(), initialView: 'rdma' });
    const f = await app.waitFor(/GID table/);
    expect(f).toMatch(/IB transport: used, 10 devices, OOB ibp24s0 10\.10\.0\.21/);
    expect(f).toMatch(/mlx5_5:1 +DOWN +RoCE/);
    await app.press(KEY.down, KEY.down, KEY.down, KEY.down);
    const roce = await app.waitFor(/GID table — mlx5_4:1/);
    expect(roce).toMatch(/▶ 3 +::ffff:10\.100\.0\.21 +RoCE v2 +chosen/);
    expect(roce).toMatch(/ {2}2 +::ffff:10\.100\.0\.21 +RoCE v1 +switch-family/);
    expect(roce).toMatch(/4–254 .* skipped/);
    expect(roce).toMatch(/GID 3: chosen — valid AF_INET; GID 2 is v1, GID 3 is v2/);
    await app.press(KEY.enter, KEY.down);
    expect(await app.waitFor(/GID 4–254: skipped — family AF_INET6 \(all-zero entry\)/)).toMatch(/↑↓ entries/);
  });
});

describe('What-if', () => {
  it('a name that matches nothing: new errors first, then what no longer applies, marked apart from "resolved" (issue #25)', async () => {
    const app = renderApp({ snapshot: await load(), initialView: 'whatif' });
    await app.waitFor(/^Result/m);
    await app.press(KEY.enter);
    await app.waitFor(/editing/);
    await app.press('=', 'e', 'n');
    await app.waitFor(/^bootstrap +✗ none/m);
    await app.press(KEY.enter);
    await app.press(KEY.pageDown, KEY.pageDown, KEY.pageDown, KEY.pageDown);
    const below = await app.waitFor(/no longer applies: /);
    expect(below).toMatch(/^· \[!\] TOPO-010 +no longer applies: /m);
    expect(below).not.toMatch(/resolved: /);
  });
  it('editing NCCL_SOCKET_IFNAME updates the selection and the findings on every keystroke', async () => {
    const app = renderApp({ snapshot: await load(), initialView: 'whatif' });
    await app.waitFor(/^Result/m);
    expect(app.frame()).toMatch(/^bootstrap +ibp24s0 10\.10\.0\.21/m);
    await app.press(KEY.enter);
    await app.waitFor(/editing/);
    await app.press('=', 'e', 'n');
    // '=en' matches nothing: NCCL finds no interface, new errors (what no longer applies below them: test/tui/model.test.ts).
    const none = await app.waitFor(/^bootstrap +✗ none/m);
    expect(none).toMatch(/NCCL_SOCKET_IFNAME +=en▏/);
    expect(none).toMatch(/^\+ \[✗\] SOCK-001 +new: /m);
    await app.press('o', '1');
    const f = await app.waitFor(/^bootstrap +eno1 192\.168\.10\.21 +\(NCCL_SOCKET_IFNAME\)/m);
    expect(f).toMatch(/^socket +eno1 192\.168\.10\.21/m);
    expect(f).toMatch(/what-if \(node: unset\)/);
    // eno1 for bootstrap while the IB transport carries the data is the socket policy: nothing new.
    expect(f).not.toMatch(/^\+ /m);
    // Typing digits while editing does not switch views.
    expect(f).toMatch(/^What-if/m);
    await app.press(KEY.enter);
    await app.press('2');
    const ifaces = await app.waitFor(/Trace/);
    expect(ifaces).toMatch(/what-if: NCCL_SOCKET_IFNAME==eno1/);
    expect(ifaces).toMatch(/^bootstrap +eno1/m);
    expect(ifaces).toMatch(/4 What-if\*/);
  });

  it('NCCL_IB_GID_INDEX changes the GID choice; a bad version shows an error; R resets', async () => {
    const app = renderApp({ snapshot: await load(), initialView: 'whatif' });
    await app.waitFor(/^Result/m);
    expect(app.frame()).toMatch(/GID 3: mlx5_4:1, mlx5_10:1/);
    await app.press(KEY.down, KEY.down, KEY.down, KEY.down, KEY.down, KEY.enter, '2', KEY.enter);
    const f = await app.waitFor(/GID 2: mlx5_4:1, mlx5_10:1/);
    expect(f).toMatch(/\+ \[!\] IB-005/);
    await app.press(KEY.down, KEY.enter);
    // The field starts from the version in use.
    expect(await app.waitFor(/NCCL version +2\.30\.7▏/)).toBeTruthy();
    await app.press(KEY.ctrlU, '2', '.', 'x');
    expect(await app.waitFor(/✗ last valid version shown — cannot read NCCL version '2\.x'/)).toMatch(/GID 2: mlx5_4:1, mlx5_10:1/);
    await app.press(KEY.backspace, '2', '7', '.', '3', KEY.enter);
    const v = await app.waitFor(/NCCL version +2\.27\.3/);
    expect(v).not.toMatch(/last valid version shown/);
    expect(v).toMatch(/what-if \(node: 2\.30\.7\)/);
    await app.press('R');
    const reset = await app.waitFor(/GID 3: mlx5_4:1, mlx5_10:1/);
    expect(reset).toMatch(/NCCL version +2\.30\.7/);
    expect(reset).not.toMatch(/What-if\*/);
  });

  it('c copies the exports, shell-quoted, and shows them', async () => {
    const copied: string[] = [];
    const app = renderApp({ snapshot: await load(), initialView: 'whatif', copy: (t) => copied.push(t) });
    await app.waitFor(/^Result/m);
    await app.press(KEY.enter, "=x'y", KEY.enter, KEY.down, 'u', 'c');
    const f = await app.waitFor(/Copied to the clipboard/);
    expect(copied).toEqual([`export NCCL_SOCKET_IFNAME='=x'\\''y'\n`]);
    expect(f).toMatch(/export NCCL_SOCKET_IFNAME='=x'\\''y'/);
  });

  it('c inside a tmux that drops OSC 52: says so, with the command that fixes it, and shows the text', async () => {
    const app = renderApp({ snapshot: await load(), initialView: 'whatif', copy: async () => ({ via: 'tmux', setting: 'external' }) });
    await app.waitFor(/^Result/m);
    await app.press(KEY.enter, '=eno1', KEY.enter, 'c');
    const f = await app.waitFor(/Not copied: tmux set-clipboard is external/);
    expect(f).toMatch(/tmux drops OSC 52 from programs unless set-clipboard is on/);
    expect(f).not.toMatch(/Copied to the clipboard/);
    expect(f).toMatch(/^ {2}tmux set -g set-clipboard on$/m);
    expect(f).toMatch(/select the text below by hand/);
    expect(f).toMatch(/^export NCCL_SOCKET_IFNAME='=eno1'$/m);
    expect(fits(f)).toBeNull();
  });

  it('c when the copy itself fails: says so, never "Copied"', async () => {
    const app = renderApp({
      snapshot: await load(),
      initialView: 'whatif',
      copy: () => {
        throw new Error('write EPIPE');
      },
    });
    await app.waitFor(/^Result/m);
    await app.press(KEY.enter, '=eno1', KEY.enter, 'c');
    const f = await app.waitFor(/Not copied: write EPIPE/);
    expect(f).not.toMatch(/Copied to the clipboard/);
    expect(f).toMatch(/^export NCCL_SOCKET_IFNAME='=eno1'$/m);
  });
});

describe('Fixes', () => {
  it('select fixes, preview the exact commands, cancel the confirmation: nothing is applied', async () => {
    const { api, calls } = fakeFixApi();
    const app = renderApp({ snapshot: await load(), initialView: 'fixes', fixApi: async () => api, source: { kind: 'live' } });
    const f = await app.waitFor(/3 fixes proposed for dgx-h100-01/);
    expect(f).toMatch(/› \[ \] arp-sysctl/);
    expect(f).toMatch(/\[-\] qdisc-priority .*blocked: the root qdisc is mq/);
    await app.press(' ');
    expect(await app.waitFor(/\[x\] arp-sysctl/)).toMatch(/sysctl -w net\/ipv4\/conf\/eth1\/arp_ignore=1/);
    await app.press(KEY.down, KEY.down, ' ');
    expect(await app.waitFor(/qdisc-priority cannot be applied as planned/)).toBeTruthy();
    await app.press(KEY.enter);
    const c = await app.waitFor(/\[y\] apply +\[n\] cancel/);
    expect(c).toMatch(/Apply 1 fix \(2 operations\) to dgx-h100-01 now\?/);
    // While asking, view keys are not taken: '1' does not leave the view.
    await app.press('1');
    expect(app.frame()).toMatch(/\[y\] apply/);
    await app.press('n');
    expect(await app.waitFor(/Cancelled: nothing was changed/)).toBeTruthy();
    expect(calls.apply).toEqual([]);
    await app.press('p');
    expect(await app.waitFor(/Preview — 1 selected fix/)).toMatch(/# arp-sysctl: ARP sysctls/);
  });

  it('confirmed apply shows each operation and the result', async () => {
    const { api, calls } = fakeFixApi();
    const app = renderApp({ snapshot: await load(), initialView: 'fixes', fixApi: async () => api, source: { kind: 'live' } });
    await app.waitFor(/fixes proposed/);
    await app.press('a', KEY.enter);
    await app.waitFor(/\[y\] apply/);
    await app.press('y');
    const f = await app.waitFor(/✓ applied: 3 changed/);
    expect(calls.apply).toEqual([['arp-sysctl', 'rp-filter']]);
    expect(f).toMatch(/\[✓\] sysctl -w net\/ipv4\/conf\/eth1\/arp_ignore=1/);
    expect(f).toMatch(/\[✓\] sysctl -w net\/ipv4\/conf\/eth1\/rp_filter=2/);
    expect(f).toMatch(/journal \/var\/lib\/ncclx\/fix-test\.json/);
    expect(f).toMatch(/r: undo these changes/);
  });

  it('a failure whose rollback failed offers the rollback again, from the journal', async () => {
    const { api, calls } = fakeFixApi({
      outcome: { status: 'rollback-failed', journal: '/var/lib/ncclx/fix-test.json', changed: 1, unchanged: 0, failure: { index: 1, text: 'sysctl -w net/ipv4/conf/eth1/arp_announce=2', error: 'EPERM' }, undoErrors: ['EBUSY'] },
    });
    const app = renderApp({ snapshot: await load(), initialView: 'fixes', fixApi: async () => api, source: { kind: 'live' } });
    await app.waitFor(/fixes proposed/);
    await app.press(' ', KEY.enter, 'y');
    const f = await app.waitFor(/r: retry the rollback/);
    expect(f).toMatch(/\[✗\] sysctl -w net\/ipv4\/conf\/eth1\/arp_announce=2: EPERM/);
    expect(f).toMatch(/and the\s+rollback failed: EBUSY/);
    await app.press('r');
    await app.waitFor(/Roll back from \/var\/lib\/ncclx\/fix-test\.json\?/);
    await app.press('y');
    expect(await app.waitFor(/✓ rolled back/)).toMatch(/undone: sysctl/);
    expect(calls.rollback).toEqual(['/var/lib/ncclx/fix-test.json']);
  });

  it('refuses to apply to data that is not this node (--root, --snapshot)', async () => {
    const { api, calls } = fakeFixApi();
    const app = renderApp({ snapshot: await load(), initialView: 'fixes', fixApi: async () => api, source: { kind: 'snapshot', path: 'node7.json' } });
    await app.waitFor(/fixes proposed/);
    await app.press(' ', KEY.enter);
    const f = await app.waitFor(/Not applied: fixes apply to this node only/);
    expect(f).toMatch(/snapshot node7\.json/);
    expect(calls.apply).toEqual([]);
    expect(calls.preflight).toBe(0);
  });

  it('preflight problems (not root, missing tools) stop the apply before the question', async () => {
    const { api, calls } = fakeFixApi({ preflight: ['not root (uid 1000): run with sudo'] });
    const app = renderApp({ snapshot: await load(), initialView: 'fixes', fixApi: async () => api, source: { kind: 'live' } });
    await app.waitFor(/fixes proposed/);
    await app.press(' ', KEY.enter);
    expect(await app.waitFor(/✗ not root \(uid 1000\)/)).not.toMatch(/\[y\] apply/);
    expect(calls.apply).toEqual([]);
  });

  it('the real planner on the fixture: the nccl-conf fix with its file write', async () => {
    const app = renderApp({ snapshot: await load(), initialView: 'fixes' });
    const f = await app.waitFor(/fix(es)? proposed for dgx-h100-01/, 5000);
    expect(f).toMatch(/nccl-conf/);
    expect(f).toMatch(/cat > \/etc\/nccl\.conf/);
  });
});

describe('Env', () => {
  it('shows ncclx env in the chosen format and writes it to a file', async () => {
    const writes: [string, string][] = [];
    const app = renderApp({ snapshot: await load(), initialView: 'env', writeFile: (p, t) => writes.push([p, t]) });
    const f = await app.waitFor(/ncclx env --format/);
    expect(f).toMatch(/^export NCCL_IB_HCA='=mlx5_0:1,/m);
    // f / F change the format (← → scroll long lines sideways).
    await app.press('f');
    expect(await app.waitFor(/^set -gx NCCL_IB_HCA '=mlx5_0:1,/m)).toBeTruthy();
    await app.press('F', 'F');
    expect(await app.waitFor(/^ +- name: NCCL_IB_HCA/m)).toMatch(/^env:$/m);
    await app.press('f', 'f');
    await app.waitFor(/^set -gx NCCL_IB_HCA/m);
    await app.press('d');
    await app.waitFor(/with --debug/);
    await app.press('w');
    await app.waitFor(/Write to: nccl-env\.fish▏/);
    // Keys go to the file name while it is edited ('1' does not switch views).
    await app.press(KEY.ctrlU, '/tmp/x1.fish', KEY.enter);
    expect(await app.waitFor(/wrote fish to \/tmp\/x1\.fish/)).toBeTruthy();
    expect(writes).toHaveLength(1);
    expect(writes[0]![0]).toBe('/tmp/x1.fish');
    expect(writes[0]![1]).toMatch(/^set -gx NCCL_SOCKET_IFNAME /m);
    expect(writes[0]![1]).toMatch(/^set -gx NCCL_DEBUG 'INFO'/m);
    // Past the screen's last row, in the file: the line for the peer node.
    expect(writes[0]![1]).toMatch(/^# copy to the peer node: RDMA_PEER_IFACES=/m);
  });
});

describe('keys that arrive together', () => {
  it('each key of one read is handled, in order (a held arrow key, a paste ending in Enter)', async () => {
    const copied: string[] = [];
    const app = renderApp({ snapshot: await load(), initialView: 'rdma', copy: (t) => copied.push(t) });
    await app.waitFor(/GID table — mlx5_0:1/);
    await app.press(KEY.down.repeat(4));
    expect(await app.waitFor(/GID table — mlx5_4:1/)).toMatch(/› mlx5_4:1/);
    // Two command keys in one read: 'x' closes the help, '2' still switches views.
    await app.press('?');
    await app.waitFor(/any key closes/);
    await app.press('x2');
    expect(await app.waitFor(/Trace ◀ socket transport ▶/)).not.toMatch(/any key closes/);
    await app.press('4', KEY.enter);
    await app.waitFor(/editing/);
    // Text, Enter and a command key in one read: the Enter ends the edit, 'c' copies.
    await app.press('=eno1\rc');
    expect(await app.waitFor(/Copied to the clipboard/)).toMatch(/NCCL_SOCKET_IFNAME +=eno1 /);
    expect(copied).toEqual(["export NCCL_SOCKET_IFNAME='=eno1'\n"]);
  });
});

describe('keys that arrive together: control keys', () => {
  it('Ctrl-U inside a run of typed text clears the field (it is not typed as a character)', async () => {
    const app = renderApp({ snapshot: await load(), initialView: 'whatif' });
    await app.waitFor(/^Result/m);
    await app.press(KEY.enter, '=eno1');
    await app.waitFor(/NCCL_SOCKET_IFNAME +=eno1▏/);
    await app.press(`${KEY.ctrlU}=ib`);
    const f = await app.waitFor(/NCCL_SOCKET_IFNAME +=ib▏/);
    expect(f).not.toMatch(/\\x15/);
  });
});

describe('quit', () => {
  it('Ctrl-C in a burst of keys (typed fast, pasted) still quits, even while a field is being edited', async () => {
    const app = renderApp({ snapshot: await load() });
    await app.waitFor(/results/);
    await app.press('4', KEY.enter);
    await app.waitFor(/editing/);
    await app.press('ab\x03');
    await sleep(100);
    const n = app.frames.length;
    await app.press('2', '3');
    expect(app.frames.length).toBe(n);
  });
  it('q ends the app (no further frames)', async () => {
    const app = renderApp({ snapshot: await load() });
    await app.waitFor(/results/);
    await app.press('q');
    const n = app.frames.length;
    await app.press('2', '3');
    expect(app.frames.length).toBe(n);
  });
});

describe('control characters from the node', () => {
  it('an interface name that would clear the screen is shown escaped in the views', async () => {
    const { link, snapshotOf } = await import('../unit/helpers.js');
    const evil = 'e\x1b[2J\u202ex';
    const app = renderApp({ snapshot: snapshotOf([link('lo', ['127.0.0.1/8']), link(evil, ['10.0.0.5/24'])], { env: { NCCL_SOCKET_IFNAME: `=${evil}` } }) });
    await app.waitFor(/results/);
    await app.press('2');
    const f = await app.waitFor(/e\\x1b\[2J\\u202ex/);
    expect(f).not.toContain('\x1b[2J');
    expect(f).not.toContain('\u202e');
  });

  it('a host name from the node stays escaped in the header, in every view', async () => {
    const { link, snapshotOf } = await import('../unit/helpers.js');
    const evil = 'e\x1b[2J\u202ex';
    const snap = snapshotOf([link('lo', ['127.0.0.1/8']), link(evil, ['10.0.0.5/24'])], { env: { NCCL_SOCKET_IFNAME: `=${evil}` } });
    snap.host.hostname = `h\x1b]52;c;QQ==\x07st`;
    const app = renderApp({ snapshot: snap });
    const f = await app.waitFor(/results/);
    expect(f).toMatch(/ncclx doctor · h\\x1b\]52;c;QQ==\\x07st/);
    for (const view of ['1', '2', '3', '4', '5', '6']) {
      await app.press(view);
      await sleep(30);
      const g = app.frame();
      expect(g).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f\u202e]/);
    }
  });
});
