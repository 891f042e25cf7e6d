// PCI functions that matter to NCCL's topology: network controllers (to find
// NICs without an RDMA device) and NVIDIA GPUs (for GPU↔NIC NUMA placement).
// Read from /sys/bus/pci/devices under the root.

import type { Root } from './root.js';
import type { PciFunctionInfo, PciPart } from '../model/snapshot/pci.js';

const NVIDIA = '0x10de';

export function probePci(root: Root): PciPart {
  const base = '/sys/bus/pci/devices';
  const names = root.list(base);
  const nics: PciFunctionInfo[] = [];
  const gpus: PciFunctionInfo[] = [];
  for (const bdf of names) {
    const dir = `${base}/${bdf}`;
    const cls = root.readTrim(`${dir}/class`);
    if (!cls) continue;
    const isNic = cls.startsWith('0x02');
    const vendor = root.readTrim(`${dir}/vendor`) ?? '';
    // 0x0300 VGA and 0x0302 3D controller; NVSwitches are bridges (0x0680) and are left out.
    const isGpu = vendor === NVIDIA && (cls.startsWith('0x0300') || cls.startsWith('0x0302'));
    if (!isNic && !isGpu) continue;
    const numa = root.readTrim(`${dir}/numa_node`);
    const driverLink = root.readlink(`${dir}/driver`);
    const info: PciFunctionInfo = {
      bdf,
      class: cls,
      vendor,
      device: root.readTrim(`${dir}/device`) ?? '',
      numaNode: numa === null ? null : Number(numa),
      driver: driverLink ? driverLink.split('/').pop()! : null,
      netdevs: root.list(`${dir}/net`),
    };
    (isNic ? nics : gpus).push(info);
  }
  return { present: names.length > 0, nics, gpus };
}
