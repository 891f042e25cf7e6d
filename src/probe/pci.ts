// PCI functions that matter to NCCL's topology: network controllers (to find
// NICs without an RDMA device) and NVIDIA GPUs (for GPU↔NIC NUMA placement).
// Read from /sys/bus/pci/devices under the root.

import type { ProbeWarning } from '../model/snapshot/types.js';
import { BOUNDS, clip, firstOf, plausibleName } from './bound.js';
import type { Root } from './root.js';
import type { PciFunctionInfo, PciPart } from '../model/snapshot/pci.js';

const NVIDIA = '0x10de';

/** numa_node as the kernel prints it: -1 (the platform does not say) up to the 1024 nodes a kernel can have; else unreadable. */
function numaNode(text: string | null): number | null {
  if (text === null || !/^-?\d{1,4}$/.test(text.trim())) return null;
  const n = Number(text.trim());
  return n >= -1 && n < BOUNDS.numaNodes ? n : null;
}

export function probePci(root: Root, warnings?: ProbeWarning[]): PciPart {
  const base = '/sys/bus/pci/devices';
  const names = firstOf(root.list(base).filter((n) => n.length <= 64), BOUNDS.pciFunctions, 'PCI functions', 'pci', warnings);
  const nics: PciFunctionInfo[] = [];
  const gpus: PciFunctionInfo[] = [];
  let dropped = 0;
  for (const bdf of names) {
    const dir = `${base}/${bdf}`;
    const cls = root.readTrim(`${dir}/class`);
    if (!cls) continue;
    const isNic = cls.startsWith('0x02');
    const vendor = root.readTrim(`${dir}/vendor`) ?? '';
    // 0x0300 VGA and 0x0302 3D controller; NVSwitches are bridges (0x0680) and are left out.
    const isGpu = vendor === NVIDIA && (cls.startsWith('0x0300') || cls.startsWith('0x0302'));
    if (!isNic && !isGpu) continue;
    const driverLink = root.readlink(`${dir}/driver`);
    const info: PciFunctionInfo = {
      bdf,
      class: clip(cls, 64),
      vendor: clip(vendor, 64),
      device: clip(root.readTrim(`${dir}/device`) ?? '', 64),
      numaNode: numaNode(root.readTrim(`${dir}/numa_node`)),
      driver: driverLink ? clip(driverLink.split('/').pop()!, BOUNDS.path) : null,
      netdevs: firstOf(root.list(`${dir}/net`).filter((n) => plausibleName(n, BOUNDS.ifname)), BOUNDS.netdevsPerFunction, `netdevs of ${bdf}`, 'pci', warnings),
    };
    if (isNic) nics.push(info);
    // NCCL_TOPO_MAX_NODES: no NCCL places more GPUs than this (src/model/snapshot/limits.ts).
    else if (gpus.length < BOUNDS.gpus) gpus.push(info);
    else dropped++;
  }
  if (dropped) warnings?.push({ source: 'pci', message: `${BOUNDS.gpus + dropped} GPUs, more than NCCL places (NCCL_TOPO_MAX_NODES, ${BOUNDS.gpus}): the last ${dropped} are left out` });
  return { present: names.length > 0, nics, gpus };
}
