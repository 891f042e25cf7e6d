// IB-032: different PCI devices that NCCL_IB_MERGE_VFS folds onto one path, so NCCL fuses them (typical in VMs).
import type { Finding } from '../socket-findings.js';
import { finding, fusedGroups, setEnvOf, type IbView } from './view.js';

export function ib032(v: IbView): Finding[] {
  return fusedGroups(v)
    .filter((g) => g.kind === 'merge-vfs')
    .map((g) =>
      finding(
        'IB-032',
        'warn',
        `${g.devs.map((d) => `${d.dev} (${d.fullPciPath.split('/').pop()})`).join(', ')} are different PCI devices, but NCCL_IB_MERGE_VFS=1 zeroes the device number when folding their paths, so NCCL sees one NIC (${g.key}) and fuses them into "${g.name}" (typical in VMs; verify)`,
        setEnvOf('NCCL_IB_MERGE_VFS', '0'),
      ),
    );
}
