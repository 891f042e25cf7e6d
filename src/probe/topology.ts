// The PCI paths NCCL's topology detection walks (graph/xml.cc): for each
// NVIDIA GPU and each RDMA device, realpath of its PCI function and every
// function above it up to the root complex, with class, ids, NUMA node and
// link speed/width (max, which NCCL reads, and current, which it does not);
// the NUMA nodes and the CPU as NCCL identifies it. Files under the root only.

import type { RdmaPart } from '../model/snapshot/rdma-types.js';
import type { TopoFunction, TopoPart } from '../model/snapshot/topo-types.js';
import { parseComputeCaps, parseNvlinkStatus, parseTopoMatrix } from '../model/topo/nvsmi.js';
import { smOfDevice } from '../model/topo/gpu-facts.js';
import type { ProbeWarning } from '../model/snapshot/types.js';
import { BOUNDS, clip } from './bound.js';
import type { Root } from './root.js';

/** A short sysfs value (class, ids, a link speed): at most 64 characters, else unreadable. */
const short = (v: string | null) => (v !== null && v.length <= 64 ? v : null);
import type { Runner } from './runner.js';

const BDF = /^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$/;

/** An integer as sysfs prints it, within [min, max] (the bounds of a snapshot); else unreadable. */
function num(v: string | null, min: number, max: number): number | null {
  if (v === null || !/^-?\d{1,12}$/.test(v.trim())) return null;
  const n = Number(v.trim());
  return n >= min && n <= max ? n : null;
}

/** A cpulist as the kernel prints it (0-55,112-167): CPU numbers below NR_CPUS; anything else reads as unknown (''). */
function cpulist(v: string | null): string {
  if (v === null) return '';
  const ok = v.split(',').every((part) => part.trim() === '' || (/^\s*\d{1,5}(-\d{1,5})?\s*$/.test(part) && part.split('-').every((n) => Number(n) < BOUNDS.cpus)));
  return ok ? v : '';
}

function cpuInfo(root: Root): TopoPart['cpu'] {
  const text = root.readTrim('/proc/cpuinfo');
  const field = (name: string) => {
    const m = text ? new RegExp(`^${name}\\s*:\\s*(.*)$`, 'm').exec(text) : null;
    return m ? m[1]!.trim() : null;
  };
  const family = field('cpu family');
  const model = field('model');
  const arch = root.readTrim('/proc/sys/kernel/arch') ?? (text && /^vendor_id/m.test(text) ? 'x86_64' : text && /^CPU implementer/m.test(text) ? 'aarch64' : null);
  return { arch: arch === null ? null : clip(arch, 64), vendor: field('vendor_id') === null ? null : clip(field('vendor_id')!, 64), family: num(family, 0, 0xffff), model: num(model, 0, 0xffff) };
}

/** NVLinks from `nvidia-smi topo -m` (live, or recorded under --root); null when it cannot be run or read. */
function nvlinks(runner: Runner | undefined, gpus: number): TopoPart['nvlink'] {
  if (!runner || gpus === 0) return null;
  const r = runner.run({ argv: ['nvidia-smi', 'topo', '-m'], record: 'nvidia-smi-topo-m.txt', timeoutMs: 5_000 });
  if (!r.ok) return null;
  const links = parseTopoMatrix(r.stdout, BOUNDS.gpus);
  return links ? { links, source: r.from === 'live' ? 'nvidia-smi topo -m' : 'commands/nvidia-smi-topo-m.txt' } : null;
}

/** Each GPU's NVLink states from `nvidia-smi nvlink -s` (live, or recorded under --root); null when it cannot be run or read. */
function nvlinkStatus(runner: Runner | undefined, gpus: number): TopoPart['nvlinkStatus'] {
  if (!runner || gpus === 0) return null;
  const r = runner.run({ argv: ['nvidia-smi', 'nvlink', '-s'], record: 'nvidia-smi-nvlink-s.txt', timeoutMs: 5_000 });
  if (!r.ok) return null;
  const parsed = parseNvlinkStatus(r.stdout, { gpus: BOUNDS.gpus, links: BOUNDS.nvlinks });
  return parsed ? { gpus: parsed, source: r.from === 'live' ? 'nvidia-smi nvlink -s' : 'commands/nvidia-smi-nvlink-s.txt' } : null;
}

/**
 * The compute capability of each GPU, from nvidia-smi (live, or recorded under --root), only when a GPU's
 * device id is not in ncclx's table: nvidia-smi is slow on a GPU node, and the table answers the rest.
 */
function computeCaps(runner: Runner | undefined, gpus: string[], byBdf: Map<string, TopoFunction>): TopoPart['computeCaps'] {
  if (!runner || gpus.every((b) => smOfDevice(byBdf.get(b)?.device) !== null)) return null;
  const r = runner.run({ argv: ['nvidia-smi', '--query-gpu=pci.bus_id,compute_cap', '--format=csv,noheader'], record: 'nvidia-smi-compute-cap.txt', timeoutMs: 5_000 });
  if (!r.ok) return null;
  const parsed = parseComputeCaps(r.stdout, BOUNDS.gpus);
  return parsed ? { gpus: parsed, source: r.from === 'live' ? 'nvidia-smi --query-gpu=pci.bus_id,compute_cap' : 'commands/nvidia-smi-compute-cap.txt' } : null;
}

/** `netdevPaths`: realpaths of /sys/class/net/<if>/device, which the socket transport's NICs are placed at. */
export function probeTopology(root: Root, gpuBdfs: string[], rdma: RdmaPart | undefined, runner?: Runner, topoFilePaths: string[] = [], netdevPaths: string[] = [], warnings?: ProbeWarning[]): TopoPart {
  const byBdf = new Map<string, TopoFunction>();
  const addPath = (real: string) => {
    if (!real.startsWith('/sys/devices/')) return;
    const comps = real.slice('/sys/devices/'.length).split('/');
    // Each bridge has a bus number of its own (8 bits): a deeper path is no PCI hierarchy.
    if (comps.length > BOUNDS.pciPathDepth) {
      warnings?.push({ source: 'topology', message: `${clip(real, 200)}: ${comps.length} components, deeper than a PCI hierarchy goes (${BOUNDS.pciPathDepth}): left out` });
      return;
    }
    if (byBdf.size >= BOUNDS.pciFunctions) return;
    for (let i = 0; i < comps.length; i++) {
      const bdf = comps[i]!;
      if (!BDF.test(bdf) || byBdf.has(bdf)) continue;
      const dir = `/sys/devices/${comps.slice(0, i + 1).join('/')}`;
      const t = (f: string) => root.readTrim(`${dir}/${f}`);
      byBdf.set(bdf, {
        bdf,
        path: comps.slice(0, i + 1),
        class: short(t('class')),
        vendor: short(t('vendor')),
        device: short(t('device')),
        subsystemVendor: short(t('subsystem_vendor')),
        subsystemDevice: short(t('subsystem_device')),
        numaNode: num(t('numa_node'), -1, BOUNDS.numaNodes - 1),
        maxLinkSpeed: short(t('max_link_speed')),
        maxLinkWidth: num(t('max_link_width'), 0, BOUNDS.linkWidth),
        currentLinkSpeed: short(t('current_link_speed')),
        currentLinkWidth: num(t('current_link_width'), 0, BOUNDS.linkWidth),
      });
    }
  };
  const gpus: string[] = [];
  for (const bdf of gpuBdfs) {
    const real = root.realpath(`/sys/bus/pci/devices/${bdf}`);
    if (real) {
      addPath(real);
      gpus.push(bdf);
    }
  }
  for (const d of rdma?.devices ?? []) {
    if (d.device.realpath) addPath(d.device.realpath);
    // NCCL places the NIC at its folded path (multi-port and VF merging, §2.3): read those functions too.
    for (const f of d.device.folded ?? []) if (f.exists) addPath(root.realpath(f.path) ?? f.path);
  }
  for (const p of netdevPaths) addPath(p);
  const numaNodes = root
    .list('/sys/devices/system/node')
    .filter((n) => /^node\d{1,4}$/.test(n) && Number(n.slice(4)) < BOUNDS.numaNodes)
    .map((n) => ({ id: Number(n.slice(4)), cpulist: cpulist(root.readTrim(`/sys/devices/system/node/${n}/cpulist`)) }))
    .sort((a, b) => a.id - b.id);
  // NCCL_TOPO_FILE (environment or conf file): read as the job would (bounded like every file).
  const topoFiles = [...new Set(topoFilePaths.filter((p) => p !== ''))].slice(0, BOUNDS.topoFiles).map((path) => {
    const r = root.read(path);
    return r.ok ? { path, text: r.value, error: null } : { path, text: null, error: r.error };
  });
  const caps = computeCaps(runner, gpus, byBdf);
  return { functions: [...byBdf.values()].sort((a, b) => (a.bdf < b.bdf ? -1 : 1)), gpus: gpus.sort(), numaNodes, cpu: cpuInfo(root), nvlink: nvlinks(runner, gpus.length), nvlinkStatus: nvlinkStatus(runner, gpus.length), ...(caps ? { computeCaps: caps } : {}), ...(topoFiles.length ? { topoFiles } : {}) };
}
