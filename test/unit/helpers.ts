// Compact builders for snapshots in unit tests.

import { explain, type SocketOverrides } from '../../src/model/nccl/explain.js';
import type { ConfFileRecord } from '../../src/model/nccl/conf.js';
import { SNAPSHOT_SCHEMA_VERSION, type AddressInfo, type HostResolution, type LinkFlag, type LinkInfo, type NodeSnapshot } from '../../src/model/snapshot/types.js';

export type LinkState = 'running' | 'nocarrier' | 'down';

export interface LinkSpec {
  name: string;
  state?: LinkState;
  /** Addresses in the kernel's per-link order, e.g. '10.0.0.5/24', 'fe80::1/64', or [address, label]. */
  addrs?: (string | [string, string])[];
  kind?: string;
  loopback?: boolean;
}

export function link(name: string, addrs: (string | [string, string])[] = [], state: LinkState = 'running'): LinkSpec {
  return { name, addrs, state, loopback: name === 'lo' };
}

export function flagsFor(state: LinkState, loopback = false): LinkFlag[] {
  const base: LinkFlag[] = loopback ? ['LOOPBACK'] : ['BROADCAST', 'MULTICAST'];
  if (state === 'down') return base;
  if (state === 'nocarrier') return ['UP', ...base];
  return ['UP', ...base, 'RUNNING', 'LOWER_UP'];
}

/** A snapshot whose addresses follow getifaddrs() order: IPv4 of all links by ifindex, then IPv6. */
export function snapshotOf(
  specs: LinkSpec[],
  opts: { env?: Record<string, string>; confFiles?: ConfFileRecord[]; resolutions?: Record<string, HostResolution>; ncclVersion?: string; home?: string } = {},
): NodeSnapshot {
  const links: LinkInfo[] = specs.map((s, i) => ({
    ifindex: i + 1,
    name: s.name,
    kind: s.kind ?? null,
    linkType: s.loopback ? 'loopback' : 'ether',
    master: null,
    mtu: 1500,
    mac: null,
    operstate: s.state === 'running' || s.state === undefined ? (s.loopback ? 'UNKNOWN' : 'UP') : s.state === 'down' ? 'DOWN' : 'DOWN',
    flags: flagsFor(s.state ?? 'running', s.loopback),
  }));
  const v4: AddressInfo[] = [];
  const v6: AddressInfo[] = [];
  specs.forEach((s, i) => {
    for (const a of s.addrs ?? []) {
      const [cidr, label] = Array.isArray(a) ? a : [a, undefined];
      const [address, len] = cidr.split('/') as [string, string | undefined];
      const isV6 = address.includes(':');
      const ll = isV6 && /^fe[89ab]/i.test(address);
      const info: AddressInfo = {
        name: !isV6 && label ? label : s.name,
        link: s.name,
        ifindex: i + 1,
        family: isV6 ? 'AF_INET6' : 'AF_INET',
        address,
        prefixlen: Number(len ?? (isV6 ? 128 : 32)),
        scope: ll ? 'link' : address === '::1' || address.startsWith('127.') ? 'host' : 'global',
        scopeId: ll ? i + 1 : 0,
        flags: [],
      };
      (isV6 ? v6 : v4).push(info);
    }
  });
  return {
    schemaVersion: SNAPSHOT_SCHEMA_VERSION,
    tool: { name: 'ncclx', version: 'test' },
    capturedAt: '2026-01-01T00:00:00Z',
    root: '/',
    host: { hostname: 'node1', os: null, kernel: null, arch: null, source: 'test' },
    network: { source: 'iproute2', links, addresses: [...v4, ...v6] },
    env: { process: opts.env ?? {}, confFiles: opts.confFiles ?? [], home: { passwd: opts.home ?? '/root', env: opts.home ?? '/root' } },
    resolutions: opts.resolutions ?? {},
    ncclLibrary: { candidates: opts.ncclVersion ? [{ path: `/usr/lib/libnccl.so.${opts.ncclVersion}`, version: opts.ncclVersion, via: 'test' }] : [], searched: [] },
    warnings: [],
  };
}

/** The worked example of docs/nccl/socket.md §10. */
export function workedExample(env: Record<string, string> = {}): NodeSnapshot {
  return snapshotOf(
    [
      link('lo', ['127.0.0.1/8', '::1/128']),
      link('eth0', ['10.0.0.5/24', 'fe80::a/64']),
      link('docker0', ['172.17.0.1/16'], 'nocarrier'),
      link('ib0', ['192.168.1.5/24', 'fe80::b/64']),
      link('ib1', ['192.168.2.5/24'], 'down'),
    ],
    { env },
  );
}

export function run(snap: NodeSnapshot, version: string, o: Omit<SocketOverrides, 'ncclVersion'> = {}) {
  return explain(snap, { ...o, ncclVersion: version });
}

export const names = (sel: { name: string }[]) => sel.map((s) => s.name);
export const pairs = (sel: { name: string; address: string }[]) => sel.map((s) => `${s.name}:${s.address}`);
export const ids = (r: { findings: { id: string }[] }) => r.findings.map((f) => f.id);
