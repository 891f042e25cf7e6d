// The topology in NCCL's NCCL_TOPO_FILE format (graph/xml.cc): <system> with a
// <cpu> per NUMA node, the PCI tree below each as NCCL would find it in sysfs
// (each device under its parent two levels up), and <nic><net name=…/></nic>
// under each NIC. NCCL fills the <gpu> and <net> attributes from NVML and the
// transport when it loads the file, so a container without /sys gets the host's
// PCI placement. Pure.

import type { TopoPart } from '../snapshot/topo-types.js';
import { netMbps, type TopoSystem } from './system.js';
import { maxOf } from '../list.js';
import type { GpuFacts } from './gpu-facts.js';

/** NCCL's XML reader has no entities: a value holding one of these cannot be written. */
const UNSAFE = /["<>&\n\r]/;

/** /sys/devices/system/node/nodeN/cpumap from a cpulist: 32-bit hex words, most significant first. */
export function cpumapOf(cpulist: string, minWords = 1): string | null {
  const cpus: number[] = [];
  for (const part of cpulist.split(',').map((s) => s.trim()).filter(Boolean)) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (!m) return null;
    const a = Number(m[1]);
    const b = m[2] !== undefined ? Number(m[2]) : a;
    if (b < a || b > 65535) return null;
    for (let c = a; c <= b; c++) cpus.push(c);
  }
  if (!cpus.length) return null;
  // The kernel prints nr_cpu_ids bits for every node: the same number of words everywhere.
  const words = new Array<number>(Math.max(minWords, Math.floor(maxOf(cpus) / 32) + 1)).fill(0);
  for (const c of cpus) words[Math.floor(c / 32)]! |= 1 << (c % 32);
  return words
    .reverse()
    .map((w) => (w >>> 0).toString(16).padStart(8, '0'))
    .join(',');
}

const ARCH: Record<string, string> = { x86_64: 'x86_64', aarch64: 'arm64', arm64: 'arm64', ppc64le: 'ppc64', ppc64: 'ppc64' };

export interface TopoXml {
  xml: string;
  /** What could not be written (a value NCCL's reader cannot hold) or is left for NCCL to fill. */
  notes: string[];
}

/**
 * What NCCL adds to the PCI tree on the node itself: each GPU's NVML facts
 * (<gpu dev sm rank gdr> with its <nvlink>s, xml.cc ncclTopoGetXmlFromGpu)
 * and each NET's transport properties (topo.cc ncclTopoPopulateNics). A
 * GPU without a known sm is written without <gpu>, left for NCCL to fill.
 */
export interface NodeFacts {
  gpus: GpuFacts[];
  /** GPUDirect RDMA as the IB transport reports it (null: unknown, left for NCCL). */
  gdr: boolean | null;
}

export function topoXml(topo: TopoPart, sys: TopoSystem, facts: NodeFacts | null = null): TopoXml {
  const fns = new Map(topo.functions.map((f) => [f.bdf, f]));
  const notes: string[] = [];
  const children = new Map<string, string[]>();
  for (const [child, parent] of sys.parents) {
    const list = children.get(parent) ?? [];
    list.push(child);
    children.set(parent, list);
  }
  const netsOf = new Map<string, { name: string; index: number; port: number; speed: number | null }[]>();
  // NETs with no PCI path, by the CPU NCCL hangs them from (xml.cc ncclTopoFillNet: the first <cpu>, as buildSystem chose it).
  const cpuNetsOf = new Map<string, { name: string; index: number; port: number; speed: number | null }[]>();
  const gpuOf = new Map((facts?.gpus ?? []).filter((g) => g.sm !== null).map((g) => [g.bdf, g]));
  for (const n of sys.nets) {
    const nic = n.links.find((l) => l.type === 'NET')?.rem;
    if (nic && !nic.bdf && n.ib) {
      const cpu = nic.links.find((l) => l.rem.kind === 'CPU')?.rem;
      if (!cpu) continue;
      const key = `CPU ${cpu.key}`;
      cpuNetsOf.set(key, [...(cpuNetsOf.get(key) ?? []), { name: n.ib.dev, index: n.ib.index, port: n.ib.port, speed: netMbps(n.ib) }]);
      continue;
    }
    if (!nic?.bdf || !n.ib) continue;
    // A vNIC is written as its physical <net>s, as NCCL_TOPO_DUMP_FILE holds them (NCCL dumps before fusing): NCCL fuses them again on load.
    const names = n.members ? [...new Set(n.members.map((m) => m.dev))] : [n.ib.dev];
    if (n.members) notes.push(`${n.ib.dev} (NET ${n.ib.index}) is a virtual NIC: written as its members ${names.join(', ')}, which NCCL fuses again when it loads the file`);
    const ib = n.ib;
    // NET attributes as the IB transport gives them (speed in Mb/s); a vNIC's members are left for NCCL, whose fusing renumbers them.
    const nets = n.members ? names.map((name) => ({ name, index: -1, port: 0, speed: null })) : [{ name: ib.dev, index: ib.index, port: ib.port, speed: netMbps(ib) }];
    netsOf.set(nic.bdf, [...(netsOf.get(nic.bdf) ?? []), ...nets]);
  }
  const attr = (name: string, v: string | number | null | undefined) => {
    if (v === null || v === undefined) return '';
    const s = String(v);
    if (UNSAFE.test(s)) {
      notes.push(`${name}="${s.replace(/[\n\r]/g, ' ')}" left out: NCCL's XML reader cannot hold it`);
      return '';
    }
    return ` ${name}="${s}"`;
  };
  const speedOf = (bdf: string): { speed: string | null; width: number } => {
    const f = fns.get(bdf);
    const port = f && f.path.length >= 2 ? fns.get(f.path[f.path.length - 2]!) : undefined;
    const n = (s: string | null | undefined) => (s ? parseFloat(s) : Infinity);
    const speed = port?.maxLinkSpeed && n(port.maxLinkSpeed) < n(f?.maxLinkSpeed) ? port.maxLinkSpeed : (f?.maxLinkSpeed ?? null);
    return { speed, width: Math.min(f?.maxLinkWidth ?? 0, port?.maxLinkWidth ?? 0) };
  };
  const out: string[] = ['<system version="1">'];
  /** <nic> and its <net>s at DEPTH, with the transport's properties when the node's facts are known. */
  const nicBlock = (nets: { name: string; index: number; port: number; speed: number | null }[], depth: number): void => {
    const pad = '  '.repeat(depth);
    const gdr = facts && facts.gdr !== null ? Number(facts.gdr) : null;
    out.push(`${pad}<nic>`);
    for (const n of nets) {
      const props = facts && n.index >= 0 ? `${attr('dev', n.index)}${attr('latency', 0)}${attr('speed', n.speed)}${attr('port', n.port)}${attr('gdr', gdr)}` : '';
      out.push(`${pad}  <net${attr('name', n.name)}${props}/>`);
    }
    out.push(`${pad}</nic>`);
  };
  const pci = (key: string, depth: number): void => {
    const [kind, bdf] = [key.slice(0, key.indexOf(':')), key.slice(key.indexOf(':') + 1)];
    const f = fns.get(bdf);
    const pad = '  '.repeat(depth);
    const { speed, width } = speedOf(bdf);
    const head = `${pad}<pci${attr('busid', bdf)}${attr('class', f?.class ?? (kind === 'NIC' ? '0x02' : null))}${attr('vendor', f?.vendor)}${attr('device', f?.device)}${attr('link_speed', speed ?? '')}${attr('link_width', width)}`;
    const kids = (children.get(bdf) ?? []).filter((k) => k !== key).sort((a, b) => (a.split(':').slice(1).join(':') < b.split(':').slice(1).join(':') ? -1 : 1));
    const nets = kind === 'NIC' ? (netsOf.get(bdf) ?? []) : [];
    const gpu = kind === 'GPU' ? gpuOf.get(bdf) : undefined;
    if (!kids.length && !nets.length && !gpu) {
      out.push(`${head}/>`);
      return;
    }
    out.push(`${head}>`);
    for (const k of kids) pci(k, depth + 1);
    const gdr = facts && facts.gdr !== null ? Number(facts.gdr) : null;
    if (gpu) {
      // The GPU's own support when known (NCCL asks CUDA), else the NICs' answer: NCCL needs both sides for GPUDirect RDMA.
      out.push(`${pad}  <gpu${attr('dev', gpu.dev)}${attr('sm', gpu.sm)}${attr('rank', gpu.dev)}${attr('gdr', gpu.gdr !== null ? Number(gpu.gdr) : gdr)}${gpu.nvlinks.length ? '>' : '/>'}`);
      for (const l of gpu.nvlinks) out.push(`${pad}    <nvlink${attr('target', l.target)}${attr('count', l.count)}${attr('tclass', l.tclass)}/>`);
      if (gpu.nvlinks.length) out.push(`${pad}  </gpu>`);
    }
    if (nets.length) nicBlock(nets, depth + 1);
    out.push(`${pad}</pci>`);
  };
  const lastCpu = Math.max(0, maxOf(topo.numaNodes.map((n) => maxOf((n.cpulist.match(/\d+/g) ?? ['0']).map(Number)))));
  const words = Math.floor(lastCpu / 32) + 1;
  const cpuKeys = [...new Set([...[...sys.parents.values()].filter((p) => p.startsWith('CPU ')), ...cpuNetsOf.keys()])].sort((a, b) => Number(a.slice(4)) - Number(b.slice(4)));
  for (const cpuKey of cpuKeys) {
    const numa = cpuKey.slice(4);
    const node = topo.numaNodes.find((n) => String(n.id) === numa);
    const affinity = node ? cpumapOf(node.cpulist, words) : null;
    if (!affinity) notes.push(`CPU ${numa}: no cpulist; NCCL reads the affinity from /sys when it loads the file`);
    const cpu = topo.cpu;
    out.push(`  <cpu${attr('numaid', numa)}${attr('affinity', affinity)}${attr('arch', cpu.arch ? (ARCH[cpu.arch] ?? cpu.arch) : null)}${attr('vendor', cpu.vendor)}${attr('familyid', cpu.family)}${attr('modelid', cpu.model)}>`);
    for (const k of (children.get(cpuKey) ?? []).sort((a, b) => (a.split(':').slice(1).join(':') < b.split(':').slice(1).join(':') ? -1 : 1))) pci(k, 2);
    const cpuNets = cpuNetsOf.get(cpuKey) ?? [];
    if (cpuNets.length) {
      nicBlock(cpuNets, 2);
      notes.push(`${cpuNets.map((n) => n.name).join(', ')}: not on the PCI tree: written under CPU ${numa}, where NCCL attaches a NIC with no PCI path (the first CPU it found)`);
    }
    out.push('  </cpu>');
  }
  out.push('</system>');
  return { xml: out.join('\n') + '\n', notes };
}
