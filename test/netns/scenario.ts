// The scenario DSL of the namespace tests: one namespace per scenario, rows of
// environments, one vitest case per (row, profile). Expected values are
// written by hand from the reference (docs/nccl/) through the profile
// traits below — never computed by ncclx's own code.
//
// Every case of a scenario runs in one ncclx process inside its namespace
// (lib.ts runExplainBatch); a sample of them also runs as a process of its
// own, exactly as a user runs ncclx, and must answer byte for byte the same
// (docs/testing.md, "One process per scenario").

import { mkdirSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildScenario, checkPrerequisites, gate, pool, removeCliCopy, runExplain, runExplainBatch, writeFile, type Built, type ExplainJson, type RunResult, type ScenarioSpec, type Selected } from './lib.js';

export type ProfileName = '2.22.3' | '2.27.7' | '2.28.3' | '2.29.3' | '2.29.7' | '2.30.3' | '2.30.7' | 'ncclx-2.29' | 'ncclx-2.30';

/**
 * What each modelled NCCL build does, as docs/nccl/ states it. `null`
 * = the reference does not say for this build; rows that depend on it leave
 * the profile out.
 */
export interface Traits {
  name: ProfileName;
  /** §1.2: ≥ 2.28.3 skips addresses of links without IFF_RUNNING. NCCLX v2_29/v2_30 fork upstream ≥ 2.29 (§8). */
  running: boolean;
  /** §1.1 step 3; §8 for NCCLX v2_29/v2_30. */
  exclude: '^docker,lo' | '^docker,lo,virbr';
  /** §1.1 step 6 (≥ 2.28.3); absent in NCCLX v2_29/v2_30 (§8). */
  virbr: boolean;
  /** §1.5: the IPv4 subnet test is inverted in 2.29.2 – 2.29.7. */
  inverted: boolean | null;
  /** §8: NCCLX reads NCCL_SOCKET_IPADDR_PREFIX. */
  ncclx: boolean;
  /** §0.1: CRLF conf lines tolerated ≥ 2.30.3. */
  crlf: boolean | null;
  /** §0.1: ~ is $HOME ≥ 2.30.3, the passwd entry's home before. */
  homeFromEnv: boolean | null;
  /** §0.1: NCCL_CONF_FILE names the user conf file ≥ 2.23.4. */
  confFileVar: boolean;
  /** §1.7: `Bootstrap: Using` ≥ 2.24.3, `Bootstrap : Using` before. */
  bootstrapLog: 'Bootstrap: Using' | 'Bootstrap : Using';
}

const COMMON = { confFileVar: true, bootstrapLog: 'Bootstrap: Using' } as const;
const NV_OLD = { ...COMMON, running: false, exclude: '^docker,lo', virbr: false, inverted: false, ncclx: false, crlf: false, homeFromEnv: false } as const;
const NV_NEW = { ...COMMON, running: true, exclude: '^docker,lo,virbr', virbr: true, inverted: false, ncclx: false, crlf: false, homeFromEnv: false } as const;
const NV_230 = { ...NV_NEW, crlf: true, homeFromEnv: true } as const;
const NCCLX = { ...COMMON, running: true, exclude: '^docker,lo', virbr: false, ncclx: true, crlf: null, homeFromEnv: null } as const;

export const TRAITS: Record<ProfileName, Traits> = {
  '2.22.3': { name: '2.22.3', ...NV_OLD, confFileVar: false, bootstrapLog: 'Bootstrap : Using' },
  '2.27.7': { name: '2.27.7', ...NV_OLD },
  '2.28.3': { name: '2.28.3', ...NV_NEW },
  '2.29.3': { name: '2.29.3', ...NV_NEW, inverted: true },
  '2.29.7': { name: '2.29.7', ...NV_NEW, inverted: true },
  '2.30.3': { name: '2.30.3', ...NV_230 },
  '2.30.7': { name: '2.30.7', ...NV_230 },
  // NCCLX v2_29's os/linux.cc (torchcomms) carries upstream 2.29's inverted IPv4 comparison.
  'ncclx-2.29': { name: 'ncclx-2.29', ...NCCLX, inverted: true },
  // 2.30 releases start at 2.30.3, where the bug is fixed.
  'ncclx-2.30': { name: 'ncclx-2.30', ...NCCLX, inverted: false },
};

/** The profiles the brief asks for; extra ones are added per row where a threshold matters. */
export const MAIN: ProfileName[] = ['2.27.7', '2.28.3', '2.29.3', '2.30.7', 'ncclx-2.29', 'ncclx-2.30'];
export const ALL: ProfileName[] = Object.keys(TRAITS) as ProfileName[];

/** Which step of §1.1 (or which consumer path of §1.6) chose the interfaces. */
export type Step = 'ifname' | 'ib' | 'commid' | 'exclude' | 'docker' | 'lo' | 'virbr' | 'bootstrap-commid';

/** The tool's stage label for a step (docs/explain-json.md). */
export function stageLabel(step: Step, p: Traits): string | RegExp {
  switch (step) {
    case 'ifname':
      return 'NCCL_SOCKET_IFNAME';
    case 'ib':
      return 'auto: ib';
    case 'commid':
      return 'auto: NCCL_COMM_ID subnet';
    case 'exclude':
      return `auto: ${p.exclude}`;
    case 'docker':
      return 'auto: docker';
    case 'lo':
      return 'auto: lo';
    case 'virbr':
      return 'auto: virbr';
    case 'bootstrap-commid':
      return /NCCL_COMM_ID/;
  }
}

export interface Expect {
  /** `name display` in order, display being the address as NCCL prints it (fe80::1%eth0). */
  socket?: string[];
  /** Defaults to the first socket interface (§1.6: ncclFindInterfaces with maxIfs 1). */
  ibOob?: string[];
  /** Defaults to the first socket interface when NCCL_COMM_ID is unset (§1.6). */
  bootstrap?: string[];
  socketStage?: Step | null;
  bootstrapStage?: Step | null;
  /** NCCL's WARN lines (§1.6, §1.5) that must be among the consumer's error log. */
  socketError?: string | RegExp;
  bootstrapError?: string | RegExp;
  ibOobError?: string | RegExp;
  /** NCCL's INFO line for the socket transport (§1.7). */
  socketLog?: string;
  /** NCCL's INFO line for bootstrap (§1.7). */
  bootstrapLog?: string;
  findings?: string[];
  noFindings?: string[];
  /** Extra checks on the whole report. */
  check?: (j: ExplainJson) => void;
}

export interface Row {
  name: string;
  env?: Record<string, string | null> | ((b: Built) => Record<string, string | null>);
  args?: string[];
  profiles?: ProfileName[];
  /** Leave out profiles for which the reference is silent. */
  only?: (p: Traits) => boolean;
  expect: (p: Traits, b: Built) => Expect;
  /**
   * Profiles where ncclx is known to disagree with docs/nccl/: the case
   * runs as it.fails (it must keep failing until the tool is fixed).
   */
  knownBug?: (p: Traits) => boolean;
}

export interface Scenario extends ScenarioSpec {
  /** Files written under the scenario's temp dir before anything runs (path relative to it). */
  files?: Record<string, string>;
  rows: Row[];
  /**
   * Run every case also as a process of its own, not only guardSample's: for
   * a scenario whose cases differ in what a process could keep between them
   * (commid.test.ts D06: names resolved and not resolved).
   */
  compareEvery?: boolean;
}

export const fmt = (s: Selected): string => `${s.name} ${s.display}`;

const CONCURRENCY = Math.max(2, cpus().length + 1);

/**
 * Which of n cases also runs as a process of its own: the last, which runs
 * after every other case in the batch process and so is the one most exposed
 * to anything an earlier case left behind.
 */
export function guardSample(n: number): number[] {
  return n > 0 ? [n - 1] : [];
}

let everyCase = false;

/**
 * From now on, scenarios run every case also as a process of its own, not
 * only guardSample's (test/netns/every-case.full.test.ts): whatever state one
 * case leaves in the batch process for the next is caught where it shows.
 */
export function compareEveryCase(): void {
  everyCase = true;
}

/** The batch's answer for a case equals the answer of a process of its own: exit code, stdout and stderr, byte for byte. */
function expectSameRun(label: string, batch: RunResult, alone: RunResult): void {
  expect(batch.code, `${label}: exit code`).toBe(alone.code);
  expect(batch.stderr, `${label}: stderr`).toBe(alone.stderr);
  expect(batch.stdout, `${label}: stdout`).toBe(alone.stdout);
}

function envFor(row: Row, b: Built): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env['PATH'] ?? '/usr/sbin:/usr/bin:/sbin:/bin',
    HOME: join(b.dir, 'home'),
    // An empty conf file: no stray ~/.nccl.conf can leak in (§0.1).
    NCCL_CONF_FILE: b.emptyConf,
  };
  const extra = typeof row.env === 'function' ? row.env(b) : row.env ?? {};
  for (const [k, v] of Object.entries(extra)) {
    if (v === null) delete env[k];
    else env[k] = v;
  }
  return env;
}

function commIdSet(j: ExplainJson): boolean {
  return j.inputs['NCCL_COMM_ID']?.value !== null && j.inputs['NCCL_COMM_ID']?.value !== undefined;
}

function checkStage(label: string, got: string | null, step: Step | null | undefined, p: Traits) {
  if (step === undefined) return;
  if (step === null) {
    expect(got, `${label} stage`).toBeNull();
    return;
  }
  const want = stageLabel(step, p);
  if (typeof want === 'string') expect(got, `${label} stage`).toBe(want);
  else expect(got, `${label} stage`).toMatch(want);
}

function checkError(label: string, c: ExplainJson['socket'], want: string | RegExp | undefined) {
  if (want === undefined) return;
  expect(c.error, `${label} error`).not.toBeNull();
  const logs = c.error!.log;
  if (typeof want === 'string') expect(logs, `${label} error log`).toContain(want);
  else expect(logs.some((l) => want.test(l)), `${label} error log ${JSON.stringify(logs)} ~ ${want}`).toBe(true);
}

/** Invariants that hold for every run (docs/nccl/socket.md §6, docs/explain-json.md). */
export function checkInvariants(r: RunResult, p: Traits): ExplainJson {
  expect(r.json, `ncclx did not print JSON (exit ${r.code}): ${r.stderr}`).not.toBeNull();
  expect([0, 1], `exit code (stderr: ${r.stderr})`).toContain(r.code);
  const j = r.json!;
  expect(j.warnings, 'probe warnings').toEqual([]);
  expect(j.ncclVersion).toBe(p.name);
  for (const c of [j.bootstrap, j.socket, j.ibOob]) {
    expect(c.stage === null, `${c.consumer}: stage is null exactly when nothing is selected`).toBe(c.selected.length === 0);
    for (const s of c.selected) {
      expect(s.address, 'address has no prefix length or scope').not.toMatch(/[/%]/);
      expect(s.family).toBe(s.address.includes(':') ? 'AF_INET6' : 'AF_INET');
    }
  }
  expect(j.socket.selected.length).toBeLessThanOrEqual(16);
  expect(j.bootstrap.selected.length).toBeLessThanOrEqual(1);
  // The IB OOB is ncclFindInterfaces(maxIfs = 1): the socket transport's first.
  expect(j.ibOob.selected.map(fmt), 'ibOob = first socket interface').toEqual(j.socket.selected.slice(0, 1).map(fmt));
  if (!commIdSet(j)) {
    expect(j.bootstrap.selected.map(fmt), 'bootstrap = first socket interface without NCCL_COMM_ID').toEqual(j.socket.selected.slice(0, 1).map(fmt));
  }
  return j;
}

export function checkExpect(j: ExplainJson, e: Expect, p: Traits) {
  if (e.socket) expect(j.socket.selected.map(fmt), 'socket.selected').toEqual(e.socket);
  const first = e.socket?.slice(0, 1);
  const ib = e.ibOob ?? first;
  if (ib) expect(j.ibOob.selected.map(fmt), 'ibOob.selected').toEqual(ib);
  const boot = e.bootstrap ?? (commIdSet(j) ? undefined : first);
  if (boot) expect(j.bootstrap.selected.map(fmt), 'bootstrap.selected').toEqual(boot);
  checkStage('socket', j.socket.stage, e.socketStage, p);
  if (e.socketStage !== undefined) checkStage('ibOob', j.ibOob.stage, e.socketStage, p);
  const bootStage = e.bootstrapStage !== undefined ? e.bootstrapStage : commIdSet(j) ? undefined : e.socketStage;
  checkStage('bootstrap', j.bootstrap.stage, bootStage, p);
  checkError('socket', j.socket, e.socketError);
  checkError('bootstrap', j.bootstrap, e.bootstrapError);
  checkError('ibOob', j.ibOob, e.ibOobError);
  if (e.socketLog !== undefined) expect(j.socket.log).toBe(e.socketLog);
  if (e.bootstrapLog !== undefined) expect(j.bootstrap.log).toBe(e.bootstrapLog);
  const ids = j.findings.map((f) => f.id);
  for (const id of e.findings ?? []) expect(ids, `finding ${id}`).toContain(id);
  for (const id of e.noFindings ?? []) expect(ids, `no finding ${id}`).not.toContain(id);
  e.check?.(j);
}

const g = gate();

/**
 * This file's scenarios, prepared (namespace built, every case run) two at a
 * time in the order they are registered, ahead of vitest reaching them: a
 * scenario's work is one process after another, so two keep both cores busy.
 */
const queue: (() => Promise<void>)[] = [];
let ahead: Promise<unknown> | null = null;
const alive = new Set<Built>();

function prepareAhead(): void {
  ahead ??= pool(queue.map((prepare) => () => prepare().catch(() => {})), 2);
}

/** Register one scenario: a describe block that builds the namespace once and runs every (row, profile). */
export function scenario(title: string, sc: Scenario): void {
  const d = g.run ? describe : describe.skip;
  d(title, () => {
    let built: Built | null = null;
    const results = new Map<string, RunResult>();
    /** Case index → its answer as a process of its own (the fidelity guard). */
    const alone = new Map<number, RunResult>();
    const key = (row: Row, p: ProfileName) => `${row.name}\u0000${p}`;
    const cases: { row: Row; p: Traits }[] = [];
    for (const row of sc.rows) {
      for (const name of row.profiles ?? MAIN) {
        const p = TRAITS[name];
        if (row.only && !row.only(p)) continue;
        cases.push({ row, p });
      }
    }
    const every = everyCase || !!sc.compareEvery;
    const guarded = every ? cases.map((_, i) => i) : guardSample(cases.length);
    const guardedNames = guarded.map((i) => `${cases[i]!.row.name} [${cases[i]!.p.name}]`);

    let prepared: Promise<void> | null = null;
    const prepare = () =>
      (prepared ??= (async () => {
        const b = await buildScenario(sc);
        built = b;
        alive.add(b);
        mkdirSync(join(b.dir, 'home'), { recursive: true });
        for (const [rel, text] of Object.entries(sc.files ?? {})) {
          mkdirSync(dirname(join(b.dir, rel)), { recursive: true });
          writeFile(b.dir, rel, text);
        }
        const inputs = cases.map(({ row, p }) => ({ args: ['--nccl-version', p.name, ...(row.args ?? [])], env: envFor(row, b) }));
        // The batch and the separate processes side by side.
        const [runs, separate] = await Promise.all([
          runExplainBatch(b.ns, inputs),
          pool(guarded.map((i) => () => runExplain(b.ns, inputs[i]!.args, inputs[i]!.env)), CONCURRENCY),
        ]);
        cases.forEach(({ row, p }, i) => results.set(key(row, p.name), runs[i]!));
        guarded.forEach((i, k) => alone.set(i, separate[k]!));
      })());
    queue.push(prepare);

    beforeAll(async () => {
      checkPrerequisites();
      prepareAhead();
      await prepare();
    });

    afterAll(() => {
      if (built) alive.delete(built);
      built?.destroy();
    });

    it(`one process per case answers as the batch does (${every ? `all ${cases.length} cases` : guardedNames.join('; ')})`, () => {
      expect(alone.size, 'scenario was not built').toBe(guardedNames.length);
      for (const [i, r] of alone) {
        const { row, p } = cases[i]!;
        expectSameRun(`${row.name} [${p.name}]`, results.get(key(row, p.name))!, r);
      }
    });

    for (const { row, p } of cases) {
      const t = row.knownBug?.(p) ? it.fails : it;
      t(`${row.name} [${p.name}]`, () => {
        const r = results.get(key(row, p.name));
        expect(r, 'scenario was not built').toBeDefined();
        const j = checkInvariants(r!, p);
        checkExpect(j, row.expect(p, built!), p);
      });
    }
  });
}

/** Registers a visible reason when the suite is skipped, and a failing case under CI without root. */
export function suiteGate(file: string): void {
  afterAll(async () => {
    // Scenarios prepared ahead whose own afterAll never ran (filtered out with -t, say).
    await ahead;
    for (const b of alive) b.destroy();
    alive.clear();
    removeCliCopy();
  });
  if (!g.run) {
    describe.skip(`${file}: ${g.reason}`, () => {
      it('skipped', () => {});
    });
    return;
  }
  if (g.reason) {
    describe(`${file}: prerequisites`, () => {
      it('can run the namespace tests', () => {
        throw new Error(g.reason!);
      });
    });
  }
}
