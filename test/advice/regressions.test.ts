// The cases of issue #13, each as it was reported: advice that pinned NCCL to
// loopback, fixed the wrong variable, moved a port onto another GID, mixed IB
// and RoCE ports, recommended a broken value, or exported what the doctor
// warns against. Each asserts the advice now shown and, where it sets
// variables, that following it leaves nothing behind.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withEnv } from '../../src/checks/verify.js';
import type { IpRouteJson, RouteTarget } from '../../src/model/snapshot/kernel-types.js';
import type { CheckResult } from '../../src/model/result/types.js';
import { tempDir } from '../helpers/tmp.js';
import { link, snapshotOf } from '../unit/helpers.js';
import { ok, rdmaPart, withParts } from '../unit/kernel-fixtures.js';
import { doctor, fixture, FIXTURES, recommended } from './cases.js';
import { fixtureNodes } from './suite.js';
import { cliServer, sameAsOwnProcess } from '../helpers/cli-server.js';

// The built CLI, with the fixtures' failing reads (EINVAL on hidden GID entries) as a real kernel has them: test/helpers/faults.mjs.
// Every CLI call in one ncclx process (test/helpers/cli-server.ts), one checked against its own process.
const server = cliServer({ faults: true });
const tmp = tempDir('ncclx-advice-');
const ncclx = (args: string[], env: Record<string, string> = {}) =>
  server.spawnSync([...args], { encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '', HOME: tmp, ...env } });

const of = (results: CheckResult[], id: string) => results.filter((r) => r.checkId === id);
const warnOrError = (results: CheckResult[], re: RegExp) => results.filter((r) => (r.severity === 'warn' || r.severity === 'error') && re.test(r.checkId));

function routeTarget(variable: RouteTarget['variable'], value: string, address: string, route: IpRouteJson[]): RouteTarget {
  return { variable, value, source: 'environment', host: value, address, unresolved: null, route: ok(['ip', '-j', 'route', 'get', address], 'r.json', route) };
}

/** A node with one data NIC, the name `localhost` resolved to 127.0.0.1 and its route looked up, as the live probe records them. */
function loopbackNode(variable: 'MASTER_ADDR' | 'NCCL_COMM_ID', value: string) {
  const snap = snapshotOf([link('lo', ['127.0.0.1/8']), link('eth0', ['10.1.0.5/24'])], {
    env: { [variable]: value },
    resolutions: { localhost: { addresses: [{ address: '127.0.0.1', family: 'AF_INET' }], error: null } },
  });
  return withParts(snap, { rdma: rdmaPart([]), kernel: { routeTargets: [routeTarget(variable, value, '127.0.0.1', [{ type: 'local', dst: '127.0.0.1', dev: 'lo', table: 'local' }])] } });
}

describe('loopback MASTER_ADDR and NCCL_COMM_ID: the fix is the address, not an interface', () => {
  it('MASTER_ADDR=localhost: SOCK-030 says to point MASTER_ADDR at rank 0, sets nothing; the recommended env does not pin NCCL to lo', () => {
    const run = doctor(loopbackNode('MASTER_ADDR', 'localhost'));
    const [r] = of(run.results, 'SOCK-030');
    // A warning that says why it matters (issue #25): other nodes cannot reach a loopback MASTER_ADDR.
    expect(r!.severity).toBe('warn');
    expect(r!.summary).toMatch(/^MASTER_ADDR=localhost is this node's loopback: ranks on other nodes cannot reach PyTorch's store there/);
    expect(r!.remediation?.env ?? {}).toEqual({});
    expect(r!.remediation?.advice).toMatch(/set MASTER_ADDR to rank 0's address/);
    const env = recommended(run);
    expect(env['NCCL_SOCKET_IFNAME']).not.toMatch(/lo/);
    expect(warnOrError(doctor(withEnv(loopbackNode('MASTER_ADDR', 'localhost'), env)).results, /^SOCK-003$/)).toEqual([]);
  });
  it('NCCL_COMM_ID=localhost:29500: SOCK-003 names NCCL_COMM_ID (NCCL_SOCKET_IFNAME does not apply to bootstrap then), sets nothing', () => {
    const run = doctor(loopbackNode('NCCL_COMM_ID', 'localhost:29500'));
    const [r] = of(run.results, 'SOCK-003');
    expect(r!.severity).toBe('warn');
    expect(r!.remediation?.env ?? {}).toEqual({});
    expect(r!.remediation?.advice).toMatch(/Point NCCL_COMM_ID at rank 0's address on the data network, or unset it/);
    expect(run.results.flatMap((x) => Object.keys(x.remediation?.env ?? {}))).not.toContain('NCCL_SOCKET_IFNAME');
  });
});

describe('GID and HCA advice on the fixture nodes', () => {
  it('sandbox: IB-020 recommends no NCCL_IB_GID_INDEX (mlx5_0 needs 3, mlx5_1 needs 7) and says so, as `ncclx env` does', async () => {
    const run = doctor(await fixture('sandbox'));
    const [r] = of(run.results, 'IB-020');
    expect(r!.remediation?.env ?? {}).toEqual({});
    expect(r!.remediation?.advice).toMatch(/mlx5_0:1 needs 3 .*mlx5_1:1 needs 7/);
    expect(recommended(run)).not.toHaveProperty('NCCL_IB_GID_INDEX');
    expect(run.plan.statements.map((s) => s.text)).toContain(r!.remediation!.advice);
  });
  it('ib8-storage: IB-009 and IB-015 name the InfiniBand ports only (no RoCE mlx5_4, mlx5_10), and following it clears both', async () => {
    const base = await fixture('ib8-storage');
    const run = doctor(base);
    const hca = '=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_6:1,mlx5_7:1,mlx5_8:1,mlx5_9:1';
    for (const id of ['IB-009', 'IB-015']) expect(of(run.results, id)[0]!.remediation?.env).toEqual({ NCCL_IB_HCA: hca });
    expect(recommended(run)['NCCL_IB_HCA']).toBe(hca);
    expect(warnOrError(doctor(withEnv(base, { NCCL_IB_HCA: hca })).results, /^IB-0(09|15)$/)).toEqual([]);
  });
  it('NCCL_IB_GID_INDEX=abc: IB-025 unsets it (0 would be the link-local GID)', async () => {
    const run = doctor(withEnv(await fixture('roce-healthy'), { NCCL_IB_GID_INDEX: 'abc' }));
    expect(of(run.results, 'IB-025')[0]!.remediation?.env).toEqual({ NCCL_IB_GID_INDEX: null });
  });
  it('NCCL_IB_HCA=mlx5_0:abc: IB-030 recommends a value that parses, not the same broken one', async () => {
    const run = doctor(withEnv(await fixture('roce-healthy'), { NCCL_IB_HCA: 'mlx5_0:abc' }));
    const env = of(run.results, 'IB-030')[0]!.remediation?.env ?? {};
    expect(env['NCCL_IB_HCA']).toBe('=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_4:1,mlx5_5:1,mlx5_6:1,mlx5_7:1');
  });
  it('NCCL_IB_GID_INDEX=999 (8 × IB-031): the recommended environment unsets it, in every format', async () => {
    const run = doctor(withEnv(await fixture('roce-healthy'), { NCCL_IB_GID_INDEX: '999' }));
    expect(of(run.results, 'IB-031')).toHaveLength(8);
    expect(recommended(run)['NCCL_IB_GID_INDEX']).toBeNull();
    const r = ncclx(['env', '--root', join(FIXTURES, 'roce-healthy'), '--nccl-version', '2.28.3'], { NCCL_IB_GID_INDEX: '999' });
    expect(r.stdout).toMatch(/^unset NCCL_IB_GID_INDEX$/m);
    const json = ncclx(['env', '--root', join(FIXTURES, 'roce-healthy'), '--nccl-version', '2.28.3', '--format', 'json'], { NCCL_IB_GID_INDEX: '999' });
    expect(JSON.parse(json.stdout)).toMatchObject({ NCCL_IB_GID_INDEX: null });
  });
});

describe('`ncclx env` follows the doctor', () => {
  // The socket policy (docs/advice.md): with the IB transport carrying the data, one interface for bootstrap,
  // the IB OOB and Gloo — NCCL's own first sound choice, here the default-route network — and SOCK-031 agrees.
  const bootstrapOn: Record<string, string> = { 'roce-one-subnet': 'ens3', 'roce-rail-subnets': 'eno1', 'roce-bond': 'eno1', 'mesh-direct': 'enP7s7', sandbox: 'eth0', 'ib8-storage': 'ibp24s0' };
  it.each(Object.keys(bootstrapOn))('%s: NCCL_SOCKET_IFNAME and GLOO_SOCKET_IFNAME name one sound interface, and SOCK-031 finds nothing to change', async (fx) => {
    const run = doctor(await fixture(fx));
    expect(recommended(run)).toMatchObject({ NCCL_SOCKET_IFNAME: `=${bootstrapOn[fx]}`, GLOO_SOCKET_IFNAME: bootstrapOn[fx] });
    expect(of(run.results, 'SOCK-031').map((r) => r.severity)).toEqual(['ok']);
  });
  it('roce-bond: NCCL_IB_HCA leaves out mlx5_bond_0 (IB-003)', async () => {
    expect(recommended(doctor(await fixture('roce-bond')))['NCCL_IB_HCA']).toBe('=mlx5_2:1,mlx5_3:1');
  });
});

describe('explain and ib on nodes without a usable RDMA device', () => {
  const file = join(tmp, 'no-rdma.json');
  writeFileSync(file, JSON.stringify(withParts(snapshotOf([link('lo', ['127.0.0.1/8']), link('eth0', ['10.1.0.5/24'])]), { rdma: rdmaPart([]), kernel: {} })));
  it('explain prints "NET/IB : No device found." as NCCL does, not a Using line', () => {
    const r = ncclx(['explain', '--snapshot', file, '--nccl-version', '2.28.3']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('NET/IB : No device found.');
    expect(r.stdout).not.toMatch(/NET\/IB : Using/);
  });
  it("ib --hca '=mlx5_0:1' suggests no NCCL_IB_HCA='=' (there is nothing to name)", () => {
    const r = ncclx(['ib', '--snapshot', file, '--hca', '=mlx5_0:1', '--nccl-version', '2.28.3', '-v']);
    expect(r.stdout + r.stderr).not.toMatch(/NCCL_IB_HCA='?='?(\s|$)/m);
  });
});

describe('ib --json shows the index NCCL uses even when it is outside the table', () => {
  it('NCCL_IB_GID_INDEX=300 on 255-entry tables: gidIndex 300 with the failure NCCL logs', () => {
    const r = ncclx(['ib', '--json', '--root', join(FIXTURES, 'sandbox'), '--nccl-version', '2.28.3'], { NCCL_IB_GID_INDEX: '300' });
    const j = JSON.parse(r.stdout) as { devices: { name: string; ports: { gidIndex: number | null; gidSelection: { outcome: { kind: string; index?: number; log: string[] } } }[] }[] };
    const ports = j.devices.flatMap((d) => d.ports);
    expect(ports).toHaveLength(2);
    for (const p of ports) {
      expect(p.gidIndex).toBe(300);
      expect(p.gidSelection.outcome).toMatchObject({ kind: 'failure', index: 300, log: ['Call to ibv_query_gid failed'] });
    }
  });
});

describe('every fixture node: `ncclx env` applied, then the doctor', () => {
  const nodes = fixtureNodes();
  it.each(nodes)('%s: no SOCK/IB/ENV warning or error left that an environment variable can fix', (fx) => {
    const root = join(FIXTURES, fx);
    const env = JSON.parse(ncclx(['env', '--root', root, '--nccl-version', '2.28.3', '--format', 'json']).stdout) as Record<string, string | null>;
    const set = Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== null));
    const r = ncclx(['doctor', '--json', '--root', root, '--nccl-version', '2.28.3'], set);
    const results = JSON.parse(r.stdout).results as { id: string; severity: string; summary: string; remediation: { env?: Record<string, string | null> } | null }[];
    expect(results.length).toBeGreaterThan(50);
    const left = results.filter((x) => (x.severity === 'warn' || x.severity === 'error') && /^(SOCK|IB|ENV)-/.test(x.id) && Object.keys(x.remediation?.env ?? {}).length > 0);
    expect(left.map((x) => `${x.id} ${x.summary} → ${JSON.stringify(x.remediation?.env)}`)).toEqual([]);
  });
});

describe('fix plans are checked in the model before they are shown', () => {
  // (roce-rail-subnets has nothing to fix: the socket policy keeps NCCL's own bootstrap interface.)
  it.each(['roce-one-subnet', 'roce-bond', 'sandbox'])('%s: every result the plan claims is resolved in its end state, nothing new', (fx) => {
    const r = ncclx(['fix', '--json', '--root', join(FIXTURES, fx), '--nccl-version', '2.28.3']);
    const plan = JSON.parse(r.stdout) as { fixes: { blocked: unknown; resolves: { checkId: string }[] }[]; modelCheck: { resolved: { checkId: string }[]; remaining: unknown[]; newFindings: unknown[] } | null };
    const claimed = new Set(plan.fixes.filter((f) => !f.blocked).flatMap((f) => f.resolves.map((x) => x.checkId)));
    expect(claimed.size).toBeGreaterThan(0);
    expect(plan.modelCheck).toMatchObject({ remaining: [], newFindings: [] });
    expect(new Set(plan.modelCheck!.resolved.map((x) => x.checkId))).toEqual(claimed);
  });
});

it('the CLI server answers as its own process does', () => {
  sameAsOwnProcess(server, ['env', '--root', join(__dirname, '../fixtures/roce-bond'), '--nccl-version', '2.28.3'], { PATH: process.env['PATH'] ?? '', HOME: '/nonexistent' });
});
