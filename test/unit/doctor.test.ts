import { describe, expect, it } from 'vitest';
import { ALL_CHECKS } from '../../src/checks/registry.js';
import { makeContext } from '../../src/model/doctor/context.js';
import { runCheck, runDoctor, selectChecks } from '../../src/checks/run.js';
import type { Check } from '../../src/model/doctor/types.js';
import { doctorJson, exitCodeFor, renderDoctorText, renderPrometheus } from '../../src/report/doctor.js';
import { makeStyle } from '../../src/report/style.js';
import { link, snapshotOf } from './helpers.js';

const opts = { uplinkRegex: /^eth[0-9]+$/, include: [] as string[] };
const ctxOf = (env: Record<string, string>, v = '2.28.3') =>
  makeContext(snapshotOf([link('lo', ['127.0.0.1/8']), link('eth1', ['10.0.1.1/24']), link('eth10', ['10.0.10.1/24'])], { env }), { ncclVersion: v }, opts);

describe('check registry', () => {
  it('ids are unique and stable-looking', () => {
    const ids = ALL_CHECKS.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[A-Z]+-\d{3}$/);
  });
  it('a throwing check becomes an unknown result, not a crash', () => {
    const boom: Check = { id: 'TEST-001', title: 'boom', family: 'env', run: () => { throw new Error('kaput'); } };
    const r = runCheck(boom, ctxOf({}));
    expect(r).toHaveLength(1);
    expect(r[0]).toMatchObject({ checkId: 'TEST-001', severity: 'unknown' });
    expect(r[0]!.summary).toMatch(/kaput/);
  });
  it('--only and --skip take ids and prefixes', () => {
    expect(selectChecks(ALL_CHECKS, ['ENV'], undefined).map((c) => c.id)).toEqual(['ENV-001', 'ENV-002', 'ENV-003']);
    expect(selectChecks(ALL_CHECKS, ['SOCK-004'], undefined).map((c) => c.id)).toEqual(['SOCK-004']);
    expect(selectChecks(ALL_CHECKS, undefined, ['SOCK']).every((c) => !c.id.startsWith('SOCK'))).toBe(true);
  });
});

describe('RDMA checks on a node without RDMA devices', () => {
  it('do not apply, and say which check it is', () => {
    const snap = snapshotOf([link('lo', ['127.0.0.1/8']), link('eth1', ['10.0.1.1/24'])]);
    snap.rdma = { classPresent: false, devices: [], netdevs: {}, peerMem: [], modules: [], sysModuleKnown: false, devInfiniband: { known: true, present: false, entries: [] }, memlock: { soft: null, hard: null, error: 'not read' }, container: { detected: false, evidence: [] } };
    const run = runDoctor(selectChecks(ALL_CHECKS, ['IB-001', 'IB-007'], undefined), makeContext(snap, { ncclVersion: '2.28.3' }, opts));
    expect(run.results.map((r) => [r.checkId, r.severity, r.summary])).toEqual([
      ['IB-001', 'na', 'NCCL_IB_HCA keeps real ports: does not apply (no RDMA device)'],
      ['IB-007', 'na', 'IPv6-only GID tables have NCCL_IB_ADDR_FAMILY: does not apply (no RDMA device)'],
    ]);
  });
});

describe('socket and env checks', () => {
  // These snapshots have no kernel or RDMA part, for which the other checks rightly say "unknown"
  // (test/unit/kernel-*.test.ts, arp*, qos* cover them); SOCK-031 reads the kernel's routes.
  const SOCKET_ENV = selectChecks(ALL_CHECKS, ['SOCK', 'ENV'], ['SOCK-031']);
  it('a healthy node: everything ok, exit 0', () => {
    const run = runDoctor(SOCKET_ENV, ctxOf({ NCCL_SOCKET_IFNAME: '=eth1' }));
    expect(run.results.filter((r) => r.severity !== 'ok' && r.severity !== 'na')).toEqual([]);
    expect(exitCodeFor(run.results)).toBe(0);
  });
  it('the topology variables ncclx models are known to ENV-001 (NCCL_NETDEVS_POLICY, NCCL_P2P_PXN_LEVEL, NCCL_NET_MERGE_POLICY, NCCL_CROSS_NIC)', () => {
    const run = runDoctor(selectChecks(ALL_CHECKS, ['ENV-001'], undefined), ctxOf({ NCCL_NETDEVS_POLICY: 'ALL', NCCL_P2P_PXN_LEVEL: '1', NCCL_NET_MERGE_POLICY: 'RAIL', NCCL_CROSS_NIC: '0' }));
    expect(run.results.map((r) => r.severity)).toEqual(['ok']);
  });
  it('the prefix trap is a warning with a pasteable fix; a typo gets did-you-mean', () => {
    const run = runDoctor(SOCKET_ENV, ctxOf({ NCCL_SOCKET_IFNAME: 'eth1', NCCL_SOCKET_IFACE: 'eth1' }));
    const bad = run.results.filter((r) => r.severity !== 'ok' && r.severity !== 'na');
    expect(bad.map((r) => r.checkId)).toEqual(['SOCK-004', 'ENV-001']);
    expect(bad[0]!.remediation).toEqual({ env: { NCCL_SOCKET_IFNAME: '=eth1' } });
    expect(bad[1]!.summary).toMatch(/did you mean NCCL_SOCKET_IFNAME/);
    expect(exitCodeFor(run.results)).toBe(0);
  });
  it('C-style integers: true is 0 (error for a _DISABLE flag), 010 is 8 (suggest 10)', () => {
    const run = runDoctor(ALL_CHECKS, ctxOf({ NCCL_IB_DISABLE: 'true', NCCL_IB_GID_INDEX: '010', NCCL_IB_TC: '106' }));
    const env2 = run.results.filter((r) => r.checkId === 'ENV-002');
    expect(env2.map((r) => [r.severity, r.remediation])).toEqual([
      ['error', { env: { NCCL_IB_DISABLE: '1' } }],
      ['warn', { env: { NCCL_IB_GID_INDEX: '10' } }],
    ]);
    expect(exitCodeFor(run.results)).toBe(1);
  });
  it('the subnet-aware routing pair (net_ib/connect.cc: NCCL_IB_SUBNET_AWARE_ROUTING, NCCL_IB_SUBNET_PREFIX_LEN) is known', () => {
    const env = { NCCL_IB_SUBNET_AWARE_ROUTING: '1', NCCL_IB_SUBNET_PREFIX_LEN: '30' };
    expect(runDoctor(ALL_CHECKS, ctxOf(env)).results.filter((r) => r.checkId === 'ENV-001').map((r) => r.severity)).toEqual(['ok']);
  });
  it('NCCLX-only variables are flagged under NVIDIA NCCL, not under NCCLX', () => {
    const env = { NCCL_SOCKET_IPADDR_PREFIX: '10.' };
    expect(runDoctor(ALL_CHECKS, ctxOf(env)).results.find((r) => r.checkId === 'ENV-001')!.severity).toBe('warn');
    expect(runDoctor(ALL_CHECKS, ctxOf(env, 'ncclx-2.30')).results.find((r) => r.checkId === 'ENV-001')!.severity).toBe('ok');
  });
});

describe('doctor output', () => {
  const run = runDoctor(ALL_CHECKS, ctxOf({ NCCL_SOCKET_IFNAME: 'nomatch' }));
  it('text: family groups, marks, last line counts', () => {
    const text = renderDoctorText(run, makeStyle(false), false);
    expect(text).toMatch(/^\[✗\] Socket interfaces \(\d+ checks/m);
    expect(text).toMatch(/^  ✗ SOCK-001 /m);
    // Default: problems only; -v: every check.
    expect(text).not.toMatch(/^  ✓ SOCK-002 /m);
    expect(renderDoctorText(run, makeStyle(false), true)).toMatch(/^  ✓ SOCK-002 /m);
    const last = text.trim().split('\n').pop();
    expect(last).toMatch(/^\d+ errors?, \d+ warnings?, \d+ unknown, \d+ info, \d+ ok(, \d+ not applicable)?$/);
    expect(renderDoctorText(run, makeStyle(false), true)).toMatch(/fix: .*:\n {11}export NCCL_SOCKET_IFNAME=/);
  });
  it('json: every result with id, severity, evidence and remediation', () => {
    const j = doctorJson(run);
    expect(j.exitCode).toBe(1);
    const r = j.results.find((x) => x.id === 'SOCK-001' && x.severity === 'error')!;
    expect(r.family).toBe('socket');
    expect(r.evidence.length).toBeGreaterThan(0);
    expect(j.schemaVersion).toBe(3);
    expect(r.remediation).toMatchObject({ env: { NCCL_SOCKET_IFNAME: expect.stringMatching(/^=/) }, commands: [], fixIds: [] });
  });
  it('prometheus: one status series per check, the state as its value', () => {
    const text = renderPrometheus(run, 1_700_000_000_000);
    const gauges = text.split('\n').filter((l) => l.startsWith('ncclx_check_status{'));
    expect(gauges).toHaveLength(run.checks.length);
    expect(text).toMatch(/^ncclx_check_status\{id="SOCK-001",family="socket",host="node1"\} 2$/m);
    expect(text).toMatch(/^ncclx_nccl_info\{host="node1",nccl_version="2.28.3",profile="nccl>=2.28.3"\} 1$/m);
    expect(text).toMatch(/^ncclx_last_run_timestamp_seconds\{host="node1"\} 1700000000$/m);
  });
});
