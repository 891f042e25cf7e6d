// Helpers for the kernel namespace tests (test/netns/kernel-*.test.ts): a
// namespace with veth links whose peers sit in a second namespace, a small
// RDMA sysfs fixture naming those veths, and `ncclx doctor --json` run inside
// the namespace. Every command is an argument array (no shell), so names such
// as `r$d;(0'` reach `ip` untouched.
//
// The gate, the private dist/ copy and `sh` come from ./lib.ts, shared with
// the other namespace suites.

import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { RemediationJson } from '../helpers/remediation.js';
import { cliPath, gate, removeCliCopy, RUN_ID, runJson, sh } from './lib.js';

const OVERLAY = fileURLToPath(new URL('./kernel-overlay.mjs', import.meta.url));

/**
 * Root runs the suite; not root skips it saying why, unless CI=true, where a
 * missing prerequisite is a failure (the suite must never silently pass).
 * Returns whether to define the real tests.
 */
export function kernelSuite(file: string): boolean {
  const g = gate();
  afterAll(() => removeCliCopy());
  if (!g.run) {
    describe.skip(`${file}: ${g.reason}`, () => {
      it('skipped', () => {});
    });
    return false;
  }
  if (g.reason) {
    describe(`${file}: prerequisites`, () => {
      it('can run the namespace tests', () => {
        throw new Error(g.reason!);
      });
    });
    return false;
  }
  return true;
}

/** Absolute path of a tool on PATH, or null. */
export function findTool(tool: string): string | null {
  for (const d of (process.env['PATH'] ?? '').split(':').filter(Boolean)) {
    try {
      accessSync(join(d, tool), constants.X_OK);
      return join(d, tool);
    } catch {
      // not in this directory
    }
  }
  return null;
}

const IN_CI = process.env['CI'] === 'true';

/** The Debian package that ships each tool the kernel suites run. */
const PACKAGE: Record<string, string> = {
  ip: 'iproute2', tc: 'iproute2', nft: 'nftables', iptables: 'iptables', 'iptables-save': 'iptables', 'iptables-restore': 'iptables',
  ip6tables: 'iptables', 'ip6tables-save': 'iptables', 'ip6tables-restore': 'iptables', sysctl: 'procps', unshare: 'util-linux', nsenter: 'util-linux',
  mount: 'mount', setpriv: 'util-linux', sh: 'dash',
};

/** The packages that provide these tools, for a one-line install hint. */
export function packagesFor(tools: string[]): string[] {
  return [...new Set(tools.map((t) => PACKAGE[t] ?? t))];
}

/** Tools a suite needs: throws naming the missing ones and their packages (under CI: .ci/run installs them). */
export function requireTools(tools: string[]): void {
  const missing = tools.filter((t) => !findTool(t));
  if (missing.length) throw new Error(`not installed: ${missing.join(', ')} (apt-get install -y ${packagesFor(missing).join(' ')})`);
}

/**
 * A suite that needs these tools. With a tool missing it is skipped, its title
 * saying which package to install — except under CI=true, where .ci/run
 * installs every tool and a missing one must fail (requireTools in beforeAll).
 */
export function describeWithTools(tools: string[], title: string, fn: () => void): void {
  const missing = tools.filter((t) => !findTool(t));
  if (missing.length && !IN_CI) {
    describe.skip(`${title} — skipped: ${missing.join(', ')} not installed (apt-get install ${packagesFor(missing).join(' ')}); CI installs it and never skips`, () => {
      it('skipped', () => {});
    });
    return;
  }
  describe(title, () => {
    beforeAll(() => requireTools(tools));
    fn();
  });
}

let counter = 0;

export interface KLink {
  name: string;
  addrs?: string[];
}

export interface KNamespace {
  ns: string;
  peer: string;
  dir: string;
  /** Run a command inside the namespace (argument array). */
  exec(argv: string[], opts?: { allowFail?: boolean }): string;
  /** `sysctl -w` inside the namespace; keys in slash form so names with dots work. */
  sysctl(settings: Record<string, string | number>): void;
  destroy(): void;
}

/**
 * A namespace with `lo` up and one veth per link (peer up in `<ns>p`, so the
 * link is RUNNING). Names follow lib.ts's scheme so a killed run is swept.
 */
export async function makeNamespace(links: KLink[]): Promise<KNamespace> {
  const ns = `ncclx-${RUN_ID}-${900 + counter++}`;
  const peer = `${ns}p`;
  const dir = mkdtempSync(join(tmpdir(), `ncclx-kernel-${RUN_ID}-`));
  const etcDir = `/etc/netns/${ns}`;
  const destroy = () => {
    endOverlays(ns);
    sh(['ip', 'netns', 'del', ns], { allowFail: true });
    sh(['ip', 'netns', 'del', peer], { allowFail: true });
    rmSync(etcDir, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    sh(['ip', 'netns', 'add', ns]);
    sh(['ip', 'netns', 'add', peer]);
    // NCCL always reads /etc/nccl.conf: hide the machine's copy inside the namespace.
    if (existsSync('/etc/nccl.conf')) {
      mkdirSync(etcDir, { recursive: true });
      writeFileSync(join(etcDir, 'nccl.conf'), '');
    }
    sh(['ip', '-n', ns, 'link', 'set', 'lo', 'up']);
    links.forEach((l, i) => {
      sh(['ip', '-n', ns, 'link', 'add', l.name, 'type', 'veth', 'peer', 'name', `p${i}`, 'netns', peer]);
      sh(['ip', '-n', peer, 'link', 'set', `p${i}`, 'up']);
      sh(['ip', '-n', ns, 'link', 'set', l.name, 'up']);
      for (const a of l.addrs ?? []) sh(['ip', '-n', ns, 'addr', 'add', a, 'dev', l.name]);
    });
    // Wait (polling, no fixed sleep) until every veth is operationally up.
    const deadline = Date.now() + 8000;
    for (;;) {
      const cur = JSON.parse(sh(['ip', '-n', ns, '-j', 'link', 'show'])) as { ifname: string; operstate?: string }[];
      if (links.every((l) => cur.find((c) => c.ifname === l.name)?.operstate === 'UP')) break;
      if (Date.now() > deadline) throw new Error(`links in ${ns} did not come up: ${JSON.stringify(cur)}`);
      await sleep(25);
    }
  } catch (e) {
    destroy();
    throw e;
  }
  const exec = (argv: string[], opts: { allowFail?: boolean } = {}) => sh(['ip', 'netns', 'exec', ns, ...argv], opts);
  return {
    ns,
    peer,
    dir,
    exec,
    sysctl(settings) {
      exec(['sysctl', '-qw', ...Object.entries(settings).map(([k, v]) => `${k}=${v}`)]);
    },
    destroy,
  };
}

export interface FixturePort {
  dev: string;
  netdev: string;
  linkLayer?: 'Ethernet' | 'InfiniBand';
}

/**
 * /sys/class/infiniband as a RoCE node has it, reduced to what ncclx reads:
 * one ACTIVE port per device whose GID entries name the namespace's veths.
 */
export function rdmaFixture(dir: string, ports: FixturePort[]): string {
  const root = join(dir, 'infiniband');
  for (const p of ports) {
    const port = join(root, p.dev, 'ports', '1');
    for (const sub of ['gids', 'gid_attrs/types', 'gid_attrs/ndevs']) mkdirSync(join(port, sub), { recursive: true });
    writeFileSync(join(port, 'state'), '4: ACTIVE\n');
    writeFileSync(join(port, 'phys_state'), '5: LinkUp\n');
    writeFileSync(join(port, 'link_layer'), `${p.linkLayer ?? 'Ethernet'}\n`);
    writeFileSync(join(port, 'rate'), '100 Gb/sec (4X EDR)\n');
    writeFileSync(join(port, 'lid'), '0x0\n');
    writeFileSync(join(port, 'gids', '0'), 'fe80:0000:0000:0000:0000:0000:0000:0001\n');
    writeFileSync(join(port, 'gid_attrs', 'types', '0'), 'IB/RoCE v1\n');
    writeFileSync(join(port, 'gid_attrs', 'ndevs', '0'), `${p.netdev}\n`);
    writeFileSync(join(port, 'gids', '1'), 'fe80:0000:0000:0000:0000:0000:0000:0001\n');
    writeFileSync(join(port, 'gid_attrs', 'types', '1'), 'RoCE v2\n');
    writeFileSync(join(port, 'gid_attrs', 'ndevs', '1'), `${p.netdev}\n`);
    writeFileSync(join(root, p.dev, 'node_type'), '1: CA\n');
  }
  return root;
}

export interface DoctorResultJson {
  id: string;
  family: string;
  severity: 'ok' | 'info' | 'warn' | 'error' | 'unknown';
  summary: string;
  evidence: { kind: string; source: string; value: string }[];
  why: string | null;
  remediation: RemediationJson | null;
  fixIds: string[];
}

export interface DoctorJson {
  schemaVersion: number;
  exitCode: number;
  summary: { errors: number; warnings: number; ok: number; info: number; unknown: number };
  results: DoctorResultJson[];
}

export interface DoctorRun {
  code: number | null;
  stdout: string;
  stderr: string;
  json: DoctorJson | null;
  /** Results of one check id. */
  of(id: string): DoctorResultJson[];
}

// The fixture's mount namespace, one per (namespace, fixture, /dev/infiniband or not): made once by
// `ip netns exec NS unshare --mount … kernel-overlay.mjs FIXTURE SCRATCH --hold`, entered by each run.
// Entering it costs a small C program; making it afresh per run cost a Node start-up and six mounts.
const overlays = new Map<string, { ns: string; child: ChildProcess; ready: Promise<number> }>();
let overlayCounter = 0;

function overlayPid(k: KNamespace, fixture: string, devInfiniband: boolean): Promise<number> {
  const key = JSON.stringify([k.ns, fixture, devInfiniband]);
  let o = overlays.get(key);
  if (!o) {
    const scratch = join(k.dir, `overlay-${overlayCounter++}`);
    const argv = ['ip', 'netns', 'exec', k.ns, 'unshare', '--mount', '--propagation', 'private', process.execPath, OVERLAY, fixture, scratch, ...(devInfiniband ? ['--dev-infiniband'] : []), '--hold'];
    // Its standard input is ours: it ends with this process, even one killed before its hooks.
    const child = spawn(argv[0]!, argv.slice(1), { stdio: ['pipe', 'pipe', 'pipe'] });
    const ready = new Promise<number>((resolve, reject) => {
      let out = '';
      let err = '';
      child.stdout!.setEncoding('utf8').on('data', (d: string) => {
        out += d;
        // `ip netns exec` and `unshare` exec the overlay in place: the pid is the mount namespace's holder.
        if (out.includes('ready\n')) resolve(child.pid!);
      });
      child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
      child.on('error', reject);
      child.on('close', (code) => reject(new Error(`kernel-overlay.mjs --hold ended (${code}) before it was ready: ${err}`)));
    });
    o = { ns: k.ns, child, ready };
    overlays.set(key, o);
  }
  return o.ready;
}

function endOverlays(ns: string): void {
  for (const [key, o] of overlays) {
    if (o.ns !== ns) continue;
    o.child.kill('SIGKILL');
    overlays.delete(key);
  }
}

/**
 * `ip netns exec NS node dist/cli.js doctor ARGS` with a clean environment
 * (PATH, HOME, NCCL_CONF_FILE and the given variables). With `fixture`,
 * /sys/class/infiniband is the fixture: the run enters the namespace's
 * fixture mount namespace instead (`nsenter --target HOLDER --mount --net`).
 */
export async function doctor(k: KNamespace, args: string[], env: Record<string, string> = {}, fixture?: string, opts: { devInfiniband?: boolean } = {}): Promise<DoctorRun> {
  const r = await ncclx<DoctorJson>(k, ['doctor', ...args], env, fixture, opts);
  return { ...r, of: (id) => (r.json?.results ?? []).filter((x) => x.id === id) };
}

/** Any ncclx command inside the namespace, the same way as `doctor` (JSON parsed when stdout is JSON). */
export async function ncclx<T = unknown>(
  k: KNamespace,
  args: string[],
  env: Record<string, string> = {},
  fixture?: string,
  opts: { cwd?: string; devInfiniband?: boolean } = {},
): Promise<{ code: number | null; stdout: string; stderr: string; json: T | null }> {
  const cli = [process.execPath, cliPath(), ...args];
  // Entering a mount namespace puts the process at its root: --wd keeps the working directory.
  const argv = fixture
    ? ['nsenter', '--target', String(await overlayPid(k, fixture, opts.devInfiniband ?? false)), '--mount', '--net', `--wd=${opts.cwd ?? process.cwd()}`, '--', ...cli]
    : ['ip', 'netns', 'exec', k.ns, ...cli];
  const emptyConf = join(k.dir, 'empty-nccl.conf');
  writeFileSync(emptyConf, '');
  const env2 = { PATH: process.env['PATH'] ?? '/usr/sbin:/usr/bin:/sbin:/bin', HOME: k.dir, NCCL_CONF_FILE: emptyConf, ...env };
  return runJson<T>(argv, env2, opts.cwd);
}
