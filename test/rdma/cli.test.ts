// The built CLI on every fixture node: which ports NCCL uses and which GID
// index each gets, per NCCL version profile.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/tmp.js';
import { describe, expect, it } from 'vitest';
import { cliServer, sameAsOwnProcess } from '../helpers/cli-server.js';

const FIX = join(__dirname, '../fixtures');
const tmp = tempDir('ncclx-ib-');

// Every call in one ncclx process (test/helpers/cli-server.ts), one checked against its own process below.
const server = cliServer({ faults: true });
const envOf = (env: Record<string, string>) => ({ PATH: process.env['PATH'] ?? '', HOME: tmp, NO_COLOR: '1', ...env });
function ncclx(args: string[], env: Record<string, string> = {}) {
  const r = server.run(args, envOf(env));
  return { code: r.status, out: r.stdout, err: r.stderr };
}

it('the server answers as its own process does (ib --json on the node with the most ports)', () => {
  sameAsOwnProcess(server, ['ib', '--json', '--root', join(FIX, 'ib8-storage'), '--nccl-version', '2.28.3'], envOf({}));
});

interface PortJson {
  port: number;
  usedByNccl: boolean | null;
  ncclIndex: number | null;
  netDevice: number | null;
  gidIndex: number | null;
  gidType: string | null;
  gidIPv4: string | null;
  gidSelection: { mode: string; outcome: { kind: string; candidates?: number[]; index?: number } } | null;
  trace: { stage: string; verdict: string; reason: string }[];
  state: string | null;
  linkLayer: string | null;
  netdev: string | null;
}
interface IbJson {
  ncclVersion: string;
  transport: { status: string; used: boolean | null; network: string; log: { level: string; text: string }[]; oob: { interface: string | null } };
  ncclDevices: { index: number; dev: string; port: number }[];
  netDevices: { index: number; name: string; virtual: boolean }[];
  devices: { name: string; ports: PortJson[] }[];
  findings: { id: string; severity: string; message: string; fix: string }[];
}

function ib(node: string, version: string, env: Record<string, string> = {}, extra: string[] = []): { code: number | null; j: IbJson } {
  const r = ncclx(['ib', '--json', '--root', join(FIX, node), '--nccl-version', version, ...extra], env);
  expect(r.err).toBe('');
  return { code: r.code, j: JSON.parse(r.out) as IbJson };
}
const used = (j: IbJson) => j.ncclDevices.map((d) => `${d.dev}:${d.port}`);
/** dev → GID index NCCL uses (null: none / not used), or the candidates when indeterminate. */
function gidMap(j: IbJson): Record<string, number | null | number[] | string> {
  const out: Record<string, number | null | number[] | string> = {};
  for (const d of j.devices) {
    for (const p of d.ports) {
      const o = p.gidSelection?.outcome;
      out[`${d.name}:${p.port}`] = !o ? null : o.kind === 'index' ? o.index! : o.kind === 'indeterminate' ? o.candidates! : o.kind;
    }
  }
  return out;
}
const ids = (j: IbJson) => j.findings.map((f) => f.id);

const IB8 = ['mlx5_0', 'mlx5_1', 'mlx5_2', 'mlx5_3', 'mlx5_6', 'mlx5_7', 'mlx5_8', 'mlx5_9'];

describe('ib8-storage: 8 × 400G InfiniBand + two RoCE storage NICs', () => {
  it('2.28.3: ten ports in libibverbs order, IB on GID 0, RoCE on the IPv4 RoCE v2 GID 3', () => {
    const { code, j } = ib('ib8-storage', '2.28.3');
    expect(code).toBe(0);
    expect(used(j)).toEqual(['mlx5_0:1', 'mlx5_1:1', 'mlx5_2:1', 'mlx5_3:1', 'mlx5_4:1', 'mlx5_6:1', 'mlx5_7:1', 'mlx5_8:1', 'mlx5_9:1', 'mlx5_10:1']);
    const g = gidMap(j);
    for (const d of IB8) expect(g[`${d}:1`]).toBe(0);
    expect(g['mlx5_4:1']).toBe(3);
    expect(g['mlx5_10:1']).toBe(3);
    expect(j.transport.oob.interface).toBe('ibp24s0');
    const storage = j.devices.find((d) => d.name === 'mlx5_5')!.ports[0]!;
    expect(storage).toMatchObject({ usedByNccl: false, state: 'DOWN', netdev: 'enp41s0f1np1' });
    expect(ids(j)).toEqual(expect.arrayContaining(['IB-015', 'IB-009']));
  });
  it('2.29.7: sorted by PCI BDF', () => {
    expect(used(ib('ib8-storage', '2.29.7').j)).toEqual(['mlx5_0:1', 'mlx5_4:1', 'mlx5_1:1', 'mlx5_2:1', 'mlx5_3:1', 'mlx5_6:1', 'mlx5_10:1', 'mlx5_7:1', 'mlx5_8:1', 'mlx5_9:1']);
  });
  it('2.21.5: InfiniBand is addressed by LID (no GID index); 2.19.3: RoCE on the fixed default 0', () => {
    const g = gidMap(ib('ib8-storage', '2.21.5').j);
    expect(g['mlx5_0:1']).toBe('not-used');
    expect(g['mlx5_4:1']).toBe(3);
    expect(gidMap(ib('ib8-storage', '2.19.3').j)['mlx5_4:1']).toBe(0);
  });
  it('NCCL_IB_HCA from the environment and --hca: the exact IB list keeps only the IB rails', () => {
    const viaEnv = ib('ib8-storage', '2.28.3', { NCCL_IB_HCA: `=${IB8.join(',')}` }).j;
    expect(used(viaEnv)).toEqual(IB8.map((d) => `${d}:1`));
    const viaFlag = ib('ib8-storage', '2.28.3', { NCCL_IB_HCA: 'nomatch' }, ['--hca', `=${IB8.join(',')}`]).j;
    expect(used(viaFlag)).toEqual(IB8.map((d) => `${d}:1`));
  });
  it('a typo in NCCL_IB_HCA: no device, sockets, exit 1', () => {
    const { code, j } = ib('ib8-storage', '2.28.3', {}, ['--hca', 'mlx_5']);
    expect(code).toBe(1);
    expect(j.transport).toMatchObject({ status: 'no-device', network: 'Socket' });
    expect(j.transport.log.map((l) => l.text)).toEqual(['NCCL_IB_HCA set to mlx_5', 'NET/IB : No device found.']);
  });
});

describe('roce-one-subnet: 8 RoCE rails in one /24', () => {
  it('all eight rails, GID 3 each, no findings', () => {
    for (const v of ['2.21.5', '2.26.2', '2.28.3', '2.30.7']) {
      const { code, j } = ib('roce-one-subnet', v);
      expect(code).toBe(0);
      expect(used(j)).toEqual([0, 1, 2, 3, 4, 5, 6, 7].map((k) => `mlx5_${k}:1`));
      expect(Object.values(gidMap(j))).toEqual(Array(8).fill(3));
      expect(j.devices[0]!.ports[0]!.gidIPv4).toBe('172.16.0.11');
      if (v === '2.28.3') expect(j.findings).toEqual([]);
    }
  });
  it('an explicit NCCL_IB_GID_INDEX is used as is (and flagged)', () => {
    const { j } = ib('roce-one-subnet', '2.28.3', { NCCL_IB_GID_INDEX: '1' });
    expect(Object.values(gidMap(j))).toEqual(Array(8).fill(1));
    expect(j.devices[0]!.ports[0]!.gidSelection!.mode).toBe('explicit');
    expect(ids(j)).toContain('IB-005');
  });
});

describe('roce-rail-subnets: one subnet per rail; mlx5_0 is the §3.5 example', () => {
  const rows: [string, Record<string, string>, number][] = [
    ['defaults', {}, 3],
    ['NCCL_IB_ADDR_RANGE=192.168.1.0/24', { NCCL_IB_ADDR_RANGE: '192.168.1.0/24' }, 5],
    ['NCCL_IB_ROCE_VERSION_NUM=1', { NCCL_IB_ROCE_VERSION_NUM: '1' }, 2],
    ['NCCL_IB_ROCE_VERSION_NUM=3', { NCCL_IB_ROCE_VERSION_NUM: '3' }, 2],
    ['NCCL_IB_ADDR_FAMILY=AF_INET6', { NCCL_IB_ADDR_FAMILY: 'AF_INET6' }, 7],
  ];
  for (const [name, env, want] of rows) {
    it(`mlx5_0 with ${name} → GID ${want}`, () => expect(gidMap(ib('roce-rail-subnets', '2.28.3', env).j)['mlx5_0:1']).toBe(want));
  }
  it('AF_INET6 on rails without a global IPv6: GID 0 and an error', () => {
    const { code, j } = ib('roce-rail-subnets', '2.28.3', { NCCL_IB_ADDR_FAMILY: 'AF_INET6' });
    expect(gidMap(j)['mlx5_1:1']).toBe(0);
    expect(code).toBe(1);
  });
  it('dual-port NICs: 4 virtual NICs from 2.24.3 (numbered 8–11), merged by the IB transport in 2.21.5, separate in 2.19.3', () => {
    expect(ib('roce-rail-subnets', '2.28.3').j.netDevices.map((n) => `${n.index}:${n.name}`)).toEqual(['8:mlx5_0+mlx5_1', '9:mlx5_2+mlx5_3', '10:mlx5_4+mlx5_5', '11:mlx5_6+mlx5_7']);
    const merged = ib('roce-rail-subnets', '2.21.5').j;
    expect(merged.netDevices.map((n) => n.name)).toEqual(['mlx5_0+mlx5_1', 'mlx5_2+mlx5_3', 'mlx5_4+mlx5_5', 'mlx5_6+mlx5_7']);
    expect(merged.transport.log[0]!.text).toMatch(/^NET\/IB : Using \[0\]=\{\[0\] mlx5_0:1\/RoCE, \[1\] mlx5_1:1\/RoCE\}/);
    expect(ib('roce-rail-subnets', '2.19.3').j.netDevices).toHaveLength(8);
  });
});

describe('mesh-direct: three ports, each on a /30 to another peer', () => {
  it('three ACTIVE ports with GID 3; the uncabled one is skipped; the two ports of one NIC fuse', () => {
    const { j } = ib('mesh-direct', '2.28.3');
    expect(used(j)).toEqual(['rocep1s0f0:1', 'rocep1s0f1:1', 'roceP2p1s0f0:1']);
    expect(gidMap(j)).toMatchObject({ 'rocep1s0f0:1': 3, 'rocep1s0f1:1': 3, 'roceP2p1s0f0:1': 3 });
    expect(j.netDevices.find((n) => n.virtual)!.name).toBe('rocep1s0f0+rocep1s0f1');
    expect(ids(j)).toEqual(expect.arrayContaining(['IB-035', 'IB-009']));
  });
  it('2.29.7 sorts by BDF: domain 0000 before 0002', () => {
    expect(used(ib('mesh-direct', '2.29.7').j)).toEqual(['rocep1s0f0:1', 'rocep1s0f1:1', 'roceP2p1s0f0:1']);
  });
});

describe('sandbox: a pod\'s view of sysfs', () => {
  it('≥ 2.26.2: mlx5_0 → 3 despite EINVAL entries; mlx5_1 indeterminate (2 or 7); memlock makes it exit 1', () => {
    const { code, j } = ib('sandbox', '2.28.3');
    expect(code).toBe(1);
    expect(gidMap(j)).toEqual({ 'mlx5_0:1': 3, 'mlx5_1:1': [2, 7] });
    const p = j.devices[0]!.ports[0]!;
    expect(p.trace.filter((t) => t.stage === 'gid' && /EINVAL/.test(t.reason)).length).toBeGreaterThan(0);
    expect(ids(j)).toEqual(expect.arrayContaining(['IB-011', 'IB-014', 'IB-012', 'IB-020', 'IB-019']));
  });
  it('2.23.4: both ports fail on the unreadable types file', () => {
    expect(gidMap(ib('sandbox', '2.23.4').j)).toEqual({ 'mlx5_0:1': 'failure', 'mlx5_1:1': 'failure' });
  });
  it('2.19.3: fixed GID 0, no types read', () => {
    expect(gidMap(ib('sandbox', '2.19.3').j)).toEqual({ 'mlx5_0:1': 0, 'mlx5_1:1': 0 });
  });
  it('--gid-index settles it', () => {
    expect(gidMap(ib('sandbox', '2.28.3', {}, ['--gid-index', '7']).j)).toEqual({ 'mlx5_0:1': 7, 'mlx5_1:1': 7 });
  });
});

describe('roce-bond: mlx5_bond_0 next to two compute NICs', () => {
  it('three ports, GID 3 each; the bond is reported', () => {
    const { j } = ib('roce-bond', '2.28.3');
    expect(used(j)).toEqual(['mlx5_2:1', 'mlx5_3:1', 'mlx5_bond_0:1']);
    expect(Object.values(gidMap(j))).toEqual([3, 3, 3]);
    expect(j.devices.find((d) => d.name === 'mlx5_bond_0')!.ports[0]!.netdev).toBe('bond0');
    expect(ids(j)).toContain('IB-003');
  });
  it('NCCL_IB_GID_INDEX=1 (NVIDIA/nccl#769): link-local, flagged', () => {
    const { j } = ib('roce-bond', '2.28.3', { NCCL_IB_GID_INDEX: '1' }, ['--hca', '=mlx5_bond_0']);
    expect(gidMap(j)['mlx5_bond_0:1']).toBe(1);
    expect(j.findings.find((f) => f.id === 'IB-005')!.message).toMatch(/link-local/);
  });
});

describe('efa: link layer Unknown', () => {
  it('NCCL\'s IB transport keeps nothing and uses sockets', () => {
    const { code, j } = ib('efa', '2.28.3');
    expect(code).toBe(0);
    expect(used(j)).toEqual([]);
    expect(j.transport).toMatchObject({ status: 'no-device', network: 'Socket' });
    expect(Object.values(gidMap(j))).toEqual([null, null, null, null]);
  });
});

describe('transcribed public reports (test/fixtures/transcribed)', () => {
  it('Mooncake#2747: GID 1 (IPv4 RoCE v2) from 2.21.5, 0 before', () => {
    expect(gidMap(ib('transcribed/mooncake-2747-rdma0', '2.28.3').j)['rdma0:1']).toBe(1);
    expect(gidMap(ib('transcribed/mooncake-2747-rdma0', '2.19.3').j)['rdma0:1']).toBe(0);
  });
  it('NVIDIA/nccl#769: GID 3 on mlx5_bond_0', () => {
    expect(gidMap(ib('transcribed/nccl-769-bond', '2.21.5').j)['mlx5_bond_0:1']).toBe(3);
  });
  it('tables with unlisted entries are indeterminate but include the reported index', () => {
    expect(gidMap(ib('transcribed/multus-1100-pod-a', '2.28.3').j)['mlx5_4:1']).toEqual(expect.arrayContaining([5]));
    expect(gidMap(ib('transcribed/nccl-1538-pod-2.23', '2.28.3').j)['mlx5_0:1']).toEqual(expect.arrayContaining([7]));
  });
  it('odd formats parse: "10 Gb/sec (4X)", phys_state "4: ACTIVE", missing link_layer is unknown', () => {
    const ne = ib('transcribed/node-exporter-fixtures-ib', '2.28.3').j;
    expect(ne.devices.find((d) => d.name === 'i40iw0')!.ports[0]).toMatchObject({ linkLayer: 'InfiniBand', state: 'ACTIVE' });
    const st = ib('transcribed/stackhpc-988-cx7-ib', '2.28.3').j;
    expect(st.devices.map((d) => d.ports[0]!.usedByNccl)).toEqual([null, null]);
  });
});

describe('ncclx ib gids / map / text / snapshots', () => {
  it('gids --json: the table with NCCL\'s choice marked; --all includes unset entries', () => {
    const j = JSON.parse(ncclx(['ib', 'gids', '--json', '--root', join(FIX, 'roce-rail-subnets'), '--nccl-version', '2.28.3']).out);
    const rows = j.gids.filter((g: { dev: string }) => g.dev === 'mlx5_0');
    expect(rows.map((g: { index: number }) => g.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(rows.find((g: { nccl: string }) => g.nccl === 'yes')).toMatchObject({ index: 3, ipv4: '10.0.0.5', type: 'RoCE v2', ndev: 'ens1f0np0' });
    const all = JSON.parse(ncclx(['ib', 'gids', '--all', '--json', '--root', join(FIX, 'roce-rail-subnets'), '--nccl-version', '2.28.3']).out);
    expect(all.gids.filter((g: { dev: string }) => g.dev === 'mlx5_0')).toHaveLength(255);
    expect(all.gids.find((g: { dev: string; index: number }) => g.dev === 'mlx5_0' && g.index === 200).type).toBe('?(EINVAL)');
  });
  it('gids text: show_gids columns', () => {
    const out = ncclx(['ib', 'gids', '--root', join(FIX, 'sandbox'), '--nccl-version', '2.28.3']).out;
    expect(out).toMatch(/^DEV\s+PORT\s+INDEX\s+GID\s+IPv4\s+VER\s+NETDEV\s+NCCL/);
    expect(out).toMatch(/mlx5_0\s+1\s+3\s+0000:0000:0000:0000:0000:ffff:0a9c:8184\s+10\.156\.129\.132\s+v2\s+net1\s+\*/);
    expect(out).toMatch(/mlx5_1\s+1\s+7\s+\S+\s+10\.156\.133\.132\s+v2\s+net2\s+\?/);
    expect(out).toMatch(/mlx5_1\s+1\s+2\s+\S+\s+10\.156\.133\.4\s+\?\(EINVAL\)/);
  });
  it('map: ibdev2netdev style', () => {
    const out = ncclx(['ib', 'map', '--root', join(FIX, 'roce-bond')]).out;
    // ibdev2netdev's states, from the carrier files: the fixture has ens5np0 without carrier and no carrier file for bond0.
    expect(out.split('\n').filter(Boolean)).toEqual(['mlx5_2 port 1 ==> ens2np0 (Up)', 'mlx5_3 port 1 ==> ens5np0 (Down)', 'mlx5_bond_0 port 1 ==> bond0 (NA)']);
    const down = ncclx(['ib', 'map', '--root', join(FIX, 'ib8-storage')]).out;
    expect(down).toMatch(/^mlx5_5 port 1 ==> enp41s0f1np1 \(Down\)$/m);
    expect(JSON.parse(ncclx(['ib', 'map', '--json', '--root', join(FIX, 'efa')]).out).map[0]).toMatchObject({ dev: 'rdmap16s27', port: 1, netdev: null, state: null });
  });
  it('text output: the port table, the NCCL log line, findings, no colour when NO_COLOR', () => {
    const r = ncclx(['ib', '--root', join(FIX, 'ib8-storage'), '--nccl-version', '2.28.3', '-v']);
    expect(r.out).toMatch(/^DEV:PORT\s+STATE\s+PHYS\s+LINK\s+RATE\s+NETDEV\s+IPv4\s+GID\s+TYPE\s+GID ADDRESS\s+NCCL$/m);
    expect(r.out).toMatch(/^mlx5_4:1\s+ACTIVE\s+LinkUp\s+RoCE\s+200 Gb\/sec \(4X HDR\)\s+enp41s0f0np0\s+10\.100\.0\.21\/24\s+3\s+RoCE v2\s+::ffff:10\.100\.0\.21\s+yes \[4\]$/m);
    expect(r.out).toMatch(/NCCL INFO NET\/IB : Using \[0\]mlx5_0:1\/IB/);
    expect(r.out).toMatch(/Trace — mlx5_4:1\n.*\n.*\n.*\n.*\n.*\n\s+gid 0\s+start/);
    expect(r.out).toMatch(/gid 4–254\s+skipped\s+family AF_INET6 \(all-zero entry\)/);
    expect(r.out).not.toMatch(/\x1b\[/);
  });
  it('a snapshot taken with --root gives the same answer through --snapshot (the RDMA part passes the schema)', () => {
    const file = join(tmp, 'sandbox.json');
    const s = ncclx(['snapshot', '--root', join(FIX, 'sandbox'), '-o', file]);
    expect(s.code).toBe(0);
    const snap = JSON.parse(readFileSync(file, 'utf8'));
    expect(snap.rdma.devices.map((d: { name: string }) => d.name)).toEqual(['mlx5_0', 'mlx5_1']);
    expect(snap.rdma.devices[0].ports[0].gids[6].type).toEqual({ error: 'EINVAL' });
    const viaSnap = JSON.parse(ncclx(['ib', '--json', '--snapshot', file, '--nccl-version', '2.28.3']).out);
    const viaRoot = ib('sandbox', '2.28.3').j;
    expect(gidMap(viaSnap)).toEqual(gidMap(viaRoot));
    expect(viaSnap.findings.map((f: { id: string }) => f.id)).toEqual(ids(viaRoot));
  });
  it('usage errors exit 2', () => {
    const a = ncclx(['ib', '--root', FIX, '--snapshot', 'x.json']);
    expect(a.code).toBe(2);
    expect(a.err).toMatch(/--snapshot and --root cannot be used together/);
    const b = ncclx(['ib', '--root', join(FIX, 'efa'), '--set', 'FOO=1']);
    expect(b.code).toBe(2);
    expect(ncclx(['ib', '--root', join(FIX, 'efa'), '--nccl-version', 'banana']).code).toBe(2);
  });
});
