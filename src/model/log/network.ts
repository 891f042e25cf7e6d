// The network a log's hosts ended up on, judged by the same function as the
// doctor's NET checks and `ncclx env` (src/model/nccl/net-plugin.ts
// netVerdict): the log gives the plugin state (`NET/Plugin : No plugin
// found`, `Loaded net plugin …`), the IB transport's devices and the socket
// interfaces; the node (--here, --snapshot, --root) gives the fabric (EFA,
// InfiniBand/RoCE) and the plugin libraries. The `ib-no-device` problem's
// next steps come from that verdict: "set NCCL_NET=IB" is advice for an
// InfiniBand/RoCE node, and makes an EFA node fail. Pure.

import { netVerdict, type NetInputs, type NetVerdict } from '../nccl/net-plugin.js';
import { NEWEST_KNOWN, parseVersion, profileFor, type NcclVersion } from '../nccl/versions.js';
import type { NetPluginPart, NodeSnapshot } from '../snapshot/types.js';
import type { HostFacts, LogAnalysis, LogProblem } from './analyze.js';

function versionOf(text: string | null | undefined): NcclVersion {
  try {
    return text ? parseVersion(text) : NEWEST_KNOWN;
  } catch {
    return NEWEST_KNOWN;
  }
}

/** Plugin facts as the log states them, when the node's are not known. */
function pluginsFromLog(h: HostFacts): NetPluginPart | null {
  const stated = '(loaded, as the log states)';
  if (h.netPlugin) return { lookups: [{ name: 'libnccl-net.so', path: stated, step: 'log' }], libraries: [{ path: stated, product: h.netPlugin, version: null, netNames: [h.netPlugin], apis: [], error: null }], elsewhere: [], asker: null, mapped: null };
  if (h.pluginMissing) return { lookups: [], libraries: [], elsewhere: [], asker: null, mapped: null };
  return null;
}

export function logNetInputs(h: HostFacts, logVersion: string | null, node: NodeSnapshot | null): NetInputs {
  const profile = profileFor(versionOf(h.ncclVersion ?? logVersion));
  const efa = node?.rdma ? node.rdma.devices.filter((d) => (d.pci && d.pci.vendor === '0x1d0f') || /^efa/.test(d.name)).map((d) => d.name) : null;
  const ibRoce = node?.rdma ? node.rdma.devices.filter((d) => !efa!.includes(d.name) && d.ports.some((p) => p.linkLayer === 'InfiniBand' || p.linkLayer === 'Ethernet')).map((d) => d.name) : null;
  return {
    profile,
    vars: h.env,
    plugins: pluginsFromLog(h) ?? node?.netPlugins ?? null,
    fabric: efa && ibRoce ? { efa, ibRoce } : null,
    ib: h.ib?.length ? 'devices' : h.ibNoDevice ? 'none' : 'unknown',
    socket: (h.socket ?? []).map((e) => ({ name: e.ifname, speedMbps: node?.network.links.find((l) => l.name === e.ifname)?.speedMbps ?? null })),
  };
}

const UNKNOWN_FABRIC =
  "NCCL found no external net plugin (`NET/Plugin : No plugin found` / `Could not find: libnccl-net.so`): where a plugin drives the fabric — AWS EFA (aws-ofi-nccl), Google's gIB or GPUDirect-TCPX/TCPXO, HPC-X's IBext — it is missing: install it or name it in NCCL_NET_PLUGIN; NCCL_NET=IB would make such a node fail, not use its fabric";

/** The `ib-no-device` next steps for a host, from the verdict. */
export function fallbackNext(h: HostFacts, v: NetVerdict, fabricKnown: boolean, defaults: string[]): string[] {
  const efa = v.findings.find((f) => f.id === 'NET-001');
  if (efa) return [`${efa.message}: ${efa.remediation.advice ?? ''}`.trim(), 'do not set NCCL_NET=IB: EFA is not an InfiniBand device, and NCCL would fail instead of falling back'];
  if (fabricKnown && v.socketOnly) return [v.socketOnly, ...defaults];
  if (!fabricKnown && h.pluginMissing) return [UNKNOWN_FABRIC, ...defaults.map((d) => (/NCCL_NET=IB/.test(d) ? `on an InfiniBand/RoCE node only: ${d}` : d)), '`ncclx log --here` (or --snapshot) on the node tells which case it is'];
  return defaults;
}

/** The analysis with each host's network verdict applied to the problems it explains. */
export function withNetworkAdvice(a: LogAnalysis, node: NodeSnapshot | null, nodeHost: string | null): LogAnalysis {
  const problems = a.summary.errors.concat(a.summary.warnings);
  const fallback = problems.find((p) => p.signature === 'ib-no-device');
  if (!fallback) return a;
  // The host the node's data is for (--here …), else the first host that fell back.
  const host = a.hosts.find((h) => h.host === nodeHost && fallback.hosts.includes(h.host)) ?? a.hosts.find((h) => fallback.hosts.includes(h.host));
  if (!host) return a;
  const known = node !== null && nodeHost === host.host;
  const v = netVerdict(logNetInputs(host, a.summary.ncclVersion, known ? node : null));
  const next = fallbackNext(host, v, known && !!node?.rdma, fallback.next);
  const patch = (p: LogProblem): LogProblem => (p === fallback ? { ...p, next } : p);
  return { ...a, summary: { ...a.summary, errors: a.summary.errors.map(patch), warnings: a.summary.warnings.map(patch) } };
}
