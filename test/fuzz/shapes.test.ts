// The input shapes of issue #22's campaign, at random: hostile text and
// unicode line separators through every env format and its real readers; huge
// semantic numbers and long strings in every field of a snapshot; deep
// nesting of snapshots and topology XML; directory cycles in a --root tree;
// and option combinations of topo and compare. Each run ends refused by name
// (exit 2, one line) or answered, in bounded time and memory. Seeded; `npm run
// fuzz` (NCCLX_FUZZ_RUNS) runs the large campaign and prints per kind the
// inputs tried, the slowest run and the largest peak RSS.

import fc from 'fast-check';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserError } from '../../src/model/errors.js';
import { SnapshotError, validateSnapshot } from '../../src/model/snapshot/schema.js';
import type { NodeSnapshot } from '../../src/model/snapshot/types.js';
import { parseXml, topoFromXml } from '../../src/model/topo/xml-read.js';
import { probeNode } from '../../src/probe/index.js';
import { cases, checkComments, checkDotenvAndConf, checkNpmYaml, checkPyYaml, checkShells, IN_CI, PYYAML, render, type Rendered } from '../helpers/env-readers.js';
import '../helpers/fixture-faults.js';
import { tempDir } from '../helpers/tmp.js';
import { exercise, runs, TIMEOUT } from './lib.js';

const CLI = join(__dirname, '../../dist/cli.js');
const FIX = join(__dirname, '../fixtures');
const tmp = tempDir('ncclx-shapes-');
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : null;
/** What one run may take: the issue's bounds. */
const MAX_SECONDS = 20;
const MAX_RSS_KB = 1024 * 1024;

/** Per kind: inputs tried, the slowest run (s) and the largest peak RSS (KiB) of a CLI run. */
const tally = new Map<string, { inputs: number; maxSeconds: number; maxRssKb: number }>();
function note(kind: string, seconds: number, rssKb = 0): void {
  const t = tally.get(kind) ?? { inputs: 0, maxSeconds: 0, maxRssKb: 0 };
  tally.set(kind, { inputs: t.inputs + 1, maxSeconds: Math.max(t.maxSeconds, seconds), maxRssKb: Math.max(t.maxRssKb, rssKb) });
}
afterAll(() => {
  for (const [kind, t] of tally) console.log(`fuzz (shapes) ${kind}: ${t.inputs} inputs, slowest ${t.maxSeconds.toFixed(2)} s${t.maxRssKb ? `, peak RSS ${(t.maxRssKb / 1024).toFixed(0)} MiB` : ''}`);
  console.log(`fuzz (shapes) vitest worker peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`);
});

/** An in-process step, timed. */
function timed<T>(kind: string, f: () => T): T {
  const t0 = performance.now();
  const r = f();
  const s = (performance.now() - t0) / 1000;
  note(kind, s);
  expect(s, `${kind}: one input took ${s.toFixed(1)} s`).toBeLessThan(MAX_SECONDS);
  return r;
}

/** The built CLI under /usr/bin/time: the contract of every run, its wall time and peak RSS. */
function ncclx(kind: string, args: string[]): { status: number | null; stdout: string; stderr: string } {
  const argv = [process.execPath, CLI, ...args];
  const t0 = performance.now();
  const r = spawnSync(TIME ?? argv[0]!, TIME ? ['-f', 'ncclx-rss-kb %M', ...argv] : argv.slice(1), { encoding: 'utf8', cwd: tmp, timeout: 60_000, maxBuffer: 256 * 1024 * 1024, env: { PATH: process.env['PATH'] ?? '', HOME: tmp, NO_COLOR: '1' } });
  const seconds = (performance.now() - t0) / 1000;
  const m = /^ncclx-rss-kb (\d+)$/m.exec(r.stderr);
  const stderr = r.stderr.replace(/^(Command exited with non-zero status \d+|ncclx-rss-kb \d+)\n/gm, '');
  note(kind, seconds, m ? Number(m[1]) : 0);
  expect(r.signal, `${kind} ${args.join(' ')}: killed`).toBeNull();
  expect([0, 1, 2], `${kind} ${args.join(' ')}: ${stderr}`).toContain(r.status);
  expect(stderr).not.toMatch(/internal error|^\s+at .+:\d+:\d+\)?$/m);
  if (r.status === 2) expect(stderr.trim().split('\n').length, stderr).toBe(1);
  expect(seconds, `${kind} ${args.join(' ')}`).toBeLessThan(MAX_SECONDS);
  if (m) expect(Number(m[1]), `${kind} ${args.join(' ')}: peak RSS`).toBeLessThan(MAX_RSS_KB);
  return { status: r.status, stdout: r.stdout, stderr };
}

let roce: NodeSnapshot;
let dgx: NodeSnapshot;
beforeAll(async () => {
  roce = await probeNode({ root: join(FIX, 'roce-healthy'), kernel: true, rdma: true, env: {} });
  dgx = await probeNode({ root: join(FIX, 'topo-dgx-h100'), kernel: true, rdma: true, env: {} });
}, 60_000);

// ---------------------------------------------------------------------------
// Text: every code point some reader treats as a line break, a control YAML
// refuses, a shell or YAML metacharacter, then anything.
const BREAKS = ['\u2028', '\u2029', '\u0085', '\r', '\n', '\v', '\f', '\r\n'];
const hostileText = fc
  .array(
    fc.oneof(
      fc.constantFrom(...BREAKS),
      fc.integer({ min: 0, max: 0x1f }).map((c) => String.fromCharCode(c)),
      fc.integer({ min: 0x7f, max: 0x9f }).map((c) => String.fromCharCode(c)),
      fc.constantFrom('\ufeff', '\u202e', '\ud800', '\udfff', '\u{1F600}', '\\', '"', "'", '#', ': ', '- ', '{', '[', '&a', '*a', '!!', '%', '$(id)', '`id`', ';', '='),
      fc.constantFrom('  - name: LD_PRELOAD', '    value: /e.so', 'LD_PRELOAD=/e.so', '#'),
      fc.string({ maxLength: 6 }),
    ),
    { minLength: 1, maxLength: 12 },
  )
  .map((xs) => xs.join(''));

describe('shapes: hostile text through every env format and its readers', () => {
  it('random hostile text in host names, echoed NCCL_* values, conf values, --peer-ifaces and interface names: every reader gets the json entries', () => {
    const all: Rendered[] = [];
    fc.assert(
      fc.property(hostileText, fc.nat(), (payload, which) => {
        const cs = cases(roce, payload);
        const r = timed('text', () => render(cs[which % cs.length]!, payload));
        if (r.out.json.error === null) all.push(r);
      }),
      runs(40),
    );
    checkComments(all);
    checkNpmYaml(all);
    checkDotenvAndConf(all);
    checkShells(all, tmp);
    if (PYYAML || IN_CI) checkPyYaml(all, tmp);
  }, TIMEOUT);
});

// ---------------------------------------------------------------------------
// Numbers and strings: every leaf of a real snapshot, replaced.

type Path = (string | number)[];
/** Every leaf path of a document, iteratively (a snapshot is a few thousand leaves). */
function leaves(doc: unknown, keep: (v: unknown) => boolean): Path[] {
  const out: Path[] = [];
  const stack: [unknown, Path][] = [[doc, []]];
  while (stack.length) {
    const [v, path] = stack.pop()!;
    if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) stack.push([x, [...path, Array.isArray(v) ? Number(k) : k]]);
    else if (keep(v)) out.push(path);
  }
  return out;
}
function setAt(doc: unknown, path: Path, value: unknown): void {
  let node = doc as Record<string | number, unknown>;
  for (const k of path.slice(0, -1)) node = node[k] as Record<string | number, unknown>;
  node[path.at(-1)!] = value;
}

/** A document with values replaced: refused by a SnapshotError naming the file, or modelled (doctor, env in every format) within the bounds. */
function refusedOrModelled(kind: string, doc: unknown): void {
  timed(kind, () => {
    let snap: NodeSnapshot;
    try {
      snap = validateSnapshot(doc, 'fuzz.json');
    } catch (e) {
      expect(e).toBeInstanceOf(SnapshotError);
      expect((e as Error).message).toMatch(/^fuzz\.json: [^\n]*$/);
      return;
    }
    expect(['ok', 'user-error']).toContain(exercise(snap));
  });
}

const HUGE = [2 ** 31 - 1, 2 ** 31, 2 ** 32, 4096, 65_536, 1e9, Number.MAX_SAFE_INTEGER, -1, -(2 ** 31), 1e308, 0.5, 256, 255, 1023, 1024, 8192];

describe('shapes: huge semantic numbers and long strings in every snapshot field', () => {
  it('every numeric field of two real snapshots, one to three at a time, set to a huge, negative or boundary value', () => {
    const bases = [roce, dgx].map((s) => ({ doc: JSON.stringify(s), paths: leaves(s, (v) => typeof v === 'number') }));
    fc.assert(
      fc.property(fc.nat(1), fc.array(fc.tuple(fc.nat(), fc.constantFrom(...HUGE)), { minLength: 1, maxLength: 3 }), (b, edits) => {
        const { doc, paths } = bases[b]!;
        const d = JSON.parse(doc) as unknown;
        for (const [i, v] of edits) setAt(d, paths[i % paths.length]!, v);
        refusedOrModelled('numbers', d);
      }),
      runs(40),
    );
  }, TIMEOUT);

  it('every string field set to a long one, a number-like one or hostile text', () => {
    const doc = JSON.stringify(roce);
    const paths = leaves(roce, (v) => typeof v === 'string');
    const value = fc.oneof(fc.nat({ max: 200_000 }).map((n) => 'f'.repeat(n)), fc.constantFrom('4096', '-1', '999999999999', '0x7fffffff', '1e308', ''), hostileText);
    fc.assert(
      fc.property(fc.nat(), value, (i, v) => {
        const d = JSON.parse(doc) as unknown;
        setAt(d, paths[i % paths.length]!, v);
        refusedOrModelled('strings', d);
      }),
      runs(40),
    );
  }, TIMEOUT);
});

// ---------------------------------------------------------------------------
// Deep nesting.

const nested = (depth: number, open: string, close: string, inner: string) => `${open.repeat(depth)}${inner}${close.repeat(depth)}`;

describe('shapes: deep nesting', () => {
  it('a field of a snapshot replaced by arrays or objects nested up to 100,000 deep: refused by name past 64', () => {
    const doc = JSON.stringify(roce);
    const paths = leaves(roce, () => true);
    fc.assert(
      fc.property(fc.nat(), fc.oneof(fc.integer({ min: 1, max: 80 }), fc.integer({ min: 80, max: 100_000 })), fc.boolean(), (i, depth, arrays) => {
        const d = JSON.parse(doc) as unknown;
        setAt(d, paths[i % paths.length]!, JSON.parse(arrays ? nested(depth, '[', ']', '1') : nested(depth, '{"a":', '}', '1')));
        refusedOrModelled('nesting', d);
      }),
      runs(30),
    );
  }, TIMEOUT);

  it('topology XML nested up to 5,000 deep, or with up to 2,000 siblings: read, or refused with a UserError naming the file', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5000 }), fc.integer({ min: 0, max: 2000 }), fc.constantFrom('pci', 'cpu', 'nic', 'x'), (depth, siblings, tag) => {
        const open = `<${tag} busid="0000:01:00.0" class="0x060400">`;
        const text = `<system version="1"><cpu numaid="0" affinity="ff" arch="x86_64" vendor="GenuineIntel">${nested(depth, open, `</${tag}>`, '<pci busid="0000:02:00.0" class="0x030200"><gpu dev="0" sm="90" rank="0" gdr="1"/></pci>')}${'<pci busid="0000:03:00.0" class="0x020000"/>'.repeat(siblings)}</cpu></system>`;
        timed('xml', () => {
          try {
            topoFromXml(parseXml(text, 'deep.xml'), 'deep.xml');
          } catch (e) {
            expect(e).toBeInstanceOf(UserError);
            expect((e as Error).message).toMatch(/^deep\.xml: [^\n]*$/);
          }
        });
      }),
      runs(30),
    );
  }, TIMEOUT);
});

// ---------------------------------------------------------------------------
// The built CLI: directory cycles, option combinations.

function dirs(root: string, under: string): string[] {
  const out: string[] = [];
  const stack = [under];
  while (stack.length) {
    const rel = stack.pop()!;
    out.push(rel);
    for (const e of readdirSync(join(root, rel), { withFileTypes: true })) if (e.isDirectory()) stack.push(join(rel, e.name));
  }
  return out.sort();
}

describe('shapes: the built CLI', () => {
  it('directory cycles planted in a --root tree (a link to itself, to a parent, to the root, a loop of two): doctor, ib and topo hold the contract', () => {
    const src = join(FIX, 'roce-healthy');
    const all = dirs(src, 'sys');
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 3 })), { minLength: 1, maxLength: 4 }), fc.constantFrom<string[]>(['doctor', '--json'], ['ib', '--json'], ['topo', '--json'], ['ib', 'gids', '--all']), (plants, cmd) => {
        const root = join(tmp, 'cycle');
        rmSync(root, { recursive: true, force: true });
        cpSync(src, root, { recursive: true, verbatimSymlinks: true });
        plants.forEach(([i, kind], n) => {
          const dir = join(root, all[i % all.length]!);
          const target = kind === 0 ? '.' : kind === 1 ? '..' : kind === 2 ? root : `loop${n}b`;
          try {
            symlinkSync(target, join(dir, `loop${n}`));
            if (kind === 3) symlinkSync(`loop${n}`, join(dir, `loop${n}b`));
          } catch {
            // an entry of that name is there already: that plant is skipped
          }
        });
        const r = ncclx('cycles', [...cmd, '--root', root, '--nccl-version', '2.28.3']);
        if (cmd.includes('--json') && r.status !== 2) expect(() => JSON.parse(r.stdout)).not.toThrow();
      }),
      runs(2),
    );
  }, TIMEOUT);

  it('option combinations of topo and compare on real and hostile inputs hold the contract', () => {
    const cmp = join(tmp, 'cmp');
    mkdirSync(cmp, { recursive: true });
    for (let i = 0; i < 3; i++) writeFileSync(join(cmp, `n${i}.json`), JSON.stringify({ ...roce, host: { ...roce.host, hostname: `n${i}` } }, null, 2));
    const bad = JSON.parse(JSON.stringify(roce)) as NodeSnapshot;
    bad.rdma!.devices[0]!.ports[0]!.gidCount = 999_999_999;
    writeFileSync(join(cmp, 'bad.json'), JSON.stringify(bad, null, 2));
    const xml = join(tmp, 'topo.xml');
    writeFileSync(xml, `<system version="1"><cpu numaid="0" affinity="ff" arch="x86_64" vendor="GenuineIntel">${Array.from({ length: 64 }, (_, i) => `<pci busid="0000:${(0x20 + i).toString(16)}:00.0" class="0x030200"><gpu dev="${i}" sm="90" rank="${i}" gdr="1"/></pci>`).join('')}</cpu></system>`);
    const hostile = fc.constantFrom('^$', '', '.*', '^', '=', '(a+)+$', '\u2028', 'mlx5', '^mlx5_0:1', '=mlx5_0', '10.0.0.12', 'h100-roce-12', '::1', '[::1]:1', '999999999', '-1');
    const topo = fc.record(
      {
        hca: hostile.map((v) => ['--hca', v]),
        gdr: fc.constantFrom('LOC', 'PIX', 'PXB', 'PHB', 'SYS', '99', '-1', 'x').map((v) => ['--gdr-level', v]),
        pxn: fc.constant(['--pxn-disable']),
        file: fc.constant(['--topo-file', xml]),
        out: fc.constantFrom(['--json'], ['--xml'], ['-v']),
        version: fc.constantFrom('2.18.3', '2.27.3', '2.28.3', '2.30.7', 'x').map((v) => ['--nccl-version', v]),
      },
      { requiredKeys: [] },
    );
    const compare = fc.record(
      {
        master: hostile.map((v) => ['--master-addr', v]),
        uplink: hostile.map((v) => ['--uplink-regex', v]),
        comm: hostile.map((v) => ['--comm-id', v]),
        topology: fc.constantFrom('auto', 'mesh', 'switched').map((v) => ['--topology', v]),
        jobs: fc.constantFrom('1', '2', '0', '-1', '99999').map((v) => ['--jobs', v]),
        out: fc.constantFrom(['--json'], ['-v']),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.oneof(topo.map((o) => ['topo', '--root', join(FIX, 'topo-dgx-h100'), ...Object.values(o).flat()]), compare.map((o) => ['compare', cmp, ...Object.values(o).flat()])), (args) => {
        ncclx('options', args);
      }),
      runs(4),
    );
  }, TIMEOUT);
});
