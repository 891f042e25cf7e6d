// `ncclx fix` against a real kernel. Every operation is applied inside a
// network namespace to real veth links named like RDMA netdevs, read back
// from the kernel (/proc/sys, `ip -j rule`, `ip -j route`, `nft -j`,
// `iptables -S`, `tc -j qdisc`), rolled back and read back again, and the
// state must be exactly what it was. The RDMA side comes from a small sysfs
// fixture (kernel-overlay.mjs), as in kernel-arp.test.ts; ncclx runs unchanged.

import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithTools, findTool, kernelSuite, makeNamespace, ncclx, rdmaFixture, type KNamespace } from './kernel-lib.js';
import { sh } from './lib.js';
import { nodeIdentity } from '../../src/probe/identity.js';

// Hand-written plans are made "live on this node": the same identity the apply checks.
const PLAN_HEAD = { schema: 'ncclx.fix-plan/v2', host: 'test', origin: { kind: 'live', node: nodeIdentity() } };

const RUN = kernelSuite('fix.test.ts');
const VERSION = ['--nccl-version', '2.28.3'];
const KEYS = ['arp_announce', 'arp_ignore', 'arp_filter', 'rp_filter'];

interface PlanJson {
  schema: string;
  host: string;
  fixes: { id: string; ops: { kind: string; [k: string]: unknown }[]; commands: string[]; blocked: string | null; resolves: { checkId: string }[]; notes: string[] }[];
}

/** Everything a fix may touch, read from the kernel, for exact before/after comparison. */
function kernelState(k: KNamespace, links: string[]) {
  // One `cat` reads them all (a process per file was most of this function's time): one line per file, in order.
  const names = ['all', 'default', ...links].flatMap((n) => KEYS.map((key) => `${n}/${key}`));
  const values = k.exec(['cat', ...names.map((n) => `/proc/sys/net/ipv4/conf/${n}`)]).split('\n');
  if (values.length !== names.length + 1 || values.pop() !== '') throw new Error(`cat of ${names.length} sysctls gave ${JSON.stringify(values)}`);
  const sysctls = Object.fromEntries(names.map((n, i) => [n, values[i]!.trim()]));
  return {
    sysctls,
    rules: JSON.parse(k.exec(['ip', '-j', '-4', 'rule', 'show'])),
    routes: JSON.parse(k.exec(['ip', '-j', '-4', 'route', 'show', 'table', 'all'])),
    // Handles are ids the kernel hands out: a table restored by rollback has the same content under new handles.
    // nftables and iptables only where installed: the preconditions suite must run without them.
    nft: findTool('nft') ? JSON.parse(k.exec(['nft', '-j', 'list', 'ruleset']), (key, v) => (key === 'handle' ? undefined : v)).nftables.filter((x: Record<string, unknown>) => !('metainfo' in x)) : null,
    iptables: findTool('iptables') ? k.exec(['iptables', '-w', '-t', 'mangle', '-S']) : null,
    ip6tables: findTool('ip6tables') ? k.exec(['ip6tables', '-w', '-t', 'mangle', '-S']) : null,
    qdiscs: JSON.parse(k.exec(['tc', '-j', 'qdisc', 'show'])),
  };
}

function baseline(k: KNamespace, links: string[], extra: Record<string, number> = {}) {
  const s: Record<string, number> = {};
  for (const n of ['all', 'default', ...links]) for (const key of KEYS) s[`net/ipv4/conf/${n}/${key}`] = 0;
  k.sysctl({ ...s, ...extra });
}

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const BIND_RUN = fileURLToPath(new URL('./bind-run.mjs', import.meta.url));

/** The temp directory if every directory above it lets other users through (o+x), else /tmp. */
function searchableTmp(): string {
  for (let d = tmpdir(); ; d = dirname(d)) {
    if ((statSync(d).mode & 0o001) === 0) return '/tmp';
    if (dirname(d) === d) return tmpdir();
  }
}

const sysctl = (k: KNamespace, ifname: string, key: string) => k.exec(['cat', `/proc/sys/net/ipv4/conf/${ifname}/${key}`]).trim();

if (RUN) {
  describeWithTools(['ip', 'sysctl', 'unshare', 'nsenter', 'mount', 'nft', 'iptables', 'tc'], 'multi-rail ARP fixes planned by the doctor: apply, verify, apply again, roll back', () => {
    let k: KNamespace;
    let fixture: string;
    const LINKS = ['eth0', 'ens1f0np0', 'ens2f0np0'];
    let before: ReturnType<typeof kernelState>;
    let journal: string;
    let dropIn: string;
    const fix = (args: string[]) => ncclx<PlanJson>(k, ['fix', ...VERSION, ...args], {}, fixture);

    beforeAll(async () => {
      k = await makeNamespace([
        { name: 'eth0', addrs: ['192.168.78.5/24'] },
        { name: 'ens1f0np0', addrs: ['10.78.0.1/24'] },
        { name: 'ens2f0np0', addrs: ['10.78.0.2/24'] },
      ]);
      // Strict rp_filter on the rails, as some distributions ship it: the rp-filter fix is needed too.
      baseline(k, LINKS, { 'net/ipv4/conf/ens1f0np0/rp_filter': 1, 'net/ipv4/conf/ens2f0np0/rp_filter': 1 });
      fixture = rdmaFixture(k.dir, [
        { dev: 'mlx5_0', netdev: 'ens1f0np0' },
        { dev: 'mlx5_1', netdev: 'ens2f0np0' },
      ]);
      journal = join(k.dir, 'journal.json');
      dropIn = join(k.dir, 'sysctl.d', '90-ncclx.conf');
      sh(['mkdir', '-p', join(k.dir, 'sysctl.d')]);
      before = kernelState(k, LINKS);
    });
    afterAll(() => k?.destroy());

    it('dry run: the fixes, the findings they resolve and the exact commands; nothing changes', async () => {
      const r = await fix(['--json', '--only', 'policy-routing,arp-sysctl,rp-filter', '--persist', '--sysctl-file', dropIn]);
      expect(r.code, r.stderr).toBe(0);
      const ids = r.json!.fixes.map((f) => f.id);
      expect(ids).toEqual(['policy-routing', 'arp-sysctl', 'rp-filter', 'sysctl-persist']);
      const byId = Object.fromEntries(r.json!.fixes.map((f) => [f.id, f]));
      expect(byId['policy-routing']!.resolves.map((x) => x.checkId)).toContain('ARP-004');
      expect(byId['arp-sysctl']!.resolves.map((x) => x.checkId)).toContain('ARP-002');
      expect(byId['rp-filter']!.resolves.map((x) => x.checkId)).toContain('ARP-003');
      // The second rail's traffic leaves through the first: it gets a table; the first already routes through itself.
      expect(byId['policy-routing']!.commands).toEqual(['ip -4 route replace 10.78.0.0/24 dev ens2f0np0 src 10.78.0.2 table 100', 'ip -4 rule add from 10.78.0.2 lookup 100']);
      expect(byId['arp-sysctl']!.commands).toContain('sysctl -w net/ipv4/conf/ens1f0np0/arp_announce=2');
      expect(byId['rp-filter']!.commands).toEqual(['sysctl -w net/ipv4/conf/ens2f0np0/rp_filter=2']);
      expect(kernelState(k, LINKS)).toEqual(before);
      expect(existsSync(journal)).toBe(false);
    });

    it('--apply without --yes and without a terminal refuses: exit 2, nothing changed', async () => {
      const r = await fix(['--apply', '--journal', journal]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/not a terminal: add --yes/);
      expect(kernelState(k, LINKS)).toEqual(before);
      expect(existsSync(journal)).toBe(false);
    });

    it('--apply --yes --persist: the kernel reads back every planned value, the journal and the drop-in are written', async () => {
      const r = await fix(['--apply', '--yes', '--journal', journal, '--persist', '--sysctl-file', dropIn]);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).toMatch(/Applied: \d+ change/);
      for (const n of ['ens1f0np0', 'ens2f0np0']) {
        expect(sysctl(k, n, 'arp_announce')).toBe('2');
        expect(sysctl(k, n, 'arp_ignore')).toBe('1');
        expect(sysctl(k, n, 'arp_filter')).toBe('1');
      }
      expect(sysctl(k, 'ens2f0np0', 'rp_filter')).toBe('2');
      expect(sysctl(k, 'eth0', 'arp_announce')).toBe('0'); // not planned, not touched
      const rules = JSON.parse(k.exec(['ip', '-j', '-4', 'rule', 'show'])) as { src?: string; table?: string }[];
      expect(rules.some((x) => x.src === '10.78.0.2' && x.table === '100')).toBe(true);
      const t100 = JSON.parse(k.exec(['ip', '-j', '-4', 'route', 'show', 'table', '100'])) as { dst: string; dev: string; prefsrc: string }[];
      expect(t100).toEqual([expect.objectContaining({ dst: '10.78.0.0/24', dev: 'ens2f0np0', prefsrc: '10.78.0.2' })]);
      // The kernel now routes the second rail's traffic back through itself.
      expect((JSON.parse(k.exec(['ip', '-j', 'route', 'get', '10.78.0.9', 'from', '10.78.0.2'])) as { dev: string }[])[0]!.dev).toBe('ens2f0np0');
      const j = JSON.parse(readFileSync(journal, 'utf8'));
      expect(j.status).toBe('applied');
      expect(j.ops.find((o: { op: { key?: string } }) => o.op.key === 'net/ipv4/conf/ens2f0np0/rp_filter').before).toBe('1');
      const persisted = readFileSync(dropIn, 'utf8');
      expect(persisted).toContain('net/ipv4/conf/ens2f0np0/arp_filter = 1');
      expect(persisted).toContain('net/ipv4/conf/ens2f0np0/rp_filter = 2');
      // The doctor agrees: nothing left for ARP.
      const d = await ncclx<{ results: { id: string; severity: string }[] }>(k, ['doctor', '--json', '--only', 'ARP', ...VERSION], {}, fixture);
      expect(d.json!.results.filter((x) => x.severity !== 'ok' && x.severity !== 'info')).toEqual([]);
    });

    it('applying twice changes nothing the second time and says so', async () => {
      const after = kernelState(k, LINKS);
      const r = await fix(['--apply', '--yes', '--journal', join(k.dir, 'journal2.json')]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/Nothing to fix .*nothing was changed/);
      expect(kernelState(k, LINKS)).toEqual(after);
      expect(existsSync(join(k.dir, 'journal2.json'))).toBe(false);
      // The same plan forced through --only: every operation is found in place.
      const again = await fix(['--apply', '--yes', '--only', 'rp-filter', '--journal', join(k.dir, 'journal3.json')]);
      expect(again.code).toBe(0);
      expect(kernelState(k, LINKS)).toEqual(after);
    });

    it('--rollback restores every previous value exactly and removes the drop-in; a second rollback has nothing to undo', async () => {
      const r = await ncclx(k, ['fix', '--rollback', journal]);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).toMatch(/Rolled back: \d+ operation/);
      expect(kernelState(k, LINKS)).toEqual(before);
      expect(existsSync(dropIn)).toBe(false);
      expect(JSON.parse(readFileSync(journal, 'utf8')).status).toBe('rolled-back');
      const again = await ncclx(k, ['fix', '--rollback', journal]);
      expect(again.code).toBe(0);
      expect(again.stdout).toMatch(/Nothing to undo/);
    });
  });

  describeWithTools(['ip', 'nft', 'iptables', 'ip6tables', 'tc'], 'operations from a saved plan, one by one: apply, read back, roll back, read back', () => {
    let k: KNamespace;
    const ODD = 'r$d;(0';
    const LINKS = [ODD, 'ens1f0np0', 'ens2f0np0'];
    const apply = (plan: object, name: string, extra: string[] = []) => {
      const file = join(k.dir, `${name}.plan.json`);
      writeFileSync(file, JSON.stringify(plan));
      return ncclx(k, ['fix', '--plan', file, '--apply', '--yes', '--journal', join(k.dir, `${name}.journal.json`), ...extra]);
    };
    const rollback = (name: string) => ncclx(k, ['fix', '--rollback', join(k.dir, `${name}.journal.json`)]);
    const plan = (id: string, ops: object[]) => ({ ...PLAN_HEAD, fixes: [{ id, title: id, resolves: [], ops, notes: [], blocked: null }] });

    beforeAll(async () => {
      k = await makeNamespace([
        { name: ODD, addrs: ['10.79.0.1/24'] },
        { name: 'ens1f0np0', addrs: ['10.79.1.1/24'] },
        { name: 'ens2f0np0', addrs: ['10.79.1.2/24'] },
      ]);
      baseline(k, LINKS);
    });
    afterAll(() => k?.destroy());

    it('nft-mark: one table of ncclx\'s own, one rule per selector combination and family, DSCP read back; rollback removes it', async () => {
      const before = kernelState(k, LINKS);
      const selectors = [
        { by: 'oif', iface: ODD },
        { by: 'ports', lo: 40000, hi: 40999, dir: 'dport' },
        { by: 'ports', lo: 50000, hi: 50000, dir: 'dport' },
      ];
      const r = await apply(plan('dscp-marking', [{ kind: 'nft-mark', table: 'ncclx_qos', dscp: 46, selectors }]), 'nft');
      expect(r.code, r.stdout + r.stderr).toBe(0);
      const items = JSON.parse(k.exec(['nft', '-j', 'list', 'table', 'inet', 'ncclx_qos'])).nftables as Record<string, Record<string, unknown>>[];
      const chain = items.find((x) => x['chain'])!['chain']!;
      expect(chain).toMatchObject({ hook: 'output', type: 'filter', prio: -150 });
      const rules = items.filter((x) => x['rule']).map((x) => JSON.stringify(x['rule']!['expr']));
      // 1 interface × 2 port ranges × 2 families: one rule per range, not per port.
      expect(rules).toHaveLength(4);
      for (const e of rules) {
        expect(e).toContain(JSON.stringify(ODD));
        expect(e).toMatch(/"field":"dscp"\}\},"value":"ef"/);
      }
      expect(rules.filter((e) => e.includes('{"range":[40000,40999]}'))).toHaveLength(2);
      expect(rules.filter((e) => e.includes('"right":50000'))).toHaveLength(2);
      expect(rules.filter((e) => e.includes('"protocol":"ip6","field":"dscp"'))).toHaveLength(2);
      // Applying the same plan again: in place, nothing changes.
      const again = await apply(plan('dscp-marking', [{ kind: 'nft-mark', table: 'ncclx_qos', dscp: 46, selectors }]), 'nft2');
      expect(again.stdout).toMatch(/Nothing changed: all 1 operation/);
      const rb = await rollback('nft');
      expect(rb.code, rb.stdout + rb.stderr).toBe(0);
      expect(kernelState(k, LINKS)).toEqual(before);
    });

    it('nft-mark over an older ncclx table: replaced atomically, and rollback brings the old table back exactly', async () => {
      sh(['ip', 'netns', 'exec', k.ns, 'nft', '-f', '-'], { input: 'table inet ncclx_qos {\n chain output {\n  type filter hook output priority mangle; policy accept;\n  oifname "ens1f0np0" ip dscp set cs4 comment "old"\n }\n}\n' });
      const before = kernelState(k, LINKS);
      const r = await apply(plan('dscp-marking', [{ kind: 'nft-mark', table: 'ncclx_qos', dscp: 34, selectors: [{ by: 'daddr', prefix: '10.79.1.0/24', family: 4 }] }]), 'nft-old');
      expect(r.code, r.stdout + r.stderr).toBe(0);
      const listed = k.exec(['nft', 'list', 'table', 'inet', 'ncclx_qos']);
      expect(listed).toContain('ip daddr 10.79.1.0/24');
      expect(listed).toContain('ip dscp set af41');
      expect(listed).not.toContain('"old"');
      await rollback('nft-old');
      expect(kernelState(k, LINKS)).toEqual(before);
      k.exec(['nft', 'delete', 'table', 'inet', 'ncclx_qos']);
    });

    it('iptables-mark: a mangle chain of ncclx\'s own jumped to from OUTPUT, in iptables and ip6tables; rollback removes both', async () => {
      const before = kernelState(k, LINKS);
      const r = await apply(
        plan('dscp-marking', [{ kind: 'iptables-mark', chain: 'NCCLX_QOS', dscp: 46, ipv6: true, selectors: [{ by: 'oif', iface: ODD }, { by: 'uid', uid: 0 }] }]),
        'ipt',
      );
      expect(r.code, r.stdout + r.stderr).toBe(0);
      const v4 = k.exec(['iptables', '-w', '-t', 'mangle', '-S']);
      expect(v4).toContain('-A OUTPUT -j NCCLX_QOS');
      expect(v4).toMatch(/-A NCCLX_QOS -o r\$d;\(0 -p tcp -m owner --uid-owner 0 .*-j DSCP --set-dscp 0x2e/);
      const v6 = k.exec(['ip6tables', '-w', '-t', 'mangle', '-S']);
      expect(v6).toContain('-A OUTPUT -j NCCLX_QOS');
      expect(v6).toMatch(/-A NCCLX_QOS -o r\$d;\(0 .*--set-dscp 0x2e/);
      const rb = await rollback('ipt');
      expect(rb.code, rb.stdout + rb.stderr).toBe(0);
      expect(kernelState(k, LINKS)).toEqual(before);
    });

    it('qdisc: a priority root on a link whose root is the kernel default; rollback gives the default back', async () => {
      const before = kernelState(k, LINKS);
      expect(before.qdiscs.find((q: { dev: string; root?: boolean }) => q.dev === 'ens1f0np0' && q.root)).toMatchObject({ kind: 'noqueue', handle: '0:' });
      const r = await apply(plan('qdisc-priority', [{ kind: 'qdisc', dev: 'ens1f0np0', scheduler: 'htb', dscp: 46, rateMbit: 1000, replaces: 'noqueue' }]), 'qdisc');
      expect(r.code, r.stdout + r.stderr).toBe(0);
      const q = JSON.parse(k.exec(['tc', '-j', 'qdisc', 'show', 'dev', 'ens1f0np0'])) as { kind: string; handle: string; root?: boolean }[];
      expect(q.find((x) => x.root)).toMatchObject({ kind: 'htb', handle: '1:' });
      const f = JSON.parse(k.exec(['tc', '-j', 'filter', 'show', 'dev', 'ens1f0np0', 'parent', '1:'])) as { protocol: string; options?: { flowid?: string; match?: { value: string; mask: string } } }[];
      // DSCP 46 = TOS 0xb8 under mask 0xfc, to the first class, for IPv4 and IPv6.
      expect(f.find((x) => x.protocol === 'ip' && x.options?.flowid)?.options).toMatchObject({ flowid: '1:10', match: { value: 'b80000', mask: 'fc0000' } });
      expect(f.find((x) => x.protocol === 'ipv6' && x.options?.flowid)?.options?.flowid).toBe('1:10');
      await rollback('qdisc');
      expect(kernelState(k, LINKS)).toEqual(before);
    });

    it('qdisc: a root someone configured (tbf) is never replaced, even with --force; nothing changes', async () => {
      k.exec(['tc', 'qdisc', 'add', 'dev', 'ens2f0np0', 'root', 'handle', '5:', 'tbf', 'rate', '1gbit', 'burst', '32kb', 'latency', '50ms']);
      const before = kernelState(k, LINKS);
      const r = await apply(plan('qdisc-priority', [{ kind: 'qdisc', dev: 'ens2f0np0', scheduler: 'htb', dscp: 46, rateMbit: 1000, replaces: 'noqueue' }]), 'tbf', ['--force']);
      expect(r.code).toBe(1);
      expect(r.stdout).toMatch(/Refused before any change: .*tbf 5:.*will not replace it/);
      expect(kernelState(k, LINKS)).toEqual(before);
      k.exec(['tc', 'qdisc', 'del', 'dev', 'ens2f0np0', 'root']);
    });

    it('a plan applies only where it was made live: snapshot, --root, another machine, another boot and old plans are refused (exit 2), nothing changed', async () => {
      const before = kernelState(k, LINKS);
      const ops = [{ kind: 'sysctl', key: 'net/ipv4/conf/ens1f0np0/arp_ignore', value: '1' }];
      const me = nodeIdentity();
      const cases: [object, RegExp][] = [
        [{ ...plan('arp-sysctl', ops), origin: { kind: 'snapshot', path: '/tmp/node.json' } }, /made from the snapshot \/tmp\/node\.json, not on a live node/],
        [{ ...plan('arp-sysctl', ops), origin: { kind: 'root', path: '/work/fixtures/roce-one-subnet' } }, /made from the tree \/work\/fixtures\/roce-one-subnet \(--root\)/],
        [{ ...plan('arp-sysctl', ops), origin: { kind: 'live', node: { ...me, machineId: '0123456789abcdef0123456789abcdef' } } }, /made on machine-id 0123456789abcdef0123456789abcdef; this node is /],
        [{ ...plan('arp-sysctl', ops), origin: { kind: 'live', node: { ...me, bootId: '00000000-0000-0000-0000-000000000000' } } }, /made during another boot/],
        [{ ...plan('arp-sysctl', ops), schema: 'ncclx.fix-plan/v1' }, /made by an older ncclx/],
      ];
      for (const [p, why] of cases) {
        const r = await apply(p, 'elsewhere');
        expect(r.code, r.stderr).toBe(2);
        expect(r.stderr).toMatch(why);
        expect(kernelState(k, LINKS)).toEqual(before);
        expect(existsSync(join(k.dir, 'elsewhere.journal.json'))).toBe(false);
      }
    });

    it('an operation whose state changed since the plan is refused before any change; already in place is fine', async () => {
      const key = 'net/ipv4/conf/ens2f0np0/arp_announce';
      const seen = k.exec(['cat', `/proc/sys/${key}`]).trim();
      const p = { ...plan('arp-sysctl', [{ kind: 'sysctl', key: 'net/ipv4/conf/ens1f0np0/arp_ignore', value: '1' }, { kind: 'sysctl', key, value: '2' }]) };
      (p.fixes[0] as { seen?: unknown[] }).seen = [k.exec(['cat', '/proc/sys/net/ipv4/conf/ens1f0np0/arp_ignore']).trim(), seen];
      k.exec(['sysctl', '-qw', `${key.replaceAll('/', '.')}=1`]);
      const before = kernelState(k, LINKS);
      const r = await apply(p, 'drift');
      expect(r.code).toBe(1);
      expect(r.stdout + r.stderr).toMatch(new RegExp(`the node changed since the plan: the plan saw "${seen}", now "1"; plan again`));
      expect(kernelState(k, LINKS)).toEqual(before);
      expect(existsSync(join(k.dir, 'drift.journal.json'))).toBe(false);
      k.exec(['sysctl', '-qw', `${key.replaceAll('/', '.')}=${seen}`]);
    });

    it('rollback is truthful and resumable: a value put back by hand is restored, a changed one is left with the command that restores it, and --force undoes it', async () => {
      const before = kernelState(k, LINKS);
      const a = 'net/ipv4/conf/ens1f0np0/arp_announce';
      const b = 'net/ipv4/conf/ens2f0np0/arp_announce';
      const origB = k.exec(['cat', `/proc/sys/${b}`]).trim();
      const r = await apply(plan('arp-sysctl', [{ kind: 'sysctl', key: a, value: '2' }, { kind: 'sysctl', key: b, value: '2' }]), 'resume');
      expect(r.code, r.stderr).toBe(0);
      // b put back by hand (already restored); a changed to something else (drifted).
      k.exec(['sysctl', '-qw', `${b.replaceAll('/', '.')}=${origB}`]);
      k.exec(['sysctl', '-qw', `${a.replaceAll('/', '.')}=1`]);
      const first = await rollback('resume');
      expect(first.code).toBe(1);
      expect(first.stdout).toMatch(/Run the same rollback again .* or add --force/);
      const cmd = /To restore it by hand:\n\s+(.+)/.exec(first.stdout)![1]!;
      // The printed command, pasted into sh inside the node, restores the previous value exactly.
      k.exec(['sh', '-c', cmd]);
      expect(kernelState(k, LINKS)).toEqual(before);
      k.exec(['sysctl', '-qw', `${a.replaceAll('/', '.')}=1`]);
      const forced = await ncclx(k, ['fix', '--rollback', join(k.dir, 'resume.journal.json'), '--force']);
      expect(forced.code, forced.stdout).toBe(0);
      expect(kernelState(k, LINKS)).toEqual(before);
    });

    it('a plan file that is not a plan is refused by name, exit 2', async () => {
      const file = join(k.dir, 'bad.plan.json');
      writeFileSync(file, JSON.stringify(plan('x', [{ kind: 'sysctl', key: 'net/../../etc/passwd', value: '1' }])));
      const r = await ncclx(k, ['fix', '--plan', file, '--apply', '--yes']);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/bad\.plan\.json: not an ncclx fix plan/);
    });
  });

  describeWithTools(['ip', 'nft', 'tc'], 'fault injection: an operation in the middle fails, and every earlier change is undone', () => {
    let k: KNamespace;
    const LINKS = ['ens1f0np0', 'ens2f0np0', 'ens3f0np0'];
    const ops = [
      { kind: 'sysctl', key: 'net/ipv4/conf/ens1f0np0/arp_announce', value: '2' },
      { kind: 'sysctl', key: 'net/ipv4/conf/ens2f0np0/arp_announce', value: '2' },
      { kind: 'nft-mark', table: 'ncclx_qos', dscp: 46, selectors: [{ by: 'oif', iface: 'ens1f0np0' }] },
      { kind: 'ip-route', dst: '10.80.0.0/24', dev: 'ens2f0np0', src: '10.80.0.2', table: 200 },
      { kind: 'ip-rule', from: '10.80.0.2', table: 200 },
      { kind: 'sysctl', key: 'net/ipv4/conf/ens3f0np0/arp_filter', value: '1' },
    ];
    const planFile = () => {
      const f = join(k.dir, 'fault.plan.json');
      writeFileSync(f, JSON.stringify({ ...PLAN_HEAD, fixes: [{ id: 'arp-sysctl', title: 't', resolves: [], ops, notes: [], blocked: null }] }));
      return f;
    };

    beforeAll(async () => {
      k = await makeNamespace([
        { name: 'ens1f0np0', addrs: ['10.80.0.1/24'] },
        { name: 'ens2f0np0', addrs: ['10.80.0.2/24'] },
        { name: 'ens3f0np0', addrs: ['10.80.0.3/24'] },
      ]);
      baseline(k, LINKS);
    });
    afterAll(() => k?.destroy());

    it('the route\'s source address disappears after the plan: sysctls and nft table applied first are undone, in reverse', async () => {
      const f = planFile();
      k.exec(['ip', 'addr', 'del', '10.80.0.2/24', 'dev', 'ens2f0np0']);
      const before = kernelState(k, LINKS);
      const journal = join(k.dir, 'fault.journal.json');
      const r = await ncclx(k, ['fix', '--plan', f, '--apply', '--yes', '--journal', journal]);
      expect(r.code).toBe(1);
      expect(r.stdout).toMatch(/\[4\/6\] route 10\.80\.0\.0\/24 .*FAILED/);
      expect(r.stdout).toMatch(/the node is as it was/);
      // Undone newest first: the nft table, then the second sysctl, then the first.
      const undo = [...r.stdout.matchAll(/undo \[(\d)\/6\]/g)].map((m) => m[1]);
      expect(undo).toEqual(['3', '2', '1']);
      expect(kernelState(k, LINKS)).toEqual(before);
      const j = JSON.parse(readFileSync(journal, 'utf8'));
      expect(j.status).toBe('rolled-back');
      expect(j.ops.map((o: { state: string }) => o.state)).toEqual(['undone', 'undone', 'undone', 'failed', 'pending', 'pending']);
      k.exec(['ip', 'addr', 'add', '10.80.0.2/24', 'dev', 'ens2f0np0']);
    });

    it('the link disappears after the plan: refused before any change, nothing changed, no journal', async () => {
      const f = planFile();
      k.exec(['ip', 'link', 'del', 'ens3f0np0']);
      const before = kernelState(k, ['ens1f0np0', 'ens2f0np0']);
      const journal = join(k.dir, 'gone.journal.json');
      const r = await ncclx(k, ['fix', '--plan', f, '--apply', '--yes', '--journal', journal]);
      expect(r.code).toBe(1);
      expect(r.stdout).toMatch(/Refused before any change: .*ens3f0np0\/arp_filter does not exist \(is the interface gone\?\)/);
      expect(kernelState(k, ['ens1f0np0', 'ens2f0np0'])).toEqual(before);
      expect(existsSync(journal)).toBe(false);
    });
  });

  describeWithTools(['ip', 'nft'], 'end to end: DSCP marking seen on the wire by the receiving namespace', () => {
    let k: KNamespace;
    const PORT = '5201';
    let server: ReturnType<typeof spawn>;
    const counters = () => {
      const j = JSON.parse(sh(['ip', 'netns', 'exec', k.peer, 'nft', '-j', 'list', 'table', 'inet', 'rx'])).nftables as Record<string, { comment?: string; expr?: { counter?: { packets: number } }[] }>[];
      const out: Record<string, number> = {};
      for (const x of j) if (x['rule']) out[x['rule'].comment!] = x['rule'].expr!.find((e) => e.counter)!.counter!.packets;
      return out;
    };
    /** One TCP connection from the node to the receiver, 256 KiB. */
    const send = () => {
      k.exec([process.execPath, '-e', `const s=require('net').connect(${PORT},'10.81.0.2',()=>{s.end(Buffer.alloc(262144))});s.on('close',()=>process.exit(0));s.on('error',e=>{console.error(e);process.exit(1)})`]);
    };

    beforeAll(async () => {
      k = await makeNamespace([{ name: 'ens1f0np0', addrs: ['10.81.0.1/24'] }]);
      sh(['ip', '-n', k.peer, 'addr', 'add', '10.81.0.2/24', 'dev', 'p0']);
      sh(['ip', '-n', k.peer, 'link', 'set', 'lo', 'up']);
      // The receiver counts what arrives from the node, by DSCP.
      sh(['ip', 'netns', 'exec', k.peer, 'nft', '-f', '-'], {
        input: `table inet rx {\n chain input {\n  type filter hook input priority 0;\n  ip saddr 10.81.0.1 tcp dport ${PORT} ip dscp ef counter comment "ef"\n  ip saddr 10.81.0.1 tcp dport ${PORT} ip dscp != ef counter comment "other"\n }\n}\n`,
      });
      server = spawn('ip', ['netns', 'exec', k.peer, process.execPath, '-e', `require('net').createServer(s=>s.resume()).listen(${PORT},'10.81.0.2')`], { stdio: 'ignore' });
      for (let i = 0; i < 100; i++) {
        if (sh(['ip', 'netns', 'exec', k.peer, 'ss', '-ltnH'], { allowFail: true }).includes(`10.81.0.2:${PORT}`)) break;
        await new Promise((r) => setTimeout(r, 20));
      }
    });
    afterAll(() => {
      server?.kill();
      k?.destroy();
    });

    it('unmarked before; EF on every packet after --apply; unmarked again after --rollback', async () => {
      send();
      const c0 = counters();
      expect(c0['ef']).toBe(0);
      expect(c0['other']).toBeGreaterThan(0);

      // No --journal: the default place, under /var/lib/ncclx/.
      const r = await ncclx(k, ['fix', ...VERSION, '--apply', '--yes', '--only', 'dscp-marking', '--mark-iface', 'ens1f0np0']);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      const journal = /Journal: (\S+)/.exec(r.stdout)?.[1] ?? '';
      expect(journal).toMatch(/^\/var\/lib\/ncclx\/fix-[0-9T-]+Z-\d+\.json$/);
      expect(JSON.parse(readFileSync(journal, 'utf8')).status).toBe('applied');
      send();
      const c1 = counters();
      expect(c1['ef']).toBeGreaterThan(10);
      expect(c1['other']).toBe(c0['other']);

      expect((await ncclx(k, ['fix', '--rollback', journal])).code).toBe(0);
      rmSync(journal);
      send();
      const c2 = counters();
      expect(c2['ef']).toBe(c1['ef']);
      expect(c2['other']).toBeGreaterThan(c1['other']!);
    });
  });

  describeWithTools(['ip', 'nft', 'tc', 'sysctl', 'sh'], 'printed commands with odd interface names: pasting each runs exactly one command', () => {
    let k: KNamespace;
    let fixture: string;
    // Legal Linux names: only '/', ':' and whitespace are forbidden.
    const A = 'r$d;(0';
    const B = 's;>pwn';
    beforeAll(async () => {
      k = await makeNamespace([
        { name: A, addrs: ['10.82.0.1/24'] },
        { name: B, addrs: ['10.82.0.2/24'] },
      ]);
      baseline(k, [A, B]);
      fixture = rdmaFixture(k.dir, [
        { dev: 'mlx5_0', netdev: A },
        { dev: 'mlx5_1', netdev: B },
      ]);
    });
    afterAll(() => k?.destroy());

    it('policy routing, ARP sysctls, nft marking and the qdisc, pasted into sh, give exactly the planned kernel state', async () => {
      const r = await ncclx<PlanJson>(k, ['fix', ...VERSION, '--json', '--only', 'policy-routing,arp-sysctl,dscp-marking,qdisc-priority', '--mark-iface', `${A},${B}`, '--rate', '1000'], {}, fixture);
      expect(r.code, r.stderr).toBe(0);
      const cwd = mkdtempSync(join(k.dir, 'paste-'));
      const commands = r.json!.fixes.flatMap((f) => f.commands);
      expect(commands.length).toBeGreaterThan(8);
      for (const c of commands) k.exec(['sh', '-c', `cd "$1" && ${c}`, 'sh', cwd]);
      // Nothing but the planned commands ran: no file named by the '>' in a name, no stray command.
      expect(readdirSync(cwd)).toEqual([]);
      expect(sysctl(k, A, 'arp_announce')).toBe('2');
      expect(sysctl(k, B, 'arp_filter')).toBe('1');
      const rules = JSON.parse(k.exec(['ip', '-j', '-4', 'rule', 'show'])) as { src?: string; table?: string }[];
      expect(rules.some((x) => x.src === '10.82.0.2' && x.table === '100')).toBe(true);
      expect(JSON.parse(k.exec(['ip', '-j', '-4', 'route', 'show', 'table', '100']))[0]).toMatchObject({ dev: B });
      const nft = k.exec(['nft', '-j', 'list', 'table', 'inet', 'ncclx_qos']);
      expect(nft).toContain(JSON.stringify(A).slice(1, -1));
      expect(nft).toContain(JSON.stringify(B).slice(1, -1));
      for (const dev of [A, B]) {
        const q = JSON.parse(k.exec(['tc', '-j', 'qdisc', 'show', 'dev', dev])) as { kind: string; root?: boolean }[];
        expect(q.find((x) => x.root)?.kind).toBe('htb');
      }
    });
  });

  describeWithTools(['ip', 'setpriv', 'unshare', 'nsenter', 'mount'], 'preconditions: not root, a tool missing — exit 2, a message naming it, nothing changed', () => {
    let k: KNamespace;
    beforeAll(async () => {
      k = await makeNamespace([
        { name: 'ens1f0np0', addrs: ['10.83.0.1/24'] },
        { name: 'ens2f0np0', addrs: ['10.83.0.2/24'] },
      ]);
      baseline(k, ['ens1f0np0', 'ens2f0np0']);
    });
    afterAll(() => k?.destroy());

    it('a tool missing from PATH: exit 2 naming it and its package, whether planned here or from a saved plan', async () => {
      // A PATH with everything ncclx and the namespace need but `tc`.
      const bin = mkdtempSync(join(k.dir, 'bin-'));
      for (const t of ['ip', 'sysctl', 'nft', 'iptables', 'iptables-save', 'ip6tables-save', 'unshare', 'mount', 'cat']) {
        const d = ['/usr/sbin', '/usr/bin', '/sbin', '/bin'].find((x) => existsSync(join(x, t)));
        if (d) sh(['ln', '-sf', join(d, t), join(bin, t)]);
      }
      const before = kernelState(k, ['ens1f0np0', 'ens2f0np0']);
      const r = await ncclx(k, ['fix', ...VERSION, '--apply', '--yes', '--only', 'qdisc-priority', '--mark-iface', 'ens1f0np0', '--rate', '1000', '--journal', join(k.dir, 'j.json')], { PATH: bin });
      expect(r.code, r.stdout + r.stderr).toBe(2);
      expect(r.stderr).toMatch(/tc is not installed \(apt-get install iproute2\)/);
      expect(r.stderr).toMatch(/Nothing was changed/);
      // A plan reviewed elsewhere and applied here: the preflight names the tool.
      const planFile = join(k.dir, 'tc.plan.json');
      writeFileSync(planFile, JSON.stringify({ ...PLAN_HEAD, fixes: [{ id: 'qdisc-priority', title: 't', resolves: [], notes: [], blocked: null, ops: [{ kind: 'qdisc', dev: 'ens1f0np0', scheduler: 'htb', dscp: 46, rateMbit: 1000, replaces: 'noqueue' }] }] }));
      const p = await ncclx(k, ['fix', '--plan', planFile, '--apply', '--yes', '--journal', join(k.dir, 'j.json')], { PATH: bin });
      expect(p.code, p.stdout + p.stderr).toBe(2);
      expect(p.stderr).toMatch(/missing tc on PATH \(apt-get install iproute2\)/);
      expect(kernelState(k, ['ens1f0np0', 'ens2f0np0'])).toEqual(before);
      expect(existsSync(join(k.dir, 'j.json'))).toBe(false);
    });

    it('not root: exit 2, says so, nothing changed', async () => {
      const before = kernelState(k, ['ens1f0np0', 'ens2f0np0']);
      // Neither the private dist copy (mkdtemp: 0700) nor the checkout (a clone may sit under /root or
      // `mktemp -d`) is reachable by nobody: the checkout is bind-mounted at a directory that is.
      const mnt = mkdtempSync(join(searchableTmp(), 'ncclx-anyuser-'));
      chmodSync(mnt, 0o755);
      const cli = join(mnt, 'dist', 'cli.js');
      const asNobody = ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, cli, 'fix', ...VERSION, '--apply', '--yes', '--only', 'qdisc-priority', '--mark-iface', 'ens1f0np0', '--rate', '1000', '--journal', join(k.dir, 'nobody.json')];
      const res = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const c = spawn('ip', ['netns', 'exec', k.ns, 'unshare', '--mount', '--propagation', 'private', process.execPath, BIND_RUN, REPO, mnt, '--', ...asNobody], { stdio: ['ignore', 'ignore', 'pipe'], env: { PATH: process.env['PATH'], HOME: '/' } });
        let stderr = '';
        c.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
        c.on('close', (code) => resolve({ code, stderr }));
      });
      // The mount went with its namespace: an empty directory again. rmdir, never a recursive remove:
      // were the checkout still mounted there, it would refuse instead of deleting the checkout.
      rmdirSync(mnt);
      expect(res.code, res.stderr).toBe(2);
      expect(res.stderr).toMatch(/not root \(uid 65534\)/);
      expect(kernelState(k, ['ens1f0np0', 'ens2f0np0'])).toEqual(before);
    });
  });
}
