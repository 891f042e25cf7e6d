// `ncclx topo` as text: an `nvidia-smi topo -m`-style matrix of NCCL's path
// types between GPUs and NICs, then per GPU its NIC, path and GPUDirect RDMA,
// the NICs, and the findings; and as JSON (docs/topo-json.md).

import type { TopoChannelsReport, TopoReport } from '../model/topo/report.js';
import { fixLines, remediationLines } from './remediation.js';
import type { Style } from './style.js';
import { table } from './table.js';
import { append } from '../model/list.js';

export const TOPO_JSON_SCHEMA = 1;

export function topoJson(r: TopoReport): object {
  return { schemaVersion: TOPO_JSON_SCHEMA, ...r };
}


const link = (l: { currentSpeed: string | null; currentWidth: number | null; maxSpeed: string | null; maxWidth: number | null; degraded: boolean } | null) => {
  if (!l) return '-';
  // From a topology file only the link NCCL computed is known.
  if (l.currentSpeed === null && l.currentWidth === null) return `${(l.maxSpeed ?? '?').replace(/ PCIe$/, '')} x${l.maxWidth ?? '?'} (max)`;
  return `${(l.currentSpeed ?? '?').replace(/ PCIe$/, '')} x${l.currentWidth ?? '?'}${l.degraded ? ` (of ${(l.maxSpeed ?? '?').replace(/ PCIe$/, '')} x${l.maxWidth ?? '?'})` : ''}`;
};

/** NCCL's graphs: per job size and graph its channels (identical channels counted once, ×n), the NET each enters and leaves by. */
function graphLines(r: TopoReport, s: Style, verbose: boolean): string[] {
  if (!r.graphs) return r.graphsUnavailable && r.gpus.length ? ['', s.bold('Graph search (rings, trees, NVLS)'), `  not modelled here: ${r.graphsUnavailable}`] : [];
  const netName = new Map(r.graphs.nets.map((n) => [n.dev, n.name]));
  const out = ['', s.bold(`Graph search (rings, trees, CollNet, NVLS) and the channels NCCL runs, on ${r.graphs.source}`)];
  for (const job of r.graphs.jobs) {
    for (const g of job.graphs) {
      out.push(`  ${job.nodes} node${job.nodes > 1 ? 's' : ''}, ${g.name}: ${g.nChannels} channel${g.nChannels === 1 ? '' : 's'} × ${g.bwIntra}/${g.bwInter} GB/s, ${g.typeIntra}/${g.typeInter}${g.crossNic ? ', cross-NIC' : ''}`);
      const lines = g.channels.map((c) => `${c.nics ? `NET ${c.nics[0]} (${netName.get(c.nics[0]) ?? '?'}) → ` : ''}GPU ${c.gpus.join(' ')}${c.nics ? ` → NET ${c.nics[1]} (${netName.get(c.nics[1]) ?? '?'})` : ''}`);
      append(out, channelList(lines, verbose));
    }
    append(out, job.graphNotes.map((n) => `  ${job.nodes} node${job.nodes > 1 ? 's' : ''}: ${n}`));
    if (job.channels) append(out, channelLines(job.nodes, job.channels, netName, verbose));
  }
  return out;
}

/** The channels NCCL runs after the search: how many and why, and each one's ring and NICs (identical ones counted once, ×n). */
function channelLines(nodes: number, ch: TopoChannelsReport, netName: Map<number, string>, verbose: boolean): string[] {
  const out = [`  ${nodes} node${nodes > 1 ? 's' : ''}, collective channels NCCL runs: ${ch.nChannels}${ch.collnet ? ' (CollNet on)' : ''} — ${ch.steps.join('; ')}`];
  // Verbose: which ring graph channel each runs; otherwise identical channels once, counted.
  const lines = ch.list.map((c) => `${verbose ? `ring ${c.ring}: ` : ''}${c.nics ? `NET ${c.nics[0]} (${netName.get(c.nics[0]) ?? '?'}) → ` : ''}GPU ${c.gpus.join(' ')}${c.nics ? ` → NET ${c.nics[1]} (${netName.get(c.nics[1]) ?? '?'})` : ''}`);
  append(out, channelList(lines, verbose));
  return out;
}

/** One line per channel (verbose), else each distinct line once with its count. */
function channelList(lines: string[], verbose: boolean): string[] {
  const shown = verbose ? lines.map((l, i) => `ch ${i}: ${l}`) : [...new Set(lines)].map((l) => `${l}${lines.filter((x) => x === l).length > 1 ? ` ×${lines.filter((x) => x === l).length}` : ''}`);
  return shown.map((l) => `    ${l}`);
}

export function renderTopo(r: TopoReport, s: Style, verbose: boolean): string {
  const out = [s.bold(`ncclx topo — ${r.host}`), `NCCL ${r.ncclVersion}; version from ${r.versionSource}`];
  if (r.unavailable) return [...out, '', `No topology: ${r.unavailable}.`, ''].join('\n');
  if (!r.gpus.length) out.push('', 'No NVIDIA GPU found on this node.');
  if (r.gpus.length && r.nics.length) {
    out.push('', s.bold('NCCL path types, GPU → NIC (* = the NIC of the GPU\'s first channel)'));
    const header = ['', ...r.nics.map((n) => n.device)];
    const rows = r.gpus.map((g) => [`GPU${g.index}`, ...r.nics.map((n, j) => `${r.matrix[g.index]![j]!.path}${r.pairs[g.index]!.nic === j ? '*' : ''}`)]);
    append(out, table([header, ...rows]).map((l) => `  ${l}`));
  }
  if (r.gpus.length) {
    out.push('', s.bold('Per GPU'));
    const rows = [['GPU', 'PCI', 'NUMA', 'NIC (channels)', 'PATH', 'GB/s', 'GPUDirect RDMA'], ...r.pairs.map((p) => {
      const g = r.gpus[p.gpu]!;
      const nic = p.nic === null ? 'none' : `${r.nics[p.nic]!.device}${p.channelNics.length > 1 ? ` (+${p.channelNics.filter((c) => c !== p.nic).map((c) => r.nics[c]!.device).join(',')})` : ''}`;
      const gdr = !p.gdr ? '-' : p.gdr.enabled === true ? s.ok('on') : p.gdr.enabled === false ? s.warn('off') : '?';
      return [String(g.index), g.bdf, String(g.numaNode ?? '-'), nic, p.path ? `${p.path}${p.relay !== null ? ` via GPU${p.relay}` : ''}` : '-', p.bwGBs === null ? '-' : String(p.bwGBs), `${gdr}${p.gdr ? ` — ${p.gdr.why}` : ''}`];
    })];
    append(out, table(rows).map((l) => `  ${l}`));
    if (verbose) for (const p of r.pairs) if (p.gdr) out.push(s.dim(`  GPU ${p.gpu}: NCCL: ${p.gdr.log}`));
  }
  if (r.gpus.length && r.nics.length && r.p2p.length) {
    // Rows: the sending GPU; columns: the peer's GPU on another node. A cell names the NIC, and the relay GPU when it is not the sender.
    out.push('', s.bold('Point-to-point: the NIC to a peer GPU on another node (same layout), via a relay GPU (PXN) where one is named'));
    const header = ['', ...r.gpus.map((g) => `→GPU${g.index}`)];
    const rows = r.p2p.map((row, g) => [`GPU${g}`, ...row.map((c) => (c.nic === null ? '-' : `${r.nics[c.nic]!.device}${c.proxy !== g ? ` via ${c.proxy}` : ''}`))]);
    append(out, table([header, ...rows]).map((l) => `  ${l}`));
  }
  if (r.gpus.length > 1 && r.gpuPaths.length === r.gpus.length) {
    out.push('', s.bold('NCCL path types, GPU ↔ GPU'));
    const header = ['', ...r.gpus.map((g) => `GPU${g.index}`)];
    const rows = r.gpuPaths.map((row, g) => [`GPU${g}`, ...row.map((p, h) => (g === h ? 'X' : p.path))]);
    append(out, table([header, ...rows]).map((l) => `  ${l}`));
  }
  append(out, graphLines(r, s, verbose));
  if (r.nics.length) {
    out.push('', s.bold('NICs NCCL places'));
    const rows = [['NIC', 'PCI', 'NUMA', 'PCIe link', 'under'], ...r.nics.map((n) => [n.members.length ? `[${n.index}] ${n.device} (vNIC of ${n.members.map((m) => `[${m.index}] ${m.device}:${m.port}`).join(', ')})` : `[${n.index}] ${n.device}:${n.port}`, n.bdf ?? '-', String(n.numaNode ?? '-'), link(n.link), n.parents.join(' → ')])];
    append(out, table(rows).map((l) => `  ${l}`));
  }
  if (verbose && r.gpus.length) {
    out.push('', s.bold('GPUs'));
    append(out, table([['GPU', 'PCI', 'PCIe link', 'under'], ...r.gpus.map((g) => [String(g.index), g.bdf, link(g.link), g.parents.join(' → ')])]).map((l) => `  ${l}`));
  }
  out.push('');
  if (r.findings.length) {
    out.push(s.bold('Findings:'));
    for (const f of r.findings) {
      const mark = f.severity === 'error' ? s.err('✗') : f.severity === 'warn' ? s.warn('!') : s.dim('i');
      append(out, [`  ${mark} ${s.bold(f.id)} ${f.message}`], fixLines(remediationLines(f.remediation), s));
    }
  } else out.push(`${s.ok('✓')} No topology finding.`);
  if (verbose || r.gpus.length === 0 || r.nics.length === 0) for (const n of r.notes) out.push(s.dim(`note: ${n}`));
  return out.join('\n') + '\n';
}
