// An NCCL topology XML (NCCL_TOPO_FILE, or a dump from NCCL_TOPO_DUMP_FILE)
// read back into the shape the probe gives (TopoPart), so the same rules run
// on it. NCCL's files are attributes only: <system version>, <cpu numaid
// affinity arch vendor familyid modelid>, nested <pci busid class vendor
// device link_speed link_width>, <gpu dev …> with <nvlink target count> and
// <c2c count bw>, <nic> with <net name dev speed port …>. Pure.

import { UserError } from '../errors.js';
import type { TopoFunction, TopoPart } from '../snapshot/topo-types.js';

export interface XmlNode {
  name: string;
  attrs: Record<string, string>;
  subs: XmlNode[];
}

/**
 * What NCCL's XML reader (graph/xml.cc) holds, in the release that holds most:
 * elements (MAX_NODES 1024 up to 2.20; NCCL_TOPO_XML_MAX_NODES 256 from 2.21),
 * children of one element (MAX_SUBS 32 up to 2.20, 128, 640 in 2.30) and a
 * name or value (MAX_STR_LEN 255 with its NUL). Past any of them every release
 * fails to load the file, so ncclx refuses it too: the reader never holds
 * more than that, and the tree is at most that deep.
 */
export const XML_LIMITS = { elements: 1024, subs: 640, text: 254 } as const;

/** NCCL's XML subset: tags and double-quoted attributes, comments and a declaration; no text content, no entities. */
export function parseXml(text: string, what: string): XmlNode {
  const root: XmlNode = { name: '#root', attrs: {}, subs: [] };
  const stack: XmlNode[] = [root];
  let i = 0;
  let elements = 0;
  const fail = (why: string): never => {
    throw new UserError(`${what}: not an NCCL topology XML (${why} at offset ${i})`);
  };
  const beyond = (why: string): never => {
    throw new UserError(`${what}: ${why}, more than NCCL's XML reader holds in any release: NCCL fails to load it (at offset ${i})`);
  };
  while (i < text.length) {
    const lt = text.indexOf('<', i);
    if (lt < 0) {
      if (text.slice(i).trim()) fail('text outside a tag');
      break;
    }
    if (text.slice(i, lt).trim()) fail('text outside a tag');
    i = lt;
    if (text.startsWith('<!--', i)) {
      const end = text.indexOf('-->', i + 4);
      if (end < 0) fail('an unterminated comment');
      i = end + 3;
      continue;
    }
    if (text.startsWith('<?', i)) {
      const end = text.indexOf('?>', i + 2);
      if (end < 0) fail('an unterminated declaration');
      i = end + 2;
      continue;
    }
    const gt = text.indexOf('>', i);
    if (gt < 0) fail('an unterminated tag');
    const body = text.slice(i + 1, gt);
    i = gt + 1;
    if (body.startsWith('/')) {
      const name = body.slice(1).trim();
      const top = stack.pop();
      if (!top || top.name !== name || stack.length === 0) fail(`</${name}> closes nothing open`);
      continue;
    }
    const selfClosing = body.endsWith('/');
    const inner = selfClosing ? body.slice(0, -1) : body;
    const m = /^([A-Za-z_][\w-]*)/.exec(inner);
    if (!m) fail('a tag without a name');
    if (++elements > XML_LIMITS.elements) beyond(`more than ${XML_LIMITS.elements} elements`);
    if (m![1]!.length > XML_LIMITS.text) beyond(`a tag name longer than ${XML_LIMITS.text} characters`);
    const node: XmlNode = { name: m![1]!, attrs: {}, subs: [] };
    const rest = inner.slice(m![0].length);
    const attrRe = /\s*([A-Za-z_][\w-]*)\s*=\s*"([^"]*)"/y;
    let k = 0;
    for (;;) {
      attrRe.lastIndex = k;
      const a = attrRe.exec(rest);
      if (!a) break;
      if (a[1]!.length > XML_LIMITS.text || a[2]!.length > XML_LIMITS.text) beyond(`an attribute longer than ${XML_LIMITS.text} characters in <${node.name}>`);
      node.attrs[a[1]!] = a[2]!;
      k = attrRe.lastIndex;
    }
    if (rest.slice(k).trim()) fail(`an attribute ncclx cannot read in <${node.name}>`);
    const parent = stack[stack.length - 1]!;
    if (parent !== root && parent.subs.length >= XML_LIMITS.subs) beyond(`more than ${XML_LIMITS.subs} elements in one <${parent.name}>`);
    parent.subs.push(node);
    if (!selfClosing) stack.push(node);
  }
  if (stack.length !== 1) fail(`<${stack[stack.length - 1]!.name}> is not closed`);
  const system = root.subs.find((s) => s.name === 'system');
  if (!system) throw new UserError(`${what}: not an NCCL topology XML (no <system>)`);
  return system;
}

const BDF = /^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$/;

export interface TopoFromXml {
  topo: TopoPart;
  /** RDMA device (net name) → the PCI function it sits under in the file. */
  nets: Map<string, string>;
  /** RDMA device (net name) → the speed the file gives it, Mb/s (NCCL keeps the file's value over the plugin's). */
  netSpeeds: Map<string, number>;
  notes: string[];
}

/**
 * The file's tree as a TopoPart: each PCI function gets a path that makes the
 * parent walk find the file's parent, and the link attributes as NCCL wrote
 * them.
 */
export function topoFromXml(system: XmlNode, what: string): TopoFromXml {
  const functions: TopoFunction[] = [];
  const gpus: string[] = [];
  const nets = new Map<string, string>();
  const netSpeeds = new Map<string, number>();
  const notes: string[] = [];
  const nvl = new Map<string, Map<string, number>>();
  /** NVLinks to an NVSwitch (tclass 0x068000), per GPU: NCCL joins every such GPU through one NVS node. */
  const nvs = new Map<string, number>();
  const numaNodes: TopoPart['numaNodes'] = [];
  const seen = new Set<string>();
  let cpuInfo: TopoPart['cpu'] = { arch: null, vendor: null, family: null, model: null };
  // The PCI tree in document order (depth first, as NCCL reads it), with an explicit stack: the file may nest as deep as it has elements.
  const walk = (top: XmlNode, topPath: string[], numa: number | null): void => {
    const stack: { node: XmlNode; parentPath: string[]; next: number }[] = [{ node: top, parentPath: topPath, next: 0 }];
    while (stack.length) {
      const frame = stack[stack.length - 1]!;
      const s = frame.node.subs[frame.next++];
      if (!s) {
        stack.pop();
        continue;
      }
      const path = place(s, frame.parentPath, numa);
      if (path) stack.push({ node: s, parentPath: path, next: 0 });
    }
  };
  /** One <pci> element: its function (and GPU, NVLinks, NICs) recorded; the path its children hang from, or null when it is not one to descend into. */
  const place = (s: XmlNode, parentPath: string[], numa: number | null): string[] | null => {
    if (s.name !== 'pci') return null;
    const bdf = (s.attrs['busid'] ?? '').toLowerCase();
    if (!BDF.test(bdf)) {
      notes.push(`<pci busid="${s.attrs['busid'] ?? ''}"> is not a PCI bus id: left out`);
      return null;
    }
    if (seen.has(bdf)) {
      notes.push(`<pci busid="${bdf}"> appears more than once: the first is kept`);
      return null;
    }
    seen.add(bdf);
    // Two components below the parent (…, P, bdf, bdf), so the parent walk lands on P, or on the
    // CPU when P is the CPU's root complex; the port of each function is itself, so the link is
    // the file's link_speed/link_width (NCCL wrote them as the device/port minimum).
    const path = [...parentPath, bdf, bdf];
    const width = s.attrs['link_width'] !== undefined && /^\d+$/.test(s.attrs['link_width']) ? Number(s.attrs['link_width']) : null;
    functions.push({ bdf, path, class: s.attrs['class'] ?? null, vendor: s.attrs['vendor'] ?? null, device: s.attrs['device'] ?? null, subsystemVendor: s.attrs['subsystem_vendor'] ?? null, subsystemDevice: s.attrs['subsystem_device'] ?? null, numaNode: numa, maxLinkSpeed: s.attrs['link_speed'] || null, maxLinkWidth: width, currentLinkSpeed: null, currentLinkWidth: null });
    const gpu = s.subs.find((x) => x.name === 'gpu');
    if (gpu || (s.attrs['class'] ?? '').startsWith('0x03')) {
      gpus.push(bdf);
      for (const l of gpu?.subs ?? []) {
        if (l.name !== 'nvlink') continue;
        const t = (l.attrs['target'] ?? '').toLowerCase();
        const count = Number(l.attrs['count'] ?? '0');
        // NVLinks per GPU pair: a few dozen at most (NVML_NVLINK_MAX_LINKS).
        if (!(count > 0 && count <= 255)) continue;
        if ((l.attrs['tclass'] ?? '').startsWith('0x068000')) {
          nvs.set(bdf, Math.min(255, (nvs.get(bdf) ?? 0) + count));
          continue;
        }
        if (BDF.test(t)) {
          const m = nvl.get(bdf) ?? new Map<string, number>();
          m.set(t, count);
          nvl.set(bdf, m);
        }
      }
    }
    for (const nic of s.subs.filter((x) => x.name === 'nic')) {
      for (const n of nic.subs.filter((x) => x.name === 'net' && x.attrs['name'])) {
        nets.set(n.attrs['name']!, bdf);
        if (/^\d+$/.test(n.attrs['speed'] ?? '')) netSpeeds.set(n.attrs['name']!, Number(n.attrs['speed']));
      }
    }
    return path;
  };
  for (const cpu of system.subs.filter((s) => s.name === 'cpu')) {
    const numa = /^-?\d+$/.test(cpu.attrs['numaid'] ?? '') ? Number(cpu.attrs['numaid']) : 0;
    if (!numaNodes.some((n) => n.id === numa)) numaNodes.push({ id: numa, cpulist: '' });
    const arch = cpu.attrs['arch'] ?? null;
    cpuInfo = {
      arch: arch === 'arm64' ? 'aarch64' : arch,
      vendor: cpu.attrs['vendor'] ?? cpuInfo.vendor,
      family: cpu.attrs['familyid'] !== undefined ? Number(cpu.attrs['familyid']) : cpuInfo.family,
      model: cpu.attrs['modelid'] !== undefined ? Number(cpu.attrs['modelid']) : cpuInfo.model,
    };
    walk(cpu, [`pci-cpu${numa}`], numa);
  }
  if (!gpus.length && !nets.size) throw new UserError(`${what}: the topology XML holds no GPU and no NIC`);
  const order = [...gpus].sort();
  // Links between the file's GPUs, and through the NVSwitch: GPU → NVS → GPU carries the smaller side's links.
  const through = (a: string, b: string) => Math.min(nvs.get(a) ?? 0, nvs.get(b) ?? 0);
  const count = (a: string, b: string) => (a === b ? 0 : Math.max(nvl.get(a)?.get(b) ?? nvl.get(b)?.get(a) ?? 0, through(a, b)));
  const gpuLinks = order.some((a) => order.some((b) => count(a, b) > 0));
  const nvlink = gpuLinks ? { links: order.map((a) => order.map((b) => count(a, b))), source: what } : null;
  return { topo: { functions, gpus: order, numaNodes, cpu: cpuInfo, nvlink }, nets, netSpeeds, notes };
}
