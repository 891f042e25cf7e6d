// The NET devices NCCL places in its topology when its IB transport is not
// the network: the socket transport's interfaces, or an external plugin's
// devices. NCCL v2.30.7 src/transport/net_socket.cc (ncclNetSocketGetProperties)
// reports for each socket interface its name, port 0, pciPath = realpath of
// /sys/class/net/<if>/device (none for a virtual link: the first CPU then)
// and speed = /sys/class/net/<if>/speed (unreadable or ≤ 0: 10 Gb/s); the
// topology places it like any NIC (ncclTopoFillNet) at bandwidth speed / 8
// (10 Gb/s: 1.25 GB/s). aws-ofi-nccl reports one device per EFA device, at
// the EFA function's PCI path. Which network it is comes from the same
// decision as the doctor's NET checks (src/model/nccl/net-plugin.ts).

import { reasoningContext } from '../nccl/explain.js';
import type { NcclIbDevice } from '../nccl/ib.js';
import { efaDevices, netInputsOf, netVerdict } from '../nccl/net-plugin.js';
import { MAX_IFS, selectSocketInterfaces } from '../nccl/socket.js';
import type { NodeSnapshot } from '../snapshot/types.js';

const BDF = /^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$/i;

function rateOf(text: unknown): number | null {
  const m = typeof text === 'string' ? /^(\d+(?:\.\d+)?) Gb\/sec/.exec(text) : null;
  return m ? Number(m[1]) : null;
}

/** The devices the network NCCL uses would place, when it is not NCCL's IB transport; null when that network is IB or unknown. */
export function nonIbNetDevices(snapshot: NodeSnapshot, ncclVersion: string | undefined): { kind: 'socket' | 'plugin'; devices: NcclIbDevice[]; note: string } | null {
  const r = reasoningContext(snapshot, { ncclVersion });
  const sel = selectSocketInterfaces(r.socketCtx);
  const v = netVerdict(netInputsOf(snapshot, r, sel));
  const net = v.decision.network;
  if (net === 'Socket') {
    const names = [...new Set(sel.socket.selected.map((s) => s.name))].slice(0, MAX_IFS);
    const devices = names.map((name, index): NcclIbDevice => {
      const link = snapshot.network.links.find((l) => l.name === name.split(':')[0]);
      const path = link?.device ?? null;
      return { index, dev: name, port: 0, linkLayer: 'Ethernet', fullPciPath: path ?? '', pciPath: path, pciPathIsPci: !!path && BDF.test(path.split('/').pop()!), rateGbps: link?.speedMbps ? link.speedMbps / 1000 : null, rail: -1, plane: -1, numa: null };
    });
    return { kind: 'socket', devices, note: `the network is NCCL's socket transport: its interfaces are the NET devices (${names.join(', ')}), placed at /sys/class/net/<if>/device at their speed (10 Gb/s when unknown)` };
  }
  if (v.decision.plugin?.product === 'aws-ofi-nccl') {
    const efa = new Set(efaDevices(snapshot.rdma));
    const devices = (snapshot.rdma?.devices ?? [])
      .filter((d) => efa.has(d.name))
      .map((d, index): NcclIbDevice => ({ index, dev: d.name, port: 1, linkLayer: 'Ethernet', fullPciPath: d.device.realpath ?? '', pciPath: d.device.realpath, pciPathIsPci: d.device.subsystem === 'pci', rateGbps: rateOf(d.ports[0]?.rate), rail: -1, plane: -1, numa: null }));
    return { kind: 'plugin', devices, note: `the network is aws-ofi-nccl: each EFA device is a NET device at its PCI function` };
  }
  return null;
}
