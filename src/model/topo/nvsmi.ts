// `nvidia-smi topo -m` as text → the NVLink count between each pair of GPUs.
// The matrix's first row names the columns (GPU0 … GPUn, NIC0 …, CPU Affinity
// …); each GPU row starts with the GPU's name, then one token per column: X
// for itself, NV<n> for n NVLinks, PIX/PXB/PHB/NODE/SYS otherwise. Pure.

import type { NvlinkStatusGpu } from '../snapshot/topo-types.js';

export function parseTopoMatrix(text: string): number[][] | null {
  const lines = text.split('\n').map((l) => l.replace(/\x1b\[[0-9;]*m/g, '').replace(/\r$/, ''));
  // The header row starts with GPU0 (after leading blanks); GPU0's own row has X next.
  const headerAt = lines.findIndex((l) => {
    const t = l.trim().split(/\s+/);
    return t[0] === 'GPU0' && t[1] !== 'X';
  });
  if (headerAt < 0) return null;
  const header = lines[headerAt]!.trim().split(/\s+/);
  const gpuCols = header.filter((h) => /^GPU\d+$/.test(h)).length;
  if (gpuCols === 0) return null;
  const links: number[][] = [];
  for (let i = 0; i < gpuCols; i++) {
    const row = lines.slice(headerAt + 1).find((l) => new RegExp(`^GPU${i}\\s`).test(l.trim()));
    if (!row) return null;
    const cells = row.trim().split(/\s+/).slice(1, 1 + gpuCols);
    if (cells.length < gpuCols) return null;
    links.push(cells.map((c) => {
      const m = /^NV(\d+)$/.exec(c);
      return m ? Number(m[1]) : 0;
    }));
  }
  return links;
}


/**
 * `nvidia-smi nvlink -s` as text: `GPU i: <name> (UUID: …)` then one
 * `Link k: 26.562 GB/s` or `Link k: <inactive>` line per link (none for a
 * GPU without NVLink). null when no GPU line is found.
 */
export function parseNvlinkStatus(text: string): NvlinkStatusGpu[] | null {
  const gpus: NvlinkStatusGpu[] = [];
  for (const raw of text.split('\n')) {
    const l = raw.replace(/\x1b\[[0-9;]*m/g, '').trim();
    const g = /^GPU (\d+): (.*?)(?: \(UUID: [^)]*\))?$/.exec(l);
    if (g) {
      gpus.push({ index: Number(g[1]), name: g[2]!, links: [] });
      continue;
    }
    const k = /^Link (\d+): (?:(\d+(?:\.\d+)?) GB\/s|<inactive>)/i.exec(l);
    if (k && gpus.length) gpus.at(-1)!.links.push({ link: Number(k[1]), gbps: k[2] !== undefined ? Number(k[2]) : null });
  }
  return gpus.length ? gpus : null;
}
