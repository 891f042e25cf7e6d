// `nvidia-smi topo -m` as text → the NVLink count between each pair of GPUs.
// The matrix's first row names the columns (GPU0 … GPUn, NIC0 …, CPU Affinity
// …); each GPU row starts with the GPU's name, then one token per column: X
// for itself, NV<n> for n NVLinks, PIX/PXB/PHB/NODE/SYS otherwise. Pure.

import type { NvlinkStatusGpu } from '../snapshot/topo-types.js';

/**
 * `nvidia-smi --query-gpu=pci.bus_id,compute_cap --format=csv,noheader`:
 * `00000000:00:06.0, 9.0` per GPU → the sysfs bdf (`0000:00:06.0`, the
 * domain's low 16 bits, lower case) and the compute capability as NCCL's
 * `sm` (major × 10 + minor, what NVML's cudaComputeCapability gives
 * ncclTopoGetXmlFromGpu). Lines that are not that shape are skipped; null
 * when none is, or when there are more than `maxGpus`.
 */
export function parseComputeCaps(text: string, maxGpus = Infinity): { bdf: string; sm: number }[] | null {
  const out: { bdf: string; sm: number }[] = [];
  for (const line of text.split('\n')) {
    const m = /^\s*([0-9a-fA-F]{4,8}):([0-9a-fA-F]{2}):([0-9a-fA-F]{2})\.([0-7])\s*,\s*(\d{1,2})\.(\d)\s*$/.exec(line);
    if (!m) continue;
    if (out.length >= maxGpus) return null;
    out.push({ bdf: `${m[1]!.slice(-4)}:${m[2]}:${m[3]}.${m[4]}`.toLowerCase(), sm: Number(m[5]) * 10 + Number(m[6]) });
  }
  return out.length ? out : null;
}

/** `maxGpus`: more GPU columns than any NCCL places is not a matrix to read (null). */
export function parseTopoMatrix(text: string, maxGpus = Infinity): number[][] | null {
  const lines = text.split('\n').map((l) => l.replace(/\x1b\[[0-9;]*m/g, '').replace(/\r$/, ''));
  // The header row starts with GPU0 (after leading blanks); GPU0's own row has X next.
  const headerAt = lines.findIndex((l) => {
    const t = l.trim().split(/\s+/);
    return t[0] === 'GPU0' && t[1] !== 'X';
  });
  if (headerAt < 0) return null;
  const header = lines[headerAt]!.trim().split(/\s+/);
  const gpuCols = header.filter((h) => /^GPU\d+$/.test(h)).length;
  if (gpuCols === 0 || gpuCols > maxGpus) return null;
  // Each GPU's row, the first one naming it after the header: one pass over the lines.
  const rows = new Map<number, string[]>();
  for (const l of lines.slice(headerAt + 1)) {
    const cells = l.trim().split(/\s+/);
    const m = /^GPU(\d{1,9})$/.exec(cells[0] ?? '');
    if (m && !rows.has(Number(m[1]))) rows.set(Number(m[1]), cells);
  }
  const links: number[][] = [];
  for (let i = 0; i < gpuCols; i++) {
    const cells = rows.get(i)?.slice(1, 1 + gpuCols);
    if (!cells || cells.length < gpuCols) return null;
    links.push(
      cells.map((c) => {
        const m = /^NV(\d{1,3})$/.exec(c);
        return m && Number(m[1]) <= 255 ? Number(m[1]) : 0;
      }),
    );
  }
  return links;
}


/**
 * `nvidia-smi nvlink -s` as text: `GPU i: <name> (UUID: …)` then one
 * `Link k: 26.562 GB/s` or `Link k: <inactive>` line per link (none for a
 * GPU without NVLink). null when no GPU line is found.
 */
export function parseNvlinkStatus(text: string, max: { gpus: number; links: number } = { gpus: Infinity, links: Infinity }): NvlinkStatusGpu[] | null {
  const gpus: NvlinkStatusGpu[] = [];
  for (const raw of text.split('\n')) {
    const l = raw.replace(/\x1b\[[0-9;]*m/g, '').trim();
    // Numbers past what a node has (GPU indexes, link numbers, speeds) are no nvidia-smi output: such lines are passed over.
    const g = /^GPU (\d{1,9}): (.*?)(?: \(UUID: [^)]*\))?$/.exec(l);
    if (g) {
      if (Number(g[1]) < max.gpus && gpus.length < max.gpus && g[2]!.length <= 4096) gpus.push({ index: Number(g[1]), name: g[2]!, links: [] });
      continue;
    }
    const k = /^Link (\d{1,9}): (?:(\d{1,9}(?:\.\d{1,9})?) GB\/s|<inactive>)/i.exec(l);
    const last = gpus.at(-1);
    if (k && last && Number(k[1]) < max.links && last.links.length < max.links) last.links.push({ link: Number(k[1]), gbps: k[2] !== undefined ? Number(k[2]) : null });
  }
  return gpus.length ? gpus : null;
}
