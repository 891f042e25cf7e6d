// The network NCCL uses between nodes, plugins included, per release
// (NCCL v2.4.8 … v2.30.7 src/init.cc, src/net.cc, src/plugin/net.cc and
// src/plugin/plugin_open.cc):
//
// 1. External plugins first. NCCL_NET_PLUGIN unset: libnccl-net.so. Set: the
//    names Profile.netPluginNames says (X, libnccl-net-X.so, or both); from
//    2.27.3 a comma list, the first that loads and initialises wins; from
//    2.28.3 `none` loads none. A library without an ncclNetPlugin_vN symbol
//    of a version this NCCL supports (Profile.netPluginApis) is not used.
// 2. Then the IB transport, then the socket transport. A transport is used
//    only when it initialises with at least one device.
// 3. NCCL_NET keeps only the transport of that name (case-insensitive);
//    when none of that name initialises, NCCL fails (Profile.netNotFoundLog).
//
// One function decides (netDecision); doctor (NET-*), `ncclx env`, `ncclx
// explain` and `ncclx log` all take their verdict from it, so they never
// disagree. Pure.

import type { Finding, Remediation } from '../result/types.js';
import type { RdmaPart } from '../snapshot/rdma-types.js';
import type { NetPluginLib, NetPluginPart, NodeSnapshot } from '../snapshot/types.js';
import type { ReasoningContext } from './explain.js';
import { gpuCount } from './gdr.js';
import { selectIbDevices } from './ib.js';
import type { SocketSelection } from './socket.js';
import type { Profile } from './versions.js';

export interface PluginEntry {
  /** The NCCL_NET_PLUGIN entry (or the default libnccl-net.so). */
  entry: string;
  /** The names dlopen was given, in order, and where each was found. */
  tried: { name: string; path: string | null }[];
  outcome: 'loaded' | 'not-found' | 'unsupported' | 'no-devices' | 'unknown';
  lib: NetPluginLib | null;
  why: string;
}

/** The fabric devices a node has, by who drives them. */
export interface Fabric {
  /** AWS EFA devices: only aws-ofi-nccl drives them. */
  efa: string[];
  /** InfiniBand or RoCE ports NCCL's IB transport (or an IB plugin) drives. */
  ibRoce: string[];
}

export interface SocketIf {
  name: string;
  /** Mb/s as /sys/class/net/<if>/speed states it; null when unknown (NCCL then assumes 10 Gb/s). */
  speedMbps: number | null;
}

export interface NetInputs {
  profile: Profile;
  vars: Record<string, string | undefined>;
  /** null: nothing known about plugins (a log alone, an older snapshot). */
  plugins: NetPluginPart | null;
  fabric: Fabric | null;
  /** The IB transport: initialises with a device, has none, or unknown. */
  ib: 'devices' | 'none' | 'unknown';
  /** The socket transport's interfaces (NCCL_SOCKET_IFNAME applies). */
  socket: SocketIf[];
  /** GPUs on the node (its PCI functions); 0: none, so nothing runs collectives here; null or absent: unknown. */
  gpus?: number | null;
}

export interface NetDecision {
  entries: PluginEntry[];
  /** The external plugin NCCL uses, if any. */
  plugin: NetPluginLib | null;
  /** The network: a plugin's name, IB, Socket, none (NCCL fails), unknown. */
  network: string;
  why: string;
  log: { level: 'INFO' | 'WARN'; text: string }[];
}

export function efaDevices(rdma: RdmaPart | undefined): string[] {
  return (rdma?.devices ?? [])
    .filter((d) => {
      const vendor = d.pci && typeof d.pci.vendor === 'string' ? d.pci.vendor : null;
      return vendor === '0x1d0f' || /^efa/.test(d.name);
    })
    .map((d) => d.name);
}

/** The entries NCCL_NET_PLUGIN gives this release, and the names it dlopens for each. */
export function pluginEntries(profile: Profile, value: string | undefined): { entry: string; names: string[] }[] {
  const dflt = [{ entry: 'libnccl-net.so', names: ['libnccl-net.so'] }];
  if (value === undefined || profile.netPluginNames === 'ignored') return dflt;
  if (!profile.netPluginList && value === '') return dflt;
  if (profile.netPluginNone && value.toLowerCase() === 'none') return [];
  const list = profile.netPluginList ? value.split(',').filter((e) => e !== '').slice(0, 14) : [value];
  const lib = (x: string) => x.length >= 7 && x.startsWith('lib') && x.endsWith('.so');
  return list.map((x) => {
    switch (profile.netPluginNames) {
      case 'suffix':
        return { entry: x, names: [`libnccl-net-${x}.so`] };
      case 'name-then-suffix':
        return { entry: x, names: [x, `libnccl-net-${x}.so`] };
      case 'lib-or-suffix':
        return { entry: x, names: [lib(x) ? x : `libnccl-net-${x}.so`] };
      default:
        return { entry: x, names: x.includes('/') || lib(x) ? [x] : [x, `libnccl-net-${x}.so`] };
    }
  });
}

/** Whether a plugin finds devices to drive here; null when ncclx cannot tell. */
function pluginHasDevices(lib: NetPluginLib, fabric: Fabric | null): boolean | null {
  if (!fabric) return null;
  if (lib.product === 'aws-ofi-nccl') return fabric.efa.length > 0 ? true : null;
  if (lib.product === 'gIB' || lib.product?.startsWith('nccl-rdma-sharp')) return fabric.ibRoce.length > 0;
  return null;
}

const speedText = (s: SocketIf) => `${s.name} (${s.speedMbps && s.speedMbps > 0 ? `${s.speedMbps >= 1000 ? `${s.speedMbps / 1000} Gb/s` : `${s.speedMbps} Mb/s`}` : 'speed unknown: NCCL assumes 10 Gb/s'})`;

export function netDecision(i: NetInputs): NetDecision {
  const { profile, vars } = i;
  const log: NetDecision['log'] = [];
  const entries: PluginEntry[] = [];
  let plugin: NetPluginLib | null = null;
  let pluginUnknown = false;
  for (const { entry, names } of pluginEntries(profile, vars['NCCL_NET_PLUGIN'])) {
    if (!i.plugins) {
      entries.push({ entry, tried: names.map((name) => ({ name, path: null })), outcome: 'unknown', lib: null, why: 'ncclx has no data on net plugin libraries here' });
      pluginUnknown = true;
      continue;
    }
    const known = [...i.plugins.libraries, ...i.plugins.elsewhere];
    // A path is opened as it is: any plugin the probe read at that path (installed off the loader's path, say) is found.
    const where = (name: string) => i.plugins!.lookups.find((l) => l.name === name)?.path ?? (name.includes('/') ? (known.find((l) => l.path === name)?.path ?? null) : null);
    const tried = names.map((name) => ({ name, path: where(name) }));
    const hit = tried.find((t) => t.path !== null);
    if (!hit) {
      entries.push({ entry, tried, outcome: 'not-found', lib: null, why: `the dynamic loader finds ${names.join(' nor ')}` });
      log.push({ level: 'INFO', text: profile.netPluginMissingLog.replace('%s', names.join(' ')) });
      continue;
    }
    const lib = known.find((l) => l.path === hit.path) ?? null;
    const apis = lib?.apis.filter((v) => profile.netPluginApis.includes(v)) ?? [];
    if (lib && lib.error === null && lib.apis.length > 0 && apis.length === 0) {
      entries.push({ entry, tried, outcome: 'unsupported', lib, why: `${hit.path} exports ncclNetPlugin_v${lib.apis.join('/v')}, and NCCL ${profile.version.raw} looks for v${profile.netPluginApis.join('/v')}: it is not used` });
      continue;
    }
    const devices = lib ? pluginHasDevices(lib, i.fabric) : null;
    if (devices === false) {
      entries.push({ entry, tried, outcome: 'no-devices', lib, why: `${describePlugin(lib!)} finds no device it drives here: it does not initialise` });
      continue;
    }
    entries.push({ entry, tried, outcome: 'loaded', lib, why: `${hit.path}${lib ? ` (${describePlugin(lib)})` : ''} loads${devices === null ? '; whether it finds devices is not known to ncclx' : ''}` });
    plugin = lib ?? { path: hit.path!, product: null, version: null, netNames: [], apis: [], error: 'not read' };
    // Before 2.27.3 only one external plugin is opened; from 2.27.3 the first that initialises disables the others.
    break;
  }
  const net = vars['NCCL_NET'];
  const wanted = net !== undefined && net !== '' ? net.toLowerCase() : null;
  const pluginNames = plugin ? (plugin.netNames.length ? plugin.netNames : ['(its own name)']) : [];
  const socketOk = i.socket.length > 0;
  const candidates: { name: string; ok: boolean | null }[] = [
    ...(plugin ? [{ name: pluginNames[0]!, ok: true as boolean | null }] : []),
    { name: 'IB', ok: i.ib === 'devices' ? true : i.ib === 'none' ? false : null },
    { name: 'Socket', ok: socketOk },
  ];
  if (wanted !== null) {
    const byName = plugin && plugin.netNames.some((n) => n.toLowerCase() === wanted) ? candidates[0] : candidates.find((c) => c.name.toLowerCase() === wanted);
    if (!byName && plugin && plugin.netNames.length === 0) return { entries, plugin, network: 'unknown', why: `NCCL_NET=${net}: the plugin ${plugin.path} does not state its name, so whether it is "${net}" is unknown`, log };
    if (!byName || byName.ok === false) {
      log.push({ level: 'WARN', text: profile.netNotFoundLog.replace('%s', net!) });
      const why = !byName ? `NCCL_NET=${net} names no transport NCCL has here (${candidates.filter((c) => c.ok !== false).map((c) => c.name).join(', ') || 'none'})` : `NCCL_NET=${net} names a transport that does not initialise here`;
      return { entries, plugin, network: 'none', why: `${why}: NCCL fails ("${profile.netNotFoundLog.replace('%s', net!)}")`, log };
    }
    if (byName.ok === null) return { entries, plugin, network: 'unknown', why: `NCCL_NET=${net}: whether ${byName.name} initialises here is not known`, log };
    return { entries, plugin: byName === candidates[0] && plugin ? plugin : null, network: byName.name, why: `NCCL_NET=${net} keeps ${byName.name}`, log };
  }
  if (plugin) return { entries, plugin, network: pluginNames[0]!, why: `the external plugin ${describePlugin(plugin)} comes before NCCL's own transports`, log };
  if (pluginUnknown && i.ib !== 'devices') return { entries, plugin, network: 'unknown', why: 'whether an external net plugin loads is not known', log };
  if (i.ib === 'devices') return { entries, plugin, network: 'IB', why: "no external plugin: NCCL's IB transport has devices", log };
  if (i.ib === 'unknown') return { entries, plugin, network: 'unknown', why: 'whether the IB transport finds a device is not known', log };
  if (socketOk) return { entries, plugin, network: 'Socket', why: `no external plugin and no IB device: NCCL uses TCP sockets over ${i.socket.map(speedText).join(', ')}`, log };
  return { entries, plugin, network: 'none', why: 'no external plugin, no IB device and no socket interface: NCCL cannot initialise a network', log };
}

export function describePlugin(l: NetPluginLib): string {
  const name = l.product ?? 'an unidentified plugin';
  return `${name}${l.version ? ` ${l.version}` : ''}${l.netNames.length ? `, NCCL_NET name "${l.netNames[0]}"` : ''}`;
}

// ---------------------------------------------------------------------------
// Findings

export interface NetVerdict {
  decision: NetDecision;
  findings: Finding[];
  /** The socket-only warning's text, also shown by `ncclx env` and `ncclx log`. */
  socketOnly: string | null;
}

/** An installed aws-ofi-nccl the loader does not find, and how to make NCCL load it. */
function ofiRemedy(i: NetInputs): Remediation {
  const ofi = i.plugins?.elsewhere.find((l) => l.product === 'aws-ofi-nccl' && l.apis.some((v) => i.profile.netPluginApis.includes(v)));
  if (ofi && i.profile.netPluginNames !== 'ignored' && i.profile.netPluginNames !== 'suffix') {
    return { env: { NCCL_NET_PLUGIN: ofi.path }, advice: `aws-ofi-nccl is installed at ${ofi.path}, where the loader does not look: name it in NCCL_NET_PLUGIN` };
  }
  if (ofi) return { advice: `aws-ofi-nccl is installed at ${ofi.path}, where the loader does not look: add ${ofi.path.slice(0, ofi.path.lastIndexOf('/'))} to LD_LIBRARY_PATH (this NCCL cannot take a path in NCCL_NET_PLUGIN)` };
  return { advice: 'Install aws-ofi-nccl (the EFA installer, or the aws-ofi-nccl release built for this NCCL) and put its libnccl-net.so on LD_LIBRARY_PATH or name it in NCCL_NET_PLUGIN' };
}

/**
 * NET-001 EFA without a plugin that drives it (sockets between nodes), NET-002
 * NCCL_NET naming a transport that does not initialise (NCCL_NET=IB is
 * IB-018's), NET-003 an NCCL_NET_PLUGIN entry found nowhere, NET-004 a plugin
 * of an API version this NCCL does not take, NET-010 the socket-only warning.
 */
export function netVerdict(i: NetInputs): NetVerdict {
  const d = netDecision(i);
  const findings: Finding[] = [];
  const efa = i.fabric?.efa ?? [];
  const ofiUsed = d.plugin?.product === 'aws-ofi-nccl';
  let socketOnly: string | null = null;
  const net = i.vars['NCCL_NET'];
  if (efa.length && !ofiUsed && (d.network === 'Socket' || d.network === 'none')) {
    const tried = d.entries.filter((e) => e.outcome !== 'loaded').map((e) => `${e.tried.map((t) => t.name).join(', ')}: ${e.outcome === 'not-found' ? 'not found' : e.why}`);
    const over = d.network === 'Socket' ? `inter-node traffic goes over TCP sockets on ${i.socket.map(speedText).join(', ')}` : 'NCCL fails to initialise a network';
    findings.push({ id: 'NET-001', severity: 'error', message: `EFA devices ${efa.join(', ')} but no aws-ofi-nccl plugin loads${tried.length ? ` (${tried.join('; ')})` : ''}: ${over}`, remediation: ofiRemedy(i) });
    if (d.network === 'Socket') socketOnly = findings[0]!.message;
  }
  if (wantedOther(net) && d.network === 'none') {
    findings.push({ id: 'NET-002', severity: 'error', message: d.why, remediation: { env: { NCCL_NET: null }, advice: 'Unset NCCL_NET, or install the plugin that carries that name' } });
  }
  for (const e of d.entries) {
    if (e.outcome === 'not-found' && i.vars['NCCL_NET_PLUGIN'] !== undefined && e.entry !== 'libnccl-net.so') {
      findings.push({ id: 'NET-003', severity: 'warn', message: `NCCL_NET_PLUGIN entry '${e.entry}': ${e.why}, so NCCL goes on with ${d.network === 'none' ? 'no network' : d.network}`, remediation: { advice: `Name the plugin library by its path${i.profile.netPluginNames === 'suffix' || i.profile.netPluginNames === 'ignored' ? ' (this NCCL takes only a suffix: libnccl-net-<X>.so on the loader path)' : ''}, or put its directory on LD_LIBRARY_PATH` } });
    }
    if (e.outcome === 'unsupported') findings.push({ id: 'NET-004', severity: 'warn', message: `${e.why}; NCCL goes on with ${d.network}`, remediation: { advice: `Install the plugin release built for NCCL ${i.profile.version.raw} (net plugin API v${i.profile.netPluginApis[0]} … v${i.profile.netPluginApis[i.profile.netPluginApis.length - 1]})` } });
  }
  if (!socketOnly && d.network === 'Socket' && i.socket.length) {
    const why = i.ib === 'none' ? (i.fabric && i.fabric.ibRoce.length === 0 && efa.length === 0 ? 'this node has no RDMA device' : 'NCCL\'s IB transport keeps no device') : 'NCCL_NET selects it';
    socketOnly = `inter-node collectives use TCP sockets over ${i.socket.map(speedText).join(', ')}: ${why} (NCCL logs "NET/IB : No device found." and falls back without a warning)`;
    const explicit = net !== undefined && net.toLowerCase() === 'socket';
    // A node with no GPU (a login or storage node) runs no NCCL rank: the socket fallback costs nothing there.
    const noGpu = i.gpus === 0;
    findings.push({
      id: 'NET-010',
      severity: explicit || noGpu ? 'info' : 'warn',
      message: noGpu ? `${socketOnly}; this node has no GPU, so no NCCL rank runs here` : socketOnly,
      remediation: { advice: explicit ? 'NCCL_NET=Socket asks for this' : noGpu ? 'Nothing to do on a node without GPUs; on the GPU nodes, give the job its RDMA devices or its net plugin' : 'Expected on a node without RDMA; otherwise give the job its RDMA devices (/dev/infiniband, the RDMA driver) or its net plugin' },
    });
  }
  return { decision: d, findings, socketOnly };
}

const wantedOther = (net: string | undefined) => net !== undefined && net !== '' && net.toLowerCase() !== 'ib';

// ---------------------------------------------------------------------------
// From a node's model

/** The IB transport's outcome as the network decision needs it. */
function ibState(snapshot: NodeSnapshot, r: ReasoningContext, sel: SocketSelection): NetInputs['ib'] {
  if (!snapshot.rdma) return 'unknown';
  const t = selectIbDevices(snapshot.rdma, { profile: r.profile, vars: r.env.vars, ibOob: sel.ibOob }).transport;
  if (t.status === 'no-data' || t.status === 'oob-unknown' || (t.status === 'ok' && t.network === 'unknown')) return 'unknown';
  return t.status === 'ok' || t.status === 'merge-refused' ? 'devices' : 'none';
}

/** The decision's inputs for a node (or a process's view) as every command models it. */
export function netInputsOf(snapshot: NodeSnapshot, r: ReasoningContext, sel: SocketSelection): NetInputs {
  const rdma = snapshot.rdma;
  const efa = efaDevices(rdma);
  const ibRoce = (rdma?.devices ?? []).filter((d) => !efa.includes(d.name) && d.ports.some((p) => p.linkLayer === 'InfiniBand' || p.linkLayer === 'Ethernet')).map((d) => d.name);
  const speed = (name: string) => snapshot.network.links.find((l) => l.name === name)?.speedMbps ?? null;
  const seen = new Set<string>();
  const socket = sel.socket.selected.filter((s) => !seen.has(s.name) && seen.add(s.name)).map((s) => ({ name: s.name, speedMbps: speed(s.name) }));
  return { profile: r.profile, vars: r.env.vars, plugins: snapshot.netPlugins ?? null, fabric: rdma ? { efa, ibRoce } : null, ib: ibState(snapshot, r, sel), socket, gpus: gpuCount(snapshot) };
}
