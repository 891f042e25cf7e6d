// Findings about the IB transport: each names what NCCL will do that the user
// probably did not intend, on which device and port, and one line that fixes
// it. IDs are stable (IB-001 …) and listed in docs/ib-json.md.

import type { IbReport, PortReport } from './ib-types.js';
import { advise, run, setEnv, unsetEnv } from '../result/build.js';
import type { Remediation } from '../result/types.js';
import type { NodeSnapshot } from '../snapshot/types.js';
import { gpuCount } from './gdr.js';
import type { EffectiveEnv, Origin } from './conf.js';
import { gidFamily, gidIPv4, gidLinkLocal, gidText, gidValid, isZeroGid, parseGid, selectGid, classifyType, type GidParams } from './gid.js';
import { entryHits, matchHca } from './ib-hca.js';
import { groupNotes } from './ifname-list.js';
import { parseNumbered, sysText, type IbSelection } from './ib.js';
import { commIdHintCause, dedupeFindings, type Finding, type Severity } from './socket-findings.js';
import type { ConsumerResult } from './socket.js';
import { atLeast, versionString, type Profile } from './versions.js';

export interface IbFindingContext {
  report: IbReport;
  selection: IbSelection;
  gidParams: GidParams;
  profile: Profile;
  env: EffectiveEnv;
  snapshot: NodeSnapshot;
  versionAssumed: boolean;
  oob: ConsumerResult;
}


function originText(o: Origin | undefined): string {
  if (!o || o.source === 'environment') return '';
  return o.source === 'flag' ? ` (from ${o.flag})` : ` (from ${o.path}:${o.line})`;
}

interface PortRef {
  dev: string;
  port: PortReport;
}

const label = (r: PortRef) => `${r.dev}:${r.port.port}`;
const withNetdev = (r: PortRef) => `${label(r)}${r.port.netdev ? ` (${r.port.netdev})` : ''}`;

/** `=mlx5_0:1,mlx5_1:1`: an NCCL_IB_HCA value that names exactly these ports. */
export function exactHca(refs: PortRef[]): string {
  return `=${refs.map(label).join(',')}`;
}

/** Set one variable. */
const setEnvOf = (name: string, value: string): Remediation => setEnv({ [name]: value });

/** NCCL_IB_HCA naming exactly these ports, or advice when there are none. */
function hcaSuggestion(refs: PortRef[], advice: string): Remediation {
  return refs.length ? setEnv({ NCCL_IB_HCA: exactHca(refs) }, advice) : advise(`${advice} (no ACTIVE port was found on this node)`);
}

/** An interface with an IPv4 address for the IB transport's OOB socket, or advice when there is none. */
function oobFix(c: IbFindingContext, why = ''): Remediation {
  const name = c.snapshot.network.addresses.find((a) => a.name !== 'lo' && a.family === 'AF_INET')?.name;
  const advice = commIdHintCause(why) ?? 'Give NCCL an interface with an IP address for its OOB socket';
  return name ? setEnv({ NCCL_SOCKET_IFNAME: `=${name}` }, advice) : advise(advice);
}

function allPorts(report: IbReport): PortRef[] {
  return report.devices.flatMap((d) => d.ports.map((port) => ({ dev: d.name, port })));
}

export function ibFindings(c: IbFindingContext): Finding[] {
  const out: Finding[] = [];
  const add = (id: string, severity: Severity, message: string, remediation: Remediation) => out.push({ id, severity, message, remediation });
  const { report, selection, profile, env, gidParams } = c;
  const ports = allPorts(report);
  const used = ports.filter((r) => r.port.usedByNccl === true);
  const kept = ports.filter((r) => selection.ports.find((x) => x.dev === r.dev && x.port === r.port.port)?.kept === true);
  const rdma = c.snapshot.rdma;
  const origin = (v: string) => originText(env.origins[v]);
  const version = versionString(profile.version);
  const t = report.transport;
  const hasRdma = ports.length > 0;

  if (c.versionAssumed) {
    add('IB-021', 'info', `No NCCL library was found on this node; assuming NCCL ${version} (newest known)`, advise('Pass --nccl-version X.Y.Z (or ncclx-X.Y) to model the NCCL your job really loads'));
  }
  if (t.status === 'no-data') {
    add('IB-034', 'warn', 'This snapshot has no RDMA part (it was taken by an older ncclx): nothing can be said about the IB transport', advise('Take a new snapshot with `ncclx snapshot` on the node'));
    return out;
  }

  // --- transport-level ------------------------------------------------------
  const dis = selection.inputs.disable;
  if (dis.raw !== undefined && dis.raw !== '') {
    if (dis.value === 0 && !/^\s*[+-]?0+\s*$/.test(dis.raw)) {
      add('IB-016', 'warn', `NCCL_IB_DISABLE='${dis.raw}'${origin('NCCL_IB_DISABLE')} is read as an integer (${dis.surprising ?? 'C strtoll'}) and is 0: the IB transport is NOT disabled`, setEnvOf('NCCL_IB_DISABLE', '1'));
    } else if (dis.value !== 0 && hasRdma) {
      add('IB-016', 'info', `NCCL_IB_DISABLE=${dis.raw}${origin('NCCL_IB_DISABLE')} disables the IB transport: NCCL uses ${t.network === 'Socket' ? 'TCP sockets' : t.network} although ${ports.length} RDMA port(s) exist`, unsetEnv('NCCL_IB_DISABLE'));
    }
  }
  for (const [name, p] of [
    ['NCCL_IB_GID_INDEX', gidParams.gidIndex],
    ['NCCL_IB_ROCE_VERSION_NUM', gidParams.roceVersion],
    ['NCCL_IB_ROUTABLE_FLID_GID_INDEX', gidParams.flidIndex],
    ['NCCL_IB_MERGE_VFS', selection.inputs.mergeVfs],
    ['NCCL_IB_MERGE_NICS', selection.inputs.mergeNics],
    ['NCCL_IB_DEVICE_PCI_ORDER', selection.inputs.pciOrder],
  ] as const) {
    if (p.raw !== undefined && p.surprising) add('IB-025', 'warn', `${name}${origin(name)}: ${p.surprising}`, setEnv({ [name]: String(p.value) }));
  }
  if (t.status === 'not-requested' || (t.status === 'ok' && t.used === false)) {
    add('IB-029', 'info', `NCCL_NET=${selection.inputs.net}${origin('NCCL_NET')}: ${t.why}`, setEnv({ NCCL_NET: null }, 'Unset NCCL_NET to let NCCL use the IB transport'));
  }
  if (t.status === 'no-oob' && hasRdma) {
    add('IB-017', 'error', `The IB transport fails: ${t.why} — NCCL prints "NCCL WARN NET/IB : No IP interface found."`, oobFix(c, t.why.replace(/^no IP interface for the IB OOB socket \(/, '')));
  }

  // --- NCCL_IB_HCA ----------------------------------------------------------
  out.push(...hcaFindings(c, ports, kept));

  // --- nothing kept: the silent fallback ------------------------------------------
  if (t.status === 'no-device' && hasRdma) {
    const explicitIb = selection.inputs.net?.toLowerCase() === 'ib';
    const byFilter = selection.ports.some((p) => p.trace.some((tr) => tr.stage === 'hca' && tr.verdict === 'skipped'));
    const usable = ports.filter((r) => r.port.linkLayer === 'InfiniBand' || r.port.linkLayer === 'Ethernet');
    if (explicitIb) {
      add('IB-018', 'error', `NCCL_NET=IB${origin('NCCL_NET')} but the IB transport has no device: NCCL WARNs "${profile.netNotFoundLog.replace('%s', selection.inputs.net!)}" and initialisation fails`, usable.length ? setEnv({ NCCL_NET: null }, 'Bring an RDMA port up, or unset NCCL_NET') : unsetEnv('NCCL_NET'));
    } else if (!byFilter) {
      add(
        'IB-018',
        usable.length ? 'warn' : 'info',
        `NCCL's IB transport keeps no port (${usable.length ? 'no InfiniBand/Ethernet port is ACTIVE or openable' : 'no port has an InfiniBand or Ethernet link layer'}): NCCL logs "NET/IB : No device found." and silently uses TCP sockets${usable.length ? '' : ' unless an external net plugin takes over'}`,
        advise(usable.length ? 'Check the ports with ibstat / ibv_devinfo, then rerun ncclx ib' : 'Nothing to do for the IB transport'),
      );
    }
  }

  // --- devices and ports that NCCL skips ---------------------------------------
  const downPorts = ports.filter((r) => {
    const st = parseNumbered(r.port.sysfs.state);
    const ph = parseNumbered(r.port.sysfs.physState);
    return (st.num !== null && st.num !== 4) || (ph.num !== null && ph.num !== 5);
  });
  if (downPorts.length) {
    // A port NCCL_IB_HCA leaves out anyway is only worth an info.
    const filtered = (r: PortRef) => !matchHca(selection.inputs.hca, r.dev, r.port.port).accepted;
    const relevant = downPorts.filter((r) => r.port.linkLayer === 'InfiniBand' || r.port.linkLayer === 'Ethernet');
    const list = downPorts.map((r) => `${withNetdev(r)} ${r.port.state ?? '?'}/${r.port.physState ?? '?'}`).join(', ');
    const sev: Severity = relevant.some((r) => !filtered(r)) ? 'warn' : 'info';
    add(
      'IB-009',
      sev,
      `Port(s) not ACTIVE or not LinkUp: ${list}. NCCL skips ports that are not ACTIVE without any message; if other nodes use them, rails no longer line up across nodes`,
      used.length ? setEnv({ NCCL_IB_HCA: exactHca(used) }, 'Check cabling/switch ports (ibstat), or name the ports you use on every node') : advise('Check cabling and the subnet manager / switch ports (ibstat, ibv_devinfo)'),
    );
  }
  const odd = ports.filter((r) => r.port.linkLayer !== null && r.port.linkLayer !== 'InfiniBand' && r.port.linkLayer !== 'Ethernet');
  if (odd.length) {
    const efa = odd.some((r) => /^0x1d0f$/i.test(report.devices.find((d) => d.name === r.dev)?.pci?.vendor ?? '') || /^(efa|rdmap)/.test(r.dev));
    add(
      'IB-022',
      'info',
      `${odd.map((r) => `${label(r)} (link layer ${r.port.linkLayer})`).join(', ')}: NCCL's IB transport keeps only InfiniBand and Ethernet ports and skips these silently${efa ? '; EFA devices are used through the aws-ofi-nccl plugin (libnccl-net.so), not NCCL\'s IB transport' : ''}`,
      advise(efa ? 'Install aws-ofi-nccl and make sure libnccl-net.so is on LD_LIBRARY_PATH (NCCL logs "Using network AWS Libfabric")' : 'Nothing to do for NCCL\'s IB transport; use the vendor\'s NCCL net plugin if there is one'),
    );
  }
  const dropped = selection.ports.filter((p) => p.trace.some((tr) => tr.stage === 'limit'));
  if (dropped.length) {
    add('IB-023', 'warn', `More than MAX_IB_DEVS=${profile.ibMaxDevs} ports qualify; NCCL ${version} silently ignores ${dropped.map((d) => `${d.dev}:${d.port}`).join(', ')}`, setEnv({ NCCL_IB_HCA: exactHca(kept.slice(0, profile.ibMaxDevs)) }, 'Name the ports you want'));
  }

  // --- environment: device nodes, memlock, GPUDirect RDMA ----------------------
  if (rdma && hasRdma) {
    const openFail = selection.ports.filter((p) => p.trace.some((tr) => tr.stage === 'open' && tr.verdict === 'skipped'));
    if (openFail.length) {
      const devs = [...new Set(openFail.map((p) => p.dev))];
      add(
        'IB-013',
        'error',
        `${rdma.devInfiniband.present ? 'Device nodes under /dev/infiniband are missing for' : '/dev/infiniband is missing, so NCCL cannot open'} ${devs.join(', ')}: NCCL WARNs "NET/IB : Unable to open device …" and skips ${devs.length > 1 ? 'them' : 'it'}${rdma.container.detected ? ' (this looks like a container without the RDMA devices)' : ''}`,
        rdma.container.detected ? advise('Expose the devices to the container: docker run --device=/dev/infiniband … (Kubernetes: an RDMA device plugin resource)') : run([['modprobe', 'ib_uverbs'], ['modprobe', 'mlx5_ib']], 'Load the RDMA stack and check /dev/infiniband'),
      );
    }
    const ml = rdma.memlock;
    if (ml.soft !== null && ml.soft !== 'unlimited' && (kept.length || used.length)) {
      const bytes = Number(ml.soft);
      const small = Number.isFinite(bytes) && bytes < 64 * 1024 * 1024;
      add(
        'IB-014',
        small ? 'error' : 'warn',
        `The locked-memory limit is ${Number.isFinite(bytes) ? humanBytes(bytes) : ml.soft} (soft; hard ${ml.hard === 'unlimited' || !Number.isFinite(Number(ml.hard)) ? ml.hard : humanBytes(Number(ml.hard))})${rdma.container.detected ? ' inside a container' : ''}: NCCL registers its buffers with ibv_reg_mr, which fails (ENOMEM / "Cannot allocate memory") once the limit is reached`,
        rdma.container.detected ? advise('Raise it for the container: docker run --ulimit memlock=-1:-1 … (or LimitMEMLOCK=infinity for the container runtime service)') : run([['ulimit', '-l', 'unlimited']], 'Raise the limit in the shell that starts the job, and make it permanent in /etc/security/limits.conf (* - memlock unlimited)'),
      );
    }
    const peer = report.environment.peerMem.filter((p) => p.checkedByThisVersion);
    // GPUDirect RDMA needs a GPU: on a node without one there is no peer memory to want (gdr.ts gpuCount, as GDR-001).
    if (rdma.sysModuleKnown && kept.length && !peer.some((p) => p.present) && gpuCount(c.snapshot) !== 0) {
      const loadedButUnseen = rdma.modules.find((m) => m.path === '/sys/module/nvidia_peermem' && m.present);
      add(
        'IB-012',
        'warn',
        `No GPUDirect RDMA peer-memory module that NCCL ${version} looks for is present (${peer.map((p) => p.path).join(', ')})${loadedButUnseen ? '; nvidia_peermem is loaded, but this NCCL only checks the memory_peers paths (the /sys/module/nvidia_peermem check exists from 2.23.4)' : ''}. GPUDirect RDMA then depends on DMA-BUF (NCCL ≥ 2.13.4, kernel ≥ 5.12, CUDA ≥ 11.7); without it data is staged through host memory`,
        run([['modprobe', 'nvidia_peermem']]),
      );
    }
  }

  // --- PCI placement -------------------------------------------------------------
  const nonPci = report.devices.filter((d) => d.device.kind !== 'symlink' || d.device.subsystem !== 'pci');
  if (nonPci.length) {
    const fused = selection.merge.groups.some((g) => g.merged && g.key.startsWith('first CPU'));
    const buggy = profile.ibMerge === 'core-vnic' && !atLeast(profile.version, '2.29.2');
    for (const d of nonPci) {
      const what = d.device.kind === 'directory' ? 'a plain directory, not a symlink into /sys/devices' : d.device.kind === 'missing' ? 'absent from this view (a partial capture? on a live node NCCL WARNs "Could not find real path of …")' : d.device.kind === 'other' ? 'not a symlink' : `a symlink to a non-PCI parent (${d.device.subsystem ?? 'no subsystem'})`;
      const shown = d.device.pciPath && !d.device.pciPathIsPci ? ` NCCL folds the path to ${d.device.pciPath}, which is not a PCI device, and logs "Topology detection: network path … is not a PCI device (${d.device.kind === 'directory' ? '' : d.device.subsystem ?? ''})".` : '';
      add(
        'IB-011',
        d.device.kind === 'missing' ? 'info' : 'warn',
        `/sys/class/infiniband/${d.name}/device is ${what}.${shown} The NIC is attached to the first CPU: GPU↔NIC affinity is lost`,
        advise("Run with the host's real /sys (e.g. docker run -v /sys:/sys:ro), or give NCCL the topology with NCCL_TOPO_FILE"),
      );
    }
    // The consequence of NICs off the PCI tree: a failed graph search falls back to NET id 0, which may not exist (IB-036).
    if (buggy && profile.vnicMode === 'every-group') {
      // 2.24.3–2.26.x renumber every NET after the physical devices (vnic.ts netNumbering): NET 0 is gone whatever the merge level.
      add(
        'IB-036',
        'warn',
        `NCCL ${version} renumbers every NET device after the physical ones (NET 0 disappears, NCCL_NET_MERGE_LEVEL=LOC included), and ${nonPci.map((d) => d.name).join(', ')} (not on the PCI tree) make its graph search likely to fail: the fallback then ends in "Could not find NET with id 0" (fixed in 2.29.2)`,
        advise("Give NCCL the host's real /sys (PCI device links) or an NCCL_TOPO_FILE, or use NCCL ≥ 2.27.3 with NCCL_NET_MERGE_LEVEL=LOC (≥ 2.29.2 needs nothing)"),
      );
    } else if (fused && buggy) {
      const names = nonPci.map((d) => d.name);
      add(
        'IB-036',
        'warn',
        `NCCL ${version} fuses ${names.join(', ')} (not on the PCI tree, all attached to the first CPU) into one virtual NIC, and a failed graph search then ends in "Could not find NET with id 0" (fixed in 2.29.2)`,
        setEnv({ NCCL_NET_MERGE_LEVEL: 'LOC' }, 'Keep the NICs apart (or use NCCL ≥ 2.29.2)'),
      );
    }
  }

  // --- merging ---------------------------------------------------------------------
  if (selection.merge.hang !== undefined) {
    add('IB-039', 'error', `NCCL_NET_FORCE_MERGE='${selection.inputs.forceMerge}': the group '${selection.merge.hang}' parses to no device name, and NCCL's loop never moves past it: initialisation hangs, printing "Invalid NCCL_NET_FORCE_MERGE specified" without end`, unsetEnv('NCCL_NET_FORCE_MERGE'));
  }
  for (const r of selection.merge.refusals) {
    const names = r.members.map((m) => `${selection.devices[m]!.dev}:${selection.devices[m]!.port}`);
    if (r.cause === 'link-layers') {
      // Refused, fatal before 2.26.2; from 2.26.2 NCCL places them apart and the mixed link layers are IB-015's warning below.
      if (r.fatal) {
        const ib = kept.filter((k) => k.port.linkLayer === 'InfiniBand');
        add('IB-015', 'error', `NCCL would fuse ${names.join(' and ')} (one NIC) into a virtual NIC, but they mix InfiniBand and RoCE: NCCL WARNs "${r.log}" and initialisation fails`, setEnvOf('NCCL_IB_HCA', exactHca(ib.length ? ib : kept.filter((k) => k.port.linkLayer === 'Ethernet'))));
      }
    } else if (r.cause === 'force-merge') {
      add('IB-039', 'error', `NCCL_NET_FORCE_MERGE='${selection.inputs.forceMerge}' cannot be honoured: NCCL WARNs "${r.log}" and initialisation fails`, unsetEnv('NCCL_NET_FORCE_MERGE'));
    } else if (r.cause === 'vnic-parent') {
      // The core fused them at the user's NCCL_NET_MERGE_LEVEL and cannot place the vNIC: the default level (PORT) never fuses across CPUs or off the PCI tree at a CPU.
      add('IB-037', 'error', `NCCL_NET_MERGE_LEVEL=${selection.inputs.mergeLevel.level} fuses ${names.join(' and ')} into a virtual NIC that NCCL ${version} cannot place: NCCL WARNs "${r.log}" and initialisation fails`, unsetEnv('NCCL_NET_MERGE_LEVEL'));
    } else if (r.fatal) {
      add('IB-028', 'error', `${names.join(' and ')} share one NIC, which NCCL ${version} fuses into a virtual NIC, but NCCL_IB_MERGE_NICS=0 makes the IB transport refuse it: NCCL WARNs "${r.log}" and initialisation fails (2.26.2 places them apart instead)`, unsetEnv('NCCL_IB_MERGE_NICS'));
    } else {
      add('IB-028', 'info', `${names.join(' and ')} share one NIC, but NCCL_IB_MERGE_NICS=0: NCCL logs "${r.log}", marks them unplaced and keeps them as separate devices`, unsetEnv('NCCL_IB_MERGE_NICS'));
    }
  }
  // A vNIC put where the topology never reads it (vnic.ts vnicHome): 2.24.3–2.26.x keep the ports as separate NETs, ≥ 2.27.3 trims them too.
  const unread = selection.merge.groups.filter((x) => x.merged && x.home?.kind === 'unread');
  const vnicUnread = unread.length > 0 && profile.vnicMode === 'every-group';
  const ordinary: string[] = [];
  // Groups fused for another reason than sharing one NIC: a merge level beyond PORT, or NCCL_NET_FORCE_MERGE.
  let beyondNic = false;
  let forced = false;
  for (const g of selection.merge.groups.filter((x) => x.merged && x.home?.kind !== 'unread' && x.home?.kind !== 'fatal')) {
    const devs = g.members.map((m) => selection.devices[m]!);
    const name = devs.map((d) => d.dev).join('+');
    const distinctSlots = new Set(devs.map((d) => d.fullPciPath.replace(/\.[0-7]$/, '')));
    // MERGE_VFS is the cause only when the folding made them one NIC (one folded path), not for a group fused across NICs.
    const oneNic = new Set(devs.map((d) => d.pciPath)).size === 1;
    if (g.forced || !oneNic) {
      beyondNic = true;
      forced ||= !!g.forced;
      ordinary.push(`${name} (${g.forced ? 'NCCL_NET_FORCE_MERGE' : g.key})`);
    } else if (distinctSlots.size > 1 && !g.key.startsWith('first CPU') && profile.ibMergeVfsParam && selection.inputs.mergeVfs.value !== 0) {
      add(
        'IB-032',
        'warn',
        `${devs.map((d) => `${d.dev} (${d.fullPciPath.split('/').pop()})`).join(', ')} are different PCI devices, but NCCL_IB_MERGE_VFS=1 zeroes the device number when folding their paths, so NCCL sees one NIC (${g.key}) and fuses them into "${name}" (typical in VMs; verify)`,
        setEnvOf('NCCL_IB_MERGE_VFS', '0'),
      );
    } else if (!g.key.startsWith('first CPU')) {
      ordinary.push(`${name} (${(devs[0]!.pciPath ?? '').split('/').pop() || 'no PCI path'})`);
    }
  }
  if (unread.length && !vnicUnread) {
    const names = unread.map((g) => g.members.map((m) => selection.devices[m]!.dev).join('+'));
    const why = [...new Set(unread.map((g) => (g.home as { why: string }).why))].join('; ');
    add('IB-038', 'warn', `NCCL ${versionString(profile.version)} fuses ${names.join(', ')} into virtual NICs, but ${why}; it also drops the fused ports (keep=0), so no NET device stands for them in its topology`, setEnv({ NCCL_NET_MERGE_LEVEL: 'LOC' }, 'Keep the NICs apart'));
  }
  if (vnicUnread) {
    const names = unread.map((g) => g.members.map((m) => selection.devices[m]!.dev).join('+'));
    add('IB-028', 'info', `NCCL ${versionString(profile.version)} makes virtual NICs of ports that share a NIC (${names.join(', ')}; INFO "NET/IB : Made virtual device …"), but 2.24.3–2.26.x place them in a nested <nic> their topology never reads: the ports stay separate NET devices`, advise('Nothing to do'));
  }
  if (ordinary.length) {
    const how = profile.ibMerge === 'core-vnic' ? `fuses them into virtual NICs (NCCL_NET_MERGE_LEVEL=${selection.inputs.mergeLevel.level}; INFO "NET/IB : Made virtual device … name=…")` : 'merges them in the IB transport (2.20.3–2.23.x)';
    // A forced group is fused at any level: keeping it apart means unsetting NCCL_NET_FORCE_MERGE as well.
    const apart: Record<string, string | null> = profile.ibMerge === 'core-vnic' ? { NCCL_NET_MERGE_LEVEL: 'LOC', ...(forced ? { NCCL_NET_FORCE_MERGE: null } : {}) } : { NCCL_IB_MERGE_NICS: '0' };
    add('IB-028', 'info', `${beyondNic ? 'Ports are fused into one NCCL network device' : 'Ports that share a NIC are one NCCL network device'}: NCCL ${versionString(profile.version)} ${how}: ${ordinary.join(', ')}`, setEnv(apart, 'Nothing to do unless you want them separate'));
  }
  for (const n of selection.merge.notes) add('IB-028', 'info', n, advise('Nothing to do'));
  // A virtual NIC over ports on different IPv4 subnets (direct-connect meshes): a peer reachable from one member is not from the other.
  for (const g of selection.merge.groups.filter((x) => x.merged && x.home?.kind !== 'unread' && x.home?.kind !== 'fatal')) {
    const members = g.members.map((m) => ports.find((r) => r.dev === selection.devices[m]!.dev && r.port.port === selection.devices[m]!.port)).filter((x): x is PortRef => !!x);
    const subnets = new Map<string, string[]>();
    let pointToPoint = false;
    for (const r of members) {
      for (const a of r.port.netdevs[0]?.ipv4 ?? []) {
        const net = ipv4Network(a);
        if (net) subnets.set(net, [...(subnets.get(net) ?? []), label(r)]);
        if (Number(a.split('/')[1]) >= 30) pointToPoint = true;
      }
    }
    // Rail-aligned fabrics also put each port on its own subnet and fuse fine (port k meets port k); /30 and /31 links are cables to single peers.
    if (subnets.size > 1 && pointToPoint) {
      add(
        'IB-035',
        'warn',
        `NCCL fuses ${members.map(withNetdev).join(' and ')} into one virtual NIC, but they are on different IPv4 subnets (${[...subnets.entries()].map(([n, l]) => `${n}: ${l.join(', ')}`).join('; ')}): a connection may leave through the port that cannot reach the peer (direct-connect meshes)`,
        setEnv({ NCCL_NET_MERGE_LEVEL: 'LOC' }, atLeast(profile.version, '2.30.7') ? 'NCCL ≥ 2.30.7 also offers NCCL_IB_SUBNET_AWARE_ROUTING=1 with NCCL_IB_MERGE_NICS=0' : undefined),
      );
    }
  }

  // --- link layers and rails -------------------------------------------------------
  const keptIb = kept.filter((k) => k.port.linkLayer === 'InfiniBand');
  const keptEth = kept.filter((k) => k.port.linkLayer === 'Ethernet');
  if (keptIb.length && keptEth.length && !selection.merge.refusals.some((r) => r.fatal)) {
    const major = keptIb.length >= keptEth.length ? keptIb : keptEth;
    add(
      'IB-015',
      'warn',
      `NCCL keeps InfiniBand ports (${keptIb.map(label).join(', ')}) and RoCE ports (${keptEth.map(withNetdev).join(', ')}) together: an InfiniBand port cannot reach a RoCE port, so connections NCCL pairs across them fail (RoCE storage/front-end NICs are the usual cause)`,
      setEnvOf('NCCL_IB_HCA', exactHca(major)),
    );
  }
  for (const ll of ['InfiniBand', 'Ethernet']) {
    const rails = used.filter((u) => u.port.linkLayer === ll && u.port.rateGbps !== null);
    const rates = new Map<number, PortRef[]>();
    for (const r of rails) rates.set(r.port.rateGbps!, [...(rates.get(r.port.rateGbps!) ?? []), r]);
    if (rates.size > 1) {
      const groups = [...rates.entries()].sort((a, b) => b[1].length - a[1].length);
      add(
        'IB-010',
        'warn',
        `${ll === 'Ethernet' ? 'RoCE' : 'InfiniBand'} rails run at different rates: ${groups.map(([g, rs]) => `${g} Gb/s on ${rs.map(label).join(', ')}`).join('; ')}. NCCL spreads rings over all of them and the slowest rail sets the pace`,
        setEnvOf('NCCL_IB_HCA', exactHca(groups[0]![1])),
      );
    }
  }
  const roce = used.filter((u) => u.port.linkLayer === 'Ethernet' && u.port.roceMtu !== null);
  const mtus = new Set(roce.map((r) => r.port.roceMtu));
  if (mtus.size > 1) {
    const max = Math.max(...roce.map((r) => r.port.mtu ?? 0));
    const low = roce.filter((r) => (r.port.mtu ?? 0) < max);
    const byMtu = new Map<string, PortRef[]>();
    for (const r of roce) byMtu.set(`netdev MTU ${r.port.mtu} → RoCE ${r.port.roceMtu}`, [...(byMtu.get(`netdev MTU ${r.port.mtu} → RoCE ${r.port.roceMtu}`) ?? []), r]);
    add(
      'IB-010',
      'warn',
      `RoCE rails have different MTUs: ${[...byMtu.entries()].map(([k, rs]) => `${k} on ${rs.map(withNetdev).join(', ')}`).join('; ')}. Each QP uses the smaller MTU of its two ends, so these rails run slower`,
      mtuFix(low.map((r) => r.port.netdev!).filter(Boolean), max),
    );
  } else {
    const small = roce.filter((r) => (r.port.roceMtu ?? 4096) < 4096);
    if (small.length) {
      add('IB-027', 'info', `RoCE MTU is ${small[0]!.port.roceMtu} on ${small.map(withNetdev).join(', ')} because the netdev MTU is ${small[0]!.port.mtu} (RoCE needs netdev MTU ≥ 4192 for 4096)`, mtuFix(small.map((r) => r.port.netdev!).filter(Boolean), 4200));
    }
  }

  // --- GID choice ------------------------------------------------------------------
  out.push(...gidFindings(c, ports, kept));
  return dedupeFindings(out);
}

/** '10.0.12.1/30' → '10.0.12.0/30'. */
function ipv4Network(cidr: string): string | null {
  const [addr, len] = cidr.split('/');
  const parts = (addr ?? '').split('.').map(Number);
  const bits = Number(len);
  if (parts.length !== 4 || parts.some((x) => !(x >= 0 && x <= 255)) || !(bits >= 0 && bits <= 32)) return null;
  const v = ((parts[0]! << 24) | (parts[1]! << 16) | (parts[2]! << 8) | parts[3]!) >>> 0;
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  const n = (v & mask) >>> 0;
  return `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}/${bits}`;
}

function humanBytes(n: number): string {
  if (n >= 1 << 30) return `${(n / (1 << 30)).toFixed(1)} GiB`;
  if (n >= 1 << 20) return `${(n / (1 << 20)).toFixed(0)} MiB`;
  if (n >= 1024) return `${(n / 1024).toFixed(0)} KiB`;
  return `${n} bytes`;
}

function mtuFix(netdevs: string[], mtu: number): Remediation {
  // The switch ports and every peer need the same MTU; the finding's message says which rails differ.
  return run([...new Set(netdevs)].map((d) => ['ip', 'link', 'set', 'dev', d, 'mtu', String(mtu)]));
}

function hcaFindings(c: IbFindingContext, ports: PortRef[], kept: PortRef[]): Finding[] {
  const out: Finding[] = [];
  const add = (id: string, severity: Severity, message: string, remediation: Remediation) => out.push({ id, severity, message, remediation });
  const f = c.selection.inputs.hca;
  const list = f.list;
  if (!list) {
    // No filter: a bond among ordinary HCAs is usually the front-end.
    bondFindings(c, kept, add, false);
    return out;
  }
  const raw = f.raw!;
  const origin = originText(c.env.origins['NCCL_IB_HCA']);
  const devNames = c.report.devices.map((d) => d.name);
  const netdevNames = new Set([...c.snapshot.network.links.map((l) => l.name), ...Object.keys(c.snapshot.rdma?.netdevs ?? {})]);
  const hits = entryHits(f, devNames);
  for (const n of groupNotes(list.notes)) {
    if (n.kind === 'empty-item') continue;
    const sev: Severity = n.kind === 'empty-port' && c.profile.listParser === 'tokenizer' ? 'info' : 'warn';
    add('IB-030', sev, `NCCL_IB_HCA${origin}: ${n.message}`, n.kind === 'empty-port' || n.kind === 'non-numeric-field' ? setEnv({ NCCL_IB_HCA: raw.replace(/:(?=,|$)/g, '') }, 'Write the port as a number or leave it out') : advise(`Rewrite NCCL_IB_HCA with at most ${c.profile.ibMaxDevs} entries, no spaces`));
  }
  // Netdev names where verbs names belong.
  for (const { entry, hits: h } of hits) {
    if (h.length) continue;
    const nd = [...netdevNames].filter((n) => (list.exact ? n === entry.prefix : n.startsWith(entry.prefix)));
    const owner = nd.length ? ports.find((r) => r.port.netdevs.some((x) => nd.includes(x.name))) : undefined;
    if (nd.length && owner) {
      add('IB-033', 'error', `NCCL_IB_HCA entry '${entry.text}'${origin} is a netdev name (${nd.join(', ')}); NCCL matches verbs device names only — ${nd[0]} belongs to ${owner.dev}`, setEnvOf('NCCL_IB_HCA', `${list.not ? '^' : ''}=${[...new Set(hits.map((x) => (x.hits.length ? x.entry.text : ports.find((r) => r.port.netdevs.some((y) => (list.exact ? y.name === x.entry.prefix : y.name.startsWith(x.entry.prefix))))?.dev ?? x.entry.text)))].join(',')}`));
      continue;
    }
    const bonded = c.report.devices.filter((d) => d.bond && d.bond.members.length);
    const bondNote = bonded.length ? `; this node has ${bonded.map((d) => `${d.name} (bond of ${d.bond!.members.join('+')})`).join(', ')}` : '';
    add('IB-001', list.not ? 'info' : 'warn', `NCCL_IB_HCA entry '${entry.text}'${origin} matches no RDMA device on this node (devices: ${devNames.join(', ') || 'none'})${bondNote}`, list.not ? advise('Nothing to do unless you meant another device') : hcaSuggestion(kept.length ? kept : ports.filter((p) => p.port.state === 'ACTIVE'), 'Use device names that exist here'));
  }
  // Whole value: nothing kept while the filter rejected usable ports.
  const rejected = c.selection.ports.filter((p) => p.trace.some((t) => t.stage === 'hca' && t.verdict === 'skipped'));
  if (kept.length === 0 && rejected.length) {
    const all = ports.filter((r) => rejected.some((p) => p.dev === r.dev && p.port === r.port.port));
    const explicitIb = c.selection.inputs.net?.toLowerCase() === 'ib';
    const alone = list.not && list.entries.length === 0;
    add(
      'IB-001',
      alone ? 'warn' : 'error',
      `NCCL_IB_HCA='${raw}'${origin} keeps no port (it rejects ${all.map(label).join(', ')}): NCCL logs "NET/IB : No device found." and ${explicitIb ? 'initialisation fails because NCCL_NET=IB' : 'silently falls back to TCP sockets'}${alone ? ' — `^` alone excludes every HCA; to disable IB say so with NCCL_IB_DISABLE=1' : ''}`,
      alone ? setEnv({ NCCL_IB_DISABLE: '1' }) : setEnv({ NCCL_IB_HCA: exactHca(all) }),
    );
  }
  // Prefix trap: mlx5_1 also takes mlx5_10…
  if (!list.exact) {
    for (const { entry, hits: h } of hits) {
      if (h.length > 1 && h.includes(entry.prefix)) {
        const exact = list.entries.map((e) => (devNames.includes(e.prefix) ? e.text : hits.find((x) => x.entry === e)!.hits.join(','))).filter(Boolean);
        add('IB-002', 'warn', `NCCL_IB_HCA entry '${entry.text}'${origin} is a prefix: it ${list.not ? 'excludes' : 'selects'} ${h.join(', ')}, not only ${entry.prefix}`, setEnvOf('NCCL_IB_HCA', `${list.not ? '^' : ''}=${exact.join(',')}`));
      }
    }
  }
  // Named ports that NCCL will skip (not ACTIVE) — the user asked for them.
  if (!list.not) {
    const named = c.selection.ports.filter((p) => p.trace.some((t) => t.stage === 'port' && t.verdict === 'skipped') && list.entries.some((e) => (list.exact ? e.prefix === p.dev : p.dev.startsWith(e.prefix)) && (e.port === -1 || e.port === p.port)));
    if (named.length) {
      const refs = ports.filter((r) => named.some((n) => n.dev === r.dev && n.port === r.port.port));
      add('IB-004', 'warn', `NCCL_IB_HCA${origin} names ${refs.map((r) => `${withNetdev(r)} (${r.port.state ?? 'state unknown'})`).join(', ')}, which NCCL skips because the port is not ACTIVE: this node then has fewer rails than its peers`, kept.length ? setEnv({ NCCL_IB_HCA: exactHca(kept) }) : advise('Bring the port up (check the cable, switch port and subnet manager)'));
    }
  }
  bondFindings(c, kept, add, true);
  return out;
}

function bondFindings(c: IbFindingContext, kept: PortRef[], add: (id: string, s: Severity, m: string, r: Remediation) => void, filtered: boolean) {
  const keptBonds = kept.filter((k) => c.report.devices.find((d) => d.name === k.dev)?.bond);
  if (!keptBonds.length) return;
  const others = kept.filter((k) => !keptBonds.includes(k));
  const desc = keptBonds.map((k) => {
    const b = c.report.devices.find((d) => d.name === k.dev)!.bond!;
    return `${k.dev} (${b.netdev ?? 'bond'}${b.members.length ? ` over ${b.members.join('+')}` : ''})`;
  });
  if (others.length) {
    add('IB-003', 'warn', `${filtered ? `NCCL_IB_HCA='${c.selection.inputs.hca.raw}' includes` : 'With NCCL_IB_HCA unset NCCL also uses'} the bonded device ${desc.join(', ')} next to ${others.map(label).join(', ')}: a bond is usually the front-end or storage network, and its traffic is hashed over the members`, setEnvOf('NCCL_IB_HCA', exactHca(others)));
  } else {
    add('IB-003', 'info', `NCCL uses the bonded device ${desc.join(', ')}: it is one NCCL device whose speed is the bond's, with traffic hashed over the members — every node needs the same bonding for rails to line up`, advise('Nothing to do if every node is bonded the same way'));
  }
}

/** The index a tolerant NCCL (≥ 2.26.2) would pick, to suggest as an explicit value. */
function tolerantChoice(c: IbFindingContext, r: PortRef): number | null {
  const d = c.snapshot.rdma?.devices.find((x) => x.name === r.dev);
  const p = d?.ports.find((x) => x.port === r.port.port);
  if (!d || !p || (r.port.linkLayer !== 'Ethernet' && r.port.linkLayer !== 'InfiniBand')) return null;
  const sel = selectGid({ linkLayer: r.port.linkLayer, entries: p.gids }, { ...c.gidParams, gidIndex: { ...c.gidParams.gidIndex, value: -1, how: 'default' } }, { ...c.profile, gidAuto: true, gidEinvalTolerant: true }, d.name, p.port);
  if (sel.outcome.kind === 'index') return sel.outcome.index;
  if (sel.outcome.kind === 'indeterminate') return bestCandidate(c, r, sel.outcome.candidates);
  return null;
}

/** Among possible indexes, prefer a valid IPv4 RoCE v2 GID, then any valid one, then the highest. */
function bestCandidate(c: IbFindingContext, r: PortRef, cands: number[]): number | null {
  const p = c.snapshot.rdma?.devices.find((x) => x.name === r.dev)?.ports.find((x) => x.port === r.port.port);
  const score = (i: number) => {
    const e = p?.gids.find((g) => g.index === i);
    const b = e && typeof e.gid === 'string' ? parseGid(e.gid) : null;
    if (!b || !gidValid(b)) return 0;
    const v = e ? classifyType(e.type) : null;
    return (gidFamily(b) === c.gidParams.family.value ? 2 : 1) + (v?.kind === 'version' && v.version === 2 ? 2 : 0);
  };
  if (!cands.length) return null;
  return [...cands].sort((a, b) => score(b) - score(a) || b - a)[0]!;
}

function portGids(c: IbFindingContext, r: PortRef) {
  const p = c.snapshot.rdma?.devices.find((x) => x.name === r.dev)?.ports.find((x) => x.port === r.port.port);
  return (p?.gids ?? []).map((g) => ({ index: g.index, bytes: typeof g.gid === 'string' ? parseGid(g.gid) : null, type: g.type, ndev: sysText(g.ndev) }));
}

function gidFindings(c: IbFindingContext, ports: PortRef[], kept: PortRef[]): Finding[] {
  const out: Finding[] = [];
  const add = (id: string, severity: Severity, message: string, remediation: Remediation) => out.push({ id, severity, message, remediation });
  const { profile, gidParams } = c;
  const version = versionString(profile.version);
  const origin = (v: string) => originText(c.env.origins[v]);
  // Ports that matter: those NCCL keeps (used, or would use if the transport came up).
  const relevant = kept;

  // Variables read but ignored or odd.
  const fam = gidParams.family;
  if (fam.raw !== undefined && !fam.recognised) {
    add('IB-026', 'warn', `NCCL_IB_ADDR_FAMILY='${fam.raw}'${origin('NCCL_IB_ADDR_FAMILY')} is neither AF_INET nor AF_INET6 (exact, case-sensitive): NCCL silently uses AF_INET`, setEnvOf('NCCL_IB_ADDR_FAMILY', /6/.test(fam.raw) ? 'AF_INET6' : 'AF_INET'));
  }
  const range = gidParams.range;
  if (range && range.effect !== 'prefix') {
    add('IB-026', range.effect === 'none-match' ? 'error' : 'warn', `NCCL_IB_ADDR_RANGE='${range.raw}'${origin('NCCL_IB_ADDR_RANGE')}: ${range.note}${range.log ? ` (INFO "${range.log}")` : ''}`, advise(`Write it as <address>/<prefix length> in NCCL_IB_ADDR_FAMILY's family (e.g. ${fam.value === 'AF_INET' ? '10.0.0.0/8' : 'fd00::/8'} for your RDMA network), or unset it`));
  }
  const rv = gidParams.roceVersion;
  if (rv.raw !== undefined && rv.raw !== '' && rv.value !== 1 && rv.value !== 2 && profile.gidAuto) {
    add('IB-026', 'warn', `NCCL_IB_ROCE_VERSION_NUM=${rv.raw}${origin('NCCL_IB_ROCE_VERSION_NUM')} is read as ${rv.value}, neither 1 nor 2: no GID wins on version, only the family switch moves the index, so NCCL may end on a RoCE v1 GID`, setEnvOf('NCCL_IB_ROCE_VERSION_NUM', '2'));
  }
  if (!profile.gidAuto) {
    const ignored = ['NCCL_IB_ADDR_FAMILY', 'NCCL_IB_ADDR_RANGE', 'NCCL_IB_ROCE_VERSION_NUM'].filter((v) => c.env.vars[v] !== undefined);
    if (ignored.length) add('IB-026', 'info', `${ignored.join(', ')} ${ignored.length > 1 ? 'are' : 'is'} ignored by NCCL ${version}: automatic GID selection starts in 2.21.5`, advise('Set NCCL_IB_GID_INDEX, or upgrade NCCL'));
  }

  // Per-port outcomes.
  const fixedZero: { r: PortRef; best: number | null }[] = [];
  for (const r of relevant) {
    const sel = r.port.gidSelection;
    if (!sel) continue;
    const o = sel.outcome;
    const gids = portGids(c, r);
    if (o.kind === 'failure') {
      const einval = /EINVAL/.test(o.why);
      const alt = tolerantChoice(c, r);
      if (einval) {
        add('IB-019', 'error', `${withNetdev(r)}: ${o.why}; NCCL ${version}${o.log.length ? ` WARNs "${o.log[0]}" and` : ''} fails the connection (this NCCL does not tolerate EINVAL on gid_attrs/types, typical in containers)`, alt !== null ? setEnv({ NCCL_IB_GID_INDEX: String(alt) }, 'Pin the index, or use NCCL ≥ 2.26.2, which tolerates EINVAL') : advise('Upgrade to NCCL ≥ 2.26.2'));
      } else {
        add('IB-031', 'error', `${withNetdev(r)}: ${o.why}; NCCL ${version}${o.log.length ? ` logs "${o.log[0]}" and` : ''} fails the connection`, sel.mode === 'explicit' ? (alt !== null ? setEnv({ NCCL_IB_GID_INDEX: String(alt) }) : unsetEnv('NCCL_IB_GID_INDEX')) : advise('Check the port\'s sysfs (gid_attrs/types) or set NCCL_IB_GID_INDEX explicitly'));
      }
      continue;
    }
    if (o.kind === 'indeterminate') {
      const best = bestCandidate(c, r, o.candidates);
      add('IB-020', 'warn', `${withNetdev(r)}: cannot predict the GID index — ${o.why}. Different processes can end differently`, best !== null ? setEnv({ NCCL_IB_GID_INDEX: String(best) }) : advise('Set NCCL_IB_GID_INDEX explicitly'));
      continue;
    }
    if (o.kind !== 'index') continue;
    const entry = gids.find((g) => g.index === o.index);
    const b = entry?.bytes ?? null;
    if (sel.mode === 'explicit' && r.port.linkLayer === 'Ethernet') {
      const auto = tolerantChoice(c, r);
      const autoText = auto !== null && auto !== o.index ? `; NCCL's automatic choice would be ${auto}` : '';
      const fix = profile.gidAuto ? setEnv({ NCCL_IB_GID_INDEX: null }, auto !== null && auto !== o.index ? `Unset it: NCCL picks ${auto} itself.` : undefined) : auto !== null ? setEnv({ NCCL_IB_GID_INDEX: String(auto) }) : unsetEnv('NCCL_IB_GID_INDEX');
      const what = `NCCL_IB_GID_INDEX=${gidParams.gidIndex.raw}${origin('NCCL_IB_GID_INDEX')} on ${withNetdev(r)}`;
      if (!b) add('IB-005', 'warn', `${what} points at an entry whose GID is unknown here${autoText}`, fix);
      else if (isZeroGid(b)) add('IB-005', 'error', `${what} points at an unset (all-zero) GID: the QP cannot reach RTR (ibv_modify_qp fails with EINVAL)${autoText}`, fix);
      else if (gidLinkLocal(b)) add('IB-005', 'warn', `${what} points at a link-local GID (${gidText(b)}): it is not routed, so only peers on the same L2 segment are reachable${autoText}`, fix);
      else {
        const v = classifyType(entry!.type);
        if (v.kind === 'version' && v.version === 1) add('IB-005', 'warn', `${what} points at a RoCE v1 GID (${gidText(b)}): RoCE v1 is not routable and peers using v2 cannot talk to it${autoText}`, fix);
        else if (v.kind !== 'version') add('IB-005', 'info', `${what}: the type of GID ${o.index} cannot be read (${v.kind === 'unrecognised' ? v.text : v.errno})${autoText}`, fix);
        else if (auto !== null && auto !== o.index) add('IB-005', 'info', `${what} (${gidText(b)}, RoCE v2)${autoText}`, fix);
      }
      continue;
    }
    if (sel.mode === 'fixed-default' && r.port.linkLayer === 'Ethernet') {
      const best = tolerantChoice(c, r);
      if (b && (!gidValid(b) || best !== o.index)) fixedZero.push({ r, best });
      continue;
    }
    if (sel.mode === 'auto' && o.index === 0 && (!b || !gidValid(b) || gidFamily(b) !== gidParams.family.value)) {
      const v4 = gids.filter((g) => g.bytes && gidValid(g.bytes) && gidFamily(g.bytes) === 'AF_INET');
      const v6 = gids.filter((g) => g.bytes && gidValid(g.bytes) && gidFamily(g.bytes) === 'AF_INET6');
      const nd = r.port.netdev;
      if (gidParams.family.value === 'AF_INET' && v4.length === 0 && v6.length) {
        add('IB-007', 'warn', `${withNetdev(r)} has only IPv6 GIDs (${v6.map((g) => `${g.index}: ${gidText(g.bytes!)}`).join(', ')}); with NCCL_IB_ADDR_FAMILY=AF_INET (the default) NCCL stays at GID 0 (${b ? gidText(b) : '?'}, link-local) and remote QPs time out (IBV_WC_RETRY_EXC_ERR)`, setEnv({ NCCL_IB_ADDR_FAMILY: 'AF_INET6' }));
      } else if (gidParams.family.value === 'AF_INET' && v4.length === 0) {
        add('IB-006', 'error', `${withNetdev(r)} has no IPv4 GID — ${nd ? `its netdev ${nd} has ${r.port.netdevs[0]?.ipv4.length ? 'IPv4 addresses, but they are not in this port\'s GID table (another namespace?)' : 'no IPv4 address'}` : 'no netdev with an IPv4 address is tied to it'}; NCCL falls back to GID 0 (${b ? gidText(b) : 'unknown'}, link-local RoCE v1), which does not route: RoCE v2 needs an IPv4 (or global IPv6) address on the netdev`, nd ? advise(`Give ${nd} its rail's IPv4 address (ip addr add <IPv4>/<len> dev ${nd}), or exclude the HCA: NCCL_IB_HCA=^=${r.dev}`) : setEnv({ NCCL_IB_HCA: `^=${r.dev}` }));
      } else if (gidParams.family.value === 'AF_INET6' && v6.length === 0) {
        add('IB-006', 'error', `${withNetdev(r)}: NCCL_IB_ADDR_FAMILY=AF_INET6${origin('NCCL_IB_ADDR_FAMILY')} but the port has no global IPv6 GID: NCCL stays at GID 0 (link-local)`, unsetEnv('NCCL_IB_ADDR_FAMILY'));
      } else if (range && range.effect !== 'all') {
        add('IB-006', 'error', `${withNetdev(r)}: no GID of family ${gidParams.family.value} is inside NCCL_IB_ADDR_RANGE=${range.raw}: NCCL stays at GID 0 (${b ? gidText(b) : '?'})`, unsetEnv('NCCL_IB_ADDR_RANGE'));
      }
    }
    if (sel.mode === 'auto' && b && gidValid(b)) {
      const v = entry ? classifyType(entry.type) : null;
      if (v?.kind === 'version' && v.version === 1 && gidParams.roceVersion.value === 2) {
        add('IB-024', 'warn', `${withNetdev(r)}: NCCL ends on GID ${o.index} (${gidText(b)}), a RoCE v1 entry — no RoCE v2 GID of the wanted family won the walk`, setEnvOf('NCCL_IB_GID_INDEX', String(gids.find((g) => g.bytes && gidValid(g.bytes) && classifyType(g.type).kind === 'version' && (classifyType(g.type) as { version: number }).version === 2)?.index ?? o.index)));
      }
    }
    if (sel.mode === 'auto' && sel.einvalReads.length && profile.gidEinvalTolerant) {
      add('IB-019', 'info', `${withNetdev(r)}: some gid_attrs/types reads fail with EINVAL (${sel.einvalReads.join(', ')}); NCCL ${version} treats them as "version unknown" and the choice is still GID ${o.index}`, advise('Nothing to do on NCCL ≥ 2.26.2; older NCCL fails here'));
    }
  }
  if (fixedZero.length) {
    const bests = [...new Set(fixedZero.map((x) => x.best))];
    const example = fixedZero[0]!;
    const gid0 = portGids(c, example.r).find((g) => g.index === 0)?.bytes;
    add(
      'IB-024',
      'warn',
      `NCCL ${version} uses NCCL_IB_GID_INDEX's default 0 on RoCE (automatic selection starts in 2.21.5): GID 0 of ${fixedZero.map((x) => withNetdev(x.r)).join(', ')} is ${gid0 ? gidText(gid0) : 'unknown'}${gid0 && gidLinkLocal(gid0) ? ' (link-local RoCE v1: no L3 routing)' : ''}; the RoCE v2 IPv4 GID is ${bests.map((x) => (x === null ? '?' : String(x))).join(' / ')}`,
      bests.length === 1 && bests[0] !== null ? setEnv({ NCCL_IB_GID_INDEX: String(bests[0]) }) : advise('Upgrade to NCCL ≥ 2.21.5 (automatic choice), or set NCCL_IB_GID_INDEX per node in /etc/nccl.conf'),
    );
  }

  // The same IPv4 behind two netdevs (or two ports).
  // Entries of one IP on one port (v1 and v2) are one place; a second netdev or a second port is a duplicate.
  const byIp = new Map<string, { key: string; where: string; ndev: string | null; index: number }[]>();
  for (const r of ports.filter((p) => p.port.linkLayer === 'Ethernet')) {
    for (const g of portGids(c, r)) {
      const ip = g.bytes ? gidIPv4(g.bytes) : null;
      if (!ip) continue;
      const list = byIp.get(ip) ?? [];
      const key = `${label(r)}|${g.ndev ?? ''}`;
      const sameNdevElsewhere = g.ndev !== null && list.some((x) => x.ndev === g.ndev);
      if (!list.some((x) => x.key === key) && !sameNdevElsewhere) list.push({ key, where: `${label(r)} GID ${g.index}`, ndev: g.ndev, index: g.index });
      byIp.set(ip, list);
    }
  }
  for (const [ip, list] of byIp) {
    if (list.length < 2) continue;
    add('IB-008', 'warn', `${ip} is behind ${list.length} netdevs/ports: ${list.map((x) => `${x.ndev ?? 'netdev unknown'} (${x.where})`).join(', ')}. Address-based GID selection takes the first, and peers cannot tell which port answers`, setEnv({ NCCL_IB_GID_INDEX: String(list[0]!.index) }, 'Keep each IP on one netdev, or pin the index per node'));
  }
  return out;
}

