// QoS and routing checks against a real kernel: qdiscs set with tc, DSCP
// rules set with nft and iptables, routes and rules set with ip, inside a
// network namespace; `ncclx doctor --json` runs there unchanged. No RDMA
// devices are involved (QOS-001..005, SOCK-030, SOCK-031 do not need them).

import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithTools, doctor, findTool, kernelSuite, makeNamespace, type KNamespace } from './kernel-lib.js';
import { pasteLines, type RemediationJson } from '../helpers/remediation.js';

const RUN = kernelSuite('kernel-qos.test.ts');

function paste(k: KNamespace, remediation: RemediationJson | null): void {
  const lines = pasteLines(remediation);
  expect(lines.length).toBeGreaterThan(0);
  for (const line of lines) k.exec(['sh', '-c', line]);
}

if (RUN) {
  // eth0 holds a /16 that contains eth1's /24: the overlapping-prefix node of NVIDIA/nccl#1581.
  describeWithTools(['ip', 'tc', 'nft', 'iptables', 'iptables-save', 'ip6tables-save'], 'QOS and SOCK-030/031 on eth0 10.66.0.5/16 + eth1 10.66.5.5/24', () => {
    let k: KNamespace;
    const run = (args: string[], env: Record<string, string> = {}, version = '2.28.3') => doctor(k, ['--json', '--nccl-version', version, ...args], env);

    beforeAll(async () => {
      k = await makeNamespace([
        { name: 'eth0', addrs: ['10.66.0.5/16'] },
        { name: 'eth1', addrs: ['10.66.5.5/24'] },
      ]);
      // A name for MASTER_ADDR, seen only inside the namespace (ip netns exec bind-mounts /etc/netns/NS/hosts).
      mkdirSync(`/etc/netns/${k.ns}`, { recursive: true });
      writeFileSync(`/etc/netns/${k.ns}/hosts`, '127.0.0.1 localhost\n10.66.5.1 node0\n');
    });
    afterAll(() => k?.destroy());

    it('QOS-001: noqueue is fine; tbf on an NCCL interface is a warning whose fix, pasted, removes it; htb is info', async () => {
      expect((await run(['--only', 'QOS-001'])).of('QOS-001').map((r) => [r.severity, r.summary])).toEqual([['ok', "no shaping on NCCL's interfaces (eth0: noqueue 0:; eth1: noqueue 0:)"]]);
      k.exec(['tc', 'qdisc', 'add', 'dev', 'eth1', 'root', 'tbf', 'rate', '1mbit', 'burst', '32kbit', 'latency', '400ms']);
      k.exec(['tc', 'qdisc', 'add', 'dev', 'eth0', 'root', 'handle', '1:', 'htb', 'default', '10']);
      const r = (await run(['--only', 'QOS-001'])).of('QOS-001');
      expect(r.map((x) => x.severity)).toEqual(['info', 'warn']);
      expect(r[0]!.summary).toMatch(/^eth0: htb 1: .*classful/);
      expect(r[1]).toMatchObject({ remediation: { commands: [['tc', 'qdisc', 'del', 'dev', 'eth1', 'root']] }, fixIds: ['qdisc-priority'] });
      expect(r[1]!.evidence[0]).toMatchObject({ kind: 'command', source: 'tc -j qdisc show', value: expect.stringMatching(/"kind":"tbf"/) });
      paste(k, r[1]!.remediation);
      k.exec(['tc', 'qdisc', 'del', 'dev', 'eth0', 'root']);
      expect((await run(['--only', 'QOS-001'])).of('QOS-001').map((x) => x.severity)).toEqual(['ok']);
    });

    it('QOS-002..005: a 29500-29999 rule catches only the TCPStore; the printed nft fix marks by interface; NCCL_IB_TC and NCCL_SOCKET_TOS_CONFIG are compared with it', async () => {
      k.exec(['nft', 'add', 'table', 'inet', 'site']);
      k.exec(['nft', 'add', 'chain', 'inet', 'site', 'out', '{ type filter hook output priority mangle; }']);
      k.exec(['nft', 'add', 'rule', 'inet', 'site', 'out', 'tcp', 'dport', '29500-29999', 'ip', 'dscp', 'set', 'af31']);
      k.exec(['iptables', '-t', 'mangle', '-A', 'POSTROUTING', '-p', 'tcp', '--dport', '29500:29999', '-j', 'DSCP', '--set-dscp', '26']);
      const r = await run(['--only', 'QOS']);
      expect(r.json, r.stderr).not.toBeNull();
      const marks = r.of('QOS-002');
      // The iptables rule appears once (from iptables-save), not again as nft's opaque xt rule.
      expect(marks.map((x) => [x.severity, x.evidence[0]!.source])).toEqual([
        ['warn', 'nft -j list ruleset'],
        ['warn', 'iptables-save -t mangle'],
      ]);
      expect(marks[0]!.summary).toBe("nftables inet site out: tcp dport 29500-29999 → DSCP 26 (AF31) — catches only PyTorch's TCPStore / rendezvous (MASTER_PORT), not NCCL");
      expect(marks[1]!.evidence[0]!.value).toBe('-A POSTROUTING -p tcp -m tcp --dport 29500:29999 -j DSCP --set-dscp 0x1a');
      expect(marks[0]!.fixIds).toEqual(['dscp-marking']);
      // No RDMA device in the namespace: NCCL_IB_TC has nothing to apply to (the RoCE path is tested on fixture ports in test/unit/qos.test.ts).
      expect(r.of('QOS-003')[0]).toMatchObject({ severity: 'na', summary: 'no RoCE port: NCCL_IB_TC does not apply' });
      expect(r.of('QOS-004')[0]!.severity).toBe('info');
      expect(r.of('QOS-004')[0]!.summary).toMatch(/RoCE data bypasses both .* ephemeral ports \(\d+-\d+\)/);

      paste(k, marks[0]!.remediation);
      const ruleset = k.exec(['nft', 'list', 'table', 'inet', 'ncclx_qos']);
      expect(ruleset).toMatch(/oifname "eth0" meta l4proto tcp ip dscp set af31/);
      const after = (await run(['--only', 'QOS-002'])).of('QOS-002');
      expect(after.filter((x) => x.severity === 'ok').map((x) => x.summary)).toEqual([
        "nftables inet ncclx_qos output: tcp on eth0 → DSCP 26 (AF31) — marks NCCL's socket traffic",
        "nftables inet ncclx_qos output: tcp on eth1 → DSCP 26 (AF31) — marks NCCL's socket traffic",
      ]);

      const tc = async (v: string) => (await run(['--only', 'QOS-003'], { NCCL_IB_TC: v })).of('QOS-003')[0]!;
      expect(await tc('96')).toMatchObject({ severity: 'info', summary: expect.stringMatching(/^NCCL_IB_TC=96 has no effect: no RoCE port here/) });

      const tos = async (v: string) => (await run(['--only', 'QOS-005'], { NCCL_SOCKET_TOS_CONFIG: v }, 'ncclx-2.30')).of('QOS-005')[0]!;
      expect((await tos('104')).severity).toBe('ok');
      expect(await tos('184')).toMatchObject({ severity: 'warn', remediation: { env: { NCCL_SOCKET_TOS_CONFIG: '104' } } });
    });

    it('a missing tool is recorded and reported as unknown, never a crash', async () => {
      // A PATH with ip and tc only: nft, iptables-save and ip6tables-save are "not installed".
      const bin = mkdtempSync(join(tmpdir(), 'ncclx-kernel-bin-'));
      try {
        for (const t of ['ip', 'tc']) symlinkSync(findTool(t)!, join(bin, t));
        const r = await doctor(k, ['--json', '--only', 'QOS-002', '--nccl-version', '2.28.3'], { PATH: bin });
        expect(r.json, r.stderr).not.toBeNull();
        expect(r.of('QOS-002').map((x) => [x.severity, x.summary])).toEqual([
          ['unknown', 'DSCP marking rules: none of nft, iptables-save, ip6tables-save could be read (nft: not installed; iptables-save: not installed; ip6tables-save: not installed)'],
        ]);
      } finally {
        rmSync(bin, { recursive: true, force: true });
      }
    });

    it('SOCK-030: NCCL bootstraps on eth0 (first address whose subnet holds NCCL_COMM_ID) while the kernel routes by longest prefix (eth1); the printed host route fixes it', async () => {
      const env = { NCCL_COMM_ID: '10.66.5.1:5000' };
      const r = (await run(['--only', 'SOCK-030'], env)).of('SOCK-030');
      expect(r.map((x) => [x.severity, x.summary])).toEqual([['warn', 'NCCL_COMM_ID host 10.66.5.1 is reached through eth1, but NCCL bootstraps on eth0 (10.66.0.5)']]);
      expect(r[0]!.evidence[1]).toMatchObject({ kind: 'command', source: 'ip -j route get 10.66.5.1', value: expect.stringMatching(/"dev":"eth1"/) });
      expect(pasteLines(r[0]!.remediation)).toEqual(['ip route replace 10.66.5.1/32 dev eth0 src 10.66.0.5']);
      paste(k, r[0]!.remediation);
      expect((await run(['--only', 'SOCK-030'], env)).of('SOCK-030').map((x) => x.severity)).toEqual(['ok']);
      k.exec(['ip', 'route', 'del', '10.66.5.1/32']);
    });

    it('SOCK-030: MASTER_ADDR by name (resolved in the namespace) is info; no route to NCCL_COMM_ID is an error', async () => {
      const byName = (await run(['--only', 'SOCK-030'], { MASTER_ADDR: 'node0', NCCL_SOCKET_IFNAME: '=eth0' })).of('SOCK-030');
      expect(byName.map((x) => [x.severity, x.summary])).toEqual([['info', 'MASTER_ADDR host 10.66.5.1 is reached through eth1, but NCCL bootstraps on eth0 (10.66.0.5)']]);
      const none = await run(['--only', 'SOCK-030'], { NCCL_COMM_ID: '192.0.2.7:5000' });
      expect(none.of('SOCK-030').map((x) => [x.severity, x.summary])).toEqual([['error', 'no route to NCCL_COMM_ID host 192.0.2.7']]);
      expect(none.of('SOCK-030')[0]!.evidence[1]!.value).toMatch(/Network is unreachable/);
      expect(none.code).toBe(1);
    });

    it('SOCK-031: the default route on one of the interfaces NCCL stripes over, then on both', async () => {
      k.exec(['ip', 'route', 'add', 'default', 'via', '10.66.0.1', 'dev', 'eth0']);
      const one = (await run(['--only', 'SOCK-031'])).of('SOCK-031');
      expect(one.map((x) => [x.severity, pasteLines(x.remediation)])).toEqual([['warn', ["export NCCL_SOCKET_IFNAME='=eth1'"]]]);
      expect(one[0]!.evidence).toContainEqual({ kind: 'command', source: 'ip -j route show table all', value: expect.stringMatching(/"dst":"default","gateway":"10.66.0.1","dev":"eth0"/) });
      k.exec(['ip', 'route', 'add', 'default', 'via', '10.66.5.254', 'dev', 'eth1', 'metric', '200']);
      expect((await run(['--only', 'SOCK-031'])).of('SOCK-031').map((x) => [x.severity, x.summary])).toEqual([['warn', 'eth0 and eth1 are both chosen by NCCL and each carries a default route']]);
      // Pinned to one interface, no mixing remains to warn about.
      expect((await run(['--only', 'SOCK-031'], { NCCL_SOCKET_IFNAME: '=eth1' })).of('SOCK-031').map((x) => x.severity)).toEqual(['ok']);
    });
  });
}
