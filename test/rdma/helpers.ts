// In-memory RDMA parts for unit tests: the same shapes the probe produces,
// built from short specs.

import { foldVariants } from '../../src/probe/rdma.js';
import type { GidEntry, RdmaDevice, RdmaPart, RdmaPort, SysfsRead } from '../../src/model/snapshot/rdma-types.js';
import type { NodeSnapshot } from '../../src/model/snapshot/types.js';
import { snapshotOf, type LinkSpec } from '../unit/helpers.js';

export const Z = '0000:0000:0000:0000:0000:0000:0000:0000';
export const EINVAL = { error: 'EINVAL' } as const;
export const ENOENT = { error: 'ENOENT' } as const;

const hex4 = (n: number) => n.toString(16).padStart(4, '0');

export function v4gid(ip: string): string {
  const b = ip.split('.').map(Number);
  return `0000:0000:0000:0000:0000:ffff:${hex4((b[0]! << 8) | b[1]!)}:${hex4((b[2]! << 8) | b[3]!)}`;
}

export function v6gid(addr: string): string {
  const [head, tail] = addr.includes('::') ? (addr.split('::') as [string, string]) : [addr, null];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const words = tail === null ? h : [...h, ...Array(8 - h.length - t.length).fill('0'), ...t];
  return words.map((w) => hex4(parseInt(w, 16))).join(':');
}

export const ll = (iid = '0ac0:ebff:feda:1cfb') => `fe80:0000:0000:0000:${iid}`;

export type G = [gid: string, type?: SysfsRead, ndev?: SysfsRead];

/** GID entries from [gid, type, ndev] triples; `type` 'v1'/'v2' shorthand; unset entries padded to `len`. */
export function gids(list: (G | null)[], len = list.length, ndev: string | null = 'eth1'): GidEntry[] {
  const out: GidEntry[] = [];
  for (let i = 0; i < Math.max(len, list.length); i++) {
    const e = list[i] ?? null;
    if (!e) {
      out.push({ index: i, gid: Z, type: EINVAL, ndev: EINVAL });
      continue;
    }
    const [gid, type = 'RoCE v2', nd] = e;
    const t = type === 'v1' ? 'IB/RoCE v1' : type === 'v2' ? 'RoCE v2' : type;
    out.push({ index: i, gid, type: t, ndev: nd ?? (ndev ?? EINVAL) });
  }
  return out;
}

/** The §3.5 worked example: 10.0.0.5, 192.168.1.5 and 2001:db8::5 on one port. */
export function workedTable(): GidEntry[] {
  return gids([
    [ll(), 'v1'],
    [ll(), 'v2'],
    [v4gid('10.0.0.5'), 'v1'],
    [v4gid('10.0.0.5'), 'v2'],
    [v4gid('192.168.1.5'), 'v1'],
    [v4gid('192.168.1.5'), 'v2'],
    [v6gid('2001:db8::5'), 'v1'],
    [v6gid('2001:db8::5'), 'v2'],
  ]);
}

export interface PortSpec {
  port?: number;
  state?: SysfsRead;
  phys?: SysfsRead;
  ll?: SysfsRead;
  rate?: SysfsRead;
  gids?: GidEntry[];
}

export function port(p: PortSpec = {}): RdmaPort {
  const g = p.gids ?? [];
  return {
    port: p.port ?? 1,
    state: p.state ?? '4: ACTIVE',
    physState: p.phys ?? '5: LinkUp',
    linkLayer: p.ll ?? 'Ethernet',
    rate: p.rate ?? '200 Gb/sec (4X HDR)',
    lid: '0x0',
    gidCount: g.length,
    gids: g,
  };
}

export interface DevSpec {
  name: string;
  /** PCI BDF of the function (`0000:17:00.1`); null = `device` missing; 'dir' = a plain directory. */
  bdf?: string | null | 'dir';
  ports?: PortSpec[];
  netdevs?: string[];
  uverbs?: string | null;
  sysImageGuid?: string;
}

export function device(d: DevSpec): RdmaDevice {
  const bdf = d.bdf === undefined ? `0000:${(0x10 + Number(/\d+$/.exec(d.name)?.[0] ?? 0)).toString(16).padStart(2, '0')}:00.0` : d.bdf;
  const real = bdf === null ? null : bdf === 'dir' ? `/sys/class/infiniband/${d.name}/device` : `/sys/devices/pci0000:00/0000:00:01.0/${bdf}`;
  const pci = bdf !== null && bdf !== 'dir';
  const folded = real
    ? (Object.entries(foldVariants(real)) as [('mergeVfs' | 'functionOnly' | 'lowDigit'), string][]).map(([variant, path]) => ({
        variant,
        path,
        // A folded PCI path exists when function 0 of that slot does; the plain-directory fold (…/de00c0) never does.
        exists: pci,
        subsystem: pci ? 'pci' : null,
      }))
    : [];
  return {
    name: d.name,
    classEntryIsSymlink: pci,
    nodeType: '1: CA',
    fwVer: '28.39.1002',
    nodeGuid: 'b83f:d203:00a0:0001',
    sysImageGuid: d.sysImageGuid ?? `guid-${bdf === null || bdf === 'dir' ? d.name : bdf.slice(0, 10)}`,
    hcaType: 'MT4129',
    boardId: ENOENT,
    device: { kind: bdf === null ? 'missing' : bdf === 'dir' ? 'directory' : 'symlink', link: pci ? `../../../${bdf}` : null, realpath: real, subsystem: pci ? 'pci' : null, folded },
    pci: pci
      ? { bdf: bdf as string, class: '0x020000', vendor: '0x15b3', device: '0x1021', subsystemVendor: '0x15b3', subsystemDevice: '0x0041', numaNode: '0', currentLinkSpeed: '32.0 GT/s PCIe', currentLinkWidth: '16', maxLinkSpeed: '32.0 GT/s PCIe', maxLinkWidth: '16' }
      : null,
    pciNetdevs: d.netdevs ?? [],
    uverbs: d.uverbs === undefined ? null : d.uverbs,
    ports: (d.ports ?? [{}]).map((p, i) => port({ port: i + 1, ...p })),
  };
}

export function rdmaPart(devices: RdmaDevice[], extra: Partial<RdmaPart> = {}): RdmaPart {
  return {
    classPresent: true,
    devices,
    netdevs: {},
    peerMem: [
      { path: '/sys/kernel/mm/memory_peers/nv_mem/version', present: true },
      { path: '/sys/kernel/mm/memory_peers/nvidia-peermem/version', present: false },
      { path: '/sys/kernel/mm/memory_peers/nv_mem_nc/version', present: false },
      { path: '/sys/module/nvidia_peermem/version', present: true },
    ],
    modules: [{ path: '/sys/module/nvidia_peermem', present: true }],
    sysModuleKnown: true,
    devInfiniband: { known: true, present: true, entries: ['rdma_cm', ...devices.map((d, i) => d.uverbs ?? `uverbs${i}`)] },
    memlock: { soft: 'unlimited', hard: 'unlimited', error: null },
    container: { detected: false, evidence: [] },
    ...extra,
  };
}

/** A snapshot with links (for the OOB) and an RDMA part. */
export function rdmaSnapshot(links: LinkSpec[], devices: RdmaDevice[], opts: { env?: Record<string, string>; rdma?: Partial<RdmaPart> } = {}): NodeSnapshot {
  const s = snapshotOf(links, { env: opts.env });
  return { ...s, rdma: rdmaPart(devices, opts.rdma) };
}
