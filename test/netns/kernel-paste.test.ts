// Every kernel remediation the doctor prints, pasted ALONE into sh on a real
// kernel, resolves its finding and raises no new warning or error (issue #25):
// a person copies one finding's lines, not the whole report. Each remediation
// gets a fresh namespace in the same broken state, so none leans on another's
// commands. The model makes the same check before the advice is shown
// (src/checks/verify.ts); this is the kernel's side of it.
//
// Covered: ARP-002, ARP-003, ARP-004 (sysctl, ip route, ip rule), QOS-001
// (tc), QOS-002 (nft), SOCK-030 (ip route), IB-010 and IB-027 (`ip link set
// … mtu` on the rails' netdevs: the overlay's /dev/infiniband lets NCCL's IB
// transport open the fixture's devices, and the RoCE MTU follows the real
// veth's MTU as the driver's does). Not here: commands ncclx does not model
// and a namespace cannot run (modprobe, ulimit), which are shown unchecked.

import { afterEach, expect, it } from 'vitest';
import { describeWithTools, doctor, kernelSuite, makeNamespace, rdmaFixture, type DoctorResultJson, type KNamespace } from './kernel-lib.js';
import { pasteLines } from '../helpers/remediation.js';

const RUN = kernelSuite('kernel-paste.test.ts');
const KERNEL_TOOLS = new Set(['sysctl', 'ip', 'tc', 'nft']);

const bad = (r: DoctorResultJson) => r.severity === 'warn' || r.severity === 'error';
const RANK = { error: 2, warn: 1 } as const;

interface Scenario {
  k: KNamespace;
  fixture?: string;
  env: Record<string, string>;
  /** The fixture's devices open (/dev/infiniband present): NCCL's IB transport uses them. */
  devInfiniband?: boolean;
}

/** A kernel remediation: commands only, every one a tool whose effect the kernel model knows (of a warning or error; with `info`, of information too). */
const isKernel = (r: DoctorResultJson, info = false) =>
  (bad(r) || (info && r.severity === 'info')) && !!r.remediation && r.remediation.commands.length > 0 && Object.keys(r.remediation.env).length === 0 && r.remediation.commands.every((c) => KERNEL_TOOLS.has(c[0]!));

/** Still there: the same summary at warn/error, or no fewer warnings/errors of that check than before. */
function stillThere(r: DoctorResultJson, before: DoctorResultJson[], after: DoctorResultJson[]): boolean {
  if (r.severity === 'info') return after.some((x) => x.id === r.id && x.severity === 'info');
  const now = after.filter((x) => x.id === r.id && bad(x));
  return now.some((x) => x.summary === r.summary) || (now.length > 0 && now.length >= before.filter((x) => x.id === r.id && bad(x)).length);
}

/** New problems: per check and level (errors; errors and warnings), more than before, named by summary. */
function appeared(before: DoctorResultJson[], after: DoctorResultJson[]): string[] {
  const out = new Set<string>();
  for (const id of new Set(after.filter(bad).map((r) => r.id))) {
    for (const level of [2, 1]) {
      const at = (r: DoctorResultJson) => r.id === id && bad(r) && RANK[r.severity as 'warn' | 'error'] >= level;
      const was = before.filter(at);
      const now = after.filter(at);
      if (now.length > was.length) for (const x of now) if (!was.some((y) => y.summary === x.summary && y.severity === x.severity)) out.add(`${x.id} ${x.severity} "${x.summary}"`);
    }
  }
  return [...out];
}

/**
 * The proof for one broken state: every kernel remediation it shows, pasted alone into a fresh copy of
 * the state. Returns the check ids proven (the caller asserts the set, so a remediation that stops
 * being shown fails the test too).
 */
async function proveEachAlone(build: () => Promise<Scenario>, args: string[], info = false): Promise<string[]> {
  const run = (s: Scenario) => doctor(s.k, ['--json', ...args], s.env, s.fixture, { devInfiniband: s.devInfiniband });
  const first = await build();
  let shown: DoctorResultJson[];
  try {
    const r = await run(first);
    expect(r.json, r.stderr).not.toBeNull();
    shown = r.json!.results.filter((x) => isKernel(x, info));
  } finally {
    first.k.destroy();
  }
  const problems: string[] = [];
  for (const target of shown) {
    const s = await build();
    try {
      const before = (await run(s)).json!.results;
      const mine = before.find((x) => x.id === target.id && x.summary === target.summary && isKernel(x, info));
      expect(mine, `${target.id} "${target.summary}" shown again in a fresh namespace`).toBeDefined();
      const lines = pasteLines(mine!.remediation);
      for (const line of lines) s.k.exec(['sh', '-c', line]);
      const after = (await run(s)).json!.results;
      if (stillThere(mine!, before, after)) problems.push(`${mine!.id} "${mine!.summary}": not resolved by ${JSON.stringify(lines)}`);
      const fresh = appeared(before, after);
      if (fresh.length) problems.push(`${mine!.id} "${mine!.summary}": ${JSON.stringify(lines)} raises ${fresh.join('; ')}`);
    } finally {
      s.k.destroy();
    }
  }
  expect(problems).toEqual([]);
  return shown.map((r) => r.id);
}

const ARP_KEYS = ['arp_announce', 'arp_ignore', 'arp_filter', 'rp_filter'];

if (RUN) {
  let live: KNamespace[] = [];
  afterEach(() => {
    for (const k of live) k.destroy();
    live = [];
  });

  describeWithTools(['ip', 'sysctl', 'unshare', 'nsenter', 'mount'], 'ARP-002/003/004 pasted alone (two RDMA netdevs on one /24, strict rp_filter)', () => {
    const LINKS = ['eth0', 'ens1f0np0', 'ens2f0np0'];
    const build = async (): Promise<Scenario> => {
      const k = await makeNamespace([
        { name: 'eth0', addrs: ['192.168.77.5/24'] },
        { name: 'ens1f0np0', addrs: ['10.77.0.1/24'] },
        { name: 'ens2f0np0', addrs: ['10.77.0.2/24'] },
      ]);
      live.push(k);
      const s: Record<string, number> = {};
      for (const n of ['all', 'default', ...LINKS]) for (const key of ARP_KEYS) s[`net/ipv4/conf/${n}/${key}`] = 0;
      // Strict reverse-path filtering on both rails: ARP-003 on the one routed through the other.
      s['net/ipv4/conf/ens1f0np0/rp_filter'] = 1;
      s['net/ipv4/conf/ens2f0np0/rp_filter'] = 1;
      k.sysctl(s);
      const fixture = rdmaFixture(k.dir, [
        { dev: 'mlx5_0', netdev: 'ens1f0np0' },
        { dev: 'mlx5_1', netdev: 'ens2f0np0' },
      ]);
      return { k, fixture, env: {} };
    };

    it('each of ARP-002 (both rails), ARP-003 and ARP-004 resolves its finding and breaks nothing, pasted on its own', async () => {
      const ids = await proveEachAlone(build, ['--nccl-version', '2.28.3']);
      expect(ids.sort()).toEqual(['ARP-002', 'ARP-002', 'ARP-003', 'ARP-004']);
    }, 120_000);
  });

  describeWithTools(['ip', 'unshare', 'nsenter', 'mount'], 'IB-010 and IB-027 pasted alone (two RoCE rails on veths whose MTU the paste changes)', () => {
    const build = (mtus: [number, number]) => async (): Promise<Scenario> => {
      const k = await makeNamespace([
        { name: 'eth0', addrs: ['192.168.78.5/24'] },
        { name: 'ens1f0np0', addrs: ['10.78.1.1/24'] },
        { name: 'ens2f0np0', addrs: ['10.78.2.1/24'] },
      ]);
      live.push(k);
      k.exec(['ip', 'link', 'set', 'dev', 'ens1f0np0', 'mtu', String(mtus[0])]);
      k.exec(['ip', 'link', 'set', 'dev', 'ens2f0np0', 'mtu', String(mtus[1])]);
      const fixture = rdmaFixture(k.dir, [
        { dev: 'mlx5_0', netdev: 'ens1f0np0' },
        { dev: 'mlx5_1', netdev: 'ens2f0np0' },
      ]);
      return { k, fixture, env: {}, devInfiniband: true };
    };

    it('rails at netdev MTU 1500 and 9000: the MTU change (ip link set … mtu) resolves IB-010 and breaks nothing, pasted on its own', async () => {
      const ids = await proveEachAlone(build([1500, 9000]), ['--nccl-version', '2.28.3']);
      expect(ids).toEqual(['IB-010']);
    }, 120_000);

    it('both rails at 1500 (RoCE MTU 1024): IB-027\'s MTU change makes it 4096 and breaks nothing, pasted on its own', async () => {
      const ids = await proveEachAlone(build([1500, 1500]), ['--nccl-version', '2.28.3'], true);
      expect(ids).toEqual(['IB-027']);
    }, 120_000);
  });

  describeWithTools(['ip', 'tc', 'nft'], 'QOS-001, QOS-002 and SOCK-030 pasted alone (eth0 10.66.0.5/16 + eth1 10.66.5.5/24)', () => {
    const build = async (): Promise<Scenario> => {
      const k = await makeNamespace([
        { name: 'eth0', addrs: ['10.66.0.5/16'] },
        { name: 'eth1', addrs: ['10.66.5.5/24'] },
      ]);
      live.push(k);
      k.exec(['tc', 'qdisc', 'add', 'dev', 'eth0', 'root', 'handle', '10:', 'tbf', 'rate', '1mbit', 'burst', '32kbit', 'latency', '400ms']);
      k.exec(['nft', 'add', 'table', 'inet', 'site']);
      k.exec(['nft', 'add', 'chain', 'inet', 'site', 'out', '{ type filter hook output priority mangle; }']);
      k.exec(['nft', 'add', 'rule', 'inet', 'site', 'out', 'tcp', 'dport', '29500-29999', 'ip', 'dscp', 'set', 'af31']);
      // NCCL bootstraps on eth0 (first subnet match) while the kernel routes 10.66.5.1 through eth1: SOCK-030.
      return { k, env: { NCCL_COMM_ID: '10.66.5.1:5000' } };
    };

    it('the qdisc removal, the interface DSCP marking and the host route each resolve their finding, pasted on their own', async () => {
      const ids = await proveEachAlone(build, ['--nccl-version', '2.28.3']);
      expect(ids.sort()).toEqual(['QOS-001', 'QOS-002', 'SOCK-030']);
    }, 120_000);
  });
}
