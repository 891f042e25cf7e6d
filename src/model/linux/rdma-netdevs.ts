// Which netdevs carry RDMA ports. The one place the ARP/QoS/routing checks
// read the RDMA part of the snapshot (src/model/snapshot/rdma-types.ts), so a change
// of that shape is a fix in this file only.

import type { RdmaDevice, SysfsRead } from '../snapshot/rdma-types.js';
import type { NodeSnapshot } from '../snapshot/types.js';

export interface RdmaNetdev {
  /** Verbs device, e.g. mlx5_0. */
  dev: string;
  /** Port number (1-based, as in /sys/class/infiniband/<dev>/ports/<n>). */
  port: number;
  /** The netdev behind that port, e.g. ens1f0np0, bond0, ib0. */
  netdev: string;
}

const text = (r: SysfsRead | undefined): string | null => (typeof r === 'string' ? r : null);

/**
 * dev_port is 0-based decimal (port N ↔ dev_port N-1); older drivers number
 * ports in dev_id (hex) instead.
 */
function portOfNetdev(snapshot: NodeSnapshot, name: string): number | null {
  const f = snapshot.rdma?.netdevs[name];
  if (!f) return null;
  const devPort = text(f.devPort);
  if (devPort !== null && /^\d+$/.test(devPort.trim())) return Number(devPort.trim()) + 1;
  const devId = text(f.devId);
  if (devId !== null && /^(0x)?[0-9a-f]+$/i.test(devId.trim())) return parseInt(devId.trim(), 16) + 1;
  return null;
}

function portNetdevs(snapshot: NodeSnapshot, d: RdmaDevice, port: number, portCount: number): string[] {
  const p = d.ports.find((x) => x.port === port);
  // RoCE: the GID table names the netdev each entry comes from — the kernel's own mapping.
  const fromGids = [...new Set((p?.gids ?? []).map((g) => text(g.ndev)).filter((n): n is string => !!n && n.trim() !== '').map((n) => n.trim()))];
  if (fromGids.length) return fromGids;
  // InfiniBand (IPoIB) or a port without GIDs yet: the PCI function's netdevs, by port number.
  const byPort = d.pciNetdevs.filter((n) => portOfNetdev(snapshot, n) === port);
  if (byPort.length) return byPort;
  return portCount === 1 && d.pciNetdevs.length === 1 ? [d.pciNetdevs[0]!] : [];
}

// By RDMA part: the ARP, QoS and routing checks each ask, and the advice check runs them again per environment
// change on the same RDMA part (a 16-device node has 8,192 GID entries to walk).
const memo = new WeakMap<object, RdmaNetdev[]>();

/** Every (device, port, netdev) triple; empty when the node has no RDMA devices or the snapshot has no RDMA part. */
export function rdmaNetdevs(snapshot: NodeSnapshot): RdmaNetdev[] {
  const rdma = snapshot.rdma;
  if (!rdma) return [];
  let out = memo.get(rdma);
  if (!out) memo.set(rdma, (out = collect(snapshot)));
  return out.slice();
}

function collect(snapshot: NodeSnapshot): RdmaNetdev[] {
  const out: RdmaNetdev[] = [];
  const seen = new Set<string>();
  for (const d of snapshot.rdma?.devices ?? []) {
    for (const p of d.ports) {
      for (const netdev of portNetdevs(snapshot, d, p.port, d.ports.length)) {
        const key = `${d.name}\0${p.port}\0${netdev}`;
        if (seen.has(key)) continue;
        seen.add(key);
        out.push({ dev: d.name, port: p.port, netdev });
      }
    }
  }
  return out;
}

/** Why RDMA facts are unknown (the snapshot predates the RDMA probe), or null when they are known. */
export function rdmaUnknownReason(snapshot: NodeSnapshot): string | null {
  return snapshot.rdma ? null : 'this snapshot has no RDMA part (taken by an ncclx without the RDMA probe): re-take it with `ncclx snapshot`';
}

/** Link layer of each (dev, port): "Ethernet" for RoCE, "InfiniBand", or null when unreadable. */
export function rdmaLinkLayer(snapshot: NodeSnapshot, dev: string, port: number): string | null {
  const d = snapshot.rdma?.devices.find((x) => x.name === dev);
  return text(d?.ports.find((p) => p.port === port)?.linkLayer)?.trim() ?? null;
}
