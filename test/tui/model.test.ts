// The what-if model: edits reach every check through the environment, unset
// means unset (conf files too), a bad version keeps the last good model, and
// copied exports are quoted for a shell.

import { describe, expect, it } from 'vitest';
import { ALL_CHECKS } from '../../src/checks/registry.js';
import { computeModel, exportsFor, ModelCache, problemDiff, whatIfSnapshot, type NodeInput } from '../../src/tui/model.js';
import { link, snapshotOf } from '../unit/helpers.js';
import { fixture } from './helpers.js';

const options = { uplinkRegex: /^eth[0-9]+$/, include: [] };

async function ib8(): Promise<NodeInput> {
  return { snapshot: await fixture(), checks: ALL_CHECKS, options, source: { kind: 'root', path: 'x' } };
}

const gidOf = (m: ReturnType<typeof computeModel>, dev: string) => m.ib.report.devices.find((d) => d.name === dev)!.ports[0]!.gidIndex;

describe('what-if model on ib8-storage', () => {
  // Issue #25 case 7: a finding that merely stops applying is not "resolved".
  it('a typo in NCCL_SOCKET_IFNAME resolves nothing: TOPO-010 no longer applies (gone), SOCK-001 is new; a real fix (NCCL_IB_HCA) is "resolved"', async () => {
    const node = await ib8();
    const base = computeModel(node, {});
    expect(base.run.results.filter((r) => r.checkId === 'TOPO-010' && r.severity !== 'ok' && r.severity !== 'na').length).toBeGreaterThan(0);
    const typo = problemDiff(base.run.results, computeModel(node, { NCCL_SOCKET_IFNAME: '=eno11' }).run.results);
    expect(typo.filter((d) => d.change === 'resolved')).toEqual([]);
    expect(typo.filter((d) => d.result.checkId === 'TOPO-010').map((d) => d.change)).toEqual(['gone']);
    expect(typo.filter((d) => d.change === 'new').map((d) => d.result.checkId)).toContain('SOCK-001');
    const hca = '=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_6:1,mlx5_7:1,mlx5_8:1,mlx5_9:1';
    const fixed = problemDiff(base.run.results, computeModel(node, { NCCL_IB_HCA: hca }).run.results);
    expect(fixed.filter((d) => d.result.checkId === 'IB-015').map((d) => d.change)).toEqual(['resolved']);
    // (IB-009 stays, as information: the DOWN ports are no longer among the ones NCCL is told to use.)
    expect(fixed.filter((d) => d.change === 'new' && (d.result.severity === 'warn' || d.result.severity === 'error'))).toEqual([]);
  });
  it('MASTER_ADDR: localhost is the loopback other nodes cannot reach (SOCK-030 warns, as the doctor does); a new address is a route nobody looked up (unknown, not ok); unset, nothing to judge', async () => {
    const node = await ib8();
    const sock030 = (w: Parameters<typeof computeModel>[1]) => computeModel(node, w).run.results.filter((r) => r.checkId === 'SOCK-030');
    expect(sock030({}).map((r) => r.severity)).toEqual(['na']);
    const lo = sock030({ MASTER_ADDR: 'localhost' });
    expect(lo.map((r) => r.severity)).toEqual(['warn']);
    expect(lo[0]!.summary).toMatch(/^MASTER_ADDR=localhost is this node's loopback/);
    const other = sock030({ MASTER_ADDR: '10.9.9.9' });
    expect(other.map((r) => r.severity)).toEqual(['unknown']);
    expect(other[0]!.summary).toMatch(/route to MASTER_ADDR/);
    expect(sock030({ MASTER_ADDR: '' }).map((r) => r.severity)).toEqual(['na']);
    expect(exportsFor({ MASTER_ADDR: '10.9.9.9' }, computeModel(node, {}))).toEqual(['export MASTER_ADDR=10.9.9.9']);
  });
  it('NCCL_SOCKET_IFNAME moves every consumer, and the findings follow', async () => {
    const node = await ib8();
    const base = computeModel(node, {});
    expect(base.explain.bootstrap.selected[0]!.name).toBe('ibp24s0');
    const m = computeModel(node, { NCCL_SOCKET_IFNAME: '=eno1' });
    for (const c of ['bootstrap', 'socket', 'ibOob'] as const) expect(m.explain[c].selected.map((s) => s.name)).toEqual(['eno1']);
    expect(m.explain.inputs['NCCL_SOCKET_IFNAME']).toEqual({ value: '=eno1', source: 'environment' });
    // eno1, the default-route network, for bootstrap and the IB OOB while the IB transport carries the data: the socket policy, nothing new.
    expect(problemDiff(base.run.results, m.run.results).filter((d) => d.change === 'new')).toEqual([]);
    // A name that matches nothing: new errors, and what depended on NCCL's interfaces no longer applies — it is not "resolved".
    const typo = computeModel(node, { NCCL_SOCKET_IFNAME: '=eno11' });
    const diff = problemDiff(base.run.results, typo.run.results);
    expect(diff.filter((d) => d.change === 'new').map((d) => d.result.checkId)).toEqual(expect.arrayContaining(['SOCK-001', 'SOCK-011']));
    expect(diff.filter((d) => d.result.checkId === 'TOPO-010').map((d) => d.change)).toEqual(['gone']);
    expect(diff.filter((d) => d.change === 'resolved')).toEqual([]);
    // The snapshot itself is untouched.
    expect(node.snapshot.env.process['NCCL_SOCKET_IFNAME']).toBeUndefined();
  });

  it('NCCL_IB_GID_INDEX and NCCL_IB_HCA reach the IB model and the RDMA checks', async () => {
    const node = await ib8();
    expect(gidOf(computeModel(node, {}), 'mlx5_4')).toBe(3);
    const m = computeModel(node, { NCCL_IB_GID_INDEX: '2' });
    expect(gidOf(m, 'mlx5_4')).toBe(2);
    // GID 2 is RoCE v1: IB-005 says so (a crashed check would be 'unknown' and fail here).
    const ib005 = m.run.results.filter((r) => r.checkId === 'IB-005');
    expect(ib005.map((r) => r.severity)).toContain('warn');
    expect(ib005.find((r) => r.severity === 'warn')!.summary).toMatch(/NCCL_IB_GID_INDEX=2 on mlx5_4:1 .* points at a RoCE v1 GID/);
    const hca = computeModel(node, { NCCL_IB_HCA: '=mlx5_4:1' });
    const used = hca.ib.report.devices.flatMap((d) => d.ports.filter((p) => p.usedByNccl).map(() => d.name));
    expect(used).toEqual(['mlx5_4']);
  });

  it('the NCCL version changes the profile; a version that does not parse keeps the last good model', async () => {
    const cache = new ModelCache(await ib8());
    expect(cache.get({ version: '2.27.3' }).run.context.reasoning.profile.id).toBe('nccl<2.28.3');
    const bad = cache.get({ version: '2.x' });
    expect(bad.error).toMatch(/2\.x/);
    expect(bad.run.context.reasoning.profile.id).toBe('nccl<2.28.3');
    expect(cache.get({ version: '2.28.3' }).error).toBeNull();
  });

  it('computes each what-if once', async () => {
    const cache = new ModelCache(await ib8());
    const a = cache.get({ NCCL_SOCKET_IFNAME: 'eno' });
    cache.get({});
    expect(cache.get({ NCCL_SOCKET_IFNAME: 'eno' }).run).toBe(a.run);
  });
});

describe('unset', () => {
  const snap = snapshotOf([link('lo', ['127.0.0.1/8']), link('eth0', ['10.0.0.1/24']), link('eth1', ['10.0.1.1/24'])], {
    env: { NCCL_SOCKET_IFNAME: 'eth1' },
    confFiles: [{ path: '/etc/nccl.conf', role: 'etc', content: 'NCCL_SOCKET_IFNAME=eth1\nNCCL_COMM_ID=10.0.0.9:5000\nNCCL_IB_HCA=mlx5\n', error: null }],
    ncclVersion: '2.28.3',
  });

  it("removes the variable from the environment and blanks its conf-file lines, keeping others' line numbers", () => {
    const w = whatIfSnapshot(snap, { NCCL_SOCKET_IFNAME: '', NCCL_IB_HCA: '' });
    expect(w.env.process['NCCL_SOCKET_IFNAME']).toBeUndefined();
    expect(w.env.confFiles[0]!.content).toBe('\nNCCL_COMM_ID=10.0.0.9:5000\n\n');
    const m = computeModel({ snapshot: snap, checks: ALL_CHECKS, options, source: { kind: 'live' } }, { NCCL_SOCKET_IFNAME: '' });
    expect(m.explain.inputs['NCCL_SOCKET_IFNAME']!.value).toBeNull();
    expect(m.explain.inputs['NCCL_COMM_ID']).toEqual({ value: '10.0.0.9:5000', source: '/etc/nccl.conf:2' });
  });

  it('exports: quoted values, unset lines, a note for conf files and for the version', () => {
    const base = computeModel({ snapshot: snap, checks: ALL_CHECKS, options, source: { kind: 'live' } }, {});
    expect(exportsFor({ NCCL_SOCKET_IFNAME: "=r$d;(0'" }, base)).toEqual([`export NCCL_SOCKET_IFNAME='=r$d;(0'\\'''`]);
    expect(exportsFor({ NCCL_SOCKET_IFNAME: '' }, base)).toEqual(['unset NCCL_SOCKET_IFNAME']);
    expect(exportsFor({ NCCL_COMM_ID: '' }, base)).toEqual(['unset NCCL_COMM_ID', '# NCCL_COMM_ID is also set in /etc/nccl.conf:2: remove that line']);
    // Same value as the node: nothing to export.
    expect(exportsFor({ NCCL_SOCKET_IFNAME: 'eth1', NCCL_SOCKET_FAMILY: '' }, base)).toEqual([]);
    expect(exportsFor({ version: '2.27.3' }, base)).toEqual(['# modelled for NCCL 2.27.3 (ncclx --nccl-version 2.27.3)']);
  });
});
