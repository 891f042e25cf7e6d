// Shared by the TUI tests: the fixture node, the App under ink-testing-library
// at 80×24, keys, and waiting for a frame.

import { render } from 'ink-testing-library';
import { join } from 'node:path';
import { ALL_CHECKS } from '../../src/checks/registry.js';
import { probeNode } from '../../src/probe/index.js';
import '../helpers/fixture-faults.js';
import type { NodeSnapshot } from '../../src/model/snapshot/types.js';
import { App, type AppProps } from '../../src/tui/App.js';
import type { FixApi } from '../../src/tui/fix-api.js';
import type { ApplyEvent, ApplyOutcome, Fix, FixPlan } from '../../src/model/fix/types.js';

export const FIXTURES = join(__dirname, '../fixtures');

const snaps = new Map<string, Promise<NodeSnapshot>>();
/** A fixture node read once per test file (kernel and RDMA parts, as the doctor reads it). */
export function fixture(name = 'ib8-storage'): Promise<NodeSnapshot> {
  if (!snaps.has(name)) snaps.set(name, probeNode({ root: join(FIXTURES, name), kernel: true, rdma: true }));
  return snaps.get(name)!;
}

export const KEY = {
  up: '\x1b[A',
  down: '\x1b[B',
  right: '\x1b[C',
  left: '\x1b[D',
  enter: '\r',
  esc: '\x1b',
  tab: '\t',
  shiftTab: '\x1b[Z',
  backspace: '\x7f',
  ctrlU: '\x15',
  pageDown: '\x1b[6~',
};

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// eslint-disable-next-line no-control-regex
export const strip = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '');

export type Rendered = ReturnType<typeof render> & {
  frame(): string;
  /** Waits until the frame matches (or throws with the last frame). */
  waitFor(re: RegExp | ((f: string) => boolean), ms?: number): Promise<string>;
  /** Writes keys one at a time, letting Ink handle each (Esc needs a tick to be told from a sequence). */
  press(...keys: string[]): Promise<void>;
};

export function renderApp(props: Partial<AppProps> & { snapshot: NodeSnapshot }): Rendered {
  const { snapshot, ...rest } = props;
  const r = render(
    <App
      load={async () => snapshot}
      checks={ALL_CHECKS}
      options={{ uplinkRegex: /^eth[0-9]+$/, include: [] }}
      source={{ kind: 'root', path: 'test/fixtures/ib8-storage' }}
      color={false}
      size={{ cols: 80, rows: 24 }}
      fixApi={() => import('../../src/commands/fix-api.js')}
      {...rest}
    />,
  );
  const frame = () => strip(r.lastFrame() ?? '');
  const waitFor = async (re: RegExp | ((f: string) => boolean), ms = 3000) => {
    const ok = (f: string) => (typeof re === 'function' ? re(f) : re.test(f));
    const t0 = Date.now();
    while (Date.now() - t0 < ms) {
      if (ok(frame())) return frame();
      await sleep(5);
    }
    throw new Error(`timed out waiting for ${re}; last frame:\n${frame()}`);
  };
  const press = async (...keys: string[]) => {
    for (const k of keys) {
      r.stdin.write(k);
      await sleep(k === KEY.esc ? 20 : 2);
    }
    await sleep(5);
  };
  return Object.assign(r, { frame, waitFor, press });
}

/** A fix planner that records what the view asked of it. */
export function fakeFixApi(opts: { outcome?: ApplyOutcome; rollback?: ApplyOutcome; preflight?: string[]; fixes?: Fix[] } = {}) {
  const calls = { propose: 0, apply: [] as string[][], rollback: [] as string[], preflight: 0 };
  const fixes: Fix[] = opts.fixes ?? [
    {
      id: 'arp-sysctl',
      title: 'ARP sysctls on the RDMA netdevs',
      resolves: [{ checkId: 'ARP-002', severity: 'error', summary: 'arp_ignore=0' }],
      ops: [
        { kind: 'sysctl', key: 'net/ipv4/conf/eth1/arp_ignore', value: '1' },
        { kind: 'sysctl', key: 'net/ipv4/conf/eth1/arp_announce', value: '2' },
      ],
      notes: [],
      blocked: null,
    },
    {
      id: 'rp-filter',
      title: 'Loose reverse-path filtering',
      resolves: [{ checkId: 'ARP-003', severity: 'error', summary: 'rp_filter=1' }],
      ops: [{ kind: 'sysctl', key: 'net/ipv4/conf/eth1/rp_filter', value: '2' }],
      notes: [],
      blocked: null,
    },
    {
      id: 'qdisc-priority',
      title: 'Priority qdisc',
      resolves: [{ checkId: 'QOS-001', severity: 'warn', summary: 'tbf' }],
      ops: [],
      notes: [],
      blocked: 'the root qdisc is mq; --force replaces it',
    },
  ];
  const text = (op: Fix['ops'][number]) => (op.kind === 'sysctl' ? `sysctl -w ${op.key}=${op.value}` : op.kind);
  const api: FixApi = {
    async proposeFixes() {
      calls.propose++;
      return { schema: 'ncclx.fix-plan/v2', host: 'dgx-h100-01', origin: { kind: 'root', path: '/fixture' }, fixes } satisfies FixPlan;
    },
    commandsFor: (op) => [text(op)],
    preflight: () => {
      calls.preflight++;
      return opts.preflight ?? [];
    },
    async applyPlan(list, o) {
      calls.apply.push(list.map((f) => f.id));
      const ops = list.flatMap((f) => f.ops);
      o.onEvent?.({ type: 'journal', path: '/var/lib/ncclx/fix-test.json' });
      const outcome = opts.outcome ?? { status: 'applied', journal: '/var/lib/ncclx/fix-test.json', changed: ops.length, unchanged: 0, failure: null, undoErrors: [] };
      for (const [index, op] of ops.entries()) {
        o.onEvent?.({ type: 'op-start', index, op, text: text(op) });
        await sleep(5);
        if (outcome.failure && outcome.failure.index === index) {
          o.onEvent?.({ type: 'op-failed', index, op, text: text(op), error: outcome.failure.error });
          break;
        }
        o.onEvent?.({ type: 'op-done', index, op, text: text(op), changed: true } satisfies ApplyEvent);
      }
      return outcome;
    },
    async rollbackJournal(path, o) {
      calls.rollback.push(path);
      const op = fixes[0]!.ops[0]!;
      o.onEvent?.({ type: 'undo-start', index: 0, op, text: text(op) });
      o.onEvent?.({ type: 'undo-done', index: 0, op, text: text(op) });
      return opts.rollback ?? { status: 'applied', journal: path, changed: 1, unchanged: 0, failure: null, undoErrors: [] };
    },
  };
  return { api, calls };
}

/** Every line fits the width and the frame fits the height (one line stays free for the cursor). */
export function fits(frame: string, cols = 80, rows = 24): string | null {
  const lines = frame.split('\n');
  if (lines.length > rows - 1) return `${lines.length} lines > ${rows - 1}`;
  const wide = lines.find((l) => [...l].length > cols);
  return wide ? `line wider than ${cols}: ${wide}` : null;
}
