// Environments to try the advice on: valid and broken values of every NCCL
// variable the doctor reads, MASTER_ADDR/NCCL_COMM_ID on loopback, names that
// do not resolve, typos — combined by a seeded generator, so a failure names
// an environment that can be run again.

import type { NodeSnapshot } from '../../src/model/snapshot/types.js';

/** mulberry32: small, seeded, good enough to pick from tables. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

/** Per variable, the values worth trying on this node (names and addresses taken from it). */
export function valueTable(snap: NodeSnapshot): Record<string, string[]> {
  const links = snap.network.links.map((l) => l.name);
  const v4 = snap.network.addresses.filter((a) => a.family === 'AF_INET' && !a.address.startsWith('127.'));
  const devs = snap.rdma?.devices.map((d) => d.name) ?? [];
  const netdevs = Object.keys(snap.rdma?.netdevs ?? {});
  const some = <T>(xs: T[]) => xs.slice(0, 3);
  return {
    NCCL_SOCKET_IFNAME: ['', 'e', 'nomatch0', '10.0.0.1', '^lo', '^docker0', '^=lo', 'eth', ...some(links), ...some(links).map((l) => `=${l}`), ...some(links).map((l) => l.slice(0, 3)), links.map((l) => `=${l}`).join(','), Array.from({ length: 18 }, (_, i) => `x${i}`).join(',')],
    NCCL_SOCKET_FAMILY: ['AF_INET', 'AF_INET6', 'ipv4', 'inet6', ''],
    NCCL_COMM_ID: ['', 'localhost:29500', '127.0.0.1:1234', '10.255.255.1:5000', '[::1]:5000', 'nosuchhost.invalid:5000', 'fe80::1:5', ...some(v4).map((a) => `${a.address}:29600`), ...some(v4).map((a) => a.address)],
    MASTER_ADDR: ['localhost', '127.0.0.1', 'nosuchhost.invalid', ...some(v4).map((a) => a.address)],
    NCCL_IB_HCA: ['', '^', 'mlx5', 'm', 'nomatch_0', '^=mlx5_bond_0', ...some(devs), ...some(devs).map((d) => `=${d}:1`), ...some(devs).map((d) => `${d}:abc`), ...some(devs).map((d) => `${d}:`), ...some(netdevs)],
    NCCL_IB_GID_INDEX: ['-1', '0', '1', '3', '7', '999', 'abc', '010'],
    NCCL_IB_ADDR_FAMILY: ['AF_INET', 'AF_INET6', 'inet6', ''],
    NCCL_IB_ADDR_RANGE: ['10.0.0.0/8', '172.16.0.0/12', 'bad', '10.0.0.0/40', '172.16.0.0/-1', ...some(v4).map((a) => `${a.address}/32`)],
    NCCL_IB_ROCE_VERSION_NUM: ['1', '2', '3', 'x'],
    NCCL_IB_DISABLE: ['0', '1', 'true', 'yes'],
    NCCL_NET: ['IB', 'Socket', 'foo'],
    NCCL_IB_TC: ['106', '96', '300', '-1'],
    NCCL_NET_GDR_LEVEL: ['phb', 'PHB', '3', 'C2C', 'SYS'],
    NCCL_DMABUF_ENABLE: ['0', 'false', '1'],
    NCCL_IB_MERGE_VFS: ['0', '1'],
    NCCL_IB_MERGE_NICS: ['0'],
    NCCL_NET_MERGE_LEVEL: ['LOC', 'PORT', 'PIX', 'PHB', 'SYS', 'bogus'],
    NCCL_IB_TIMEOUT: ['010', '22', 'x'],
    NCCL_CROSS_NIC: ['true', '1'],
    // Typos and variables NCCL does not read.
    NCCL_SOCKET_IFACE: ['eth0'],
    NCCL_IB_HCAS: ['mlx5_0'],
    NCCL_DEBUG_SUBSYSTEM: ['INIT'],
    NCCL_SOCKET_IPADDR_PREFIX: ['10.'],
  };
}

export const VERSIONS = ['2.28.3', '2.30.7', '2.26.2', '2.21.5', '2.18.3', 'ncclx-2.30'] as const;

export interface TrialEnv {
  seed: number;
  version: string;
  env: Record<string, string>;
}

/** `count` environments of 1–4 variables each; the first is the node as captured (no change). */
export function environments(snap: NodeSnapshot, count: number, seed: number): TrialEnv[] {
  const table = valueTable(snap);
  const names = Object.keys(table);
  const out: TrialEnv[] = [{ seed, version: '2.28.3', env: {} }];
  for (let i = 1; i < count; i++) {
    const r = rng(seed * 1000 + i);
    const env: Record<string, string> = {};
    const n = 1 + Math.floor(r() * 4);
    for (let k = 0; k < n; k++) {
      const name = pick(r, names);
      const values = table[name]!;
      if (values.length) env[name] = pick(r, values);
    }
    out.push({ seed: seed * 1000 + i, version: pick(r, VERSIONS), env });
  }
  return out;
}
