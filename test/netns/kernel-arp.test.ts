// Multi-rail ARP checks against a real kernel: two veths named like RDMA
// netdevs (ens1f0np0, ens2f0np0) on one /24 inside a network namespace, real
// /proc/sys/net/ipv4/conf values, real `ip rule` / `ip route`. The RDMA side
// (which netdev belongs to which HCA port) is a small sysfs fixture bind-
// mounted over /sys/class/infiniband by kernel-overlay.mjs; ncclx itself runs
// unchanged. Remediations are applied by pasting them into sh, as a user would.

import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeWithTools, doctor, kernelSuite, makeNamespace, rdmaFixture, type KNamespace } from './kernel-lib.js';
import { pasteLines, type RemediationJson } from '../helpers/remediation.js';
import { sh } from './lib.js';

const RUN = kernelSuite('kernel-arp.test.ts');

const KEYS = ['arp_announce', 'arp_ignore', 'arp_filter', 'rp_filter'];

/** Every ARP-relevant sysctl of all/default and the links to 0, so the test never depends on the host's defaults. */
function baseline(k: KNamespace, links: string[]): void {
  const s: Record<string, number> = {};
  for (const n of ['all', 'default', ...links]) for (const key of KEYS) s[`net/ipv4/conf/${n}/${key}`] = 0;
  k.sysctl(s);
}

/** The interface the real kernel picks for a packet from `src` to `dst`. */
function kernelRoute(k: KNamespace, dst: string, src: string): string {
  return (JSON.parse(k.exec(['ip', '-j', 'route', 'get', dst, 'from', src])) as { dev: string }[])[0]!.dev;
}

/** Paste a remediation into sh inside the namespace, line by line, exactly as the report prints it. */
function paste(k: KNamespace, remediation: RemediationJson | null): void {
  const lines = pasteLines(remediation);
  expect(lines.length).toBeGreaterThan(0);
  for (const line of lines) k.exec(['sh', '-c', line]);
}

if (RUN) {
  describeWithTools(['ip', 'sysctl', 'unshare', 'nsenter', 'mount'], 'ARP-001..004 on two RDMA netdevs sharing 10.77.0.0/24', () => {
    let k: KNamespace;
    let fixture: string;
    const LINKS = ['eth0', 'ens1f0np0', 'ens2f0np0'];
    const run = () => doctor(k, ['--json', '--only', 'ARP', '--nccl-version', '2.28.3'], {}, fixture);

    beforeAll(async () => {
      k = await makeNamespace([
        { name: 'eth0', addrs: ['192.168.77.5/24'] },
        { name: 'ens1f0np0', addrs: ['10.77.0.1/24'] },
        { name: 'ens2f0np0', addrs: ['10.77.0.2/24'] },
      ]);
      baseline(k, LINKS);
      fixture = rdmaFixture(k.dir, [
        { dev: 'mlx5_0', netdev: 'ens1f0np0' },
        { dev: 'mlx5_1', netdev: 'ens2f0np0' },
      ]);
    });
    afterAll(() => k?.destroy());

    it('kernel defaults: shared subnet, ARP sysctls wrong on both rails, the second rail routed through the first', async () => {
      const r = await run();
      expect(r.json, r.stderr).not.toBeNull();
      expect(r.code).toBe(1);
      expect(r.json!.exitCode).toBe(1);
      const [shared] = r.of('ARP-001');
      expect(shared).toMatchObject({ severity: 'warn', fixIds: ['arp-sysctl', 'policy-routing'] });
      expect(shared!.summary).toMatch(/^2 RDMA netdevs share 10\.77\.0\.0\/24: ens1f0np0, ens2f0np0/);
      expect(shared!.evidence.map((e) => e.source)).toEqual(['mlx5_0:1 → ens1f0np0', 'mlx5_1:1 → ens2f0np0']);

      const arp = r.of('ARP-002');
      expect(arp.map((x) => [x.severity, pasteLines(x.remediation).join('\n')])).toEqual([
        ['error', 'sysctl -w net/ipv4/conf/ens1f0np0/arp_announce=2 net/ipv4/conf/ens1f0np0/arp_ignore=1 net/ipv4/conf/ens1f0np0/arp_filter=1'],
        // The second rail is routed through the first: its lines carry ARP-004's policy routing first, so they are safe alone.
        [
          'error',
          [
            'ip route replace 10.77.0.0/24 dev ens2f0np0 src 10.77.0.2 table 100',
            'ip rule add from 10.77.0.2 lookup 100',
            'sysctl -w net/ipv4/conf/ens2f0np0/arp_announce=2 net/ipv4/conf/ens2f0np0/arp_ignore=1 net/ipv4/conf/ens2f0np0/arp_filter=1',
          ].join('\n'),
        ],
      ]);
      expect(arp[1]!.evidence).toContainEqual({ kind: 'file', source: '/proc/sys/net/ipv4/conf/ens2f0np0/arp_ignore', value: '0 (effective 0 = max(all, if))' });
      expect(arp[1]!.why).toMatch(/IBV_WC_RETRY_EXC_ERR \(status 12\)/);

      expect(r.of('ARP-003').map((x) => x.severity)).toEqual(['ok']);

      const pr = r.of('ARP-004');
      expect(pr.map((x) => x.severity)).toEqual(['ok', 'warn']);
      expect(pr[1]!.summary).toMatch(/^ens2f0np0: no source-based policy routing; traffic from its address leaves through another device \(10\.77\.0\.2 → ens1f0np0\)/);
      // ncclx's simulation of the lookup agrees with the kernel's own answer.
      expect(kernelRoute(k, '10.77.0.50', '10.77.0.2')).toBe('ens1f0np0');
      expect(kernelRoute(k, '10.77.0.50', '10.77.0.1')).toBe('ens1f0np0');
    });

    it('all and the interface value combine as the kernel does: max for arp_announce/arp_ignore, OR for arp_filter', async () => {
      k.sysctl({ 'net/ipv4/conf/all/arp_announce': 2, 'net/ipv4/conf/all/arp_ignore': 1, 'net/ipv4/conf/ens1f0np0/arp_filter': 1 });
      const arp = (await run()).of('ARP-002');
      expect(arp.map((x) => [x.severity, x.summary])).toEqual([
        ['ok', 'arp_announce=2, arp_ignore=1 or 2, arp_filter=1 in effect on ens1f0np0'],
        ['warn', 'ens2f0np0: arp_filter=0: replies are not limited to the NIC the kernel would route back through'],
      ]);
      expect(arp[1]!.evidence).toContainEqual({ kind: 'file', source: '/proc/sys/net/ipv4/conf/ens2f0np0/arp_announce', value: '0 (effective 2 = max(all, if))' });
      // arp_filter in `all` alone turns it on everywhere (OR) …
      k.sysctl({ 'net/ipv4/conf/all/arp_filter': 1 });
      const r2 = await run();
      expect(r2.of('ARP-002').map((x) => x.severity)).toEqual(['ok']);
      // … and then the second rail, routed through the first, answers no ARP for its own address.
      const pr = r2.of('ARP-004');
      expect(pr.map((x) => x.severity)).toEqual(['ok', 'error']);
      expect(pr[1]!.summary).toMatch(/with arp_filter=1 this NIC does not answer ARP for its own address/);
      k.sysctl({ 'net/ipv4/conf/all/arp_filter': 0 });
    });

    it('strict rp_filter breaks the rail without policy routing; all=2 overrides if=1 (max)', async () => {
      k.sysctl({ 'net/ipv4/conf/ens1f0np0/rp_filter': 1, 'net/ipv4/conf/ens2f0np0/rp_filter': 1 });
      const rp = (await run()).of('ARP-003');
      expect(rp.map((x) => x.severity)).toEqual(['ok', 'error']);
      expect(rp[1]).toMatchObject({ remediation: { commands: [['sysctl', '-w', 'net/ipv4/conf/ens2f0np0/rp_filter=2']] }, fixIds: ['rp-filter', 'policy-routing'] });
      k.sysctl({ 'net/ipv4/conf/all/rp_filter': 2 });
      expect((await run()).of('ARP-003').map((x) => x.summary)).toEqual(['rp_filter safe on ens1f0np0 (rp_filter=2), ens2f0np0 (rp_filter=2)']);
      k.sysctl({ 'net/ipv4/conf/all/rp_filter': 0 });
    });

    it("the printed fixes, pasted into sh, make the node healthy; strict rp_filter is then safe (policy routing)", async () => {
      const before = await run();
      for (const r of before.of('ARP-004').filter((x) => x.severity !== 'ok')) paste(k, r.remediation);
      for (const r of before.of('ARP-002').filter((x) => x.severity !== 'ok')) paste(k, r.remediation);
      expect(kernelRoute(k, '10.77.0.50', '10.77.0.2')).toBe('ens2f0np0');
      const rules = JSON.parse(k.exec(['ip', '-j', 'rule', 'show'])) as { src?: string; table?: string }[];
      expect(rules.some((x) => x.src === '10.77.0.2' && x.table === '100')).toBe(true);
      const after = await run();
      expect(after.code).toBe(0);
      expect(after.of('ARP-001').map((x) => x.severity)).toEqual(['info']);
      for (const id of ['ARP-002', 'ARP-003', 'ARP-004']) expect(after.of(id).map((x) => x.severity), id).toEqual(['ok']);
      expect(after.of('ARP-004')[0]!.summary).toBe('traffic from each address leaves through its own NIC: ens1f0np0 (main table), ens2f0np0 (table 100)');
      // rp_filter=1 stays on ens1f0np0/ens2f0np0 from the previous case: strict is fine now.
      expect(after.of('ARP-003')[0]!.summary).toMatch(/strict, routed back through itself/);
    });
  });

  describe('a netdev name with shell metacharacters', () => {
    let k: KNamespace;
    let fixture: string;
    const ODD = "r$d;(0'";
    beforeAll(async () => {
      k = await makeNamespace([
        { name: 'ens1f0np0', addrs: ['10.78.0.1/24'] },
        { name: ODD, addrs: ['10.78.0.2/24'] },
      ]);
      baseline(k, ['ens1f0np0', ODD]);
      fixture = rdmaFixture(k.dir, [
        { dev: 'mlx5_0', netdev: 'ens1f0np0' },
        { dev: 'mlx5_1', netdev: ODD },
      ]);
    });
    afterAll(() => k?.destroy());

    it('is quoted in the policy routing and sysctl fix, and the fix works when pasted', async () => {
      const r = await doctor(k, ['--json', '--only', 'ARP-002', '--nccl-version', '2.28.3'], {}, fixture);
      const odd = r.of('ARP-002').find((x) => x.summary.startsWith(ODD))!;
      expect(pasteLines(odd.remediation)).toEqual([
        `ip route replace 10.78.0.0/24 dev 'r$d;(0'\\''' src 10.78.0.2 table 100`,
        'ip rule add from 10.78.0.2 lookup 100',
        `sysctl -w 'net/ipv4/conf/r$d;(0'\\''/arp_announce=2' 'net/ipv4/conf/r$d;(0'\\''/arp_ignore=1' 'net/ipv4/conf/r$d;(0'\\''/arp_filter=1'`,
      ]);
      paste(k, odd.remediation);
      expect(k.exec(['cat', `/proc/sys/net/ipv4/conf/${ODD}/arp_announce`]).trim()).toBe('2');
      const again = await doctor(k, ['--json', '--only', 'ARP-002', '--nccl-version', '2.28.3'], {}, fixture);
      expect(again.of('ARP-002').map((x) => [x.severity, x.summary.split(':')[0]])).toEqual([
        ['ok', `arp_announce=2, arp_ignore=1 or 2, arp_filter=1 in effect on ${ODD}`],
        ['error', 'ens1f0np0'],
      ]);
    });
  });

  describe('the overlay leaves the host untouched', () => {
    it('no /sys/class/infiniband appears outside the namespace run', () => {
      // The overlay mounts live in a private mount namespace that ends with the command.
      expect(sh(['cat', '/proc/self/mountinfo'])).not.toMatch(/ncclx-test-class/);
      expect(() => readFileSync('/sys/class/infiniband/mlx5_0/node_type')).toThrow();
    });
  });
}
