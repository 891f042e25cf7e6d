// Helpers for the network-namespace integration tests (see docs/testing.md).
//
// A scenario is a list of links with real addresses, built in a fresh network
// namespace; every link that needs a carrier is a veth whose peer lives in a
// second namespace (the "peer" namespace), so "NO-CARRIER" is simply a peer
// left down. `ncclx explain --json` then runs inside the namespace with a clean
// environment, once per profile and environment row: every case of a scenario
// in one ncclx process (batch-run.mjs, runExplainBatch), a sample of them as
// processes of their own (runExplain) to hold the two equal.
//
// Every command is an argument array given to spawn/spawnSync: no shell, so
// interface names such as `e$x;(1` reach `ip` untouched.

import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
export const CLI = join(REPO, 'dist', 'cli.js');

let cliCopy: string | null = null;
let cliBase: string | null = null;

/** Remove this file's private copy of dist/ (called from a file-level afterAll). */
export function removeCliCopy(): void {
  if (cliBase) rmSync(cliBase, { recursive: true, force: true });
  cliBase = null;
  cliCopy = null;
}

/**
 * A private copy of dist/ (with node_modules linked), taken once per test
 * file: other people may rebuild dist/ in the same checkout while the suite
 * runs, and a half-written dist/ must not turn into test failures. The copy is
 * checked by running it once; a copy taken mid-build is retried.
 */
export function cliPath(): string {
  if (cliCopy) return cliCopy;
  let lastErr = '';
  for (let attempt = 0; attempt < 10; attempt++) {
    const base = mkdtempSync(join(tmpdir(), `ncclx-netns-cli-${RUN_ID}-`));
    cpSync(join(REPO, 'dist'), join(base, 'dist'), { recursive: true });
    cpSync(join(REPO, 'package.json'), join(base, 'package.json'));
    symlinkSync(join(REPO, 'node_modules'), join(base, 'node_modules'));
    const cli = join(base, 'dist', 'cli.js');
    const r = spawnSync(process.execPath, [cli, 'explain', '--json', '--nccl-version', '2.28.3'], { encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '', HOME: base, NCCL_CONF_FILE: '/dev/null' } });
    try {
      JSON.parse(r.stdout);
      cliCopy = cli;
      cliBase = base;
      return cli;
    } catch {
      lastErr = r.stderr;
      rmSync(base, { recursive: true, force: true });
      spawnSync('sleep', ['1']);
    }
  }
  throw new Error(`the built CLI does not run (is dist/ being rebuilt?): ${lastErr}`);
}

// ---------------------------------------------------------------------------
// Can we run at all?

export interface Gate {
  run: boolean;
  /** Why the suite is skipped (run = false), or why it must fail (CI without root). */
  reason: string | null;
}

/**
 * Root runs the suite. Not root and not CI: skip, saying why. Not root under
 * CI=true: run anyway, so that the suite fails loudly instead of passing
 * without having tested anything.
 */
export function gate(): Gate {
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  if (root) return { run: true, reason: null };
  if (process.env['CI'] === 'true') {
    return { run: true, reason: 'CI=true but not running as root: network namespace tests cannot run (they must not be skipped in CI)' };
  }
  return { run: false, reason: 'network namespace tests need root (ip netns add); run as root, or set CI=true to make this a failure' };
}

/** Throws with a clear message when the environment cannot run the suite. */
export function checkPrerequisites(): void {
  const g = gate();
  if (g.reason) throw new Error(g.reason);
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` before the netns tests`);
  const ip = spawnSync('ip', ['-V'], { encoding: 'utf8' });
  if (ip.error || ip.status !== 0) throw new Error('iproute2 `ip` is not available (apt-get install iproute2)');
  sweepStale();
  cliPath();
}

let swept = false;

/**
 * Remove namespaces (and /etc/netns dirs) left by an earlier run of this suite
 * that was killed before its afterAll hooks ran. A name is
 * `ncclx-<pid base 36><6 hex>-<n>[p]`; only names whose owning process no
 * longer exists are touched, so a concurrent run is never disturbed.
 */
export function sweepStale(): void {
  if (swept) return;
  swept = true;
  const names = new Set<string>();
  for (const line of sh(['ip', 'netns', 'list'], { allowFail: true }).split('\n')) {
    const name = line.split(' ')[0];
    if (name) names.add(name);
  }
  if (existsSync('/etc/netns')) for (const d of readdirSync('/etc/netns')) names.add(d);
  for (const name of names) {
    const m = /^ncclx-([0-9a-z]+)[0-9a-f]{6}-\d+p?$/.exec(name);
    if (!m) continue;
    const pid = parseInt(m[1]!, 36);
    if (pid === process.pid || alive(pid)) continue;
    sh(['ip', 'netns', 'del', name], { allowFail: true });
    rmSync(`/etc/netns/${name}`, { recursive: true, force: true });
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0); // signal 0: existence check only
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

// ---------------------------------------------------------------------------
// Commands

export class CommandError extends Error {}

/** Run one command (argument array, no shell); throw with its stderr on failure. */
export function sh(argv: readonly string[], opts: { allowFail?: boolean; input?: string } = {}): string {
  const [cmd, ...args] = argv;
  const r = spawnSync(cmd!, args, { encoding: 'utf8', timeout: 20_000, input: opts.input });
  if (r.error) throw new CommandError(`${JSON.stringify(argv)}: ${r.error.message}`);
  if (r.status !== 0 && !opts.allowFail) {
    throw new CommandError(`${JSON.stringify(argv)} exited ${r.status}: ${r.stderr.trim()}`);
  }
  return r.stdout;
}

/** Unique per test run (pid + random), so parallel runs on one machine cannot collide. */
export const RUN_ID = `${process.pid.toString(36)}${randomBytes(3).toString('hex')}`;
let nsCounter = 0;

// ---------------------------------------------------------------------------
// Scenario description

export type LinkState = 'running' | 'nocarrier' | 'down';

/**
 * An address as `ip addr add` takes it. IPv6 addresses always get `nodad` so
 * they are never left tentative.
 */
export type AddrSpec = string | { cidr: string; label?: string; scope?: 'host' | 'link' | 'global'; /** point-to-point: `local peer PEER/len` */ peer?: string };

export interface LinkSpec {
  name: string;
  /**
   * veth (default): the peer sits in the peer namespace; bridge: a bridge with
   * one veth port (its carrier follows the port's peer); vxlan: always has a
   * carrier once up; macvlan: on `parent`; lo: the namespace's loopback.
   */
  kind?: 'veth' | 'bridge' | 'vxlan' | 'macvlan' | 'lo';
  /**
   * running = UP and IFF_RUNNING; nocarrier = UP without carrier (peer down);
   * down = administratively down (addresses are added while it is down, so it
   * keeps its IPv6 addresses too). For lo, `down` means brought up (so it gets
   * 127.0.0.1 and ::1) and then down again: it keeps 127.0.0.1 only.
   */
  state?: LinkState;
  addrs?: AddrSpec[];
  parent?: string;
  /** An explicit ifindex (veth only), to make ifindex order differ from creation order. */
  index?: number;
}

export interface ScenarioSpec {
  /** Links in creation (= ifindex) order. lo is always ifindex 1 and is left down unless listed. */
  links: LinkSpec[];
  /**
   * Files seen over /etc/<name> inside this namespace only (`ip netns exec`
   * bind-mounts /etc/netns/NS/<name> over it; the file must exist in /etc).
   */
  etc?: Record<string, string>;
}

export interface Built {
  ns: string;
  peer: string;
  /** A temporary directory for HOME, conf files, …; removed on destroy. */
  dir: string;
  /** An empty conf file: the default NCCL_CONF_FILE, so no ~/.nccl.conf can leak in. */
  emptyConf: string;
  destroy(): void;
}

/** `ip addr add …` for one address, without `ip -n NS`. */
function addrArgv(dev: string, a: AddrSpec): string[] {
  const spec = typeof a === 'string' ? { cidr: a } : a;
  const argv = ['addr', 'add', spec.cidr];
  if (spec.peer) argv.push('peer', spec.peer);
  argv.push('dev', dev);
  if (spec.label) argv.push('label', spec.label);
  if (spec.scope) argv.push('scope', spec.scope);
  if (spec.cidr.includes(':')) argv.push('nodad');
  return argv;
}

interface IpLinkJson {
  ifname: string;
  flags?: string[];
  operstate?: string;
}

/** Poll (no fixed sleeps) until every link is in the state the scenario asked for. */
async function waitForStates(ns: string, links: LinkSpec[], timeoutMs = 8000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    const cur = JSON.parse(sh(['ip', '-n', ns, '-j', 'link', 'show'])) as IpLinkJson[];
    const bad: string[] = [];
    for (const l of links) {
      const want = l.state ?? 'running';
      const j = cur.find((c) => c.ifname === l.name);
      if (!j) {
        bad.push(`${l.name}: missing`);
        continue;
      }
      const up = (j.flags ?? []).includes('UP');
      // The kernel's IFF_RUNNING: admin up and operstate up (or unknown).
      const running = up && (j.operstate === 'UP' || j.operstate === 'UNKNOWN');
      const have: LinkState = !up ? 'down' : running ? 'running' : 'nocarrier';
      if (have !== want) bad.push(`${l.name}: ${have} (flags ${(j.flags ?? []).join(',')}, operstate ${j.operstate}), want ${want}`);
    }
    if (bad.length === 0) return;
    last = bad.join('; ');
    if (Date.now() > deadline) throw new Error(`links in ${ns} did not settle: ${last}`);
    await sleep(25);
  }
}

/**
 * Run `ip [-n NS] CMD` for each command, in order: all in one `ip -batch`
 * process when every word reads back unchanged from a batch line (one process
 * instead of one per command: building namespaces was a large part of these
 * tests' time), else one process each, so names with quotes, `#` or spaces
 * still reach `ip` as argument arrays.
 */
function ipAll(ns: string | null, cmds: string[][], opts: { allowFail?: boolean } = {}): void {
  if (cmds.length === 0) return;
  const netns = ns === null ? [] : ['-n', ns];
  // iproute2's batch reader cuts a line at `#`, splits it at blanks and takes a word's leading quote as quoting.
  if (cmds.every((c) => c.every((w) => /^[^\s#'"]+$/.test(w)))) {
    sh(['ip', ...(opts.allowFail ? ['-force'] : []), ...netns, '-batch', '-'], { allowFail: opts.allowFail, input: cmds.map((c) => c.join(' ')).join('\n') + '\n' });
    return;
  }
  for (const c of cmds) sh(['ip', ...netns, ...c], { allowFail: opts.allowFail });
}

/** Build a scenario. On any failure, whatever was created is removed before rethrowing. */
export async function buildScenario(spec: ScenarioSpec): Promise<Built> {
  const n = nsCounter++;
  const ns = `ncclx-${RUN_ID}-${n}`;
  const peer = `${ns}p`;
  const dir = mkdtempSync(join(tmpdir(), `ncclx-netns-${RUN_ID}-${n}-`));
  const etcDir = `/etc/netns/${ns}`;
  let created = false;
  const destroy = () => {
    // Deleting a namespace deletes its links; a veth's peer goes with it.
    ipAll(null, [['netns', 'del', ns], ['netns', 'del', peer]], { allowFail: true });
    rmSync(etcDir, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    created = true;
    ipAll(null, [
      ['netns', 'add', ns],
      ['netns', 'add', peer],
      // IPv6 on, no automatic link-local addresses (each scenario lists its
      // addresses), no duplicate address detection.
      [
        'netns', 'exec', ns, 'sysctl', '-qw',
        'net.ipv6.conf.all.disable_ipv6=0',
        'net.ipv6.conf.default.disable_ipv6=0',
        'net.ipv6.conf.default.addr_gen_mode=1',
        'net.ipv6.conf.default.accept_dad=0',
      ],
    ]);
    // NCCL always reads /etc/nccl.conf. If the machine has one, hide it inside
    // the namespace: `ip netns exec` bind-mounts /etc/netns/NS/* over /etc/*.
    const etcFiles: Record<string, string> = {};
    if (existsSync('/etc/nccl.conf')) etcFiles['nccl.conf'] = '';
    Object.assign(etcFiles, spec.etc ?? {});
    if (Object.keys(etcFiles).length) {
      mkdirSync(etcDir, { recursive: true });
      for (const [f, text] of Object.entries(etcFiles)) writeFileSync(join(etcDir, f), text);
    }
    // Commands run in our namespace, then in the peer namespace (peers brought up last: a link gets its
    // carrier whenever both ends are up).
    const inNs: string[][] = [];
    const inPeer: string[][] = [];
    let p = 0;
    const vethPair = (name: string, index?: number) => {
      const pn = `p${p++}`;
      const idx = index === undefined ? [] : ['index', String(index)];
      inNs.push(['link', 'add', name, ...idx, 'type', 'veth', 'peer', 'name', pn, 'netns', peer]);
      return pn;
    };
    for (const l of spec.links) {
      const state = l.state ?? 'running';
      const kind = l.kind ?? (l.name === 'lo' ? 'lo' : 'veth');
      const addrs = l.addrs ?? [];
      const up = () => inNs.push(['link', 'set', l.name, 'up']);
      switch (kind) {
        case 'lo':
          up();
          if (state === 'down') inNs.push(['link', 'set', 'lo', 'down']);
          else if (state === 'nocarrier') throw new Error('lo cannot be nocarrier');
          break;
        case 'veth': {
          const pn = vethPair(l.name, l.index);
          if (state === 'running') inPeer.push(['link', 'set', pn, 'up']);
          if (state !== 'down') up();
          break;
        }
        case 'bridge': {
          inNs.push(['link', 'add', l.name, 'type', 'bridge', 'stp_state', '0']);
          // The port is a veth without addresses: getifaddrs() gives NCCL nothing for it.
          const port = `bp${p}`;
          const pn = vethPair(port);
          inNs.push(['link', 'set', port, 'master', l.name]);
          if (state === 'running') inPeer.push(['link', 'set', pn, 'up']);
          inNs.push(['link', 'set', port, 'up']);
          if (state !== 'down') up();
          break;
        }
        case 'vxlan':
          inNs.push(['link', 'add', l.name, 'type', 'vxlan', 'id', String(100 + p++), 'dstport', '4789']);
          if (state === 'nocarrier') throw new Error('vxlan links always have a carrier');
          if (state !== 'down') up();
          break;
        case 'macvlan':
          if (!l.parent) throw new Error(`macvlan ${l.name} needs a parent`);
          inNs.push(['link', 'add', 'link', l.parent, 'name', l.name, 'type', 'macvlan', 'mode', 'bridge']);
          if (state !== 'down') up();
          break;
      }
      for (const a of addrs) inNs.push(addrArgv(l.name, a));
    }
    ipAll(ns, inNs);
    ipAll(peer, inPeer);
    await waitForStates(ns, spec.links);
    const emptyConf = join(dir, 'empty-nccl.conf');
    writeFileSync(emptyConf, '');
    return { ns, peer, dir, emptyConf, destroy };
  } catch (e) {
    if (created) destroy();
    else rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}

// ---------------------------------------------------------------------------
// Running ncclx

export interface Selected {
  name: string;
  address: string;
  family: 'AF_INET' | 'AF_INET6';
  display: string;
}

export interface ConsumerJson {
  consumer: string;
  selected: Selected[];
  stage: string | null;
  log: string | null;
  error: { log: string[]; why: string } | null;
  indeterminate: string | null;
  trace: { stage: string; name: string; address: string; verdict: string; reason: string }[];
}

export interface ExplainJson {
  ncclVersion: string;
  profile: string;
  inputs: Record<string, { value: string | null; source: string }>;
  bootstrap: ConsumerJson;
  socket: ConsumerJson;
  ibOob: ConsumerJson;
  findings: { id: string; severity: string; message: string; fix: string; consumer?: string }[];
  warnings: string[];
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  json: ExplainJson | null;
}

/**
 * `ip netns exec NS node dist/cli.js explain --json …` with a clean
 * environment: PATH, HOME (a temp dir), and the given variables only. A value
 * of null leaves the variable unset.
 */
export async function runExplain(ns: string, args: string[], env: Record<string, string>): Promise<RunResult> {
  return runJson<ExplainJson>(['ip', 'netns', 'exec', ns, ...explainArgv(args)], env);
}

/** The command line of `ncclx explain --json ARGS` inside a namespace (node and the private dist/ copy). */
function explainArgv(args: string[]): string[] {
  return [process.execPath, cliPath(), 'explain', '--json', ...args];
}

const BATCH_RUN = join(REPO, 'test', 'netns', 'batch-run.mjs');

export interface ExplainCase {
  args: string[];
  env: Record<string, string>;
}

/**
 * Every case in ONE ncclx process inside the namespace (batch-run.mjs): the
 * same argv and environment each case's own process would get, main() called
 * once per case. A process costs ~0.35 s of CPU, almost all of it Node
 * start-up and module loading; a case in the batch costs a few milliseconds.
 * The answers equal separate processes' byte for byte (scenario.ts checks a
 * sample of every scenario, and every case of one, both ways).
 */
export async function runExplainBatch(ns: string, cases: ExplainCase[]): Promise<RunResult[]> {
  if (cases.length === 0) return [];
  const input = JSON.stringify(cases.map((c) => ({ argv: explainArgv(c.args), env: c.env })));
  const main = join(dirname(cliPath()), 'main.js');
  // The driver's own environment is replaced before the first case; PATH only finds `ip`.
  const r = await runJson<{ code: number; stdout: string; stderr: string }[]>(['ip', 'netns', 'exec', ns, process.execPath, BATCH_RUN, main], { PATH: process.env['PATH'] ?? '/usr/sbin:/usr/bin:/sbin:/bin' }, undefined, { input, timeoutMs: 30_000 + 1_000 * cases.length });
  if (r.code !== 0 || !Array.isArray(r.json) || r.json.length !== cases.length) {
    throw new Error(`batch-run.mjs in ${ns} exited ${r.code} with ${Array.isArray(r.json) ? `${r.json.length} answers for ${cases.length} cases` : 'no JSON'}: ${r.stderr.slice(0, 2000)}`);
  }
  return r.json.map((x) => ({ ...x, json: parseJson<ExplainJson>(x.stdout) }));
}

function parseJson<T>(text: string): T | null {
  try {
    return JSON.parse(text) as T;
  } catch {
    return null;
  }
}

/**
 * Run argv (no shell) with exactly `env`, killed after 30 s (or `timeoutMs`),
 * with `input` on its stdin if given; stdout parsed as JSON when it is JSON
 * (json is null otherwise, so tests can assert on it).
 */
export function runJson<T>(argv: string[], env: Record<string, string>, cwd?: string, o: { input?: string; timeoutMs?: number } = {}): Promise<{ code: number | null; stdout: string; stderr: string; json: T | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { env, cwd, stdio: [o.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    // A child that dies before reading its input must fail the test on its exit code, not crash it with EPIPE.
    if (o.input !== undefined) child.stdin!.on('error', () => {}).end(o.input);
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), o.timeoutMs ?? 30_000);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, json: parseJson<T>(stdout) });
    });
  });
}

/** Run tasks with at most `limit` in flight. */
export async function pool<T>(tasks: (() => Promise<T>)[], limit: number): Promise<T[]> {
  const out: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      out[i] = await tasks[i]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return out;
}

export function writeFile(dir: string, name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}
