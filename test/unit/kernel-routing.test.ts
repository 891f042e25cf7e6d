// SOCK-030 (route to MASTER_ADDR / the NCCL_COMM_ID host vs NCCL's bootstrap
// interface) and SOCK-031 (interfaces NCCL may choose that carry a default
// route) on constructed snapshots.

import { describe, expect, it } from 'vitest';
import { fixText } from '../helpers/remediation.js';
import type { IpRouteJson, RouteTarget } from '../../src/model/snapshot/kernel-types.js';
import type { NodeSnapshot } from '../../src/model/snapshot/types.js';
import { link, snapshotOf, type LinkSpec } from './helpers.js';
import { brief, check, ctxFor, failed, ok, rdmaPart, severities, withParts, type KernelSpec } from './kernel-fixtures.js';

function target(variable: RouteTarget['variable'], value: string, address: string | null, route: IpRouteJson[] | string | null, extra: Partial<RouteTarget> = {}): RouteTarget {
  const argv = ['ip', '-j', 'route', 'get', address ?? ''];
  return {
    variable,
    value,
    source: 'environment',
    host: address ?? value,
    address,
    unresolved: null,
    route: route === null ? null : typeof route === 'string' ? failed(argv, 'r.json', route) : ok(argv, 'r.json', route),
    ...extra,
  };
}

// The overlapping-prefix node of NVIDIA/nccl#1581: eth0 holds a /16, eth1 a /24 inside it.
const OVERLAP: LinkSpec[] = [link('lo', ['127.0.0.1/8']), link('eth0', ['10.88.0.5/16']), link('eth1', ['10.88.5.5/24'])];

function overlap(env: Record<string, string>, kernel: KernelSpec | null): NodeSnapshot {
  return withParts(snapshotOf(OVERLAP, { env }), { kernel });
}

describe('SOCK-030 route to MASTER_ADDR / NCCL_COMM_ID', () => {
  it('neither set: not applicable', () => {
    expect(brief(check(ctxFor(overlap({}, {})), 'SOCK-030'))).toEqual([['na', 'neither NCCL_COMM_ID nor MASTER_ADDR is set: no route to compare']]);
  });
  it('NCCL_COMM_ID: bootstrap takes the first address in its subnet (eth0, the /16) while the kernel routes by longest prefix (eth1): warning, host-route fix', () => {
    const env = { NCCL_COMM_ID: '10.88.5.1:5000' };
    const k: KernelSpec = { routeTargets: [target('NCCL_COMM_ID', '10.88.5.1:5000', '10.88.5.1', [{ dst: '10.88.5.1', dev: 'eth1', prefsrc: '10.88.5.5', flags: [], uid: 0, cache: [] }])] };
    const [r] = check(ctxFor(overlap(env, k)), 'SOCK-030');
    expect(r).toMatchObject({ severity: 'warn', remediation: { commands: [['ip', 'route', 'replace', '10.88.5.1/32', 'dev', 'eth0', 'src', '10.88.0.5']] } });
    expect(r!.summary).toBe('NCCL_COMM_ID host 10.88.5.1 is reached through eth1, but NCCL bootstraps on eth0 (10.88.0.5)');
    expect(r!.evidence.map((e) => [e.kind, e.source])).toEqual([
      ['value', 'environment'],
      ['command', 'ip -j route get 10.88.5.1'],
      ['value', 'ncclx model of NCCL 2.28.3 (nccl>=2.28.3)'],
    ]);
    expect(r!.why).toMatch(/connect\(\) calls are not bound/);
  });
  it('route through the bootstrap interface: ok', () => {
    const env = { NCCL_COMM_ID: '10.88.5.1:5000', NCCL_SOCKET_IFNAME: '=eth1' };
    const k: KernelSpec = { routeTargets: [target('NCCL_COMM_ID', '10.88.5.1:5000', '10.88.5.1', [{ dst: '10.88.5.1', dev: 'eth0' }])] };
    expect(severities(check(ctxFor(overlap(env, k)), 'SOCK-030'))).toEqual(['ok']);
  });
  it('MASTER_ADDR on another network: info (PyTorch\'s store, not NCCL), with NCCL_SOCKET_IFNAME to follow it', () => {
    const env = { MASTER_ADDR: '10.88.5.1', NCCL_SOCKET_IFNAME: '=eth0' };
    const k: KernelSpec = { routeTargets: [target('MASTER_ADDR', '10.88.5.1', '10.88.5.1', [{ dst: '10.88.5.1', dev: 'eth1' }])] };
    const [r] = check(ctxFor(overlap(env, k)), 'SOCK-030');
    expect(r).toMatchObject({ severity: 'info' });
    // eth0 (the /16) holds 10.88.5.1 on-link, so a host route is the precise fix.
    expect(fixText(r)).toBe('ip route replace 10.88.5.1/32 dev eth0 src 10.88.0.5');
    const off = { MASTER_ADDR: '192.168.7.1', NCCL_SOCKET_IFNAME: '=eth0' };
    const k2: KernelSpec = { routeTargets: [target('MASTER_ADDR', '192.168.7.1', '192.168.7.1', [{ dst: '192.168.7.1', gateway: '10.88.5.254', dev: 'eth1' }])] };
    const [r2] = check(ctxFor(overlap(off, k2)), 'SOCK-030');
    expect(r2!.summary).toBe('MASTER_ADDR host 192.168.7.1 is reached through eth1 via 10.88.5.254, but NCCL bootstraps on eth0 (10.88.0.5)');
    expect(r2!.remediation).toEqual({ env: { NCCL_SOCKET_IFNAME: '=eth1' } });
  });
  it('no route: error for NCCL_COMM_ID, warning for MASTER_ADDR', () => {
    const env = { NCCL_COMM_ID: '192.0.2.1:5000', MASTER_ADDR: '192.0.2.1' };
    const err = 'ip -j route get 192.0.2.1 exited 2: RTNETLINK answers: Network is unreachable';
    const k: KernelSpec = { routeTargets: [target('NCCL_COMM_ID', '192.0.2.1:5000', '192.0.2.1', err), target('MASTER_ADDR', '192.0.2.1', '192.0.2.1', err)] };
    expect(brief(check(ctxFor(overlap(env, k)), 'SOCK-030'))).toEqual([
      ['error', 'no route to NCCL_COMM_ID host 192.0.2.1'],
      ['warn', 'no route to MASTER_ADDR host 192.0.2.1'],
    ]);
  });
  it('a local address compares the link that holds it (rank 0 runs here)', () => {
    const env = { NCCL_COMM_ID: '10.88.5.5:5000' };
    const k: KernelSpec = { routeTargets: [target('NCCL_COMM_ID', '10.88.5.5:5000', '10.88.5.5', [{ type: 'local', dst: '10.88.5.5', dev: 'lo', table: 'local' }])] };
    expect(check(ctxFor(overlap(env, k)), 'SOCK-030')[0]!.summary).toBe('NCCL_COMM_ID host 10.88.5.5 is a local address on eth1, but NCCL bootstraps on eth0 (10.88.0.5)');
  });
  it('unknown: no kernel part, unresolved host, value not probed, ip missing', () => {
    const env = { NCCL_COMM_ID: 'node0:5000' };
    expect(check(ctxFor(overlap(env, null)), 'SOCK-030')[0]!.summary).toMatch(/no kernel part/);
    const unres: KernelSpec = { routeTargets: [target('NCCL_COMM_ID', 'node0:5000', null, null, { host: 'node0', unresolved: "host name 'node0' does not resolve (Name or service not known)" })] };
    expect(brief(check(ctxFor(overlap(env, unres)), 'SOCK-030'))).toEqual([['unknown', "route to NCCL_COMM_ID: host name 'node0' does not resolve (Name or service not known)"]]);
    expect(check(ctxFor(overlap(env, {})), 'SOCK-030')[0]!.summary).toMatch(/no route lookup for NCCL_COMM_ID=node0:5000/);
    const missing: KernelSpec = { routeTargets: [{ ...target('NCCL_COMM_ID', 'node0:5000', '10.88.5.1', null), route: failed(['ip', '-j', 'route', 'get', '10.88.5.1'], 'r', 'ip: ENOENT', true) }] };
    expect(check(ctxFor(overlap(env, missing)), 'SOCK-030')[0]).toMatchObject({ severity: 'unknown', summary: expect.stringMatching(/`ip` is not installed/) });
  });
});

describe('SOCK-031 default routes on interfaces NCCL may choose', () => {
  const dflt = (dev: string, gw: string, metric?: number): IpRouteJson => ({ dst: 'default', gateway: gw, dev, protocol: 'static', flags: [], ...(metric ? { metric } : {}) });
  const snap = (links: LinkSpec[], env: Record<string, string>, routes: IpRouteJson[], rdma = rdmaPart([])) => withParts(snapshotOf(links, { env }), { rdma, kernel: { routes } });
  const TWO = [link('lo', ['127.0.0.1/8']), link('eth0', ['10.1.0.5/24']), link('eth1', ['10.2.0.5/24'])];

  it('no default route on the chosen interfaces: ok', () => {
    expect(severities(check(ctxFor(snap(TWO, {}, [dflt('eth9', '10.9.0.1')])), 'SOCK-031'))).toEqual(['ok']);
  });
  it('two chosen interfaces each with a default route: warning', () => {
    const [r] = check(ctxFor(snap(TWO, {}, [dflt('eth0', '10.1.0.1'), dflt('eth1', '10.2.0.1', 200)])), 'SOCK-031');
    expect(r).toMatchObject({ severity: 'warn', summary: 'eth0 and eth1 are both chosen by NCCL and each carries a default route' });
    expect(r!.evidence.filter((e) => e.kind === 'command').map((e) => e.source)).toEqual(['ip -j route show table all', 'ip -j route show table all']);
  });
  it('an IPv6 default on one and an IPv4 default on the other are different families: the mix rule applies instead', () => {
    const rs = check(ctxFor(snap(TWO, {}, [dflt('eth0', '10.1.0.1'), { dst: 'default', gateway: 'fe80::1', dev: 'eth1', metric: 1024 }])), 'SOCK-031');
    expect(rs[0]!.summary).toMatch(/^NCCL's socket transport uses eth0 \(which carries the default route/);
    expect(fixText(rs[0])).toBe("export NCCL_SOCKET_IFNAME='=eth1'");
  });
  it('the socket transport mixes the default-route NIC with the data NIC: warning, pin to the data NIC', () => {
    const [r] = check(ctxFor(snap(TWO, {}, [dflt('eth0', '10.1.0.1')])), 'SOCK-031');
    expect(r).toMatchObject({ severity: 'warn', remediation: { env: { NCCL_SOCKET_IFNAME: '=eth1' } } });
  });
  it('NCCL uses only the default-route NIC while RDMA netdevs sit elsewhere: ok while the IB transport carries the data (the socket policy), info when sockets carry it', () => {
    const links = [link('lo', ['127.0.0.1/8']), link('eth0', ['10.1.0.5/24']), link('ens1f0np0', ['10.2.0.5/24'])];
    const rdma = rdmaPart([{ dev: 'mlx5_0', netdev: 'ens1f0np0' }]);
    const [ib] = check(ctxFor(snap(links, { NCCL_SOCKET_IFNAME: '=eth0' }, [dflt('eth0', '10.1.0.1')], rdma)), 'SOCK-031');
    expect(ib).toMatchObject({ severity: 'ok', summary: 'bootstrap and the IB OOB use eth0, the default-route network; the data goes over the IB transport' });
    const [r] = check(ctxFor(snap(links, { NCCL_SOCKET_IFNAME: '=eth0', NCCL_IB_DISABLE: '1' }, [dflt('eth0', '10.1.0.1')], rdma)), 'SOCK-031');
    expect(r).toMatchObject({ severity: 'info', summary: "NCCL's socket transport carries the data over eth0, which carries the default route, while the RDMA netdevs ens1f0np0 are on other networks", remediation: { advice: expect.stringMatching(/NCCL_SOCKET_IFNAME \(e\.g\. =ens1f0np0\)/) } });
    expect(severities(check(ctxFor(snap(links, { NCCL_SOCKET_IFNAME: '=eth0' }, [dflt('eth0', '10.1.0.1')])), 'SOCK-031'))).toEqual(['ok']);
  });
  it('default routes in per-NIC policy tables are not "the default route"', () => {
    expect(severities(check(ctxFor(snap(TWO, {}, [{ ...dflt('eth0', '10.1.0.1'), table: '101' }, { ...dflt('eth1', '10.2.0.1'), table: '102' }])), 'SOCK-031'))).toEqual(['ok']);
  });
  it('routes unreadable: unknown', () => {
    const s = withParts(snapshotOf(TWO), { kernel: { routes: failed(['ip', '-j', 'route', 'show', 'table', 'all'], 'ip-route-all.json', 'ip: EACCES') } });
    expect(severities(check(ctxFor(s), 'SOCK-031'))).toEqual(['unknown']);
  });
});
