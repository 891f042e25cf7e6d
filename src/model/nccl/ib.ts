// Which RDMA devices and ports NCCL's IB transport keeps, in which order, and
// how it merges them (docs/nccl/ib.md; docs/nccl/net-plugins.md; docs/nccl/topology.md §3). Pure: everything comes
// from the snapshot's RDMA part, the effective variables and the IB OOB
// interface chosen by the socket rules.

import type { FoldedPath, RdmaDevice, RdmaPart, RdmaPort, SysfsRead } from '../snapshot/rdma-types.js';
import { parseNcclInt, type NcclIntParam } from './cint.js';
import { matchList, parseEntries } from './ifname-list.js';
import { matchHca, readHcaFilter, type HcaFilter } from './ib-hca.js';
import type { ConsumerResult } from './socket.js';
import type { Profile } from './versions.js';
import { autoMerge, MERGE_LEVELS, mergeRank, netNumbering, netPlace, pairPath, stackPath, vnicHome, xmlStack, type VnicHome } from './vnic.js';
import { lowerFirst } from '../text.js';
import { append } from '../list.js';

// ---------------------------------------------------------------------------
// Reading sysfs values

export const sysText = (r: SysfsRead | undefined): string | null => (typeof r === 'string' ? r : null);
export const sysError = (r: SysfsRead | undefined): string | null => (r !== undefined && typeof r !== 'string' ? r.error : null);

/** `4: ACTIVE` → {num: 4, name: 'ACTIVE'}; null fields when unreadable or odd. */
export function parseNumbered(r: SysfsRead | undefined): { num: number | null; name: string | null } {
  const t = sysText(r);
  if (t === null) return { num: null, name: null };
  const m = /^\s*(\d+)\s*:\s*(.*?)\s*$/.exec(t);
  return m ? { num: Number(m[1]), name: m[2]! } : { num: null, name: t.trim() || null };
}

/** numa_node as a number (-1 included), null when unreadable. */
function numaOf(r: SysfsRead | undefined): number | null {
  if (typeof r !== 'string' || !/^\s*-?\d+\s*$/.test(r)) return null;
  return Number(r.trim());
}

/** `400 Gb/sec (4X NDR)` → 400; `10 Gb/sec (4X)` → 10. */
export function parseRateGbps(r: SysfsRead | undefined): number | null {
  const m = /^\s*([\d.]+)\s*Gb\/sec/.exec(sysText(r) ?? '');
  return m ? Number(m[1]) : null;
}

/** The RoCE path MTU a netdev MTU allows (the kernel's iboe_get_mtu: minus 96 bytes of RoCE headers). */
export function roceMtuFor(netdevMtu: number | null): number | null {
  if (netdevMtu === null || !Number.isFinite(netdevMtu)) return null;
  const room = netdevMtu - (40 + 8 + 12 + 4 + 28 + 4);
  for (const m of [4096, 2048, 1024, 512, 256]) if (room >= m) return m;
  return null;
}

/** busIdToInt64(): hex digits of a path component, skipping '.' and ':', up to the first other character. */
export function busIdToInt(component: string): bigint {
  let hex = '';
  for (const c of component) {
    if (c === '.' || c === ':') continue;
    if (!/[0-9a-fA-F]/.test(c) || hex.length >= 16) break;
    hex += c;
  }
  return hex ? BigInt.asIntN(64, BigInt(`0x${hex}`)) : 0n;
}

const lastComponent = (p: string) => p.split('/').filter(Boolean).pop() ?? '';

// ---------------------------------------------------------------------------
// Inputs

export interface IbInputs {
  disable: NcclIntParam & { raw: string | undefined };
  hca: HcaFilter;
  /** NCCL_IB_MERGE_VFS (≥ 2.18.1, default 1). */
  mergeVfs: NcclIntParam & { raw: string | undefined };
  /** NCCL_IB_MERGE_NICS (≥ 2.20.3, default 1). */
  mergeNics: NcclIntParam & { raw: string | undefined };
  /** NCCL_IB_DEVICE_PCI_ORDER (≥ 2.29.7, default 1). */
  pciOrder: NcclIntParam & { raw: string | undefined };
  /** NCCL_NET_MERGE_LEVEL (≥ 2.24.3): the level name it resolves to, and the INFO line for an unknown value. */
  mergeLevel: { raw: string | undefined; level: string; log: string | null };
  /** NCCL_NET (case-insensitive transport name). */
  net: string | undefined;
  /** NCCL_NET_MERGE_POLICY (≥ 2.30.7): RAIL fuses only devices of one NCCL_IB_HCA rail; ALL (the default) any. */
  mergePolicy: { raw: string | undefined; policy: 'ALL' | 'RAIL'; log: string | null };
  /** NCCL_NET_FORCE_MERGE (≥ 2.24.3): `a,b;c,d`, groups fused before the automatic merge. */
  forceMerge: string | undefined;
}

/** ncclTopoGetMergePolicy: RAIL or ALL in any case; anything else WARNs and is ALL. */
export function mergePolicyOf(raw: string | undefined): IbInputs['mergePolicy'] {
  if (raw === undefined) return { raw, policy: 'ALL', log: null };
  if (raw.toUpperCase() === 'RAIL') return { raw, policy: 'RAIL', log: null };
  if (raw.toUpperCase() === 'ALL') return { raw, policy: 'ALL', log: null };
  return { raw, policy: 'ALL', log: `NCCL_NET_MERGE_POLICY: unknown value '${raw}', defaulting to ALL` };
}

/** kvConvertToInt: the first key that is a case-insensitive prefix of the value; none → 0 (LOC). */
export function mergeLevelOf(raw: string | undefined): { level: string; log: string | null } {
  if (raw === undefined || raw === '') return { level: 'PORT', log: null };
  const hit = MERGE_LEVELS.find((k) => raw.toUpperCase().startsWith(k));
  if (hit) return { level: hit, log: null };
  return { level: 'LOC', log: `KV Convert to int : could not find value of '${raw}' in dictionary, falling back to 0` };
}

export function readIbInputs(vars: Record<string, string | undefined>, profile: Profile): IbInputs {
  const p = (name: string, def: number) => ({ ...parseNcclInt(vars[name], def), raw: vars[name] });
  return {
    disable: p('NCCL_IB_DISABLE', 0),
    hca: readHcaFilter(vars['NCCL_IB_HCA'], profile),
    mergeVfs: p('NCCL_IB_MERGE_VFS', 1),
    mergeNics: p('NCCL_IB_MERGE_NICS', 1),
    pciOrder: p('NCCL_IB_DEVICE_PCI_ORDER', 1),
    mergeLevel: { raw: vars['NCCL_NET_MERGE_LEVEL'], ...mergeLevelOf(vars['NCCL_NET_MERGE_LEVEL']) },
    net: vars['NCCL_NET'],
    mergePolicy: mergePolicyOf(vars['NCCL_NET_MERGE_POLICY']),
    forceMerge: vars['NCCL_NET_FORCE_MERGE'],
  };
}

// ---------------------------------------------------------------------------
// Results

export type TraceStage = 'transport' | 'open' | 'port' | 'link' | 'hca' | 'limit' | 'order' | 'merge' | 'gid';

export interface PortTrace {
  stage: TraceStage;
  /** GID index, for gid entries. */
  index?: number;
  verdict: string;
  reason: string;
}

export interface PortDecision {
  dev: string;
  port: number;
  linkLayer: 'InfiniBand' | 'Ethernet' | null;
  /** Passes NCCL's device filters (open, ACTIVE, link layer, NCCL_IB_HCA, MAX_IB_DEVS); null = cannot tell. */
  kept: boolean | null;
  /** Kept and the IB transport is the one NCCL uses. */
  usedByNccl: boolean | null;
  reason: string;
  trace: PortTrace[];
  /** [i] in `NET/IB : Using` (after PCI ordering). */
  ncclIndex: number | null;
  /** The NET device that carries this port (a virtual NIC when fused). */
  netDevice: number | null;
  /** rail/plane from NCCL_IB_HCA (≥ 2.30.7 tokenizer), -1 unset. */
  rail: number;
  plane: number;
}

export interface NcclIbDevice {
  index: number;
  dev: string;
  port: number;
  linkLayer: 'InfiniBand' | 'Ethernet';
  /** realpath of /sys/class/infiniband/<dev>/device ('' when it does not resolve). */
  fullPciPath: string;
  /** The path after NCCL's folding, or null. */
  pciPath: string | null;
  /** Whether NCCL's topology sees the folded path as a PCI device. */
  pciPathIsPci: boolean;
  rateGbps: number | null;
  /** rail/plane from the NCCL_IB_HCA entry that matched (≥ 2.30.7), -1 unset. */
  rail: number;
  plane: number;
  /** numa_node of its PCI function (the CPU NCCL's XML hangs its branch from); null: unreadable or unknown. */
  numa?: number | null;
}

export interface NetDevice {
  index: number;
  name: string;
  /** ncclIndex of the physical devices behind it. */
  members: number[];
  virtual: boolean;
  linkLayer: 'InfiniBand' | 'Ethernet' | 'mixed';
}

export interface MergeResult {
  mode: Profile['ibMerge'];
  /** Groups of ncclIndex that share a NIC and are (or would be) merged. */
  groups: { key: string; members: number[]; merged: boolean; why: string; home?: VnicHome; forced?: boolean }[];
  /**
   * A merge refused: by the IB transport (mixed link layers or NCCL_IB_MERGE_NICS=0; fatal before 2.26.2,
   * Profile.vnicRefusal), or by the core when it places the vNIC ('vnic-parent': across CPUs from 2.30.7,
   * or a made-up PCI parent for a NIC off the PCI tree; always fatal).
   */
  refusals: { members: number[]; cause: 'link-layers' | 'merge-nics-0' | 'vnic-parent' | 'force-merge'; log: string; level: 'WARN' | 'INFO'; fatal: boolean }[];
  /** NCCL_NET_FORCE_MERGE names a group that parses to no device: NCCL's loop never moves past it, and initialisation hangs printing its INFO line. */
  hang?: string;
  /** Devices AutoMerge never placed (from 2.26.2 a refused root 0 is not revisited): no virtual device stands for them. */
  unplaced?: number[];
  notes: string[];
}

export type TransportStatus = 'ok' | 'no-data' | 'disabled' | 'not-requested' | 'no-oob' | 'oob-unknown' | 'no-device' | 'merge-refused';

export interface IbTransport {
  status: TransportStatus;
  /** Whether NCCL initialises the IB transport at all (prints its device line). */
  initialised: boolean | null;
  /** Whether the job's network is IB. */
  used: boolean | null;
  /** What NCCL ends up using: IB, Socket, the NCCL_NET name, or none (an error). */
  network: string;
  why: string;
  /** Lines NCCL prints, in order. */
  log: { level: 'INFO' | 'WARN'; text: string }[];
  /** False when some port's state or link layer is unknown, so indexes could shift. */
  certain: boolean;
  orderNote: string;
}

export interface IbSelection {
  inputs: IbInputs;
  transport: IbTransport;
  ports: PortDecision[];
  devices: NcclIbDevice[];
  netDevices: NetDevice[];
  merge: MergeResult;
}

export interface IbContext {
  profile: Profile;
  vars: Record<string, string | undefined>;
  /** The IB transport's OOB interface (selectSocketInterfaces().ibOob). */
  ibOob: ConsumerResult;
}

// ---------------------------------------------------------------------------

function foldVariant(profile: Profile, inputs: IbInputs): FoldedPath['variant'] {
  if (!profile.ibMergeVfsParam) return 'lowDigit';
  return inputs.mergeVfs.value !== 0 ? 'mergeVfs' : 'functionOnly';
}

export function foldedPathOf(d: RdmaDevice, profile: Profile, inputs: IbInputs): FoldedPath | null {
  return d.device.folded.find((f) => f.variant === foldVariant(profile, inputs)) ?? null;
}

function openCheck(d: RdmaDevice, rdma: RdmaPart): { ok: boolean; reason: string } {
  const di = rdma.devInfiniband;
  if (!di.known) return { ok: true, reason: '/dev was not captured under this root: assuming the device opens' };
  if (!di.present) return { ok: false, reason: '/dev/infiniband is missing: ibv_open_device fails ("NET/IB : Unable to open device")' };
  if (d.uverbs && !di.entries.includes(d.uverbs)) return { ok: false, reason: `/dev/infiniband/${d.uverbs} is missing: ibv_open_device fails ("NET/IB : Unable to open device")` };
  return { ok: true, reason: d.uverbs ? `/dev/infiniband/${d.uverbs} present` : '/dev/infiniband present' };
}

function portLinkLayer(p: RdmaPort): 'InfiniBand' | 'Ethernet' | null {
  const t = sysText(p.linkLayer);
  return t === 'InfiniBand' || t === 'Ethernet' ? t : null;
}

function transportPreconditions(rdma: RdmaPart | undefined, ctx: IbContext, inputs: IbInputs): Omit<IbTransport, 'certain' | 'orderNote' | 'log'> & { log: IbTransport['log'] } {
  const log: IbTransport['log'] = [];
  const net = inputs.net;
  const otherNet = net !== undefined && net !== '' && net.toLowerCase() !== 'ib';
  if (!rdma) return { status: 'no-data', initialised: null, used: null, network: 'unknown', why: 'this snapshot has no RDMA part (taken by an ncclx without the RDMA probe)', log };
  if (otherNet && ctx.profile.netFilterBeforeInit) {
    return { status: 'not-requested', initialised: false, used: false, network: net!, why: `NCCL_NET=${net} selects another transport; NCCL ≥ 2.29.2 does not initialise IB`, log };
  }
  if (inputs.disable.value !== 0) {
    return { status: 'disabled', initialised: false, used: false, network: otherNet ? net! : 'Socket', why: `NCCL_IB_DISABLE=${inputs.disable.raw} (≠ 0) disables the IB transport`, log };
  }
  const oob = ctx.ibOob;
  if (oob.indeterminate) return { status: 'oob-unknown', initialised: null, used: null, network: 'unknown', why: `the IB OOB interface cannot be predicted: ${oob.indeterminate}`, log };
  if (oob.error) {
    log.push({ level: 'WARN', text: 'NET/IB : No IP interface found.' });
    return { status: 'no-oob', initialised: false, used: false, network: otherNet ? net! : 'none', why: `no IP interface for the IB OOB socket (${oob.error.why}): the IB transport fails, and the socket transport has no interface either`, log };
  }
  return { status: 'ok', initialised: true, used: !otherNet, network: otherNet ? net! : 'IB', why: otherNet ? `NCCL_NET=${net} selects another transport; NCCL < 2.29.2 still initialises IB and prints its devices` : 'IB transport initialises', log };
}

/** ncclIbInitDevices() and the merge step, for one node. */
export function selectIbDevices(rdma: RdmaPart | undefined, ctx: IbContext): IbSelection {
  const { profile } = ctx;
  const inputs = readIbInputs(ctx.vars, profile);
  const pre = transportPreconditions(rdma, ctx, inputs);
  const ports: PortDecision[] = [];
  const kept: { d: RdmaDevice; p: RdmaPort; decision: PortDecision; ll: 'InfiniBand' | 'Ethernet' }[] = [];
  let certain = true;
  let count = 0;

  for (const d of rdma?.devices ?? []) {
    const open = openCheck(d, rdma!);
    const deviceDropped = count >= profile.ibMaxDevs;
    for (const p of d.ports) {
      const trace: PortTrace[] = [];
      const decision: PortDecision = { dev: d.name, port: p.port, linkLayer: portLinkLayer(p), kept: null, usedByNccl: null, reason: '', trace, ncclIndex: null, netDevice: null, rail: -1, plane: -1 };
      ports.push(decision);
      const no = (stage: TraceStage, reason: string) => {
        trace.push({ stage, verdict: 'skipped', reason });
        decision.kept = false;
        decision.reason = reason;
      };
      if (deviceDropped) {
        no('limit', `NCCL already has ${count} devices (MAX_IB_DEVS=${profile.ibMaxDevs}); further devices are ignored silently`);
        continue;
      }
      if (!open.ok) {
        no('open', open.reason);
        continue;
      }
      trace.push({ stage: 'open', verdict: 'ok', reason: open.reason });
      const st = parseNumbered(p.state);
      const stErr = sysError(p.state);
      let unknown: string | null = null;
      if (st.num === null) {
        unknown = `state unknown (${stErr ?? `unreadable '${sysText(p.state)}'`})`;
        trace.push({ stage: 'port', verdict: 'unknown', reason: unknown });
      } else if (st.num !== 4) {
        no('port', `port state ${sysText(p.state)}: NCCL keeps only ACTIVE ports (skipped silently)`);
        continue;
      } else {
        trace.push({ stage: 'port', verdict: 'ok', reason: 'state ACTIVE' });
      }
      const llText = sysText(p.linkLayer);
      if (llText === null) {
        const why = `link layer unknown (${sysError(p.linkLayer)})`;
        unknown = unknown ? `${unknown}; ${why}` : why;
        trace.push({ stage: 'link', verdict: 'unknown', reason: why });
      } else if (!decision.linkLayer) {
        no('link', `link layer '${llText}': NCCL's IB transport keeps only InfiniBand and Ethernet (skipped silently)`);
        continue;
      } else {
        trace.push({ stage: 'link', verdict: 'ok', reason: `link layer ${llText}` });
      }
      const m = matchHca(inputs.hca, d.name, p.port);
      if (!m.accepted) {
        no('hca', m.reason);
        continue;
      }
      trace.push({ stage: 'hca', verdict: 'ok', reason: m.reason });
      if (m.entry && !inputs.hca.list?.not) {
        decision.rail = m.entry.rail;
        decision.plane = m.entry.plane;
      }
      if (unknown) {
        decision.kept = null;
        decision.reason = `NCCL keeps it only if the port is ACTIVE with an InfiniBand or Ethernet link layer: ${unknown}`;
        certain = false;
        continue;
      }
      decision.kept = true;
      count++;
      kept.push({ d, p, decision, ll: decision.linkLayer! });
    }
  }

  // Order: libibverbs order, or by PCI BDF (≥ 2.29.7 with NCCL_IB_DEVICE_PCI_ORDER=1).
  const sortByPci = profile.ibPciOrder && inputs.pciOrder.value !== 0;
  const keyOf = (d: RdmaDevice) => (d.device.realpath ? busIdToInt(lastComponent(d.device.realpath)) : null);
  const ordered = [...kept];
  let orderNote = sortByPci
    ? 'sorted by the PCI bus id of realpath(/sys/class/infiniband/<dev>/device) (NCCL ≥ 2.29.7, NCCL_IB_DEVICE_PCI_ORDER=1); devices without a path go last'
    : profile.ibPciOrder
      ? 'libibverbs order (NCCL_IB_DEVICE_PCI_ORDER=0); shown in device-name order, which libibverbs usually follows but does not guarantee'
      : 'libibverbs order (NCCL before 2.29.7 does not sort); shown in device-name order, which libibverbs usually follows but does not guarantee';
  if (sortByPci) {
    ordered.sort((a, b) => {
      const ka = keyOf(a.d);
      const kb = keyOf(b.d);
      if (ka === null || kb === null) return (ka === null ? 1 : 0) - (kb === null ? 1 : 0);
      return ka < kb ? -1 : ka > kb ? 1 : 0;
    });
    const ties = ordered.filter((x, i) => i > 0 && x.d !== ordered[i - 1]!.d && keyOf(x.d) !== null && keyOf(x.d) === keyOf(ordered[i - 1]!.d));
    if (ties.length) orderNote += `; ${ties.map((t) => t.d.name).join(', ')} tie with the device before (qsort leaves their order unspecified)`;
  }
  const devices: NcclIbDevice[] = ordered.map((k, index) => {
    k.decision.ncclIndex = index;
    const folded = foldedPathOf(k.d, profile, inputs);
    k.decision.trace.push({ stage: 'order', verdict: 'ok', reason: `NCCL device [${index}] (${sortByPci ? `PCI ${k.d.device.realpath ? lastComponent(k.d.device.realpath) : 'path unknown'}` : 'libibverbs order'})` });
    return {
      index,
      dev: k.d.name,
      port: k.p.port,
      linkLayer: k.ll,
      fullPciPath: k.d.device.realpath ?? '',
      pciPath: folded?.path ?? null,
      pciPathIsPci: folded?.subsystem === 'pci',
      rateGbps: parseRateGbps(k.p.rate),
      numa: numaOf(k.d.pci?.numaNode),
      rail: k.decision.rail,
      plane: k.decision.plane,
    };
  });

  const merge = mergeDevices(devices, ordered.map((k) => k.d), profile, inputs);
  const netDevices = netDevicesOf(devices, merge, profile);
  for (const nd of netDevices) for (const m of nd.members) ordered[m]!.decision.netDevice = nd.index;

  // Transport outcome now that the device count is known.
  const transport: IbTransport = { ...pre, certain, orderNote };
  // Printed once the OOB interface is found, before devices are enumerated.
  if (pre.status === 'ok' && inputs.hca.raw !== undefined) transport.log.push({ level: 'INFO', text: `NCCL_IB_HCA set to ${inputs.hca.raw}` });
  if (pre.status === 'ok' && devices.length === 0 && certain) {
    transport.status = 'no-device';
    transport.log.push({ level: 'INFO', text: 'NET/IB : No device found.' });
    const explicitIb = inputs.net?.toLowerCase() === 'ib';
    transport.used = false;
    transport.network = explicitIb ? 'none' : pre.network === 'IB' ? 'Socket' : pre.network;
    transport.why = explicitIb
      ? `the IB transport has no device and NCCL_NET=${inputs.net} allows nothing else: initialisation fails ("${profile.netNotFoundLog.replace('%s', inputs.net!)}")`
      : 'the IB transport has no device: NCCL silently uses the Socket transport';
  } else if (pre.status === 'ok' && devices.length === 0) {
    // Only ports whose state or link layer is unknown: NCCL may keep some, or fall back to sockets.
    transport.used = null;
    transport.network = 'unknown';
    transport.why = 'every candidate port has an unknown state or link layer: NCCL uses IB if one of them is an ACTIVE InfiniBand/Ethernet port, else sockets';
  } else if (pre.status === 'ok' && devices.length > 0) {
    transport.log.push({ level: 'INFO', text: usingLine(devices, merge, profile, ctx.ibOob) });
    for (const r of merge.refusals) transport.log.push({ level: r.level, text: r.log });
    if (merge.hang !== undefined) {
      transport.status = 'merge-refused';
      transport.used = false;
      transport.network = 'none';
      transport.why = `NCCL_NET_FORCE_MERGE group '${merge.hang}' names no device NCCL can parse: its loop never moves past it, and initialisation hangs`;
    } else if (merge.refusals.some((r) => r.fatal)) {
      transport.status = 'merge-refused';
      transport.used = false;
      transport.network = 'none';
      const cause = merge.refusals.find((r) => r.fatal)!;
      transport.why =
        cause.cause === 'vnic-parent' ? `NCCL cannot place the virtual NIC it fused (WARN "${cause.log}"): initialisation fails`
        : cause.cause === 'force-merge' ? `NCCL_NET_FORCE_MERGE cannot be honoured (WARN "${cause.log}"): initialisation fails`
        : merge.refusals.some((r) => r.fatal && r.cause === 'link-layers') ? 'NCCL refuses to fuse InfiniBand and RoCE ports of one NIC into a virtual NIC (ncclInvalidUsage): initialisation fails'
        : 'NCCL_IB_MERGE_NICS=0 makes the IB transport refuse the virtual NIC NCCL asks for (ncclInvalidUsage): initialisation fails';
    }
  }

  for (const d of ports) {
    if (d.kept === false) {
      d.usedByNccl = false;
      continue;
    }
    if (transport.used === false && transport.status !== 'merge-refused') {
      d.usedByNccl = false;
      const why = `${transport.why}`;
      d.reason = d.kept === true ? `NCCL would keep it, but ${lowerFirst(why)}` : `${d.reason}; and ${why}`;
      d.trace.unshift({ stage: 'transport', verdict: 'skipped', reason: why });
      continue;
    }
    if (transport.status === 'merge-refused') {
      d.usedByNccl = false;
      d.reason = d.kept === true ? `NCCL keeps it as device [${d.ncclIndex}], but ${transport.why}` : d.reason;
      continue;
    }
    if (d.kept === null || transport.used === null) {
      d.usedByNccl = null;
      if (transport.used === null) d.reason = d.kept === true ? `NCCL keeps it if the IB transport initialises: ${transport.why}` : d.reason;
      continue;
    }
    d.usedByNccl = true;
    d.reason = `NCCL device [${d.ncclIndex}]${d.netDevice !== null && d.netDevice !== d.ncclIndex ? `, NET device ${d.netDevice}` : ''}`;
  }
  return { inputs, transport, ports, devices, netDevices, merge };
}

function llLabel(ll: 'InfiniBand' | 'Ethernet'): string {
  return ll === 'InfiniBand' ? 'IB' : 'RoCE';
}

function devLabel(d: NcclIbDevice, profile: Profile): string {
  let s = `${d.dev}:${d.port}`;
  if (profile.listParser === 'tokenizer') {
    if (d.rail !== -1) s += `:${d.rail}`;
    else if (d.plane !== -1) s += ':';
    if (d.plane !== -1) s += `:${d.plane}`;
  }
  return `${s}/${llLabel(d.linkLayer)}`;
}

function oobText(oob: ConsumerResult): string {
  const s = oob.selected[0];
  return s ? `${s.name}:${s.display}<0>` : '?';
}

/** `NET/IB : Using [0]mlx5_0:1/IB … ; OOB ib0:10.0.0.5<0>` ([RO] appears after the list when PCIe relaxed ordering is usable). */
function usingLine(devices: NcclIbDevice[], merge: MergeResult, profile: Profile, oob: ConsumerResult): string {
  if (merge.mode === 'ib-transport' && merge.groups.some((g) => g.merged)) {
    let i = 0;
    const parts = merge.groups.map((g) => {
      const members = g.members.map((m) => devices[m]!);
      const text = members.length === 1 ? `[${i}]${devLabel(members[0]!, profile)}` : `[${i}]={${members.map((m) => `[${m.index}] ${devLabel(m, profile)}`).join(', ')}}`;
      i++;
      return ` ${text}`;
    });
    return `NET/IB : Using${parts.join('')} ; OOB ${oobText(oob)}`;
  }
  return `NET/IB : Using${devices.map((d) => ` [${d.index}]${devLabel(d, profile)}`).join('')} ; OOB ${oobText(oob)}`;
}

/** Which kept devices share a NIC, and whether this version merges them. */
export function mergeDevices(devices: NcclIbDevice[], rdmaDevs: RdmaDevice[], profile: Profile, inputs: IbInputs): MergeResult {
  const result: MergeResult = { mode: profile.ibMerge, groups: [], refusals: [], notes: [] };
  const groupBy = (key: (d: NcclIbDevice, i: number) => string) => {
    const map = new Map<string, number[]>();
    devices.forEach((d, i) => {
      const k = key(d, i);
      map.set(k, [...(map.get(k) ?? []), d.index]);
    });
    return [...map.entries()];
  };
  if (profile.ibMerge === 'none') {
    result.groups = devices.map((d) => ({ key: d.pciPath ?? '', members: [d.index], merged: false, why: 'NCCL before 2.20.3 does not merge ports' }));
    return result;
  }
  if (profile.ibMerge === 'ib-transport') {
    // 2.20.3–2.23.x: same folded path, same sys_image_guid, same link layer.
    const groups = groupBy((d, i) => `${d.pciPath ?? `?${i}`}|${sysText(rdmaDevs[i]!.sysImageGuid) ?? `?${i}`}|${d.linkLayer}`);
    const multi = groups.some(([, m]) => m.length > 1);
    const single = groups.some(([, m]) => m.length === 1);
    const on = inputs.mergeNics.value !== 0;
    let why = on ? 'ports with the same folded PCI path, sys_image_guid and link layer are merged by the IB transport (2.20.3–2.23.x)' : 'NCCL_IB_MERGE_NICS=0: no merging';
    let merge = on && multi;
    if (on && multi && single) {
      merge = false;
      why = 'Detected a mix of single and multiple-port NICs. Force-disabling NCCL_IB_MERGE_NICS';
      result.notes.push(why);
    }
    result.groups = groups.map(([key, members]) => ({ key, members, merged: merge && members.length > 1, why }));
    return result;
  }
  // ≥ 2.24.3: the core fuses NETs whose XML distance (ncclTopoGetPath) ≤ NCCL_NET_MERGE_LEVEL; two NETs on one NIC node are at PORT.
  const level = inputs.mergeLevel.level;
  if (inputs.mergeLevel.log) result.notes.push(`NCCL_NET_MERGE_LEVEL='${inputs.mergeLevel.raw}' is not a level name: INFO "${inputs.mergeLevel.log}", so no fusion`);
  const places = devices.map((d) => netPlace(d.pciPath, d.pciPathIsPci, d.numa ?? null));
  const stacks = places.map((p, i) => xmlStack(p, i));
  const pathOf = (members: number[]) => stackPath(members.map((m) => places[m]!), members.map((m) => stacks[m]!));
  // The node a group shares, as the text names it.
  const keyOf = (members: number[]): string => {
    const { common } = members.length > 1 ? pathOf(members) : { common: `nic:${places[members[0]!]!.pci[0] ?? ''}` };
    if (!places[members[0]!]!.pci.length && common.startsWith('nic:')) return 'first CPU (not a PCI device)';
    if (common.startsWith('nic:')) return common.slice(4);
    if (common.startsWith('pci:')) return `PCI switch ${common.slice(4)}`;
    if (common.startsWith('cpu:')) return `CPU ${common.slice(4)}`;
    return 'the system (several CPUs)';
  };
  if (level !== 'LOC' && level !== 'PORT' && devices.some((d) => d.pciPathIsPci && d.numa == null)) result.notes.push(`NCCL_NET_MERGE_LEVEL=${level}: some NICs' numa_node is unknown, so ncclx counts them under CPU 0`);
  // Why the IB transport would refuse a vNIC of these devices (ncclIbMakeVDevice), or null.
  const refusalOf = (members: number[]): 'merge-nics-0' | 'link-layers' | null =>
    inputs.mergeNics.value === 0 ? 'merge-nics-0' : new Set(members.map((m) => devices[m]!.linkLayer)).size > 1 ? 'link-layers' : null;
  // From 2.26.2 a refused group is placed apart and the scan goes on; before, the refusal ends the init (one pass suffices).
  const retried: number[][] = [];
  // ≥ 2.30.7, NCCL_NET_MERGE_POLICY=RAIL: a device joins a root only when the root has an NCCL_IB_HCA rail and it is theirs.
  const byRail = profile.mergePolicy && inputs.mergePolicy.policy === 'RAIL';
  if (profile.mergePolicy && inputs.mergePolicy.log) result.notes.push(`WARN "${inputs.mergePolicy.log}"`);
  // NCCL_NET_FORCE_MERGE (ncclTopoForceMerge): its groups are fused first, the rest as the level says.
  const placed = new Set<number>();
  const forced: number[][] = [];
  if (inputs.forceMerge !== undefined) {
    const f = forceMergeGroups(inputs.forceMerge, devices, profile);
    append(result.notes, f.notes);
    if (f.error) {
      result.refusals.push({ members: f.error.members, cause: 'force-merge', log: f.error.log, level: 'WARN', fatal: true });
      return result;
    }
    if (f.hang !== undefined) {
      result.hang = f.hang;
      return result;
    }
    for (const g of f.groups) {
      for (const m of g) placed.add(m);
      if (g.length > 1) forced.push(g);
    }
  }
  const raw = autoMerge(
    devices.length,
    (i, j) => (!byRail || (devices[i]!.rail !== -1 && devices[i]!.rail === devices[j]!.rail) ? mergeRank(pairPath(stacks[i]!, stacks[j]!, places[i]!, places[j]!)) : mergeRank('SYS') + 1),
    mergeRank(level),
    profile.vnicMaxDevs,
    profile.vnicRefusal === 'retry' ? (g) => refusalOf(g.map((i) => devices[i]!.index)) !== null : null,
    retried,
    placed,
  );
  // The bus ids of the XML's NIC-side <pci> nodes: a made-up parent's id steps past them.
  const inUse = new Set(places.flatMap((p) => p.pci));
  const rules = profile.vnic;
  const keyed = (g: number[]) => [keyOf(g), g.map((i) => devices[i]!.index)] as const;
  const groups = [...retried.map(keyed), ...forced.map(keyed), ...raw.map(keyed)];
  const inGroup = new Set([...placed, ...raw.flat()]);
  const unplaced = devices.map((d) => d.index).filter((i) => !inGroup.has(i));
  if (unplaced.length) result.unplaced = unplaced;
  const isForced = new Set(forced.map((g) => g.join(',')));
  const fatal = profile.vnicRefusal === 'fatal';
  // From 2.28.7 ncclTopoMakeVnic calls makeVDevice under NOWARN: the transport's WARNs print as INFO.
  const quiet = profile.vnicRefusalQuiet;
  const after = fatal ? 'ncclTopoMakeVnic returns the error and initialisation fails' : 'NCCL marks them unplaced and places them apart (2.26.2+), so they stay separate NETs';
  for (const [key, members] of groups) {
    const force = isForced.has(members.join(','));
    if (members.length < 2 || (level === 'LOC' && !force)) {
      result.groups.push({ key, members, merged: false, why: level === 'LOC' ? 'NCCL_NET_MERGE_LEVEL resolves to LOC: no fusion' : 'alone on its NIC' });
      continue;
    }
    const names = members.map((m) => `[${m}]${devices[m]!.dev}:${devices[m]!.port}/${llLabel(devices[m]!.linkLayer)}`);
    const path = pathOf(members).path;
    const where = key.startsWith('first CPU') ? 'are not PCI devices, so they all attach to the first CPU\'s NIC node' : path === 'PORT' && !key.startsWith('PCI switch') && !key.startsWith('CPU') ? `share NIC ${key}` : `are ${path} apart (they meet at ${key})`;
    const refusal = refusalOf(members);
    if (force && refusal) {
      // A forced group the transport refuses ends the initialisation in every release.
      const what = refusal === 'merge-nics-0' ? 'NCCL_IB_MERGE_NICS=0 refuses it' : 'they mix InfiniBand and RoCE';
      result.refusals.push({ members, cause: 'force-merge', level: 'WARN', fatal: true, log: `TOPO/NET : Could not force merge NICs ${members.map((m) => devices[m]!.dev).join(',')}. Please specify a valid NCCL_NET_FORCE_MERGE string.` });
      result.groups.push({ key, members, merged: false, forced: true, why: `${names.join(', ')} are fused by NCCL_NET_FORCE_MERGE, but ${what}: initialisation fails` });
      continue;
    }
    if (refusal === 'merge-nics-0') {
      const log = profile.ibMergeRefusalInfo ? 'NET/IB : Skipping makeVDevice, NCCL_IB_MERGE_NICS=0' : 'NET/IB : Trying to merge multiple devices together when NCCL_IB_MERGE_NICS=0. Please enable it or disable device merging in NCCL.';
      result.refusals.push({ members, cause: 'merge-nics-0', log, level: profile.ibMergeRefusalInfo || quiet ? 'INFO' : 'WARN', fatal });
      result.groups.push({ key, members, merged: false, why: `${names.join(', ')} ${where}, but NCCL_IB_MERGE_NICS=0 refuses the virtual NIC: ${after}` });
      continue;
    }
    if (refusal === 'link-layers') {
      const a = devices[members[0]!]!;
      const b = devices[members.find((m) => devices[m]!.linkLayer !== a.linkLayer)!]!;
      // The transport's words changed in 2.26.2; the link values are IBV_LINK_LAYER_INFINIBAND 1, ETHERNET 2.
      const linkNo = (d: NcclIbDevice) => (d.linkLayer === 'InfiniBand' ? 1 : 2);
      result.refusals.push({
        members,
        cause: 'link-layers',
        level: quiet ? 'INFO' : 'WARN',
        fatal,
        log: profile.vnicLinkLayerLog === 'incompatible'
          ? `NET/IB : Attempted to merge incompatible devices: [${a.index}]${a.dev}:${a.port}/${llLabel(a.linkLayer)} and [${b.index}]${b.dev}:${b.port}/${llLabel(b.linkLayer)}. Try selecting NICs of only one link type using NCCL_IB_HCA`
          : `NET/IB : Trying to merge multiple devices together with different link_layer properties ${a.dev} -> ${linkNo(a)}, ${b.dev} -> ${linkNo(b)}. Try only selecting NICs with one type of link using NCCL_IB_HCA`,
      });
      result.groups.push({ key, members, merged: false, why: `${names.join(', ')} ${where} but mix InfiniBand and RoCE: the IB transport refuses the virtual NIC; ${after}` });
      continue;
    }
    // Where the core puts the vNIC decides whether its topology reads it (vnic.ts vnicHome).
    const home = vnicHome(members.map((m) => places[m]!), members, members.map((m) => devices[m]!.dev), rules, inUse);
    if (home.kind === 'fatal') {
      result.refusals.push({ members, cause: 'vnic-parent', log: home.log, level: 'WARN', fatal: true });
      result.groups.push({ key, members, merged: true, home, why: `${names.join(', ')} ${where}: fused at NCCL_NET_MERGE_LEVEL=${level}, but NCCL cannot place the virtual NIC: WARN "${home.log}" and initialisation fails` });
      continue;
    }
    const lands =
      home.kind === 'unread' ? `; but ${home.why}, so the virtual NIC is not in NCCL's topology${profile.vnicMode === 'fused-only' ? ' and the fused ports leave it too' : ''}`
      : home.kind === 'made-up' ? `; NCCL hangs it under a made-up PCI device ${home.bdf} below ${'pci' in home.under ? `PCI switch ${home.under.pci}` : `CPU ${home.under.cpu}`}`
      : home.kind === 'cpu-nic' ? `; NCCL hangs it in CPU ${home.cpu}'s own NIC node`
      : '';
    result.groups.push({ key, members, merged: true, home, ...(force ? { forced: true } : {}), why: `${names.join(', ')} ${where}: fused into one virtual NIC ${force ? 'by NCCL_NET_FORCE_MERGE' : `at NCCL_NET_MERGE_LEVEL=${level}`}${lands}` });
  }
  return result;
}

/**
 * ncclTopoForceMerge: each `;` group (strtok: empty ones skipped) is parsed
 * as NCCL_IB_HCA's list is (parseStringList, at most NCCL_NET_MAX_DEVS_PER_NIC
 * entries) and matches devices by exact name and port. A group must match
 * exactly as many devices as it names, or NCCL WARNs and initialisation
 * fails; a group that parses to nothing is never stepped past (`continue`
 * before strtok), so NCCL prints its INFO line forever.
 */
export function forceMergeGroups(raw: string, devices: NcclIbDevice[], profile: Profile): { groups: number[][]; notes: string[]; error?: { members: number[]; log: string }; hang?: string } {
  // strtok cuts the string it logs after its first group: the INFO shows the text up to there, leading ';'s included.
  const semis = raw.split(';').filter((t) => t !== '');
  const shown = /^;*[^;]*/.exec(raw)![0];
  const notes = [`INFO "TOPO/NET : Force-fusing NICs using NCCL_NET_FORCE_MERGE=${raw}"`];
  const groups: number[][] = [];
  for (const semi of semis) {
    const list = parseEntries(semi, { parser: profile.listParser, maxEntries: profile.vnicMaxDevs, fieldsMatter: true });
    if (list.entries.length === 0) {
      const info = `NET/IB : Invalid NCCL_NET_FORCE_MERGE specified ${shown}. Couldn't parse substring ${semi}. Please provide a semicolon-delimited list of comma-delimited NIC groups.`;
      notes.push(`INFO "${info}" (printed without end: NCCL never moves past this group, and initialisation hangs)`);
      return { groups, notes, hang: semi };
    }
    const parsed = { spec: semi, not: false, exact: true, ...list };
    const members = devices.filter((d) => matchList(d.dev, d.port, parsed).accepted).map((d) => d.index);
    if (members.length !== list.entries.length) {
      return { groups, notes, error: { members, log: `TOPO/NET : Only matched ${members.length} devices, ${list.entries.length} requested from ${semi}` } };
    }
    groups.push(members);
  }
  return { groups, notes };
}

function netDevicesOf(devices: NcclIbDevice[], merge: MergeResult, profile: Profile): NetDevice[] {
  const phys = (m: number[], index: number): NetDevice => {
    const lls = new Set(m.map((i) => devices[i]!.linkLayer));
    return { index, name: m.map((i) => devices[i]!.dev).join('+'), members: m, virtual: m.length > 1, linkLayer: lls.size > 1 ? 'mixed' : [...lls][0]! };
  };
  if (profile.ibMerge === 'ib-transport') {
    const out: NetDevice[] = [];
    for (const g of merge.groups) {
      if (g.merged) out.push(phys(g.members, out.length));
      else for (const m of g.members) out.push(phys([m], out.length));
    }
    return out;
  }
  // The core's vNICs (≥ 2.24.3): numbered as ncclx topo numbers them (vnic.ts netNumbering); a vNIC the
  // topology never reads (2.24.3–2.26.x) is not a device NCCL uses.
  const fused = merge.groups.filter((g) => g.merged);
  return netNumbering(fused.map((g) => g.members), devices.length, profile.vnicMode, fused.map((g) => g.home?.kind !== 'unread'), fused.filter((g) => g.forced).length, merge.unplaced)
    .filter((n) => n.inGraph)
    .map((n) => phys(n.members, n.index));
}
