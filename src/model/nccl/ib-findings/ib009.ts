// IB-009: ports not ACTIVE or not LinkUp, which NCCL skips without a word.
import { advise, setEnv } from '../../result/build.js';
import { matchHca } from '../ib-hca.js';
import { parseNumbered } from '../ib.js';
import type { Finding, Severity } from '../socket-findings.js';
import { exactHca, finding, withNetdev, type IbView, type PortRef } from './view.js';

export function ib009(v: IbView): Finding[] {
  const downPorts = v.ports.filter((r) => {
    const st = parseNumbered(r.port.sysfs.state);
    const ph = parseNumbered(r.port.sysfs.physState);
    return (st.num !== null && st.num !== 4) || (ph.num !== null && ph.num !== 5);
  });
  if (!downPorts.length) return [];
  // A port NCCL_IB_HCA leaves out anyway is only worth an info.
  const filtered = (r: PortRef) => !matchHca(v.selection.inputs.hca, r.dev, r.port.port).accepted;
  const relevant = downPorts.filter((r) => r.port.linkLayer === 'InfiniBand' || r.port.linkLayer === 'Ethernet');
  const list = downPorts.map((r) => `${withNetdev(r)} ${r.port.state ?? '?'}/${r.port.physState ?? '?'}`).join(', ');
  const sev: Severity = relevant.some((r) => !filtered(r)) ? 'warn' : 'info';
  return [
    finding(
      'IB-009',
      sev,
      `Port(s) not ACTIVE or not LinkUp: ${list}. NCCL skips ports that are not ACTIVE without any message; if other nodes use them, rails no longer line up across nodes`,
      v.used.length ? setEnv({ NCCL_IB_HCA: exactHca(v.used) }, 'Check cabling/switch ports (ibstat), or name the ports you use on every node') : advise('Check cabling and the subnet manager / switch ports (ibstat, ibv_devinfo)'),
    ),
  ];
}
