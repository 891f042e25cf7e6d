// NCCL's topology graph built from a topology XML the way NCCL builds it
// (NVIDIA/nccl src/graph/topo.cc ncclTopoGetSystemFromXml and what it calls,
// paths.cc ncclTopoSetPaths / ncclTopoComputePaths / ncclTopoTrimSystem /
// ncclTopoCheckGdr, topo.cc ncclTopoGetLocal / ncclTopoGetLocalNet /
// ncclTopoGetLocalGpu): typed nodes in creation order, links kept sorted by
// bandwidth as ncclTopoConnectNodes keeps them, NVSwitches as one NVS node,
// and every bandwidth a 32-bit float, computed in NCCL's order, because the
// graph search (search.ts) compares and subtracts them. Release differences
// are TopoProfile flags (src/model/nccl/versions.ts, topoProfileFor). Pure.

import { strtoll0 } from '../nccl/cint.js';
import type { XmlNode } from './xml-read.js';
import type { TopoProfile } from '../nccl/versions.js';

const f32 = Math.fround;

/** Node types (topo.h). */
export const NT = { GPU: 0, PCI: 1, NVS: 2, CPU: 3, NIC: 4, NET: 5, DEV: 8 } as const;
export const NODE_TYPES = [NT.GPU, NT.PCI, NT.NVS, NT.CPU, NT.NIC, NT.NET, NT.DEV] as const;
/** Link types (topo.h); a path type starts as its link's. */
export const LT = { LOC: 0, NVL: 1, C2C: 3, PCI: 4, SYS: 9, NET: 10 } as const;
/** Path types (≥ 2.27.5 numbering, the order every decision uses). */
export const PT = { LOC: 0, NVL: 1, NVB: 2, C2C: 3, PIX: 4, PXB: 5, P2C: 6, PXN: 7, PHB: 8, SYS: 9, NET: 10, DIS: 11 } as const;
export const PT_NAMES = ['LOC', 'NVL', 'NVB', 'C2C', 'PIX', 'PXB', 'P2C', 'PXN', 'PHB', 'SYS', 'NET', 'DIS'] as const;
export type PtName = (typeof PT_NAMES)[number];

export const CPU_ARCH = { X86: 1, POWER: 2, ARM: 3 } as const;
export const CPU_VENDOR = { INTEL: 1, AMD: 2, ZHAOXIN: 3 } as const;
const INTEL_MODEL = { BDW: 1, SKL: 2, SRP: 3, ERP: 4 } as const;

export const LOC_BW = 5000;
const BW = { P9: 32, ARM: 6, AMD: 16, BDW_QPI: 6, SKL_QPI: 10, SRP_QPI: 22, ERP_QPI: 40, ZPI: 6, YONGFENG_ZPI: 9 };
export const MAXCHANNELS = 64;

export interface GLink {
  type: number;
  /** GB/s, a float; the graph search subtracts from it. */
  bw: number;
  rem: GNode;
}

export interface GPath {
  type: number;
  bw: number;
  /** The links from the start, in order (count = list.length). */
  list: GLink[];
}

export interface GNode {
  type: number;
  /** Unique within its type (NCCL's id, as text). */
  id: string;
  links: GLink[];
  /** paths[t][i]: the path from this node to node i of type t. */
  paths: (GPath[] | undefined)[];
  gpu?: { dev: number; rank: number; sm: number; gdr: number; parent: GNode | null };
  dev?: { dev: number; sm: number; nGpus: number; device: bigint };
  net?: { dev: number; asic: string; port: number; bw: number; latency: number; gdr: number; maxChannels: number; coll: number; localGpu: number; name: string };
  cpu?: { arch: number; vendor: number; model: number };
  pci?: { device: bigint };
  /** Channels whose search has used this GPU (search.ts). */
  used: Set<number>;
}

export interface GSystem {
  nodes: GNode[][];
  maxBw: number;
  totalBw: number;
  /** Whether the job spans more than this node (ncclTopoTrimSystem: GPUs here < ranks). */
  inter: number;
  profile: TopoProfile;
  /** NCCL's WARN lines, in order. */
  warnings: string[];
}

/** An initialisation NCCL refuses: its WARN text and the ncclResult_t it returns. */
export class NcclInitError extends Error {
  constructor(
    message: string,
    /** The ncclResult_t, or SIGSEGV where NCCL's own code crashes the process. */
    readonly result: 'ncclInvalidUsage' | 'ncclInternalError' | 'ncclSystemError' | 'SIGSEGV',
  ) {
    super(message);
  }
}

/** C `strtol(s, NULL, 0)` into an int (what xmlGetAttrInt returns). */
export function cInt(s: string): number {
  return Number(BigInt.asIntN(32, strtoll0(s).value));
}

/** C `strtof(s, NULL)`: the leading decimal number, 0 when none. */
function cFloat(s: string): number {
  const m = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?/.exec(s);
  return m ? f32(Number(m[0])) : 0;
}

/** busIdToInt64: the hex digits of a bus id, ':' and '.' skipped, up to the first other character. */
export function busIdToInt(busId: string): number {
  let hex = '';
  for (const c of busId) {
    if (c === '.' || c === ':') continue;
    if (!/[0-9a-fA-F]/.test(c) || hex.length >= 16) break;
    hex += c;
  }
  return hex ? parseInt(hex, 16) : 0;
}

/** kvConvertToInt: the first key that is a prefix of the value, else the fallback. */
function kv(value: string, dict: [string, number][], fallback: number): number {
  for (const [k, v] of dict) if (value.startsWith(k)) return v;
  return fallback;
}

const PCI_CLASS: [string, number][] = [['0x060400', NT.PCI], ['0x080100', NT.PCI], ['0x068000', NT.NVS], ['0x068001', NT.CPU], ['0x03', NT.GPU], ['0x02', NT.NIC]];
/** PCIe generation per lane in 100 Mb/s, by link_speed prefix (kvDictPciGen). */
const PCI_GEN: [string, number][] = [
  ['2.5 GT/s', 15], ['5 GT/s', 30], ['8 GT/s', 60], ['16 GT/s', 120], ['32 GT/s', 240],
  ['2.5 GT/s PCIe', 15], ['5.0 GT/s PCIe', 30], ['8.0 GT/s PCIe', 60], ['16.0 GT/s PCIe', 120], ['32.0 GT/s PCIe', 240], ['64.0 GT/s PCIe', 480],
];
const CPU_ARCHS: [string, number][] = [['x86_64', CPU_ARCH.X86], ['arm64', CPU_ARCH.ARM], ['ppc64', CPU_ARCH.POWER]];
const CPU_VENDORS: [string, number][] = [['GenuineIntel', CPU_VENDOR.INTEL], ['AuthenticAMD', CPU_VENDOR.AMD], ['CentaurHauls', CPU_VENDOR.ZHAOXIN], ['  Shanghai  ', CPU_VENDOR.ZHAOXIN]];

/** ncclTopoNVLinkBw: GB/s per NVLink by compute capability. */
export function nvlinkBw(sm: number, p: TopoProfile): number {
  const v = sm >= 100 ? p.nvlBw.sm100 : sm >= 90 ? p.nvlBw.sm90 : sm === 86 ? 12 : sm >= 80 ? p.nvlBw.sm80 : sm >= 70 ? p.nvlBw.sm70 : sm >= 60 ? 18 : p.nvlBw.sm80;
  return f32(v);
}

function attr(n: XmlNode, k: string): string | undefined {
  return n.attrs[k];
}
/** xmlGetAttrStr: a missing attribute fails initialisation. */
function need(n: XmlNode, k: string): string {
  const v = n.attrs[k];
  if (v === undefined) throw new NcclInitError(`Attribute ${k} of node ${n.name} not found`, 'ncclInternalError');
  return v;
}
const intDefault = (n: XmlNode, k: string, d: number): number => (n.attrs[k] !== undefined ? cInt(n.attrs[k]!) : d);

function newNode(sys: GSystem, type: number, id: string): GNode {
  const n: GNode = { type, id, links: [], paths: [], used: new Set() };
  sys.nodes[type]!.push(n);
  return n;
}
const findNode = (sys: GSystem, type: number, id: string): GNode | undefined => sys.nodes[type]!.find((n) => n.id === id);

/** ncclTopoConnectNodes: one link per (node, type), bandwidths added, kept sorted (stable, largest first). */
export function connectNodes(node: GNode, rem: GNode, type: number, bw: number): void {
  let i = node.links.findIndex((l) => l.rem === rem && l.type === type);
  if (i < 0) {
    node.links.push({ type, bw: 0, rem });
    i = node.links.length - 1;
  }
  const link = node.links[i]!;
  link.bw = f32(link.bw + bw);
  while (i > 0 && node.links[i - 1]!.bw < link.bw) {
    node.links[i] = node.links[i - 1]!;
    i--;
  }
  node.links[i] = link;
}

function removeNode(sys: GSystem, node: GNode): void {
  for (const list of sys.nodes) for (const n of list) if (n !== node) n.links = n.links.filter((l) => l.rem !== node);
  if (node.type === NT.DEV) for (const g of sys.nodes[NT.GPU]!) if (g.gpu!.parent === node) g.gpu!.parent = null;
  const list = sys.nodes[node.type]!;
  list.splice(list.indexOf(node), 1);
}

function pciDevice(x: XmlNode): bigint {
  let v = 0n;
  const part = (k: string, shift: bigint) => {
    const s = attr(x, k);
    if (s !== undefined) v += BigInt.asIntN(64, strtoll0(s).value) << shift;
  };
  part('vendor', 48n);
  part('device', 32n);
  part('subsystem_vendor', 16n);
  part('subsystem_device', 0n);
  return BigInt.asUintN(64, v);
}

/** The NET's ASIC as NCCL reads its guid (≥ 2.28.7 strtoull base 16; before sscanf "0x%lx", 0 when that fails); the device number without a guid. */
function guidAsic(guid: string | undefined, dev: number, p: TopoProfile): string {
  if (guid === undefined) return String(dev);
  if (p.guidStrtoull) return BigInt.asUintN(64, BigInt(`0x${/^\s*(?:0[xX])?([0-9a-fA-F]*)/.exec(guid)![1] || '0'}`)).toString();
  const m = /^0x([0-9a-fA-F]+)/.exec(guid);
  return m ? BigInt.asUintN(64, BigInt(`0x${m[1]}`)).toString() : '0';
}

function addNet(sys: GSystem, x: XmlNode, nic: GNode): void {
  const dev = cInt(need(x, 'dev'));
  const net = newNode(sys, NT.NET, String(dev));
  const mbps0 = intDefault(x, 'speed', 0);
  const mbps = mbps0 <= 0 ? 10000 : mbps0;
  const bw = f32(mbps / 8000);
  const guid = attr(x, 'guid');
  net.net = {
    dev,
    asic: guidAsic(guid, dev, sys.profile),
    port: intDefault(x, 'port', 0),
    bw,
    latency: attr(x, 'latency') !== undefined ? cFloat(attr(x, 'latency')!) : 0,
    gdr: intDefault(x, 'gdr', 0),
    maxChannels: intDefault(x, 'maxconn', MAXCHANNELS),
    coll: intDefault(x, 'coll', 0),
    localGpu: -1,
    name: attr(x, 'name') ?? '',
  };
  connectNodes(nic, net, LT.NET, bw);
  connectNodes(net, nic, LT.NET, bw);
}

function addNic(sys: GSystem, x: XmlNode, nic: GNode): void {
  for (const s of x.subs) {
    if (s.name !== 'net' || attr(s, 'dev') === undefined) continue;
    // From 2.29.7 a GIN- or RMA-only device (net="0") is no network device.
    if (!sys.profile.netAttr || intDefault(s, 'net', 1)) addNet(sys, s, nic);
  }
}

function addGpu(sys: GSystem, xPci: XmlNode, xGpu: XmlNode, parent: GNode, busId: number, bw: number): void {
  const p = sys.profile;
  const gpuAttrs = () => ({ rank: cInt(need(xGpu, 'rank')), sm: cInt(need(xGpu, 'sm')), dev: cInt(need(xGpu, 'dev')), gdr: cInt(need(xGpu, 'gdr')) });
  if (!p.devNodes) {
    const g = newNode(sys, NT.GPU, String(busId));
    g.gpu = { ...gpuAttrs(), parent: null };
    connectNodes(g, parent, LT.PCI, bw);
    connectNodes(parent, g, LT.PCI, bw);
    return;
  }
  let dev = findNode(sys, NT.DEV, String(busId));
  if (!dev) {
    dev = newNode(sys, NT.DEV, String(busId));
    dev.dev = { device: pciDevice(xPci), sm: cInt(need(xGpu, 'sm')), dev: cInt(need(xGpu, 'dev')), nGpus: 0 };
    connectNodes(dev, parent, LT.PCI, bw);
    connectNodes(parent, dev, LT.PCI, bw);
  }
  const g = newNode(sys, NT.GPU, `${busId}/${dev.dev!.nGpus}`);
  g.gpu = { ...gpuAttrs(), parent: dev };
  connectNodes(dev, g, LT.LOC, LOC_BW);
  connectNodes(g, dev, LT.LOC, LOC_BW);
  dev.dev!.nGpus++;
}

function addPci(sys: GSystem, x: XmlNode, parent: GNode, numaId: number): void {
  let type = kv(need(x, 'class'), PCI_CLASS, NT.PCI);
  const busId = busIdToInt(need(x, 'busid'));
  let width = cInt(need(x, 'link_width'));
  const speed = kv(need(x, 'link_speed'), PCI_GEN, 60);
  if (width === 0) width = 16;
  const bw = f32((width * speed) / 80);
  for (const g of x.subs) {
    if (g.name !== 'gpu') continue;
    if (attr(g, 'rank') === undefined) return;
    addGpu(sys, x, g, parent, busId, bw);
  }
  let node: GNode | undefined;
  const xNic = x.subs.find((s) => s.name === 'nic');
  if (xNic) {
    type = NT.NIC;
    const id = `${numaId}/${busId}`;
    let nic = findNode(sys, NT.NIC, id);
    if (!nic) node = nic = newNode(sys, NT.NIC, id);
    addNic(sys, xNic, nic);
  } else if (type === NT.PCI) {
    node = newNode(sys, NT.PCI, String(busId));
    node.pci = { device: pciDevice(x) };
    for (const s of x.subs) if (s.name !== 'pcilink') addPci(sys, s, node, numaId);
  }
  if (node) {
    connectNodes(node, parent, LT.PCI, bw);
    connectNodes(parent, node, LT.PCI, bw);
  }
}

function addCpu(sys: GSystem, x: XmlNode): void {
  const numaId = cInt(need(x, 'numaid'));
  const cpu = newNode(sys, NT.CPU, String(numaId));
  const arch = kv(need(x, 'arch'), CPU_ARCHS, 0);
  let vendor = -1;
  let model = -1;
  if (arch === CPU_ARCH.X86) {
    vendor = kv(need(x, 'vendor'), CPU_VENDORS, 0);
    if (vendor === CPU_VENDOR.INTEL) {
      const fam = cInt(need(x, 'familyid'));
      const mod = cInt(need(x, 'modelid'));
      const late = sys.profile.intelSrpErp;
      model = late && fam === 6 && mod >= 0xcf ? INTEL_MODEL.ERP : late && fam === 6 && mod >= 0x8f ? INTEL_MODEL.SRP : fam === 6 && mod >= 0x55 ? INTEL_MODEL.SKL : INTEL_MODEL.BDW;
    } else if (vendor === CPU_VENDOR.ZHAOXIN) {
      const fam = cInt(need(x, 'familyid'));
      const mod = cInt(need(x, 'modelid'));
      if (fam === 7 && mod === 0x5b) model = 1;
    }
  }
  cpu.cpu = { arch, vendor, model };
  for (const s of x.subs) {
    if (s.name === 'pci') addPci(sys, s, cpu, numaId);
    if (s.name === 'nic') {
      const id = `${numaId}/0`;
      let nic = findNode(sys, NT.NIC, id);
      if (!nic) {
        nic = newNode(sys, NT.NIC, id);
        connectNodes(cpu, nic, LT.PCI, LOC_BW);
        connectNodes(nic, cpu, LT.PCI, LOC_BW);
      }
      addNic(sys, s, nic);
    }
  }
}

const NODE_NAMES: Record<number, string> = { [NT.GPU]: 'GPU', [NT.PCI]: 'PCI', [NT.NVS]: 'NVS', [NT.CPU]: 'CPU', [NT.NIC]: 'NIC', [NT.NET]: 'NET', [NT.DEV]: 'DEV' };
/** A node as NCCL's logs name it: type/bus id in hex. */
const nodeName = (n: GNode) => `${NODE_NAMES[n.type] ?? n.type}/${/^\d+$/.test(n.id) ? BigInt(n.id).toString(16) : n.id}`;
/**
 * findLocalCpu: up the PCI tree to a CPU, link by link in the node's order (largest bandwidth first).
 * The walk follows the links TopoProfile.localCpuWalk names. Without the 2.26.2 guard NCCL's recursion
 * has no memory, so a walk that comes back to a node on its way (a switch whose widest PCI link leads
 * down, not up) never ends: NCCL overflows its stack and the process dies, which is what ncclx reports.
 */
function findLocalCpu(sys: GSystem, start: GNode): GNode | null {
  const walk = sys.profile.localCpuWalk;
  const onWay = new Set<GNode>();
  const visit = (node: GNode, from: GNode | null): GNode | null => {
    if (node.type === NT.CPU) return node;
    if (walk !== 'switches-from' && onWay.has(node)) {
      throw new NcclInitError(`findLocalCpu comes back to ${nodeName(node)} on its way up from ${nodeName(start)} and recurses without end (no guard before 2.26.2): the process dies of a stack overflow`, 'SIGSEGV');
    }
    onWay.add(node);
    for (const l of node.links) {
      if (l.type !== LT.PCI) continue;
      if (walk !== 'any-pci' && l.rem.type !== NT.PCI && l.rem.type !== NT.CPU) continue;
      if (walk === 'switches-from' && l.rem === from) continue;
      const c = visit(l.rem, node);
      if (c) return c;
    }
    onWay.delete(node);
    return null;
  };
  return visit(start, null);
}

/** The node a <gpu>'s NVLinks and C2C start from: its DEV (≥ 2.30.3) or the GPU itself. */
function gpuEnd(sys: GSystem, busId: number): GNode | undefined {
  return sys.profile.devNodes ? findNode(sys, NT.DEV, String(busId)) : findNode(sys, NT.GPU, String(busId));
}
const endSm = (n: GNode) => (n.dev ? n.dev.sm : n.gpu!.sm);

function addNvLinks(sys: GSystem, x: XmlNode, parentBusId: string | undefined): void {
  if (x.name === 'nvlink') {
    const end = gpuEnd(sys, busIdToInt(parentBusId ?? ''));
    if (!end) throw new NcclInitError(`Add NVLink error : could not find GPU ${parentBusId}`, 'ncclInternalError');
    const count = cInt(need(x, 'count'));
    const targetType = kv(need(x, 'tclass'), PCI_CLASS, NT.PCI);
    const bw = f32(count * nvlinkBw(endSm(end), sys.profile));
    if (targetType === NT.GPU) {
      const rem = gpuEnd(sys, busIdToInt(need(x, 'target')));
      if (rem) connectNodes(end, rem, LT.NVL, bw);
    } else {
      let remote: GNode | null;
      if (targetType === NT.CPU) remote = findLocalCpu(sys, end);
      else remote = sys.nodes[NT.NVS]![0] ?? newNode(sys, NT.NVS, '0');
      if (remote) {
        connectNodes(end, remote, LT.NVL, bw);
        connectNodes(remote, end, LT.NVL, bw);
      }
    }
    return;
  }
  const busId = attr(x, 'busid');
  for (const s of x.subs) addNvLinks(sys, s, busId ?? parentBusId);
}

function addC2c(sys: GSystem, x: XmlNode, parentBusId: string | undefined): void {
  if (x.name === 'c2c') {
    if (!sys.profile.c2cLinks) return;
    const end = gpuEnd(sys, busIdToInt(parentBusId ?? ''));
    if (!end) throw new NcclInitError(`Add C2C error : could not find GPU ${parentBusId}`, 'ncclInternalError');
    const bw = f32((cInt(need(x, 'bw')) * cInt(need(x, 'count'))) / 1000);
    const cpu = findLocalCpu(sys, end);
    if (!cpu) return;
    const type = sys.profile.c2cLinkType === 'C2C' ? LT.C2C : LT.NVL;
    connectNodes(end, cpu, type, bw);
    connectNodes(cpu, end, type, bw);
    return;
  }
  const busId = attr(x, 'busid');
  for (const s of x.subs) addC2c(sys, s, busId ?? parentBusId);
}

function addPciLinks(sys: GSystem, x: XmlNode, parentBusId: string | undefined): void {
  if (x.name === 'pcilink') {
    const pci = findNode(sys, NT.PCI, String(busIdToInt(parentBusId ?? '')));
    if (!pci) throw new NcclInitError(`Add PCI Link error : could not find PCI SW ${parentBusId}`, 'ncclInternalError');
    const rem = findNode(sys, NT.PCI, String(busIdToInt(need(x, 'target'))));
    if (rem) connectNodes(pci, rem, LT.LOC, LOC_BW);
    return;
  }
  const busId = attr(x, 'busid');
  for (const s of x.subs) addPciLinks(sys, s, busId ?? parentBusId);
}

/** getBcmGen: Broadcom PEX Gen4 (any level) or Gen5 (subsystem 0xxx at the top, 1xxx below). */
function bcmGen(device: bigint, level: number, p: TopoProfile): number {
  const top = device & 0xfffffffffffff000n;
  if (p.bcmGen4 && top === 0x1000c0101000a000n) return 4;
  if (p.bcmGen5 && top === (0x1000c03010000000n | BigInt(level * 0x1000))) return 5;
  return 0;
}

/** ncclTopoFlattenBcmSwitches: a Broadcom switch's sub-switches of its generation fold into it. */
function flattenBcm(sys: GSystem): void {
  for (let s = 0; s < sys.nodes[NT.PCI]!.length; s++) {
    const sw = sys.nodes[NT.PCI]![s]!;
    const gen = bcmGen(sw.pci!.device, 0, sys.profile);
    if (!gen) continue;
    const subs: GNode[] = [];
    sw.links = sw.links.filter((l) => {
      if (l.rem.type !== NT.PCI || bcmGen(l.rem.pci!.device, 1, sys.profile) !== gen) return true;
      subs.push(l.rem);
      return false;
    });
    for (const sub of subs) {
      for (const l of sub.links) {
        if (l.rem === sw) continue;
        sw.links.push({ ...l });
        const back = l.rem.links.find((b) => b.rem === sub);
        if (back) back.rem = sw;
      }
      removeNode(sys, sub);
    }
    sw.pci!.device |= 0xffffn;
    s = -1;
  }
}

function interCpuBw(cpu: GNode, profile: TopoProfile): number {
  const c = cpu.cpu!;
  if (c.arch === CPU_ARCH.POWER) return BW.P9;
  if (c.arch === CPU_ARCH.ARM) return BW.ARM;
  let bw = LOC_BW;
  if (c.arch === CPU_ARCH.X86 && c.vendor === CPU_VENDOR.INTEL) bw = c.model === INTEL_MODEL.ERP ? BW.ERP_QPI : c.model === INTEL_MODEL.SRP ? BW.SRP_QPI : c.model === INTEL_MODEL.SKL ? BW.SKL_QPI : BW.BDW_QPI;
  if (c.arch === CPU_ARCH.X86 && c.vendor === CPU_VENDOR.AMD && profile.amdInterCpuBw) bw = BW.AMD;
  if (c.arch === CPU_ARCH.X86 && c.vendor === CPU_VENDOR.ZHAOXIN) bw = c.model === 1 ? BW.YONGFENG_ZPI : BW.ZPI;
  return bw;
}

/** ncclTopoSort: below each CPU, every node's link up the tree goes last (NVLinks first, PCI down, PCI up, SYS). */
function sortTree(node: GNode, up: GNode | null): void {
  if (up) {
    const i = node.links.findIndex((l) => l.rem === up);
    if (i >= 0) node.links.push(node.links.splice(i, 1)[0]!);
  }
  for (const l of [...node.links]) if (l.type === LT.PCI && l.rem !== up) sortTree(l.rem, node);
}

/** ncclTopoGetSystemFromXml: the graph of a (filled, trimmed) topology XML. */
export function systemFromXml(system: XmlNode, profile: TopoProfile): GSystem {
  const sys: GSystem = { nodes: [[], [], [], [], [], [], [], [], []], maxBw: 0, totalBw: 0, inter: 0, profile, warnings: [] };
  for (const s of system.subs) if (s.name === 'cpu') addCpu(sys, s);
  addNvLinks(sys, system, undefined);
  addC2c(sys, system, undefined);
  addPciLinks(sys, system, undefined);
  flattenBcm(sys);
  const cpus = sys.nodes[NT.CPU]!;
  for (const a of cpus) for (const b of cpus) if (a !== b) connectNodes(a, b, LT.SYS, interCpuBw(a, sys.profile));
  for (const c of cpus) sortTree(c, null);
  return sys;
}

/**
 * What ncclTopoGetSystem does to a topology file before building the graph,
 * with every GPU of the file a local rank and every <net> a device of the
 * network plugin: ranks in PCI bus order (`rank`, `gdr` 1 unless the file
 * says), NET devices numbered in document order with the plugin's
 * properties where the file has none, then ncclTopoTrimXml (branches with
 * no GPU or NET go). Returns a new tree.
 */
/**
 * Whether NCCL's own code crashes loading this <system> at this release (TopoProfile.localCpuWalk: a
 * walk from a GPU to its CPU that never ends): the crash, or null when it loads or fails otherwise.
 */
export function loadCrash(system: XmlNode, profile: TopoProfile): NcclInitError | null {
  try {
    systemFromXml(fillAndTrim(system), profile);
  } catch (e) {
    if (!(e instanceof NcclInitError)) throw e;
    if (e.result === 'SIGSEGV') return e;
  }
  return null;
}

export function fillAndTrim(system: XmlNode, collnetPlugin = false): XmlNode {
  const clone = (n: XmlNode): XmlNode => ({ name: n.name, attrs: { ...n.attrs }, subs: n.subs.map(clone) });
  const root = clone(system);
  const gpus: { bus: number; g: XmlNode }[] = [];
  const nets: XmlNode[] = [];
  const walk = (n: XmlNode, parent: XmlNode | null) => {
    if (n.name === 'gpu' && parent?.attrs['busid'] !== undefined) gpus.push({ bus: busIdToInt(parent.attrs['busid']!), g: n });
    if (n.name === 'net') nets.push(n);
    for (const s of n.subs) walk(s, n);
  };
  walk(root, null);
  const keep = new Set<XmlNode>();
  gpus.sort((a, b) => a.bus - b.bus).forEach(({ g }, r) => {
    g.attrs['rank'] = String(r);
    g.attrs['gdr'] ??= '1';
    keep.add(g);
  });
  nets.forEach((n, dev) => {
    n.attrs['dev'] = String(dev);
    for (const [k, v] of [['latency', '0'], ['speed', '100000'], ['port', '1'], ['guid', String(dev)], ['maxconn', '65536'], ['gdr', '1']] as const) n.attrs[k] ??= v;
    // A CollNet plugin offers every device for CollNet (ncclTopoPopulateNics sets coll), unless the file says.
    if (collnetPlugin) n.attrs['coll'] ??= '1';
    keep.add(n);
  });
  const trim = (n: XmlNode): number => {
    if (keep.has(n)) return 1;
    let kept = 0;
    for (const s of [...n.subs]) {
      const k = trim(s);
      kept += k;
      if (k === 0 && ['pci', 'cpu', 'nic', 'net'].includes(s.name)) n.subs.splice(n.subs.indexOf(s), 1);
    }
    return kept;
  };
  trim(root);
  return root;
}
