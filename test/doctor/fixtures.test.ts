// `ncclx doctor` (the built CLI) on every fixture node of docs/fixtures.md: each
// node shows the errors and warnings it was built to show, the healthy RoCE node
// shows nothing, exit codes gate on errors, and --format prom / --only / --skip
// behave as docs/doctor-json.md says.
//
// Expectations come from each node's purpose (docs/fixtures.md) and the check
// table (docs/doctor-json.md, docs/ib-json.md), not from the tool's output: every
// expected error and warning carries the reason it is expected.
import { spawnSync } from 'node:child_process';
import { cliServer, sameAsOwnProcess } from '../helpers/cli-server.js';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The built CLI, with the fixtures' failing reads (EINVAL on hidden GID entries) as a real kernel has them: test/helpers/faults.mjs.
// Every CLI call in one ncclx process with the fixtures' failing reads (test/helpers/cli-server.ts), checked below.
const server = cliServer({ faults: true });
const FIX = join(__dirname, '../fixtures');
// HOME points at an empty directory so no ~/.nccl.conf of the machine running the tests is read.
const HOME = mkdtempSync(join(tmpdir(), 'ncclx-doctor-home-'));
const VERSION = '2.28.3';

type Severity = 'na' | 'ok' | 'info' | 'warn' | 'error' | 'unknown';
interface Evidence {
  kind: string;
  source: string;
  value: string;
}
interface Result {
  id: string;
  family: string;
  severity: Severity;
  summary: string;
  evidence: Evidence[];
  remediation: { env: Record<string, string | null>; commands: string[][]; advice: string | null; fixIds: string[] } | null;
  fixIds: string[];
}
interface DoctorJson {
  host: string;
  ncclVersion: string;
  versionSource: string;
  summary: { errors: number; warnings: number; ok: number; info: number; unknown: number; notApplicable: number };
  exitCode: number;
  results: Result[];
}

function ncclx(args: string[]) {
  const r = server.spawnSync(args, { env: { PATH: process.env['PATH'] ?? '', HOME, NO_COLOR: '1' } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function doctorJson(root: string, extra: string[] = []): { code: number | null; j: DoctorJson } {
  const r = ncclx(['doctor', '--json', '--root', root, ...extra]);
  expect(r.err).toBe('');
  return { code: r.code, j: JSON.parse(r.out) as DoctorJson };
}

/** `id:severity` → count, for every result that is not ok. */
function notOk(j: DoctorJson, skip: string[] = []): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of j.results) {
    if (r.severity === 'ok' || r.severity === 'na') continue;
    const key = `${r.id}:${r.severity}`;
    if (skip.includes(key)) continue;
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
}

const of = (j: DoctorJson, id: string, severity?: Severity) => j.results.filter((r) => r.id === id && (!severity || r.severity === severity));

const CHECK_IDS = ncclx(['doctor', '--list-checks'])
  .out.split('\n')
  .filter(Boolean)
  .map((l) => l.split(/\s+/)[0]!);

interface Expected {
  exit: 0 | 1;
  /** Every non-ok result: `id:severity` → how many. */
  notOk: Record<string, number>;
  /** Results a check gets wrong on this node (see the `it.fails` below); left out of the exact comparison. */
  knownCheckIssues?: string[];
}

// Why each result is expected (docs/fixtures.md for the node, docs/doctor-json.md / docs/ib-json.md for the id).
const EXPECTED: Record<string, Expected> = {
  'ib8-storage': {
    exit: 0,
    notOk: {
      // GPUs and NICs on separate root ports of one CPU: NCCL's path is PHB, beyond the default GDR level PXB:
      // GPUDirect RDMA is off for all eight GPUs, one warning listing them (issue #25: one verdict, one finding per kind).
      'TOPO-010:warn': 1,
      // mlx5_5 and mlx5_11 (one port of each storage NIC) are not cabled: DOWN/Disabled. One result listing both.
      'IB-009:warn': 1,
      // NCCL_IB_HCA unset: the IB rails and the two cabled RoCE storage ports are kept together.
      'IB-015:warn': 1,
      // The uncabled storage ports are left out of RDMA_PEER_IFACES: their ports are DOWN (IB-009's subject),
      // one info listing both, with no advice to address a port that is down. (IB-006 does not apply: NCCL
      // never uses these DOWN ports, so their GID choice does not matter.)
      'CAND-001:info': 1,
    },
  },
  'roce-one-subnet': {
    exit: 1,
    notOk: {
      // GPUs and NICs on separate root ports of one CPU: NCCL's path is PHB, beyond the default GDR level PXB: one warning for the eight GPUs.
      'TOPO-010:warn': 1,
      // (No SOCK-031: the IB transport carries the data, so NCCL's sockets carry only bootstrap and the IB OOB,
      // on ens3, NCCL's own first choice and the default-route network: the socket policy of docs/advice.md.)
      // Eight RoCE rails in 172.16.0.0/24 (one group), with the kernel's ARP defaults.
      'ARP-001:warn': 1,
      // Per rail: arp_announce=0 and arp_ignore=0 (error), arp_filter=0.
      'ARP-002:error': 8,
      // No source-based policy routing: every rail but the first (which wins the main table) sends through enp12s0np0.
      // arp_filter is 0, so warn, not error. (ARP-003: rp_filter=2 is loose: ok.)
      'ARP-004:warn': 7,
    },
  },
  'roce-rail-subnets': {
    exit: 0,
    notOk: {
      // GPUs and NICs on separate root ports of one CPU: NCCL's path is PHB, beyond the default GDR level PXB: one warning for the eight GPUs.
      'TOPO-010:warn': 1,
      // (No SOCK-031: the IB transport carries the data; bootstrap on eno1, the default-route network, per the socket policy.)
      'IB-010:warn': 1, // ens6f1np1 (mlx5_7) left at MTU 1500
      'IB-028:info': 1, // dual-port NICs fused into virtual NICs (≥ 2.24.3)
    },
  },
  'mesh-direct': {
    exit: 0,
    notOk: {
      // (No SOCK-031: the IB transport carries the data; bootstrap on enP7s7, the default-route network, per the socket policy.)
      'IB-009:warn': 1, // roceP2p1s0f1 not cabled
      'IB-028:info': 1, // rocep1s0f0 + rocep1s0f1 fused
      'IB-035:warn': 1, // ...across two different /30s
      'CAND-001:info': 1, // enP2p1s0f1np1 left out: its port is DOWN (IB-009), so no advice to address it (IB-006 does not apply either)
    },
  },
  sandbox: {
    exit: 1,
    notOk: {
      // No NET is left in the topology (IB-038), so the GPU↔NIC checks do not apply.
      // (No SOCK-031: the IB transport carries the data; bootstrap on the pod network's eth0, per the socket policy.)
      'IB-014:error': 1, // 64 KiB memlock (< 64 MiB: error)
      'IB-019:info': 1, // EINVAL on other namespaces' GID types, tolerated by 2.28.3
      'IB-020:warn': 1, // mlx5_1: GID 2 or 7
      'IB-011:warn': 2, // both devices: `device` is a plain directory, not a symlink into /sys/devices
      'IB-036:warn': 1, // 2.28.3 fuses the two NICs on the first CPU: "Could not find NET with id 0" after a failed search
      'IB-038:warn': 1, // ...into a vNIC nested in their <nic>, which the topology never reads, and the two ports are trimmed
      'GDR-001:warn': 1, // no nvidia_peermem: GPUDirect RDMA depends on DMA-BUF
      // The GPUs are visible but no RDMA NIC is on the PCI tree (IB-011), so no NIC has a NUMA node.
      'TOPO-002:unknown': 1,
    },
  },
  'roce-bond': {
    exit: 0,
    notOk: {
      // GPUs and NICs on separate root ports of one CPU: NCCL's path is PHB, beyond the default GDR level PXB: one warning for the eight GPUs.
      'TOPO-010:warn': 1,
      // (No SOCK-031: the IB transport carries the data; bootstrap on eno1, the default-route network, per the socket policy.)
      'IB-003:warn': 1, // NCCL_IB_HCA unset: mlx5_bond_0 used next to mlx5_2, mlx5_3
    },
  },
  efa: {
    exit: 1,
    notOk: {
      'IB-018:info': 1, // the IB transport keeps nothing (link layer Unknown): sockets or the OFI plugin
      'IB-022:info': 1, // four EFA devices with link layer Unknown
      'NET-001:error': 1, // the tree has no aws-ofi-nccl: NCCL would run between nodes over TCP on ens5
    },
  },
  'roce-healthy': {
    exit: 0,
    notOk: {
      // NCCL_SOCKET_IFNAME==eno1 puts NCCL's sockets on the frontend (default route) while the IB transport
      // carries the data over the rails: exactly the socket policy of docs/advice.md, so nothing to say.
    },
  },
};

const runs: Record<string, { code: number | null; j: DoctorJson }> = {};
beforeAll(() => {
  for (const node of Object.keys(EXPECTED)) runs[node] = doctorJson(join(FIX, node), ['--nccl-version', VERSION]);
});
afterAll(() => rmSync(HOME, { recursive: true, force: true }));

describe('every fixture node', () => {
  for (const [node, want] of Object.entries(EXPECTED)) {
    it(`${node}: the expected errors and warnings, exit ${want.exit}`, () => {
      const { code, j } = runs[node]!;
      expect(notOk(j, want.knownCheckIssues)).toEqual(want.notOk);
      expect(code).toBe(want.exit);
      expect(j.exitCode).toBe(want.exit);
      expect(j.ncclVersion).toBe(VERSION);
      // Every check ran; the summary counts what the results say.
      expect([...new Set(j.results.map((r) => r.id))].sort()).toEqual([...CHECK_IDS].sort());
      expect(j.summary.errors).toBe(j.results.filter((r) => r.severity === 'error').length);
    });
  }

  it('no unknown result comes from a file or recorded command missing in the fixture', () => {
    for (const node of Object.keys(EXPECTED)) {
      for (const r of runs[node]!.j.results.filter((x) => x.severity === 'unknown')) {
        expect(`${node} ${r.id}: ${r.summary}`).not.toMatch(/ENOENT|no recorded output|not recorded|could not be read/);
      }
    }
  });

  it('every node has the kernel part a real node has: sysctls, rules, routes, qdiscs, nft and iptables records', () => {
    for (const node of Object.keys(EXPECTED)) {
      const qos = runs[node]!.j.results.find((r) => r.id === 'QOS-002')!;
      expect(qos.summary, node).toMatch(/^no DSCP marking rules \(read: nft -j list ruleset; iptables-save -t mangle; ip6tables-save -t mangle\)$/);
      // SOCK-031 reads the recorded routes; it is never unknown.
      expect(of(runs[node]!.j, 'SOCK-031').map((r) => r.severity), node).not.toContain('unknown');
    }
  });
});

describe('roce-one-subnet: 8 RoCE rails in one /24 with default sysctls', () => {
  const j = () => runs['roce-one-subnet']!.j;
  it('TOPO-010: GPUDirect RDMA off for all 8 GPUs is one warning in the GPUDirect RDMA family, saying what it costs and what would enable it (issue #25)', () => {
    const rs = j().results.filter((r) => r.id === 'TOPO-010' && r.severity !== 'ok' && r.severity !== 'na');
    expect(rs.map((r) => [r.family, r.severity])).toEqual([['gdr', 'warn']]);
    expect(rs[0]!.summary).toMatch(/^GPUDirect RDMA is off for every GPU \(8\): .*PHB, beyond PXB/);
    expect((rs[0] as Result & { why: string }).why).toMatch(/stages every transfer through host memory: a copy per transfer, lower inter-node bandwidth/);
    expect(rs[0]!.remediation!.advice).toMatch(/behind the GPU's own PCIe switch.*NCCL_NET_GDR_LEVEL=PHB allows GPUDirect RDMA/);
  });
  it('ARP-001 names the shared subnet and all eight rails with their HCA ports', () => {
    const [r] = of(j(), 'ARP-001');
    expect(r!.summary).toMatch(/^8 RDMA netdevs share 172\.16\.0\.0\/24: enp12s0np0, enp42s0np0, .*enp213s0np0/);
    expect(r!.evidence.map((e) => e.source)).toContain('mlx5_0:1 → enp12s0np0');
    expect(r!.fixIds).toEqual(['arp-sysctl', 'policy-routing']);
    expect(r!.remediation!.fixIds).toEqual(['arp-sysctl', 'policy-routing']);
  });
  it('ARP-002 reads conf/all and conf/<rail> and combines them as the kernel does', () => {
    const r = of(j(), 'ARP-002', 'error').find((x) => x.summary.startsWith('enp42s0np0:'))!;
    expect(r.summary).toMatch(/arp_announce=0.*arp_ignore=0.*arp_filter=0/);
    expect(r.evidence).toContainEqual({ kind: 'file', source: '/proc/sys/net/ipv4/conf/all/arp_announce', value: '0' });
    expect(r.evidence).toContainEqual({ kind: 'file', source: '/proc/sys/net/ipv4/conf/enp42s0np0/arp_ignore', value: '0 (effective 0 = max(all, if))' });
    // Safe to paste alone (issue #25): the rail's policy routing (ARP-004's lines for it) comes first, then the sysctls.
    expect(r.remediation!.commands).toEqual([
      ['ip', 'route', 'replace', '172.16.0.0/24', 'dev', 'enp42s0np0', 'src', '172.16.0.12', 'table', '100'],
      ['ip', 'rule', 'add', 'from', '172.16.0.12', 'lookup', '100'],
      ['sysctl', '-w', 'net/ipv4/conf/enp42s0np0/arp_announce=2', 'net/ipv4/conf/enp42s0np0/arp_ignore=1', 'net/ipv4/conf/enp42s0np0/arp_filter=1'],
    ]);
  });
  it('ARP-003: the distro\'s loose rp_filter=2 is safe', () => {
    expect(of(j(), 'ARP-003').map((r) => r.severity)).toEqual(['ok']);
  });
  it('ARP-004: the routing lookup from each rail\'s address ends on enp12s0np0 (first connected route)', () => {
    const r = of(j(), 'ARP-004', 'warn').find((x) => x.summary.startsWith('enp213s0np0:'))!;
    expect(r.summary).toMatch(/172\.16\.0\.18 → enp12s0np0/);
    const [route, rule] = r.remediation!.commands;
    expect(route).toEqual(['ip', 'route', 'replace', '172.16.0.0/24', 'dev', 'enp213s0np0', 'src', '172.16.0.18', 'table', expect.stringMatching(/^\d+$/)]);
    expect(rule).toEqual(['ip', 'rule', 'add', 'from', '172.16.0.18', 'lookup', route![9]]);
  });

  it('after the printed remediations (sysctl -w, ip rule add, ip route replace) ARP is healthy and the exit code 0', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ncclx-arpfix-'));
    try {
      // verbatimSymlinks keeps sysfs's relative links pointing inside the copy.
      cpSync(join(FIX, 'roce-one-subnet'), dir, { recursive: true, verbatimSymlinks: true });
      const rulesFile = join(dir, 'commands/ip-rule.json');
      const routesFile = join(dir, 'commands/ip-route-all.json');
      const rules = JSON.parse(readFileSync(rulesFile, 'utf8')) as { priority: number; src: string; table: string }[];
      const routes = JSON.parse(readFileSync(routesFile, 'utf8')) as Record<string, unknown>[];
      const commands = j()
        .results.filter((r) => r.id.startsWith('ARP-') && r.remediation)
        .flatMap((r) => r.remediation!.commands);
      for (const w of commands) {
        const cmd = w.join(' ');
        if (w[0] === 'sysctl' && w[1] === '-w') {
          for (const kv of w.slice(2)) {
            const [key, value] = kv.split('=');
            writeFileSync(join(dir, 'proc/sys', key!), `${value}\n`);
          }
        } else if (w.slice(0, 3).join(' ') === 'ip rule add' && w[3] === 'from' && w[5] === 'lookup') {
          // The kernel gives a rule without a priority the one below the lowest non-local rule.
          const prio = Math.min(...rules.filter((x) => x.priority > 0).map((x) => x.priority)) - 1;
          rules.push({ priority: prio, src: w[4]!, table: w[6]! });
        } else if (w.slice(0, 3).join(' ') === 'ip route replace' && w[4] === 'dev' && w[6] === 'src' && w[8] === 'table') {
          // As `ip -j route show table all` prints a route added without `proto` (boot) and without a gateway.
          routes.unshift({ dst: w[3], dev: w[5], table: w[9], scope: 'link', prefsrc: w[7], flags: [] });
        } else {
          throw new Error(`unexpected remediation command: ${cmd}`);
        }
      }
      rules.sort((a, b) => a.priority - b.priority);
      writeFileSync(rulesFile, JSON.stringify(rules) + '\n');
      writeFileSync(routesFile, JSON.stringify(routes) + '\n');

      const { code, j: after } = doctorJson(dir, ['--nccl-version', VERSION, '--only', 'ARP']);
      expect(notOk(after)).toEqual({ 'ARP-001:info': 1 });
      expect(of(after, 'ARP-001')[0]!.summary).toMatch(/set up for it/);
      expect(code).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('RoCE netdevs without IPv4: left out of the candidate set', () => {
  it('ib8-storage: the report prints the peer set once, not once per left-out port (issue #25)', () => {
    const count = (extra: string[]) => {
      const r = ncclx(['doctor', '--root', join(FIX, 'ib8-storage'), '--nccl-version', VERSION, ...extra]);
      return r.out.split('RDMA_PEER_IFACES=ibp24s0 ').length - 1;
    };
    expect(count([])).toBeLessThanOrEqual(1);
    expect(count(['-v'])).toBe(1);
  });
  it('ib8-storage: the uncabled storage ports, by netdev and HCA port, in one result that says their ports are DOWN (no address advice); the peer line keeps the others', () => {
    const j = runs['ib8-storage']!.j;
    const [down] = of(j, 'CAND-001', 'info');
    expect(down!.summary).toBe('enp41s0f1np1 (mlx5_5:1) DOWN/Disabled, enp170s0f1np1 (mlx5_11:1) DOWN/Disabled: left out of the candidate set, their ports are not ACTIVE (IB-009)');
    expect(down!.remediation!.advice).not.toMatch(/^Give /);
    const line = of(j, 'CAND-001', 'ok')[0]!.remediation!.env['RDMA_PEER_IFACES']!;
    expect(line).toContain('enp41s0f0np0');
    expect(line).not.toContain('enp41s0f1np1');
    // The automatic GID choice only matters on ports NCCL uses; these are DOWN and skipped (IB-009).
    expect(of(j, 'IB-006').map((r) => r.severity)).toEqual(['ok']);
  });
  it('mesh-direct: the uncabled fourth port', () => {
    const j = runs['mesh-direct']!.j;
    expect(of(j, 'CAND-001', 'info').map((r) => r.summary.split(' DOWN/')[0])).toEqual(['enP2p1s0f1np1 (roceP2p1s0f1:1)']);
    expect(of(j, 'IB-006').map((r) => r.severity)).toEqual(['ok']);
  });
});

describe('sandbox: the non-symlink device in a pod\'s view', () => {
  it('IB-011 for each RDMA device, in the topology family', () => {
    const rs = of(runs['sandbox']!.j, 'IB-011', 'warn');
    expect(rs.map((r) => r.summary.split(' is a plain directory')[0])).toEqual(['/sys/class/infiniband/mlx5_0/device', '/sys/class/infiniband/mlx5_1/device']);
    expect(rs.every((r) => r.family === 'topology')).toBe(true);
  });
  it('memlock 64 KiB is the error that fails the gate', () => {
    const j = runs['sandbox']!.j;
    expect(of(j, 'IB-014', 'error')).toHaveLength(1);
    expect(j.results.filter((r) => r.severity === 'error').map((r) => r.id)).toEqual(['IB-014']);
  });
});

describe('roce-healthy: nothing to report', () => {
  it('no error, warning or unknown; exit 0; the NCCL version comes from the library on the node', () => {
    const { code, j } = doctorJson(join(FIX, 'roce-healthy'));
    expect(code).toBe(0);
    expect(j.results.filter((r) => r.severity === 'error' || r.severity === 'warn' || r.severity === 'unknown')).toEqual([]);
    expect(j.summary).toMatchObject({ errors: 0, warnings: 0, unknown: 0 });
    expect(j.ncclVersion).toBe('2.28.3');
    expect(j.versionSource).toMatch(/^\/usr\/lib\/x86_64-linux-gnu\/libnccl\.so\.2\b/);
  });
  it('what "healthy" rests on: conf-file exports, eight rails for the job, peer memory, placement', () => {
    const j = runs['roce-healthy']!.j;
    const rails = ['enp24s0np0', 'enp58s0np0', 'enp75s0np0', 'enp92s0np0', 'enp154s0np0', 'enp186s0np0', 'enp202s0np0', 'enp218s0np0'];
    expect(of(j, 'CAND-001')[0]!.summary).toBe(`8 RDMA netdevs for the job: RDMA_PEER_IFACES=${rails.join(' ')}`);
    expect(of(j, 'ARP-001')[0]!.summary).toBe('no two RDMA netdevs share an IPv4 subnet');
    expect(of(j, 'GDR-001')[0]!.summary).toMatch(/\/sys\/module\/nvidia_peermem\/version/);
    expect(of(j, 'TOPO-002')[0]!.summary).toMatch(/NUMA 0, 1/);
    expect(of(j, 'IB-014')[0]!.severity).toBe('ok');
    const sock = of(j, 'SOCK-001')[0]!.evidence;
    expect(sock[0]).toEqual({ kind: 'file', source: '/etc/nccl.conf:2', value: 'NCCL_SOCKET_IFNAME==eno1' });
    expect(sock[1]!.value).toBe('bootstrap: eno1 192.168.50.12; socket: eno1 192.168.50.12; IB OOB: eno1 192.168.50.12');
    expect(of(j, 'IB-001')[0]!.evidence[0]!.value).toBe(`ports used: ${[0, 1, 2, 3, 4, 5, 6, 7].map((k) => `mlx5_${k}:1 GID 3`).join(', ')}`);
  });
  it('text report: quiet when healthy — one line per family, and the last line counts every severity', () => {
    const r = ncclx(['doctor', '--root', join(FIX, 'roce-healthy'), '--no-color', '--nccl-version', VERSION]);
    expect(r.code).toBe(0);
    const lines = r.out.trim().split('\n');
    expect(lines.pop()).toMatch(/^0 errors, 0 warnings, 0 unknown, \d+ info, \d+ ok(, \d+ not applicable)?$/);
    expect(lines.filter((l) => l.startsWith('['))).toEqual(expect.arrayContaining([expect.stringMatching(/^\[✓\] Socket interfaces \(\d+ checks/), expect.stringMatching(/^\[✓\] RDMA devices and GIDs \(\d+ checks/)]));
    // Healthy: no per-check line at all.
    expect(lines.filter((l) => /^ {2}[✓!✗?i-] /.test(l))).toEqual([]);
    expect(lines.length).toBeLessThan(20);
  });
  it('text report: problems expanded once per check — ARP-002 on 8 netdevs is one statement with one why and one fix', () => {
    const r = ncclx(['doctor', '--root', join(FIX, 'roce-one-subnet'), '--no-color', '--nccl-version', VERSION]);
    const arp2 = r.out.split('\n').filter((l) => /^ +. ARP-002/.test(l));
    expect(arp2).toHaveLength(1);
    expect(arp2[0]).toMatch(/✗ ARP-002 +arp_announce=0: .* — on 8: enp12s0np0, enp42s0np0, /);
    const block = r.out.slice(r.out.indexOf('✗ ARP-002'), r.out.indexOf('! ARP-004'));
    expect(block.match(/why:/g)).toHaveLength(1);
    expect(block.match(/^ +fix:/gm)).toHaveLength(1);
    expect(block).toMatch(/With several RDMA netdevs in one subnet/);
    expect(block.match(/With several RDMA netdevs in one subnet/g)).toHaveLength(1);
  });
  it('every unknown says what would make it known (JSON remediation, "to know:" in the text)', () => {
    let unknowns = 0;
    for (const node of Object.keys(EXPECTED)) {
      for (const r of runs[node]!.j.results.filter((x) => x.severity === 'unknown')) {
        unknowns++;
        expect(r.remediation?.advice, `${node} ${r.id}`).toMatch(/\S/);
      }
    }
    // A snapshot without its kernel part: the QoS checks are unknown and say how to know.
    const snap = join(HOME, 'no-kernel.json');
    const j = JSON.parse(ncclx(['snapshot', '--root', join(FIX, 'roce-one-subnet')]).out);
    delete j.kernel;
    writeFileSync(snap, JSON.stringify(j));
    const text = ncclx(['doctor', '--snapshot', snap, '--no-color', '--nccl-version', VERSION, '--only', 'QOS-002']).out;
    expect(text).toMatch(/\? QOS-002 .*\n(?:.*\n)*? +to know: Take the snapshot again/);
    expect(unknowns + 1).toBeGreaterThan(0);
  });
});

describe('NICs off the PCI tree and NET 0 (IB-036)', () => {
  // sandbox: mlx5_0 and mlx5_1 have no PCI device link, so both hang off the first CPU's NIC node.
  const at = (v: string) => of(doctorJson(join(FIX, 'sandbox'), ['--nccl-version', v, '--only', 'IB-036']).j, 'IB-036');
  it('2.24.3–2.26.x renumber every NET: NET 0 is gone even at NCCL_NET_MERGE_LEVEL=LOC, so the fix is not LOC', () => {
    const r = at('2.25.1');
    expect(r.map((x) => x.severity)).toEqual(['warn']);
    expect(r[0]!.summary).toMatch(/renumbers every NET device .*NCCL_NET_MERGE_LEVEL=LOC included/);
    expect(r[0]!.remediation?.env ?? {}).toEqual({});
  });
  it('2.27.3–2.29.1 fuse them, and LOC keeps NET 0; from 2.29.2 the fallback uses real NETs', () => {
    expect(at('2.28.3')[0]!.remediation?.env).toEqual({ NCCL_NET_MERGE_LEVEL: 'LOC' });
    expect(at('2.29.2').map((x) => x.severity)).toEqual(['ok']);
  });
});

describe('vNICs of 2.24.3–2.26.x are never read (IB-028, IB-035)', () => {
  // mesh-direct: rocep1s0f0 and rocep1s0f1 share a NIC and sit on two /30s.
  const at = (v: string) => doctorJson(join(FIX, 'mesh-direct'), ['--nccl-version', v, '--only', 'IB-028,IB-035']).j;
  it('2.25.1: the ports stay separate NETs, so a vNIC across subnets is no problem', () => {
    expect(of(at('2.25.1'), 'IB-035').map((x) => x.severity)).toEqual(['ok']);
    expect(of(at('2.25.1'), 'IB-028')[0]!.summary).toMatch(/nested <nic> their topology never reads: the ports stay separate NET devices/);
  });
  it('2.28.3: the vNIC is used, and spanning two /30s is a warning', () => {
    expect(of(at('2.28.3'), 'IB-035').map((x) => x.severity)).toEqual(['warn']);
  });
});

describe('RoCE LAG', () => {
  // mlx5_bond_0 is the RDMA device of both PFs of the RoCE LAG (the kernel removes the second
  // PF's RDMA device when LAG is active), so the second PF is covered through bond0's members.
  it('roce-bond: TOPO-001 does not flag the second PF of the RoCE LAG', () => {
    expect(of(runs['roce-bond']!.j, 'TOPO-001').map((r) => r.severity)).toEqual(['ok']);
  });
});

describe('exit codes, --format prom, --only and --skip', () => {
  const one = join(FIX, 'roce-one-subnet');
  it('--format prom: one status series per check (state as the value), totals, the same exit code', () => {
    const r = ncclx(['doctor', '--format', 'prom', '--root', one, '--nccl-version', VERSION]);
    expect(r.code).toBe(1);
    const gauges = r.out.split('\n').filter((l) => l.startsWith('ncclx_check_status{'));
    expect(gauges).toHaveLength(CHECK_IDS.length);
    expect(r.out).toMatch(/^# TYPE ncclx_check_status gauge$/m);
    expect(gauges).toContain('ncclx_check_status{id="ARP-001",family="arp",host="gpu-roce-07"} 1');
    expect(gauges).toContain('ncclx_check_status{id="ARP-002",family="arp",host="gpu-roce-07"} 2');
    expect(gauges).toContain('ncclx_check_status{id="ARP-003",family="arp",host="gpu-roce-07"} 0');
    // ARP-004 has an ok result (enp12s0np0) and warnings: the series carries the worst.
    expect(gauges).toContain('ncclx_check_status{id="ARP-004",family="arp",host="gpu-roce-07"} 1');
    expect(r.out).toMatch(/^ncclx_results\{severity="error",host="gpu-roce-07"\} 8$/m);
    expect(r.out).toMatch(/^ncclx_results\{severity="warn",host="gpu-roce-07"\} 9$/m);
    expect(r.out).toMatch(/^ncclx_last_run_timestamp_seconds\{host="gpu-roce-07"\} \d+$/m);
  });
  it('--format prom: the same series whatever the state (a healthy and a broken node differ only in values)', () => {
    const series = (root: string) => ncclx(['doctor', '--format', 'prom', '--root', root, '--nccl-version', VERSION]).out.split('\n').filter((l) => l && !l.startsWith('#')).map((l) => l.replace(/ \S+$/, '').replace(/host="[^"]*"/, 'host=""').replace(/,?nccl_version="[^"]*"|,?profile="[^"]*"/g, ''));
    expect(series(join(FIX, 'roce-healthy'))).toEqual(series(one));
  });
  describe('promtool', () => {
    const promtool = spawnSync('sh', ['-c', 'command -v promtool']).status === 0;
    const CI = !!process.env['CI'] && process.env['CI'] !== 'false' && process.env['CI'] !== '0';
    (promtool || CI ? it : it.skip)(`check metrics is clean${promtool || CI ? '' : ' — skipped: promtool not installed (apt-get install prometheus); CI installs it and never skips'}`, () => {
      expect(promtool, 'apt-get install prometheus').toBe(true);
      for (const root of [one, join(FIX, 'roce-healthy'), join(FIX, 'efa')]) {
        const text = ncclx(['doctor', '--format', 'prom', '--root', root, '--nccl-version', VERSION]).out;
        const r = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
        expect(r.status, r.stdout + r.stderr).toBe(0);
        expect((r.stdout + r.stderr).trim()).toBe('');
      }
    });
  });
  it('--only takes prefixes and ids; the exit code follows the selected checks', () => {
    const arp = doctorJson(one, ['--nccl-version', VERSION, '--only', 'ARP']);
    expect([...new Set(arp.j.results.map((r) => r.id))]).toEqual(['ARP-001', 'ARP-002', 'ARP-003', 'ARP-004']);
    expect(arp.code).toBe(1);
    const warnOnly = doctorJson(one, ['--nccl-version', VERSION, '--only', 'ARP-001,TOPO-010']);
    expect([...new Set(warnOnly.j.results.map((r) => r.id))]).toEqual(['ARP-001', 'TOPO-010']);
    expect(notOk(warnOnly.j)).toEqual({ 'ARP-001:warn': 1, 'TOPO-010:warn': 1 });
    expect(warnOnly.code).toBe(0);
  });
  it('--skip: skipping the only erroring check makes the node pass the gate', () => {
    const { code, j } = doctorJson(one, ['--nccl-version', VERSION, '--skip', 'ARP-002']);
    expect(j.results.some((r) => r.id === 'ARP-002')).toBe(false);
    expect(j.results.some((r) => r.id === 'ARP-001')).toBe(true);
    expect(code).toBe(0);
    const sandbox = doctorJson(join(FIX, 'sandbox'), ['--nccl-version', VERSION, '--skip', 'IB-014,SOCK']);
    expect(sandbox.j.results.some((r) => r.id.startsWith('SOCK-') || r.id === 'IB-014')).toBe(false);
    expect(sandbox.code).toBe(0);
  });
  it('a snapshot taken under --root gives the same results through --snapshot (kernel and PCI parts pass the schema)', () => {
    const file = join(HOME, 'roce-one-subnet.json');
    expect(ncclx(['snapshot', '--root', one, '-o', file]).code).toBe(0);
    const r = ncclx(['doctor', '--json', '--snapshot', file, '--nccl-version', VERSION]);
    expect(r.code).toBe(1);
    const brief = (j: DoctorJson) => j.results.map((x) => `${x.id} ${x.severity} ${x.summary}`);
    expect(brief(JSON.parse(r.out) as DoctorJson)).toEqual(brief(runs['roce-one-subnet']!.j));
  });
  it('an unknown check id is a usage error: exit 2', () => {
    const r = ncclx(['doctor', '--json', '--root', one, '--only', 'ARP-099']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/unknown check id ARP-099/);
    expect(r.out).toBe('');
  });
});

it('the CLI server answers as its own process does (doctor -v on roce-one-subnet)', () => {
  sameAsOwnProcess(server, ['doctor', '-v', '--no-color', '--root', join(FIX, 'roce-one-subnet'), '--nccl-version', VERSION], { PATH: process.env['PATH'] ?? '', HOME, NO_COLOR: '1' });
});
