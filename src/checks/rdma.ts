// RDMA checks: everything `ncclx ib` finds, one check per finding id. The
// findings come from the IB model (src/model/nccl/ib-report.ts); this module only
// gives each id a title, an "ok" sentence and a why, and maps it to a family.

import { ibModel, type IbModel } from '../model/nccl/ib-report.js';
import type { Check, CheckContext } from '../model/doctor/types.js';
import { findingResults, notApplicable } from '../model/result/build.js';
import type { Evidence, Family, FixId } from '../model/result/types.js';

interface Spec {
  id: string;
  title: string;
  ok: string;
  why: string;
  family?: Family;
  fixIds?: FixId[];
}

// IB-012 (peer memory) is GDR-001's subject and IB-021 (version assumed) is
// SOCK-021's, so the doctor leaves them out rather than report them twice.
const SPECS: Spec[] = [
  { id: 'IB-001', title: 'NCCL_IB_HCA keeps real ports', ok: 'NCCL_IB_HCA is unset or matches real devices', why: 'An NCCL_IB_HCA that matches nothing leaves the IB transport with no device, and NCCL silently falls back to TCP sockets.' },
  { id: 'IB-002', title: 'NCCL_IB_HCA prefixes match only what was meant', ok: 'no NCCL_IB_HCA prefix takes longer names', why: 'Entries are prefixes: mlx5_1 also takes mlx5_10…mlx5_19.' },
  { id: 'IB-003', title: 'Bonded devices used on purpose', ok: 'no bonded (LAG) device mixed with ordinary HCAs', why: 'A RoCE LAG device next to its member ports double-counts bandwidth and rails differ between nodes.' },
  { id: 'IB-004', title: 'NCCL_IB_HCA names ACTIVE ports', ok: 'every port NCCL_IB_HCA names is ACTIVE', why: 'NCCL silently skips ports that are not ACTIVE; the rail is missing on this node.' },
  { id: 'IB-005', title: 'NCCL_IB_GID_INDEX points at a usable entry', ok: 'NCCL_IB_GID_INDEX is unset or points at a RoCE v2 routable entry', why: 'NCCL uses an explicit index verbatim: an empty, link-local or RoCE v1 entry makes QPs time out (IBV_WC_RETRY_EXC_ERR) or fail to connect.' },
  { id: 'IB-006', title: 'Automatic GID choice finds a routable GID', ok: 'every RoCE port has an IPv4 (or the requested family) GID', why: 'With no qualifying GID NCCL falls back to index 0, the RoCE v1 link-local GID, which does not cross L3: connections time out.' },
  { id: 'IB-007', title: 'IPv6-only GID tables have NCCL_IB_ADDR_FAMILY', ok: 'no RoCE port is IPv6-only without NCCL_IB_ADDR_FAMILY=AF_INET6', why: 'NCCL looks for IPv4 GIDs by default; an IPv6-only port ends on GID 0.' },
  { id: 'IB-008', title: 'No IP behind two netdevs', ok: 'no IPv4 address appears behind two netdevs or ports', why: 'The same IP on two netdevs yields two GIDs; NCCL takes the first, which may be the overlay, and indexes differ between nodes.' },
  { id: 'IB-009', title: 'RDMA ports ACTIVE and LinkUp', ok: 'every RDMA port is ACTIVE and LinkUp', why: 'A port that is not ACTIVE is skipped silently; this node then has fewer rails than its peers.' },
  { id: 'IB-010', title: 'Rails have equal rate and MTU', ok: 'all rails run at the same rate and RoCE MTU', why: 'A slower or smaller-MTU rail drags collective bandwidth down to its level.' },
  { id: 'IB-011', title: 'RDMA devices sit on the PCI tree', ok: 'every RDMA device links into the PCI tree', why: 'NCCL cannot place a NIC whose device is not a PCI function: it attaches it to the first CPU and may fuse such NICs.', family: 'topology' },
  { id: 'IB-013', title: '/dev/infiniband is present', ok: '/dev/infiniband has the uverbs devices NCCL opens', why: 'Without the verbs device nodes NCCL cannot open the HCA ("Unable to open device") and falls back to sockets.' },
  { id: 'IB-014', title: 'Locked-memory limit is unlimited', ok: 'the locked-memory limit is unlimited', why: 'RDMA registers memory; a small memlock limit (common in containers) makes registration fail.' },
  { id: 'IB-015', title: 'One link layer in the device set', ok: 'NCCL keeps only one link layer (InfiniBand or RoCE)', why: 'NCCL refuses to fuse InfiniBand and RoCE ports, and mixing them across rails breaks symmetric rings.' },
  { id: 'IB-016', title: 'NCCL_IB_DISABLE means what it says', ok: 'NCCL_IB_DISABLE is unset or an integer', why: 'NCCL_IB_DISABLE is a C integer: "true" reads 0 and does not disable IB.' },
  { id: 'IB-017', title: 'The IB transport has an OOB interface', ok: 'the IB transport has an IP interface for its OOB socket', why: 'The IB transport needs one IP interface for its handshake; without it the whole transport fails.' },
  { id: 'IB-018', title: 'NCCL uses the IB transport', ok: 'the IB transport has at least one port', why: 'With no usable port NCCL silently uses TCP sockets, an order of magnitude slower.' },
  { id: 'IB-019', title: 'GID types readable', ok: 'every gid_attrs/types entry NCCL reads is readable', why: 'In containers the types of other namespaces\' GIDs read EINVAL; NCCL before 2.26.2 fails the connection on it.' },
  { id: 'IB-020', title: 'GID choice is determinate', ok: 'the GID choice does not depend on an unread value', why: 'When a GID type cannot be read NCCL compares an uninitialised value; the index may differ run to run and node to node.' },
  { id: 'IB-022', title: 'Link layers NCCL\'s IB transport supports', ok: 'every RDMA port is InfiniBand or Ethernet', why: 'Ports with another link layer (EFA) are skipped by NCCL\'s IB transport and need a net plugin.' },
  { id: 'IB-023', title: 'At most MAX_IB_DEVS ports', ok: 'no more ports than NCCL keeps', why: 'NCCL keeps 32 ports (16 before 2.18.5) and silently ignores the rest.' },
  { id: 'IB-024', title: 'RoCE does not use a RoCE v1 GID', ok: 'no RoCE port ends on a RoCE v1 GID', why: 'RoCE v1 is not routable; before 2.21.5 NCCL uses GID 0 (RoCE v1 link-local) unless told otherwise.' },
  { id: 'IB-025', title: 'IB integer variables parse as written', ok: 'IB integer variables parse as written', why: 'NCCL parses integers C-style: 010 is 8, 5abc is 5.' },
  { id: 'IB-026', title: 'GID selection variables are valid', ok: 'NCCL_IB_ADDR_FAMILY / _RANGE / _ROCE_VERSION_NUM are unset or valid', why: 'Invalid values are ignored silently (or make every candidate fail), so the GID choice is not what the setting meant.' },
  { id: 'IB-027', title: 'RoCE MTU is 4096', ok: 'every RoCE netdev MTU allows a 4096-byte RoCE MTU', why: 'A netdev MTU below ~4200 caps the RoCE MTU and costs bandwidth.' },
  { id: 'IB-028', title: 'Port merging', ok: 'no port merging or refusal to report', why: 'NCCL merges ports of one NIC into virtual devices; the device count then differs from the port count.' },
  { id: 'IB-029', title: 'NCCL_NET selects the IB transport', ok: 'NCCL_NET does not steer away from IB', why: 'NCCL_NET names one transport; any other leaves the RDMA devices unused.' },
  { id: 'IB-030', title: 'NCCL_IB_HCA parses as written', ok: 'NCCL_IB_HCA has no grammar surprises', why: 'Empty ports, dropped entries and spaces change what the list keeps, differently per version.' },
  { id: 'IB-031', title: 'The GID choice succeeds', ok: 'the GID choice succeeds on every port', why: 'An index outside the table or an unopenable types file makes the connection fail.' },
  { id: 'IB-032', title: 'MERGE_VFS does not collapse distinct NICs', ok: 'no distinct PCI devices fold onto one path', why: 'In VMs NCCL_IB_MERGE_VFS folds device numbers, so separate NICs share a path and may be fused.' },
  { id: 'IB-033', title: 'NCCL_IB_HCA names verbs devices', ok: 'NCCL_IB_HCA names verbs devices, not netdevs', why: 'NCCL_IB_HCA matches verbs names (mlx5_0), never netdev names (ens1f0np0).' },
  { id: 'IB-034', title: 'RDMA data available', ok: 'the snapshot has the RDMA part', why: 'Without the RDMA part no RDMA check can run.' },
  { id: 'IB-036', title: 'No fused NICs off the PCI tree', ok: 'NCCL fuses no NICs that sit off the PCI tree', why: 'NCCL 2.24–2.28 fuses NICs it cannot place into one virtual NIC on the first CPU; when the graph search fails, its fallback looks up NET 0, which no longer exists ("Could not find NET with id 0", NVIDIA/nccl#1748).', family: 'topology' },
  { id: 'IB-037', title: 'Every fused NIC can be placed', ok: 'NCCL can place every virtual NIC it makes', why: 'A virtual NIC across CPUs (from 2.30.7), or one below a CPU whose first port is off the PCI tree, makes NCCL fail its topology and the initialisation.', family: 'topology' },
  { id: 'IB-038', title: 'Every fused NIC is in the topology', ok: 'every virtual NIC lands where NCCL reads it', why: 'A virtual NIC placed in a nested <nic> or under <system> is never read, and from 2.27.3 its ports are dropped too: no NET device stands for them.', family: 'topology' },
  { id: 'IB-039', title: 'NCCL_NET_FORCE_MERGE can be honoured', ok: 'NCCL_NET_FORCE_MERGE is unset or names groups NCCL can fuse', why: 'A group that matches other than the devices it names, or that NCCL refuses to fuse, ends the initialisation; one that parses to nothing makes it loop for ever.', family: 'topology' },
  { id: 'IB-035', title: 'No fused NIC across point-to-point subnets', ok: 'no fused NIC spans point-to-point subnets', why: 'In a direct-connect mesh each port reaches a different peer; fusing them breaks reachability.' },
];

function modelOf(ctx: CheckContext): IbModel {
  return ctx.memo('ibModel', () => ibModel(ctx.snapshot, { ncclVersion: ctx.options.ncclVersion }));
}

// One model serves every IB check of a run, and the runs of the same environment: its evidence is written once.
const evidenceMemo = new WeakMap<IbModel, Evidence[]>();

function evidenceOf(m: IbModel): Evidence[] {
  let ev = evidenceMemo.get(m);
  if (!ev) evidenceMemo.set(m, (ev = modelEvidence(m)));
  return ev;
}

function modelEvidence(m: IbModel): Evidence[] {
  const r = m.report;
  const used = r.devices.flatMap((d) => d.ports.filter((p) => p.usedByNccl).map((p) => `${d.name}:${p.port}${p.gidIndex !== null ? ` GID ${p.gidIndex}` : ''}`));
  return [{ kind: 'value', source: `ncclx model of NCCL ${r.ncclVersion} IB transport`, value: used.length ? `ports used: ${used.join(', ')}` : 'no port used' }];
}

/** Checks of a variable's grammar (and of the RDMA part itself): they apply with or without devices. */
const JUDGED_WITHOUT_DEVICES = new Set(['IB-016', 'IB-025', 'IB-026', 'IB-030', 'IB-033', 'IB-034']);

export const rdmaChecks: Check[] = SPECS.map((spec) => ({
  id: spec.id,
  title: spec.title,
  family: spec.family ?? 'rdma',
  run(ctx) {
    const m = modelOf(ctx);
    const found = m.report.findings.filter((f) => f.id === spec.id);
    // On a node without RDMA devices a device check has nothing to judge; the variables' own grammar still does.
    if (found.length === 0 && ctx.snapshot.rdma && ctx.snapshot.rdma.devices.length === 0 && !JUDGED_WITHOUT_DEVICES.has(spec.id)) {
      return [notApplicable(`${spec.title}: does not apply (no RDMA device)`)];
    }
    return findingResults(found, spec, evidenceOf(m), spec.fixIds);
  },
}));
