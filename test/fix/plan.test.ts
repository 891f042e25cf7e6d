// The planner on the fixture nodes (through the built CLI, dry run) and its
// pure parts: file merges and rule combinations.
import { join } from 'node:path';
import { tempDir } from '../helpers/tmp.js';
import { describe, expect, it } from 'vitest';
import { mergeNcclConf, mergeSysctlConf } from '../../src/fix/plan.js';
import { markRules } from '../../src/model/fix/describe.js';
import { cliServer, sameAsOwnProcess } from '../helpers/cli-server.js';

// The built CLI, with the fixtures' failing reads (EINVAL on hidden GID entries) as a real kernel has them: test/helpers/faults.mjs.
// Every CLI call in one ncclx process (test/helpers/cli-server.ts), one checked against its own process.
const server = cliServer({ faults: true });
const FIX = join(__dirname, '../fixtures');
const HOME = tempDir('ncclx-fix-home-');

interface Plan {
  fixes: { id: string; ops: Record<string, unknown>[]; commands: string[]; notes: string[]; blocked: string | null; resolves: { checkId: string }[] }[];
}

function fix(node: string, args: string[], env: Record<string, string> = {}) {
  const r = server.spawnSync(['fix', '--root', join(FIX, node), '--nccl-version', '2.28.3', ...args], { encoding: 'utf8', env: { PATH: process.env['PATH'], HOME, ...env } });
  let json: Plan | null = null;
  try {
    json = JSON.parse(r.stdout) as Plan;
  } catch {
    /* text */
  }
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, json };
}
const byId = (p: Plan) => Object.fromEntries(p.fixes.map((f) => [f.id, f]));

describe('plans on the fixture nodes', () => {
  it('policy routing, ARP sysctls and rp_filter asked for where no RDMA netdevs share a subnet: "not applicable", said once each', () => {
    const r = fix('roce-rail-subnets', ['--only', 'policy-routing,arp-sysctl,rp-filter']);
    expect(r.code).toBe(0);
    expect(r.stdout.match(/not applicable: no two RDMA netdevs share a subnet/g)).toHaveLength(3);
    expect(r.stdout).not.toMatch(/already in place/);
  });

  // roce-one-subnet: eight RoCE rails in one /24, every ARP sysctl at the kernel default, no policy routing.
  it('roce-one-subnet: one table per rail after the first (100-106), the three ARP sysctls on all eight rails', () => {
    const r = fix('roce-one-subnet', ['--json']);
    expect(r.code, r.stderr).toBe(0);
    const f = byId(r.json!);
    // NCCL's own socket choice (ens3 for bootstrap, the IB transport for data) follows the socket policy: no nccl-conf fix.
    expect(Object.keys(f)).toEqual(['policy-routing', 'arp-sysctl']);
    const rules = f['policy-routing']!.ops.filter((o) => o['kind'] === 'ip-rule');
    expect(rules.map((o) => o['table'])).toEqual([100, 101, 102, 103, 104, 105, 106]);
    // Routes come before the rules that point at their tables.
    const kinds = f['policy-routing']!.ops.map((o) => o['kind']);
    expect(kinds.indexOf('ip-route')).toBeLessThan(kinds.indexOf('ip-rule'));
    expect(f['arp-sysctl']!.ops).toHaveLength(24);
    expect(f['arp-sysctl']!.commands).toContain('sysctl -w net/ipv4/conf/enp213s0np0/arp_filter=1');
    expect(f['arp-sysctl']!.resolves.map((x) => x.checkId)).toContain('ARP-002');
  });

  it('--only arp-sysctl without policy-routing leaves arp_filter out and says why', () => {
    const r = fix('roce-one-subnet', ['--json', '--only', 'arp-sysctl']);
    const f = byId(r.json!)['arp-sysctl']!;
    expect(f.ops.some((o) => String(o['key']).endsWith('/arp_filter'))).toBe(false);
    expect(f.ops).toHaveLength(16);
    expect(f.notes.join(' ')).toMatch(/arp_filter=1 left out: it needs policy-routing first/);
  });

  it('a healthy node has nothing to fix (exit 0), and an unknown fix id is a usage error (exit 2)', () => {
    const r = fix('roce-healthy', []);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Nothing to fix on h100-roce-12/);
    const bad = fix('roce-healthy', ['--only', 'arp-sysctls']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/unknown fix id arp-sysctls/);
  });

  it('dscp-marking: asked by name, marks TCP leaving the socket interfaces with EF, or with NCCL_IB_TC >> 2 when set', () => {
    const r = fix('roce-healthy', ['--json', '--only', 'dscp-marking']);
    const op = byId(r.json!)['dscp-marking']!.ops[0]!;
    expect(op).toMatchObject({ kind: 'nft-mark', table: 'ncclx_qos', dscp: 46 });
    expect((op['selectors'] as { by: string }[]).every((s) => s.by === 'oif')).toBe(true);
    const tc = fix('roce-healthy', ['--json', '--only', 'dscp-marking'], { NCCL_IB_TC: '106' });
    expect(byId(tc.json!)['dscp-marking']!.ops[0]).toMatchObject({ dscp: 26 });
    expect(byId(tc.json!)['dscp-marking']!.notes.join(' ')).toMatch(/DSCP 26 from NCCL_IB_TC=106/);
    const ports = fix('roce-healthy', ['--json', '--only', 'dscp-marking', '--mark-ports', '40000-40999,45000']);
    const cmd = byId(ports.json!)['dscp-marking']!.commands[0]!;
    expect(cmd).toMatch(/tcp dport 40000-40999 ip dscp set 46/);
    expect(cmd).toMatch(/tcp dport 45000 ip6 dscp set 46/);
    // One rule per range and family, not per port.
    expect(cmd.split('\n').filter((l) => l.includes('dscp set'))).toHaveLength(4);
  });

  it('qdisc-priority refuses an mq root without --force (efa: ens5 is mq), plans it with --force', () => {
    const r = fix('efa', ['--json', '--only', 'qdisc-priority', '--mark-iface', 'ens5', '--rate', '100000']);
    const f = byId(r.json!)['qdisc-priority']!;
    expect(f.blocked).toMatch(/ens5: root is mq .*--force replaces it anyway/);
    expect(f.ops).toEqual([]);
    const forced = byId(fix('efa', ['--json', '--only', 'qdisc-priority', '--mark-iface', 'ens5', '--rate', '100000', '--force']).json!)['qdisc-priority']!;
    expect(forced.blocked).toBeNull();
    expect(forced.ops[0]).toMatchObject({ kind: 'qdisc', dev: 'ens5', replaces: 'mq' });
  });

  it('a plan from --root cannot be applied: exit 2, nothing changed', () => {
    const r = fix('roce-one-subnet', ['--apply', '--yes']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/fixes apply only to the node ncclx runs on/);
  });

  it('nccl-conf resolves only findings whose exports it writes with the same values (ib8-storage: IB-009, IB-015)', () => {
    const r = fix('ib8-storage', ['--json']);
    const f = byId(r.json!)['nccl-conf']!;
    // IB-009 and IB-015 both name the InfiniBand ports: the NCCL_IB_HCA of ncclx env. CAND-001 is not an environment matter.
    expect(f.resolves.map((x) => x.checkId)).toEqual(['IB-009', 'IB-015']);
    expect(f.ops[0]).toMatchObject({ kind: 'file', path: '/etc/nccl.conf', expect: null });
    expect(String(f.ops[0]!['content'])).toContain('NCCL_IB_HCA==mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_6:1,mlx5_7:1,mlx5_8:1,mlx5_9:1\n');
    expect(String(f.ops[0]!['content'])).not.toContain('RDMA_PEER_IFACES');
  });
});

describe('merging config files', () => {
  it('nccl.conf: the first line for a name is replaced (NCCL keeps the first), comments and other lines kept', () => {
    const cur = '# site defaults\n#NCCL_IB_HCA=mlx5_9\nNCCL_DEBUG=WARN\nNCCL_IB_HCA=mlx5_0\nNCCL_IB_HCA=mlx5_1\n';
    const out = mergeNcclConf(cur, [
      { name: 'NCCL_IB_HCA', value: '=mlx5_0:1' },
      { name: 'NCCL_SOCKET_IFNAME', value: '=eth1' },
    ]);
    expect(out).toBe('# site defaults\n#NCCL_IB_HCA=mlx5_9\nNCCL_DEBUG=WARN\nNCCL_IB_HCA==mlx5_0:1\nNCCL_IB_HCA=mlx5_1\nNCCL_SOCKET_IFNAME==eth1\n');
    expect(mergeNcclConf(out, [{ name: 'NCCL_IB_HCA', value: '=mlx5_0:1' }])).toBe(out);
    expect(mergeNcclConf(null, [{ name: 'NCCL_IB_HCA', value: 'mlx5' }])).toBe('# written by ncclx fix (see ncclx env)\nNCCL_IB_HCA=mlx5\n');
  });

  it('nccl.conf: a CRLF line keeps its carriage return when replaced; NCCL_IB_HCA_X is not NCCL_IB_HCA', () => {
    const out = mergeNcclConf('NCCL_IB_HCA_X=1\r\nNCCL_IB_HCA=a\r\n', [{ name: 'NCCL_IB_HCA', value: 'b' }]);
    expect(out).toBe('NCCL_IB_HCA_X=1\r\nNCCL_IB_HCA=b\r\n');
  });

  it('sysctl.d: keys replaced in place, new ones appended', () => {
    const out = mergeSysctlConf('# mine\nnet/ipv4/conf/eth1/arp_filter = 0\nvm.swappiness=10\n', [
      { key: 'net/ipv4/conf/eth1/arp_filter', value: '1' },
      { key: 'net/ipv4/conf/eth0.100/arp_ignore', value: '1' },
    ]);
    expect(out).toBe('# mine\nnet/ipv4/conf/eth1/arp_filter = 1\nvm.swappiness=10\nnet/ipv4/conf/eth0.100/arp_ignore = 1\n');
  });
});

describe('marking rules', () => {
  it('values of one selector kind OR, kinds AND: 2 interfaces × 2 ranges × 2 families = 8 rules', () => {
    const rules = markRules(
      [
        { by: 'oif', iface: 'a' },
        { by: 'oif', iface: 'b' },
        { by: 'ports', lo: 1, hi: 9, dir: 'dport' },
        { by: 'ports', lo: 20, hi: 29, dir: 'dport' },
      ],
      46,
    );
    expect(rules).toHaveLength(8);
    expect(new Set(rules.map((r) => r.tag)).size).toBe(8);
  });

  it('an IPv4 destination gives IPv4 rules only; an IPv4 and an IPv6 destination never share a rule', () => {
    expect(markRules([{ by: 'daddr', prefix: '10.0.0.0/24', family: 4 }], 46).map((r) => r.family)).toEqual([4]);
    const mixed = markRules(
      [
        { by: 'daddr', prefix: '10.0.0.0/24', family: 4 },
        { by: 'daddr', prefix: 'fd00::/64', family: 6 },
        { by: 'uid', uid: 1000 },
      ],
      46,
    );
    expect(mixed.map((r) => r.family).sort()).toEqual([4, 6]);
  });
});

it('the CLI server answers as its own process does', () => {
  sameAsOwnProcess(server, ['fix', '--root', join(FIX, 'roce-one-subnet'), '--nccl-version', '2.28.3', '--json'], { PATH: process.env['PATH'] ?? '', HOME: '/nonexistent' });
});
