// NCCL's topology graph rebuilt from the snapshot (docs/nccl/gdr.md; docs/nccl/topology.md;
// NVIDIA/nccl src/graph/xml.cc, topo.cc, paths.cc): PCI nodes as
// ncclTopoGetXmlFromSys finds them (each device hangs off the PCI function two
// levels up its sysfs path — a switch's upstream port — or off the CPU of its
// NUMA node at a root complex), link bandwidths from max_link_width/speed
// (the smaller of the device's and its port's), NET nodes per IB port, and the
// path type and bandwidth between every GPU and NET by NCCL's breadth-first
// search. Pure.

import type { NcclIbDevice } from '../nccl/ib.js';
import { netNumbering, netPlace, type VnicHome } from '../nccl/vnic.js';
import type { TopoFunction, TopoPart } from '../snapshot/topo-types.js';

/** Path types in NCCL's order (≥ 2.27.5 numbering); only the order matters for decisions. */
export const PATH = { LOC: 0, NVL: 1, NVB: 2, C2C: 3, PIX: 4, PXB: 5, P2C: 6, PXN: 7, PHB: 8, SYS: 9, NET: 10, DIS: 11 } as const;
export type PathName = keyof typeof PATH;
export const PATH_NAMES = Object.keys(PATH) as PathName[];

export const LOC_BW = 5000;
/** GB/s per NVLink (NCCL's SM80 figure; only its size against PCIe matters here). */
const NVL_BW = 20;
/** GB/s of a Grace GPU's NVLink-C2C (NVML reports count × per-link bandwidth; only its size against PCIe matters). */
const C2C_BW = 450;

/**
 * How NCCL links a Grace GPU to its CPU over NVLink-C2C, by release: not at
 * all before 2.22.3 (PCIe only), as an NVL link in 2.22.3–2.25.x, as a C2C
 * link from 2.26.2.
 */
export type C2cLink = 'none' | 'NVL' | 'C2C';

/** The release-dependent topology rules (report.ts topoRules decides them for a version and environment). */
export interface TopoRules {
  local: LocalNetRule;
  pxn: PxnRule;
  /** The worst path a PXN relay may have to the NIC: P2C with NCCL_PXN_C2C (≥ 2.28.3 default), else PXB. */
  pxnType: number;
  c2c: { gpus: Set<string>; link: C2cLink };
  /** ≥ 2.27.3: C2C + PHB paths become P2C. */
  p2c: boolean;
  bcm: BcmRule;
  /** ≥ 2.8.3 unless NCCL_NVB_DISABLE (≥ 2.9.9): a path may cross one GPU over two NVLinks (NVB). */
  nvb: boolean;
  /** PXN's last condition, "or avoids going through a CPU": the GPU's own path is worse than this (PXB; PXN from 2.27.6). */
  pxnAvoid: number;
  /** ≥ 2.30.3: the relay GPU must have GPUDirect RDMA to the NIC for reads (ncclTopoCheckGdr read = 1); NCCL_NET_GDR_READ=0 forbids it. */
  pxnRelayGdr: 'none' | 'required' | 'forbidden';
  /** NCCL_P2P_LEVEL / NCCL_P2P_DISABLE as ncclGetLevel read them (a PATH value), or null: the release's default, which every NVLink pair is within. */
  p2pLevel: number | null;
  /** ≥ 2.30.7: ncclTopoSetPaths keeps the better path type first (TopoSystem.typeFirst). */
  pathTypeFirst: boolean;
}
const BW = { BDW_QPI: 6, SKL_QPI: 10, SRP_QPI: 22, ERP_QPI: 40, AMD: 16, ARM: 6, P9: 32, ZPI: 6 };

type Kind = 'GPU' | 'PCI' | 'CPU' | 'NIC' | 'NET';
type LinkType = 'PCI' | 'SYS' | 'NET' | 'NVL' | 'C2C';

export interface TNode {
  kind: Kind;
  key: string;
  links: TLink[];
  /** GPU, PCI, NIC: the PCI function; CPU: the NUMA id as NCCL read it. */
  bdf: string | null;
  numa: string | null;
  /** NET: the NCCL IB device (for a virtual NIC, one standing for it: its index, `a+b` name and summed rate). */
  ib: NcclIbDevice | null;
  /** NET of a virtual NIC: the physical devices fused into it. */
  members?: NcclIbDevice[];
}

interface TLink {
  type: LinkType;
  bw: number;
  rem: TNode;
}

export interface Path {
  type: number;
  bw: number;
  hops: number;
  /** The nodes from the start to the end, for display. */
  via: TNode[];
}

const BDF = /^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$/i;

// kvDictPciGen: prefix match, x100 Mbps per lane; anything else 60.
const PCI_GEN: [string, number][] = [
  ['2.5 GT/s', 15], ['5 GT/s', 30], ['8 GT/s', 60], ['16 GT/s', 120], ['32 GT/s', 240],
  ['2.5 GT/s PCIe', 15], ['5.0 GT/s PCIe', 30], ['8.0 GT/s PCIe', 60], ['16.0 GT/s PCIe', 120], ['32.0 GT/s PCIe', 240], ['64.0 GT/s PCIe', 480],
];
export function pciGen(speed: string): number {
  for (const [k, v] of PCI_GEN) if (speed.startsWith(k)) return v;
  return 60;
}

/** sscanf("%f GT/s"): the leading number, or +∞ when there is none (NCCL starts from FLT_MAX). */
function gts(s: string | null): number {
  const m = s ? /^\s*([0-9]*\.?[0-9]+)/.exec(s) : null;
  return m ? Number(m[1]) : Infinity;
}

/** Links a and b both ways (once per type), as ncclTopoConnectNodes does: each node's links sorted by bandwidth, largest first. */
function connect(a: TNode, b: TNode, type: LinkType, bw: number): void {
  for (const [x, y] of [[a, b], [b, a]] as const) {
    if (x.links.some((l) => l.rem === y && l.type === type)) continue;
    x.links.push({ type, bw, rem: y });
    x.links.sort((p, q) => q.bw - p.bw);
  }
}

/** Hangs a vNIC's NET from `nic`: its one link points there, and the NIC links back. */
function attachNet(nic: TNode, vnic: TNode): void {
  vnic.links[0]!.rem = nic;
  nic.links.push({ type: 'NET', bw: vnic.links[0]!.bw, rem: vnic });
  nic.links.sort((p, q) => q.bw - p.bw);
}

/**
 * The link_width and link_speed NCCL's XML gives a <pci> node (xml.cc
 * ncclTopoGetXmlFromSys): the smaller of the device's and its upstream
 * port's max_link_width, and the slower max_link_speed; an unknown function
 * has neither (width 0, speed '').
 */
export function pciLink(fns: Map<string, TopoFunction>, f: TopoFunction | undefined): { width: number; speed: string } {
  if (!f) return { width: 0, speed: '' };
  const p = f.path[f.path.length - 2];
  const port = p && BDF.test(p) ? (fns.get(p) ?? null) : null;
  const dev = gts(f.maxLinkSpeed);
  const portS = gts(port?.maxLinkSpeed ?? null);
  const speed = portS < dev ? port!.maxLinkSpeed! : (f.maxLinkSpeed ?? '');
  return { width: Math.min(f.maxLinkWidth ?? 0, port?.maxLinkWidth ?? 0), speed };
}

/** ncclTopoAddPci: width × the generation's rate per lane (a width of 0 counts as 16). */
export const linkBwOf = (width: number, speed: string): number => ((width || 16) * pciGen(speed)) / 80;

export interface TopoSystem {
  nodes: TNode[];
  gpus: TNode[];
  nets: TNode[];
  cpus: TNode[];
  /** For each PCI function NCCL placed: its parent as NCCL found it. */
  parents: Map<string, string>;
  notes: string[];
  /** Whether paths may cross one GPU over NVLink (NVB); see pathsTo. */
  nvb: boolean;
  /** ≥ 2.30.7: the path search keeps the better path type first, then bandwidth, then fewer hops; see pathsTo. */
  typeFirst?: boolean;
}

function interCpuBw(cpu: TopoPart['cpu']): number {
  const arch = (cpu.arch ?? '').toLowerCase();
  if (arch.startsWith('ppc')) return BW.P9;
  if (arch === 'aarch64' || arch === 'arm64') return BW.ARM;
  if (cpu.vendor === 'GenuineIntel') {
    const m = cpu.model ?? 0;
    return cpu.family === 6 && m >= 0xcf ? BW.ERP_QPI : cpu.family === 6 && m >= 0x8f ? BW.SRP_QPI : cpu.family === 6 && m >= 0x55 ? BW.SKL_QPI : BW.BDW_QPI;
  }
  if (cpu.vendor === 'AuthenticAMD') return BW.AMD;
  if (cpu.vendor === 'CentaurHauls' || cpu.vendor === '  Shanghai  ') return BW.ZPI;
  return LOC_BW;
}

/**
 * Broadcom PEX switches present two levels where they sustain full bandwidth
 * across all ports; NCCL folds the lower level into the upper (topo.cc
 * ncclTopoFlattenBcmSwitches): Gen4 (1000:c010, subsystem 1000:axxx) from
 * 2.9.6, Gen5 (1000:c030, subsystem 1000:0xxx over 1000:1xxx) from 2.20.3.
 */
export type BcmRule = 'none' | 'gen4' | 'gen4+gen5';

function bcmGen(f: TopoFunction | undefined, level: 0 | 1, rule: BcmRule): number {
  if (!f || rule === 'none') return 0;
  const hex = (v: string | null | undefined) => (v ? parseInt(v, 16) : NaN);
  const [vendor, device, sv, sd] = [hex(f.vendor), hex(f.device), hex(f.subsystemVendor), hex(f.subsystemDevice)];
  if (vendor !== 0x1000 || sv !== 0x1000 || Number.isNaN(sd)) return 0;
  if (device === 0xc010 && (sd & 0xf000) === 0xa000) return 4;
  if (rule === 'gen4+gen5' && device === 0xc030 && (sd & 0xf000) === level * 0x1000) return 5;
  return 0;
}

/** NCCL's parents of a placed node (`GPU:bdf`, `NIC:bdf`, `PCI:bdf`), nearest first, ending at its CPU ('CPU n'). */
export function parentChain(parents: Map<string, string>, key: string): string[] {
  const out: string[] = [];
  for (let k = key; out.length < 32; ) {
    const p = parents.get(k);
    if (!p) break;
    out.push(p);
    if (p.startsWith('CPU')) break;
    k = `PCI:${p}`;
  }
  return out;
}

/** The release rules buildSystem applies (TopoRules' construction part): C2C GPUs and their link, Broadcom flattening, NVB, path order. */
export type SystemRules = Pick<TopoRules, 'c2c' | 'bcm' | 'nvb' | 'pathTypeFirst'>;
const DEFAULT_SYSTEM_RULES: SystemRules = { c2c: { gpus: new Set(), link: 'none' }, bcm: 'gen4+gen5', nvb: false, pathTypeFirst: false };

/** A NET's speed in Mb/s as the transport reports it to NCCL: 10 Gb/s when unknown (net_socket.cc ncclSocketGetSpeed defaults to 10000; topo.cc ncclTopoAddNet takes ≤ 0 as 10000). */
export function netMbps(d: Pick<NcclIbDevice, 'rateGbps'>): number {
  return d.rateGbps && d.rateGbps > 0 ? Math.round(d.rateGbps * 1000) : 10000;
}

/** Build the system NCCL sees: the GPUs of the snapshot and the IB devices NCCL keeps, under this release's rules (`rules.c2c` names the Grace GPUs and how they are linked). */
export function buildSystem(topo: TopoPart, ibDevices: NcclIbDevice[], rules: Partial<SystemRules> = {}): TopoSystem {
  const { c2c, bcm, nvb, pathTypeFirst: typeFirst } = { ...DEFAULT_SYSTEM_RULES, ...rules };
  const fns = new Map(topo.functions.map((f) => [f.bdf, f]));
  const nodes: TNode[] = [];
  const byKey = new Map<string, TNode>();
  const notes: string[] = [];
  const parents = new Map<string, string>();
  const node = (kind: Kind, key: string, extra: Partial<TNode> = {}): TNode => {
    const k = `${kind}:${key}`;
    let n = byKey.get(k);
    if (!n) {
      n = { kind, key, links: [], bdf: null, numa: null, ib: null, ...extra };
      byKey.set(k, n);
      nodes.push(n);
    }
    return n;
  };
  // The CPU of a NUMA id as read: an unreadable numa_node reads as '' and converts to 0.
  const cpuOf = (numa: number | null) => node('CPU', String(numa ?? 0), { numa: String(numa ?? 0) });
  const linkBw = (f: TopoFunction | undefined): number => {
    const { width, speed } = pciLink(fns, f);
    return linkBwOf(width, speed);
  };
  // Attach a PCI node (GPU, NIC or switch) to its parent as NCCL finds it, recursively.
  const attach = (n: TNode, bdf: string): void => {
    if (parents.has(`${n.kind}:${bdf}`)) return;
    const f = fns.get(bdf);
    let parent: TNode;
    if (!f) {
      // No sysfs path: NCCL attaches the device to an unknown CPU.
      parent = node('CPU', '-1', { numa: '-1' });
    } else {
      const c = f.path;
      const i = c.length - 1;
      if (i < 1 || !BDF.test(c[i - 1]!) || i < 2 || !BDF.test(c[i - 2]!)) parent = cpuOf(f.numaNode);
      else {
        const pb = c[i - 2]!.toLowerCase();
        parent = node('PCI', pb, { bdf: pb });
        attach(parent, pb);
      }
    }
    parents.set(`${n.kind}:${bdf}`, parent.kind === 'CPU' ? `CPU ${parent.key}` : parent.key);
    connect(n, parent, 'PCI', linkBw(f));
  };

  const gpus = topo.gpus.map((b) => {
    const g = node('GPU', b, { bdf: b, numa: String(fns.get(b)?.numaNode ?? '') });
    attach(g, b);
    return g;
  });
  const nets: TNode[] = [];
  for (const d of ibDevices) {
    let nic: TNode;
    const bdf = d.pciPath && d.pciPathIsPci ? d.pciPath.split('/').pop()!.toLowerCase() : null;
    if (bdf) {
      nic = node('NIC', bdf, { bdf });
      attach(nic, bdf);
    } else {
      // Not a PCI device: NCCL hangs the NIC off the first CPU.
      const first = nodes.find((n) => n.kind === 'CPU') ?? cpuOf(topo.numaNodes[0]?.id ?? 0);
      nic = node('NIC', `virtual:${first.key}`, {});
      connect(nic, first, 'PCI', LOC_BW);
      notes.push(`${d.dev}: its device path is not a PCI function (${d.fullPciPath || 'no device link'}); NCCL attaches it to the first CPU`);
    }
    const net = node('NET', `${d.index}`, { ib: d });
    connect(nic, net, 'NET', netMbps(d) / 8000);
    nets.push(net);
  }
  // Broadcom PEX: fold sub-switches of the same generation into their parent, top-down as NCCL meets them.
  const depth = (n: TNode) => parentChain(parents, `PCI:${n.bdf}`).filter((p) => !p.startsWith('CPU')).length;
  const flattened = new Set<TNode>();
  for (const sw of nodes.filter((n) => n.kind === 'PCI').sort((a, b) => depth(a) - depth(b))) {
    if (flattened.has(sw) || !nodes.includes(sw)) continue;
    const gen = bcmGen(fns.get(sw.bdf!), 0, bcm);
    if (!gen) continue;
    const subs = sw.links.filter((l) => l.rem.kind === 'PCI' && parents.get(`PCI:${l.rem.bdf}`) === sw.bdf && bcmGen(fns.get(l.rem.bdf!), 1, bcm) === gen).map((l) => l.rem);
    for (const sub of subs) {
      sw.links = sw.links.filter((l) => l.rem !== sub);
      for (const l of sub.links) {
        if (l.rem === sw) continue;
        sw.links.push({ ...l });
        for (const back of l.rem.links) if (back.rem === sub) back.rem = sw;
        const key = `${l.rem.kind}:${l.rem.bdf}`;
        if (parents.get(key) === sub.bdf) parents.set(key, sw.bdf!);
      }
      sw.links.sort((p, q) => q.bw - p.bw);
      nodes.splice(nodes.indexOf(sub), 1);
      parents.delete(`PCI:${sub.bdf}`);
      notes.push(`PCI switch ${sub.bdf} folded into ${sw.bdf} (Broadcom PEX Gen${gen}, as NCCL flattens it)`);
    }
    flattened.add(sw);
  }

  // NVLinks between GPUs (nvidia-smi topo -m, in PCI order like topo.gpus): a direct NVL link per pair.
  const nvl = topo.nvlink?.links;
  if (nvl && nvl.length === gpus.length) {
    for (let i = 0; i < gpus.length; i++) for (let j = i + 1; j < gpus.length; j++) if ((nvl[i]?.[j] ?? 0) > 0) connect(gpus[i]!, gpus[j]!, 'NVL', nvl[i]![j]! * NVL_BW);
  } else if (nvl) notes.push(`the NVLink data covers ${nvl.length} GPU(s) where the PCI tree has ${gpus.length}: NVLinks left out`);
  // NVLink-C2C: the Grace GPU to the CPU its PCI branch ends at.
  if (c2c.link !== 'none') {
    for (const g of gpus) {
      if (!c2c.gpus.has(g.bdf!)) continue;
      const top = parentChain(parents, `GPU:${g.bdf}`).at(-1);
      const cpu = top?.startsWith('CPU ') ? byKey.get(`CPU:${top.slice(4)}`) : undefined;
      if (cpu) connect(g, cpu, c2c.link === 'NVL' ? 'NVL' : 'C2C', C2C_BW);
    }
  }
  const cpus = nodes.filter((n) => n.kind === 'CPU');
  const sys = interCpuBw(topo.cpu);
  for (const a of cpus) for (const b of cpus) if (a !== b) connect(a, b, 'SYS', sys);
  return { nodes, gpus, nets, cpus, parents, notes, nvb, typeFirst };
}

/** The NET fusion NCCL applies: the groups it fuses (NCCL indexes), where each group's vNIC lands (vnic.ts vnicHome, parallel to `fused`), the physical device count, the release's mode (Profile.vnicMode). */
export interface NetFusion {
  fused: number[][];
  homes?: (VnicHome | undefined)[];
  /** How many of `fused`, first, NCCL_NET_FORCE_MERGE made (numbered before AutoMerge's). */
  forced?: number;
  /** Devices AutoMerge never placed (kept under their own index). */
  unplaced?: number[];
  physical: number;
  mode: 'none' | 'every-group' | 'fused-only';
}

/**
 * How NCCL's core turns AutoMerge groups into NET devices (topo.cc
 * ncclTopoProcessNet, ncclTopoMakeVnic, ncclTopoGetVNicParent;
 * docs/nccl/topology.md §3), numbered as netNumbering numbers them, each vNIC where its home says:
 * - 'in-nic': in its members' NIC node, in their place (≥ 2.27.3 at PORT);
 * - 'made-up': under a new NIC node (the made-up <pci>, NIC 0's link) below
 *   the common switch or CPU; 'widen' raises link widths to the members'
 *   aggregate (ncclTopoFindLinkWidth): 'chain' (2.28.3–2.30.4) every <pci>
 *   from a member up to the common switch, that switch included, so NIC 0's
 *   copied link too; 'parent' (≥ 2.30.7) the made-up link and the switch's;
 * - 'cpu-nic': under the CPU's own NIC node (LOC_BW), where NICs off the PCI tree hang;
 * - 'unread' / 'fatal': not in the graph.
 * In 'fused-only' the members leave the graph (keep=0); in 'every-group' they stay.
 * `topo` gives the link widths; without it the made-up link copies NIC 0's and nothing is widened.
 */
export function fuseNets(sys: TopoSystem, f: NetFusion, topo?: TopoPart): TopoSystem {
  if (f.mode === 'none') return sys;
  // Fused-only with nothing fused and no device left unplaced changes nothing (most nodes).
  if (f.mode === 'fused-only' && !f.fused.length) return sys;
  const madeUp = f.homes?.some((h) => h?.kind === 'made-up') ?? false;
  const fns = new Map(madeUp ? (topo?.functions ?? []).map((x) => [x.bdf, x]) : []);
  const byIndex = new Map(sys.nets.map((n) => [n.ib!.index, n]));
  const homeOf = new Map(f.fused.map((g, k) => [g.join(','), f.homes?.[k]]));
  const replace = new Map<TNode, TNode | null>();
  const added: TNode[] = [];
  const parents = new Map(sys.parents);
  const nodeOf = (key: string): TNode | undefined => (key.startsWith('CPU ') ? sys.cpus.find((c) => c.key === key.slice(4)) : sys.nodes.find((n) => (n.kind === 'PCI' || n.kind === 'NIC') && n.bdf === key));
  // A <pci> node's uplink at a new width (its bandwidth in both directions, links kept sorted).
  const widenTo = (bdf: string, width: number) => {
    const n = nodeOf(bdf);
    const up = n && nodeOf(parents.get(`${n.kind}:${bdf}`) ?? '');
    if (!n || !up) return;
    const bw = linkBwOf(width, pciLink(fns, fns.get(bdf)).speed);
    for (const [a, b] of [[n, up], [up, n]] as const) {
      for (const l of a.links) if (l.rem === b && l.type === 'PCI') l.bw = bw;
      a.links.sort((p, q) => q.bw - p.bw);
    }
  };
  // One numbering with ncclx ib (vnic.ts netNumbering); here it is applied to the graph's NET nodes.
  // Without a home (a caller that knows none), PORT-level fusion as each release places it.
  const read = f.fused.map((g) => {
    const h = homeOf.get(g.join(','));
    return h ? h.kind !== 'unread' && h.kind !== 'fatal' : f.mode === 'fused-only';
  });
  for (const n of netNumbering(f.fused, f.physical, f.mode, read, f.forced ?? 0, f.unplaced)) {
    const nets = n.members.map((m) => byIndex.get(m)).filter((x): x is TNode => !!x);
    if (n.members.length === 1) {
      // A device alone keeps its NET node, renumbered in 2.24.3–2.26.x.
      if (nets[0] && nets[0].ib!.index !== n.index) nets[0].ib = { ...nets[0].ib!, index: n.index };
      continue;
    }
    const home = homeOf.get(n.members.join(','));
    const names = nets.map((x) => x.ib!.dev).join('+');
    if (!n.inGraph) {
      const why = home?.kind === 'unread' ? home.why : "its <nic> is nested in the members' <nic>, which the topology does not read";
      if (f.mode === 'fused-only') {
        sys.notes.push(`NET ${n.index} (${names}): ${why}, so this virtual NIC is not in NCCL's topology, and its ports leave it (keep=0)`);
        for (const x of nets) replace.set(x, null);
      } else sys.notes.push(`NET ${n.index} (${names}): ${why}; ${nets.map((x) => `${x.ib!.dev} (NET ${x.ib!.index})`).join(', ')} stay in the graph`);
      continue;
    }
    const vnic = vnicNode(nets, n.index);
    if (f.mode === 'fused-only') nets.forEach((x, i) => replace.set(x, i === 0 ? vnic : null));
    if (!home || home.kind === 'in-nic') continue;
    // A NIC node of its own: the made-up <pci> below the switch or CPU, or the CPU's NIC node.
    let nic: TNode;
    let up: TNode | undefined;
    let bw: number;
    if (home.kind === 'cpu-nic') {
      up = nodeOf(`CPU ${home.cpu}`);
      nic = sys.nodes.find((x) => x.kind === 'NIC' && x.key === `virtual:${home.cpu}`) ?? { kind: 'NIC', key: `virtual:${home.cpu}`, links: [], bdf: null, numa: null, ib: null };
      bw = LOC_BW;
    } else if (home.kind === 'made-up') {
      up = nodeOf('pci' in home.under ? home.under.pci : `CPU ${home.under.cpu}`);
      const places = nets.map((x) => netPlace(x.ib!.pciPath, x.ib!.pciPathIsPci, x.ib!.numa ?? null));
      const nic0 = fns.get(places[0]!.pci[0]!);
      const link0 = pciLink(fns, nic0);
      let width = link0.width;
      if (home.widen !== 'none' && topo) {
        const parentBdf = 'pci' in home.under ? home.under.pci : null;
        const below = places.map((p) => (parentBdf ? p.pci.slice(0, Math.max(0, p.pci.indexOf(parentBdf))) : p.pci));
        width = aggregateWidth(below, (b) => pciLink(fns, fns.get(b)).width);
        if (home.widen === 'chain') for (const b of new Set(below.flat())) widenTo(b, width);
        if (parentBdf) widenTo(parentBdf, width);
      }
      // The made-up <pci> copies NIC 0's attributes, its NUMA node among them.
      nic = { kind: 'NIC', key: `made-up:${home.bdf}`, links: [], bdf: home.bdf, numa: nic0?.numaNode != null ? String(nic0.numaNode) : null, ib: null };
      bw = linkBwOf(width, link0.speed);
      sys.notes.push(`NET ${n.index} (${names}): NCCL hangs this virtual NIC under a made-up PCI device ${home.bdf} (a copy of ${nic0?.bdf ?? 'NIC 0'}, ${width || 16} lanes) below ${'pci' in home.under ? `PCI switch ${home.under.pci}` : `CPU ${home.under.cpu}`}`);
    } else continue;
    if (!up) {
      sys.notes.push(`NET ${n.index} (${names}): the node NCCL hangs this virtual NIC from is not in ncclx's graph; left out`);
      continue;
    }
    if (!sys.nodes.includes(nic) && !added.includes(nic)) {
      added.push(nic);
      connect(nic, up, 'PCI', bw);
      if (nic.bdf) parents.set(`NIC:${nic.bdf}`, up.kind === 'CPU' ? `CPU ${up.key}` : up.bdf!);
    }
    attachNet(nic, vnic);
    // Its NET stands where its first member stood (every-group: after the members, which stay).
    if (f.mode !== 'fused-only') added.push(vnic);
  }
  if (!replace.size && !added.length) return { ...sys, parents };
  for (const [old, vnic] of replace) {
    const nic = old.links.find((l) => l.type === 'NET')!.rem;
    nic.links = nic.links.filter((l) => l.rem !== old);
    if (vnic && vnic.links[0]!.rem === old) attachNet(nic, vnic);
  }
  // The vNIC takes its first member's place (its <net> follows theirs in the same <nic>).
  const swap = (list: TNode[]) => list.flatMap((n) => (replace.has(n) ? (replace.get(n) ? [replace.get(n)!] : []) : [n]));
  const extraNets = added.filter((n) => n.kind === 'NET');
  return { ...sys, parents, nodes: [...swap(sys.nodes), ...added], nets: [...swap(sys.nets), ...extraNets] };
}

/**
 * ncclTopoFindLinkWidth below the common node: `below` holds each member's
 * <pci> nodes under it, nearest first. A NIC counts its own width; a switch
 * the smaller of its width and its members' sum (the sum when its width is
 * unknown); the common node sums its branches.
 */
function aggregateWidth(below: string[][], width: (bdf: string) => number): number {
  // Each chain read top-down (its last entry is its top node under the common one).
  const rec = (node: string, level: number, chains: string[][]): number => {
    const deeper = chains.filter((c) => c.length > level + 1);
    if (!deeper.length) return width(node);
    let total = 0;
    for (const [child, group] of byNode(deeper, level + 1)) total += rec(child, level + 1, group);
    const my = width(node);
    return total === 0 ? my : my > 0 ? Math.min(my, total) : total;
  };
  let sum = 0;
  for (const [top, group] of byNode(below.filter((c) => c.length).map((c) => [...c].reverse()), 0)) sum += rec(top, 0, group);
  return sum;
}

/** Chains grouped by their node at `level`, in first-seen order. */
function byNode(chains: string[][], level: number): Map<string, string[][]> {
  const out = new Map<string, string[][]>();
  for (const c of chains) out.set(c[level]!, [...(out.get(c[level]!) ?? []), c]);
  return out;
}

/** A vNIC's NET node: named `a+b` as the IB transport names it, its rate the members' sum (ncclIbMakeVDevice). */
function vnicNode(nets: TNode[], index: number): TNode {
  const members = nets.map((n) => n.ib!);
  const first = members[0]!;
  const rateGbps = members.reduce((s, m) => s + (m.rateGbps && m.rateGbps > 0 ? m.rateGbps : 10), 0);
  const ib: NcclIbDevice = { ...first, index, dev: members.map((m) => m.dev).join('+'), rateGbps };
  // The NIC end of the link is set by the caller.
  return { kind: 'NET', key: `vnic:${index}`, links: [{ type: 'NET', bw: (rateGbps * 1000) / 8000, rem: nets[0]! }], bdf: null, numa: null, ib, members };
}

/**
 * Whether the breadth-first search may go on through a GPU (paths.cc, "allow
 * routing through a GPU only as 1 hop"): never before 2.8.3 or with
 * NCCL_NVB_DISABLE (sys.nvb false); otherwise only from a GPU one hop from the
 * base, over NVLink, to another GPU. A GPU is never one hop from a NET, so
 * GPU → NIC paths never cross a GPU (PXN is a separate step); GPU → GPU paths
 * do (NVB), and so can GPU → CPU paths through a GPU on the CPU's root port.
 */
function nvbHop(sys: TopoSystem, link: TLink, path: Path): boolean {
  return sys.nvb && link.type === 'NVL' && link.rem.kind === 'GPU' && path.hops <= 1;
}

/** ncclTopoSetPaths from `base`: the path from every node to base (type, bandwidth, hops). */
export function pathsTo(sys: TopoSystem, base: TNode): Map<TNode, Path> {
  const paths = new Map<TNode, Path>();
  for (const n of sys.nodes) paths.set(n, { type: PATH.DIS, bw: 0, hops: 0, via: [] });
  paths.set(base, { type: PATH.LOC, bw: LOC_BW, hops: 0, via: [base] });
  let list: TNode[] = [base];
  while (list.length) {
    const next: TNode[] = [];
    for (const n of list) {
      const path = paths.get(n)!;
      for (const link of n.links) {
        const rem = link.rem;
        if (n !== base && n.kind === 'GPU' && !nvbHop(sys, link, path)) continue;
        const remPath = paths.get(rem)!;
        const bw = Math.min(path.bw, link.bw);
        let type: number = link.type === 'NET' ? PATH.LOC : link.type === 'SYS' ? PATH.SYS : link.type === 'NVL' ? PATH.NVL : link.type === 'C2C' ? PATH.C2C : PATH.PIX;
        if (n.kind === 'PCI' && rem.kind === 'PCI') type = PATH.PXB;
        if (link.type === 'PCI' && (n.kind === 'CPU' || rem.kind === 'CPU')) type = PATH.PHB;
        // NVLink on to a GPU reached over NVLink: the one-GPU hop NCCL calls NVB.
        if (n !== base && n.kind === 'GPU' && path.type === PATH.NVL && type === PATH.NVL) type = PATH.NVB;
        type = Math.max(path.type, type);
        // Before 2.30.7 a path is replaced by one with more bandwidth that is not longer; from 2.30.7 by a better
        // type, or the same type with more bandwidth, or the same type and bandwidth in fewer hops.
        const better = sys.typeFirst
          ? type < remPath.type || (type === remPath.type && remPath.bw < bw) || (type === remPath.type && remPath.bw === bw && remPath.hops > path.hops + 1)
          : (remPath.bw === 0 || remPath.hops > path.hops) && remPath.bw < bw;
        if (better) {
          paths.set(rem, { type, bw, hops: path.hops + 1, via: [rem, ...path.via] });
          if (!next.includes(rem)) next.push(rem);
        }
      }
    }
    list = next;
  }
  return paths;
}

/** The GPU → NET path of every pair: pathMatrix[g][n]. */
export function pathMatrix(sys: TopoSystem): Path[][] {
  const byNet = sys.nets.map((n) => pathsTo(sys, n));
  return sys.gpus.map((g) => byNet.map((m) => m.get(g)!));
}

/** ncclTopoGetLocal: the NETs with the best bandwidth, then the best path type, in index order. */
// NCCL asks these for every GPU, every NET and every pair of GPUs; each row's
// and column's answer is computed once per matrix (the answers are not
// changed by callers), so the GPU → NET questions stay quadratic in the GPUs,
// not cubic: a node is bounded at NCCL_TOPO_MAX_NODES (640) GPUs.
const netsOfRow = new WeakMap<Path[], { nets: number[]; type: number; bw: number }>();
const gpusOfNet = new WeakMap<Path[][], Map<number, number[]>>();
const peersOfMask = new WeakMap<Path[][], Map<string, number[]>>();

export function localNets(row: Path[]): { nets: number[]; type: number; bw: number } {
  let hit = netsOfRow.get(row);
  if (!hit) netsOfRow.set(row, (hit = bestOfRow(row)));
  return hit;
}

function bestOfRow(row: Path[]): { nets: number[]; type: number; bw: number } {
  let maxBw = 0;
  let minType = PATH.DIS as number;
  let out: number[] = [];
  row.forEach((p, i) => {
    if (p.bw > maxBw || (p.bw === maxBw && p.type < minType)) {
      maxBw = p.bw;
      minType = p.type;
      out = [];
    }
    if (p.bw === maxBw && p.type === minType) out.push(i);
  });
  return { nets: out, type: minType, bw: maxBw };
}

/** The GPUs that are local to a NET (the reverse question NCCL asks for netsPerGpu). */
export function localGpus(matrix: Path[][], net: number): number[] {
  let byNet = gpusOfNet.get(matrix);
  if (!byNet) gpusOfNet.set(matrix, (byNet = new Map()));
  let hit = byNet.get(net);
  if (!hit) byNet.set(net, (hit = bestOfRow(matrix.map((row) => row[net]!)).nets));
  return hit;
}

export function mirrorBits(val: number, pow2: number): number {
  let mirror = 0;
  for (let b = 1, mb = pow2 >> 1; b < pow2; b <<= 1, mb >>= 1) if (val & b) mirror |= mb;
  return mirror;
}

const isPow2 = (v: number) => v > 0 && (v & (v - 1)) === 0;

/**
 * How ncclTopoGetLocalNet spreads GPUs over their local NETs, by release:
 * modulo (2.12.7 – 2.18.0: nets[dev % count], channels ignored; before 2.12.7
 * the caller passed the round-robin index); mask (2.18.1 – 2.18.3: GPUs with
 * the same local-NET mask take the mask's NETs in turn, channel by channel);
 * mirror (≥ 2.18.5: the CUDA index bit-mirrored over a power-of-two count,
 * plus channel mod ⌈nets / GPUs local to the first NET⌉). A MirrorRule gives
 * the mirror rule's later forms: from 2.28.3 NCCL_NETDEVS_POLICY sets the NETs
 * per GPU (AUTO that ceiling, ALL every local NET, MAX:n at most n), and 2.30.7
 * takes the CUDA index modulo the GPUs local to the first NET before mirroring.
 */
export type LocalNetRule = 'modulo' | 'mask' | 'mirror' | MirrorRule;

export interface MirrorRule {
  /** 2.30.7: `gpu.dev % localGpuCount`. */
  modGpus: boolean;
  /** NCCL_NETDEVS_POLICY (≥ 2.28.3): 'AUTO', 'ALL' or MAX:n as n. */
  netsPerGpu: 'AUTO' | 'ALL' | number;
}

/** ncclTopoGetLocalNet: the NET a GPU's channel uses. `dev` is the GPU's CUDA index. */
export function localNetFor(matrix: Path[][], g: number, dev: number, channel = 0, rule: LocalNetRule = 'mirror'): number | null {
  const { nets } = localNets(matrix[g]!);
  if (!nets.length) return null;
  if (rule === 'modulo') return nets[dev % nets.length]!;
  if (rule === 'mask') {
    // GPUs whose local NETs are the same set, in index order; this GPU's place among them.
    const key = nets.join(',');
    let byKey = peersOfMask.get(matrix);
    if (!byKey) peersOfMask.set(matrix, (byKey = new Map()));
    let peers = byKey.get(key);
    if (!peers) byKey.set(key, (peers = matrix.map((_, i) => localNets(matrix[i]!).nets.join(',')).map((k, i) => (k === key ? i : -1)).filter((i) => i >= 0)));
    const place = peers.indexOf(g);
    // The set bits of the mask, cycled: bit k goes to GPU place k % peers, channel ⌊k / peers⌋.
    return nets[(place + channel * peers.length) % nets.length]!;
  }
  const m: MirrorRule = rule === 'mirror' ? { modGpus: false, netsPerGpu: 'AUTO' } : rule;
  const gpusOfFirst = Math.max(1, localGpus(matrix, nets[0]!).length);
  const netsPerGpu = m.netsPerGpu === 'AUTO' ? Math.ceil(nets.length / gpusOfFirst) : m.netsPerGpu === 'ALL' ? nets.length : Math.min(m.netsPerGpu, nets.length);
  let net = m.modGpus ? dev % gpusOfFirst : dev;
  if (isPow2(nets.length)) net = mirrorBits(net, nets.length);
  net += channel % netsPerGpu;
  return nets[net % nets.length]!;
}

/** ncclTopoGetLocalGpu (≥ 2.18.1): the first of the NET's local GPUs, channel by channel, whose ncclTopoGetLocalNet is that NET; -1 when none. */
export function localGpuFor(matrix: Path[][], n: number, rule: LocalNetRule): number {
  const gs = localGpus(matrix, n);
  for (let c = 0; c < 32; c++) for (const g of gs) if (localNetFor(matrix, g, g, c, rule) === n) return g;
  return -1;
}

/**
 * How ncclTopoGetNetDev picks the NIC of a point-to-point connection to a
 * peer on another node (search.cc), by release and NCCL_CROSS_NIC,
 * NCCL_P2P_PXN_LEVEL, NCCL_PXN_DISABLE:
 * - 'none' (before 2.12.7): the GPU's own NIC.
 * - 'peer-netdev' (2.12.7–2.18.0): the NIC the peer itself uses (its
 *   netDev), relayed at PXN level 2 by the first local GPU whose NIC it is.
 * - 'local-gpu' (≥ 2.18.1): the NIC of the local GPU with the peer's device
 *   index, relayed at level 2 by that NIC's local GPU (ncclTopoGetLocalGpu).
 */
export interface P2pTerms {
  mode: 'none' | 'peer-netdev' | 'local-gpu';
  /** NCCL_CROSS_NIC (default 2): 0 forces the peer's NIC. */
  crossNic: number;
  /** NCCL_P2P_PXN_LEVEL (default 2), 0 when PXN is disabled. */
  pxnLevel: number;
  /** The worst path a relay may have to the NIC: PXB; P2C with NCCL_PXN_C2C from 2.27.6. */
  pxnType: number;
  /** ≥ 2.30.3: the relay must have GPUDirect RDMA to the NIC (ncclTopoCheckGdr, read = 0). */
  relayGdr: ((p: number, n: number, type: number) => boolean) | null;
  /** NCCL_P2P_LEVEL as a PATH value, or null (every NVLink pair within the default). */
  p2pLevel: number | null;
  localRule: LocalNetRule;
}

/** The NIC a GPU's point-to-point channel uses to reach a peer whose device index is `peerDev` on a node laid out like this one, and the GPU that proxies it (itself, or a PXN relay). */
export function p2pNetFor(sys: TopoSystem, matrix: Path[][], relay: Map<string, number>, g: number, peerDev: number, channel: number, t: P2pTerms): { nic: number | null; proxy: number } {
  const own = { nic: localNetFor(matrix, g, g, channel, t.localRule), proxy: g };
  if (t.mode === 'none' || !(t.crossNic === 0 || t.pxnLevel !== 0) || peerDev >= sys.gpus.length) return own;
  // The NIC on the peer's side of the rail: the peer's own (2.12.7–2.18.0, no channel), else the local GPU with its index's.
  const net = localNetFor(matrix, peerDev, peerDev, t.mode === 'peer-netdev' ? 0 : channel, t.localRule);
  if (net === null) return own;
  let out = t.crossNic === 0 ? { nic: net, proxy: g } : own;
  // "Connected to us through NVLink", after NCCL_P2P_LEVEL.
  const toUs = (p: number) => p === g || (nvlinked(sys, p, g).yes && (t.p2pLevel === null || PATH.NVL <= t.p2pLevel));
  if (t.pxnLevel === 1) {
    if (matrix[g]![net]!.type <= PATH.PXN) out = { nic: net, proxy: relay.get(`${g},${net}`) ?? g };
  } else if (t.pxnLevel === 2) {
    if (t.mode === 'peer-netdev') {
      // The local GPUs in rank order whose own NIC is that one: the first that qualifies relays.
      for (let p = 0; p < sys.gpus.length; p++) {
        if (localNetFor(matrix, p, p, 0, t.localRule) !== net) continue;
        if (toUs(p) && matrix[p]![net]!.type <= PATH.PXB) return { nic: net, proxy: p };
      }
    } else {
      const p = localGpuFor(matrix, net, t.localRule);
      if (p >= 0 && toUs(p) && matrix[p]![net]!.type <= t.pxnType && (!t.relayGdr || t.relayGdr(p, net, matrix[p]![net]!.type))) return { nic: net, proxy: p };
    }
  }
  return out;
}

/**
 * A PCIe link below its maximum: narrower, or (not for GPUs, which lower their
 * speed when idle) slower. NCCL reads max_link_* and does not see it.
 */
export function linkDegraded(f: TopoFunction, gpu: boolean): boolean {
  const narrower = f.currentLinkWidth !== null && f.maxLinkWidth !== null && f.currentLinkWidth > 0 && f.currentLinkWidth < f.maxLinkWidth;
  const slower = parseFloat(f.currentLinkSpeed ?? '') < parseFloat(f.maxLinkSpeed ?? '');
  return narrower || (!gpu && slower);
}

export interface GpuNicMap {
  /**
   * Per GPU in PCI order: its first channel's NIC (RDMA device name) and NCCL's path type, e.g. "mlx5_0 PIX";
   * `gdr`: ncclTopoCheckGdr for that pair on the direct path (through the PXN relay's), `gdrPath` the path type it compares.
   */
  gpus: { bdf: string; nic: string | null; path: PathName | null; gdr: boolean | null; gdrPath: PathName | null }[];
  /** GPU and NIC PCIe links running below their maximum width or speed: "mlx5_1 0000:1a:00.0 x8 of x16". */
  degraded: string[];
}

/** The GPU ↔ NIC facts compare holds across nodes, without the full report. */
export function gpuNicMap(topo: TopoPart, ibDevices: NcclIbDevice[], rules: TopoRules, gdrOk: (g: number, n: number, type: number) => boolean, fusion: NetFusion = { fused: [], physical: ibDevices.length, mode: 'none' }): GpuNicMap {
  const sys = fuseNets(buildSystem(topo, ibDevices, rules), fusion, topo);
  const { matrix: m, direct, relay } = effectivePaths(sys, rules, gdrOk);
  const gpus = sys.gpus.map((g, i) => {
    const n = localNetFor(m, i, i, 0, rules.local);
    if (n === null) return { bdf: g.bdf!, nic: null, path: null, gdr: null, gdrPath: null };
    // GPUDirect RDMA as `ncclx topo` decides it (report.ts): on the direct path, through the PXN relay's when there is one.
    const via = relay.get(`${i},${n}`) ?? i;
    const type = direct[via]![n]!.type;
    return { bdf: g.bdf!, nic: sys.nets[n]!.ib!.dev, path: PATH_NAMES[m[i]![n]!.type] ?? null, gdr: gdrOk(via, n, type), gdrPath: PATH_NAMES[type] ?? null };
  });
  const fns = new Map(topo.functions.map((f) => [f.bdf, f]));
  const degraded: string[] = [];
  const label = new Map<string, string>([...sys.nets.map((n) => [n.links.find((l) => l.type === 'NET')?.rem.bdf ?? '', n.ib!.dev] as [string, string]), ...topo.gpus.map((b, i) => [b, `GPU${i}`] as [string, string])]);
  for (const [bdf, name] of label) {
    const f = fns.get(bdf);
    if (f && linkDegraded(f, name.startsWith('GPU'))) degraded.push(`${name} ${bdf} ${f.currentLinkSpeed ?? '?'} x${f.currentLinkWidth ?? '?'} of ${f.maxLinkSpeed ?? '?'} x${f.maxLinkWidth ?? '?'}`);
  }
  return { gpus, degraded };
}

/** The paths to every CPU (what ncclGetLocalCpu and the CPU-routed paths read). */
function cpuPaths(sys: TopoSystem): Map<TNode, Map<TNode, Path>> {
  return new Map(sys.cpus.map((c) => [c, pathsTo(sys, c)]));
}

/** ncclGetLocalCpu: the CPU fewest hops from the GPU (`byCpu`: the paths to each CPU). */
function localCpu(byCpu: Map<TNode, Map<TNode, Path>>, gpu: TNode): TNode | null {
  let cpu: TNode | null = null;
  let hops = Infinity;
  for (const [c, m] of byCpu) {
    const h = m.get(gpu)!;
    if (h.hops > 0 && h.hops < hops) {
      cpu = c;
      hops = h.hops;
    }
  }
  return cpu;
}

/**
 * Without GPUDirect RDMA for a GPU/NET pair NCCL routes its traffic through the
 * CPU local to the GPU (paths.cc, "divert all traffic through the CPU"): the
 * path becomes GPU → local CPU → NET, its type the larger of the two, its
 * bandwidth the smaller. `ok(g, n, type)` says whether GPUDirect RDMA is usable.
 */
export function divertWithoutGdr(sys: TopoSystem, matrix: Path[][], ok: (g: number, n: number, type: number) => boolean, byCpu: Map<TNode, Map<TNode, Path>> = cpuPaths(sys)): { matrix: Path[][]; diverted: number } {
  let diverted = 0;
  const out = matrix.map((row, g) =>
    row.map((p, n) => {
      if (p.type >= PATH.DIS || ok(g, n, p.type)) return p;
      const cpu = localCpu(byCpu, sys.gpus[g]!);
      if (!cpu) return p;
      const toCpu = byCpu.get(cpu)!.get(sys.gpus[g]!)!;
      const cpuToNet = byCpu.get(cpu)!.get(sys.nets[n]!)!;
      diverted++;
      return { type: Math.max(toCpu.type, cpuToNet.type), bw: Math.min(toCpu.bw, cpuToNet.bw), hops: toCpu.hops + cpuToNet.hops, via: [...toCpu.via, ...cpuToNet.via.slice(1).reverse()] };
    }),
  );
  return { matrix: out, diverted };
}

/** Whether GPUs g and h are joined by NVLink (NCCL's path type NVL between them). */
export function nvlinked(sys: TopoSystem, g: number, h: number): { yes: boolean; bw: number } {
  const l = sys.gpus[g]!.links.find((x) => x.type === 'NVL' && x.rem === sys.gpus[h] && x.rem.kind === 'GPU');
  return { yes: !!l, bw: l?.bw ?? 0 };
}

/**
 * PXN by release: none before 2.12.7; 2.12.7–2.18.0 the first GPU (index
 * order) whose local NET is n, reached over NVLink, when this GPU's own path
 * is worse than PXB; from 2.18.1 ncclTopoGetLocalGpu(n), when it reaches n
 * within PXB and this GPU over NVLink, and has more bandwidth to n or this
 * GPU's path is worse than PXB (worse than PXN from 2.27.6, which differs
 * where C2C makes a path P2C), and from 2.30.3 when the relay has
 * GPUDirect RDMA to n for reads. "Over NVLink" is after NCCL_P2P_LEVEL: a
 * level below NVL sends every GPU pair through the CPU, and PXN goes.
 */
export type PxnRule = 'none' | 'first-peer' | 'local-gpu';

/** What else PXN asks of a relay, by release (TopoRules): see applyPxn. */
export interface PxnTerms {
  pxnType?: number;
  pxnAvoid?: number;
  /** ≥ 2.30.3: GPUDirect RDMA (read) from the relay to the NIC, given the relay's own path type. */
  relayGdr?: ((p: number, n: number, type: number) => boolean) | null;
  p2pLevel?: number | null;
}

export function applyPxn(sys: TopoSystem, matrix: Path[][], rule: PxnRule, localRule: LocalNetRule, t: PxnTerms = {}): { matrix: Path[][]; relay: Map<string, number> } {
  const pxnType = t.pxnType ?? PATH.PXB;
  const avoid = t.pxnAvoid ?? PATH.PXB;
  // "Is connected to us through NVLink": after ncclTopoComputePaths has sent the pairs NCCL_P2P_LEVEL forbids through the CPU.
  const overNvl = (p: number, g: number) => nvlinked(sys, p, g).yes && (t.p2pLevel == null || PATH.NVL <= t.p2pLevel);
  const relay = new Map<string, number>();
  if (rule === 'none' || !sys.gpus.some((g) => g.links.some((l) => l.type === 'NVL' && l.rem.kind === 'GPU'))) return { matrix, relay };
  const out = matrix.map((row) => row.slice());
  for (let n = 0; n < sys.nets.length; n++) {
    // The NIC's local GPU depends on the NIC only: asked once, not once per GPU.
    const localGpu = rule === 'first-peer' ? -1 : localGpuFor(matrix, n, localRule);
    for (let g = 0; g < sys.gpus.length; g++) {
      const own = matrix[g]![n]!;
      let peer = -1;
      if (rule === 'first-peer') {
        if (own.type <= PATH.PXB) continue;
        for (let p = 0; p < sys.gpus.length; p++) {
          if (p === g || localNetFor(matrix, p, p, 0, localRule) !== n) continue;
          if (matrix[p]![n]!.type > PATH.PXB || !overNvl(p, g)) continue;
          peer = p;
          break;
        }
      } else {
        const p = localGpu;
        if (p < 0 || p === g) continue;
        const pp = matrix[p]![n]!;
        if (pp.type <= pxnType && (!t.relayGdr || t.relayGdr(p, n, pp.type)) && overNvl(p, g) && (pp.bw > own.bw || own.type > avoid)) peer = p;
      }
      if (peer < 0) continue;
      const hop = nvlinked(sys, g, peer);
      const pp = matrix[peer]![n]!;
      out[g]![n] = { type: PATH.PXN, bw: Math.min(hop.bw, pp.bw), hops: pp.hops + 1, via: [sys.gpus[g]!, ...pp.via] };
      relay.set(`${g},${n}`, peer);
    }
  }
  return { matrix: out, relay };
}

/**
 * The GPU → NET paths NCCL works with (paths.cc, "Update paths for NICs"):
 * the direct ones, PXN through an NVLink peer where the release allows it,
 * then pairs without GPUDirect RDMA routed through the GPU's CPU. `gdrOk` is
 * asked with the relay GPU's own distance for a PXN pair, as ncclTopoCheckGdr does.
 */
export function effectivePaths(sys: TopoSystem, rules: Pick<TopoRules, 'local' | 'pxn' | 'p2c' | 'pxnType' | 'pxnAvoid' | 'pxnRelayGdr' | 'p2pLevel'>, gdrOk: (g: number, n: number, type: number) => boolean): { direct: Path[][]; matrix: Path[][]; relay: Map<string, number>; diverted: number } {
  const byCpu = cpuPaths(sys);
  const direct = rules.p2c ? mergeP2c(sys, pathMatrix(sys), byCpu) : pathMatrix(sys);
  const relayGdr = rules.pxnRelayGdr === 'required' ? gdrOk : rules.pxnRelayGdr === 'forbidden' ? () => false : null;
  const { matrix: pxn, relay } = applyPxn(sys, direct, rules.pxn, rules.local, { pxnType: rules.pxnType, pxnAvoid: rules.pxnAvoid, relayGdr, p2pLevel: rules.p2pLevel });
  const ok = (g: number, n: number, type: number) => {
    const r = relay.get(`${g},${n}`);
    return r !== undefined ? gdrOk(r, n, direct[r]![n]!.type) : gdrOk(g, n, type);
  };
  const { matrix, diverted } = divertWithoutGdr(sys, pxn, ok, byCpu);
  return { direct, matrix, relay, diverted };
}

/**
 * ≥ 2.27.3 ("update the GPU -> NIC path in the case of C2C + PHB"): a GPU that
 * reaches its local CPU over C2C, and a NIC that reaches that CPU at PHB, are
 * P2C apart.
 */
export function mergeP2c(sys: TopoSystem, matrix: Path[][], byCpu: Map<TNode, Map<TNode, Path>> = cpuPaths(sys)): Path[][] {
  return matrix.map((row, g) => {
    const cpu = localCpu(byCpu, sys.gpus[g]!);
    if (!cpu) return row;
    const toCpu = byCpu.get(cpu)!.get(sys.gpus[g]!)!.type;
    return row.map((p, n) => {
      const netToCpu = byCpu.get(cpu!)!.get(sys.nets[n]!)!.type;
      const merged = Math.max(toCpu, netToCpu) === PATH.PHB && Math.min(toCpu, netToCpu) === PATH.C2C;
      return merged && p.type > PATH.P2C ? { ...p, type: PATH.P2C } : p;
    });
  });
}
