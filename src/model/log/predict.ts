// The log held against the prediction: ncclx predicts, for the node the log
// came from and with the NCCL version the log states, what NCCL prints for
// each consumer (bootstrap, socket transport, IB devices, IB OOB, GID index,
// the network), then says consumer by consumer whether the log agrees and,
// where not, the likely cause and the evidence for it. Pure.

import { effectiveEnv } from '../nccl/conf.js';
import { explain } from '../nccl/explain.js';
import { ibReport } from '../nccl/ib-report.js';
import { profileFor, versionString } from '../nccl/versions.js';
import { chooseVersion } from '../nccl/version-choice.js';
import type { NodeSnapshot } from '../snapshot/types.js';
import { withEnv } from '../snapshot/with-env.js';
import type { HostFacts, LogAnalysis } from './analyze.js';
import type { Endpoint } from './facts.js';

export type Consumer = 'bootstrap' | 'socket' | 'ibDevices' | 'ibOob' | 'gidIndex' | 'transport';

export interface PredictedFacts {
  bootstrap: Endpoint | null;
  socket: Endpoint[];
  ib: { index: number; device: string; port: number; linkLayer: 'IB' | 'RoCE' }[];
  ibOob: Endpoint | null;
  /** GID index per NCCL IB device index. */
  gidIndex: Record<string, number | null>;
  transport: string | null;
  /** Why a consumer cannot be predicted (an unresolved name, no RDMA data). */
  indeterminate: Partial<Record<Consumer, string>>;
}

export type Likely = 'environment' | 'nccl-version' | 'container' | 'net-plugin' | 'other-node' | 'unexplained';

export interface ConsumerComparison {
  consumer: Consumer;
  status: 'agree' | 'differ' | 'not-in-log' | 'not-predicted';
  log: string | null;
  predicted: string | null;
  /** For a difference: the likely cause and the evidence for it. */
  likely: Likely | null;
  evidence: string[];
}

export interface Prediction {
  /** The node predicted for (its snapshot's hostname) and the log host compared with it. */
  node: string;
  logHost: string;
  hostNote: string | null;
  ncclVersion: string;
  versionSource: string;
  /** NCCL_* variables the log shows NCCL read that differ from this node's environment. */
  envDifferences: { name: string; log: string; node: string | null }[];
  consumers: ConsumerComparison[];
  agree: boolean;
}

const ep = (e: Endpoint | null) => (e ? (e.address ? `${e.ifname} ${e.address}` : e.ifname) : null);
const eps = (l: Endpoint[]) => l.map((e) => ep(e)).join(', ');
const ll = (l: 'InfiniBand' | 'Ethernet') => (l === 'InfiniBand' ? 'IB' : 'RoCE');

/** What NCCL prints on this node under its environment (plus `env`), as facts. */
export function predictFacts(snapshot: NodeSnapshot, ncclVersion: string | undefined, env: Record<string, string> = {}): PredictedFacts {
  const snap = Object.keys(env).length ? withEnv(snapshot, env) : snapshot;
  const ex = explain(snap, { ncclVersion });
  const indeterminate: PredictedFacts['indeterminate'] = {};
  const sel = (c: typeof ex.bootstrap): Endpoint | null => {
    const s = c.selected[0];
    return s ? { ifname: s.name, address: s.display } : null;
  };
  if (ex.bootstrap.indeterminate) indeterminate.bootstrap = ex.bootstrap.indeterminate;
  if (ex.socket.indeterminate) indeterminate.socket = ex.socket.indeterminate;
  if (ex.ibOob.indeterminate) indeterminate.ibOob = ex.ibOob.indeterminate;
  let ib: PredictedFacts['ib'] = [];
  const gidIndex: PredictedFacts['gidIndex'] = {};
  let transport: string | null = null;
  if (snap.rdma) {
    const r = ibReport(snap, { ncclVersion });
    ib = r.ncclDevices.map((d) => ({ index: d.index, device: d.dev, port: d.port, linkLayer: ll(d.linkLayer) }));
    for (const d of r.devices) for (const p of d.ports) if (p.ncclIndex !== null) gidIndex[String(p.ncclIndex)] = p.gidIndex;
    transport = r.transport.network === 'none' ? null : r.transport.network;
    if (!r.transport.certain) indeterminate.ibDevices = 'some port\'s state or link layer could not be read';
  } else {
    indeterminate.ibDevices = 'no RDMA data for this node';
    indeterminate.gidIndex = 'no RDMA data for this node';
    indeterminate.transport = 'no RDMA data for this node';
  }
  return { bootstrap: sel(ex.bootstrap), socket: ex.socket.selected.map((s) => ({ ifname: s.name, address: s.display })), ib, ibOob: sel(ex.ibOob), gidIndex, transport, indeterminate };
}

function shortName(h: string): string {
  return h.split('.')[0]!;
}

/** The log host that is this node: --host, else the snapshot's hostname, else the only host. */
export function pickHost(a: LogAnalysis, node: string, wanted?: string): { host: HostFacts | null; note: string | null } {
  if (wanted !== undefined) {
    const h = a.hosts.find((x) => x.host === wanted) ?? a.hosts.find((x) => shortName(x.host) === shortName(wanted));
    return h ? { host: h, note: null } : { host: null, note: `the log has no host '${wanted}' (hosts: ${a.hosts.map((x) => x.host).join(', ') || 'none'})` };
  }
  const h = a.hosts.find((x) => x.host === node) ?? a.hosts.find((x) => shortName(x.host) === shortName(node));
  if (h) return { host: h, note: null };
  const withFacts = a.hosts.filter((x) => x.bootstrap || x.socket || x.ib || x.ncclVersion);
  const only = withFacts.length === 1 ? withFacts[0]! : a.hosts.length === 1 ? a.hosts[0]! : null;
  if (only) return { host: only, note: `the log's host '${only.host}' is not named '${node}'; compared as the same node` };
  const first = withFacts[0] ?? a.hosts[0] ?? null;
  return { host: first, note: first ? `'${node}' is not among the log's hosts; compared with '${first.host}' (choose one with --host)` : 'the log names no host' };
}

function endpointsAgree(log: Endpoint, pred: Endpoint): boolean {
  return log.ifname === pred.ifname && (log.address === null || pred.address === null || log.address === pred.address);
}

interface Ctx {
  host: HostFacts;
  nodeLinks: Set<string>;
  envDiff: Prediction['envDifferences'];
  withLogEnv: PredictedFacts | null;
  versionFromLog: boolean;
  versionUsed: string;
  hostNote: string | null;
}

/** Why a consumer's log value differs from the prediction, most specific evidence first. */
function explainDifference(c: Consumer, logIfnames: string[], agreesWithLogEnv: boolean | null, x: Ctx): { likely: Likely; evidence: string[] } {
  const missing = logIfnames.filter((n) => !x.nodeLinks.has(n));
  if (missing.length) {
    return { likely: 'container', evidence: [`the log's interface${missing.length > 1 ? 's' : ''} ${missing.join(', ')} ${missing.length > 1 ? 'do' : 'does'} not exist in this node's view: the job ran in a container or network namespace that sees other links${x.hostNote ? `, or on another node (${x.hostNote})` : ''}`] };
  }
  // NCCL takes lo only when nothing else qualifies (socket.ts: the last step of the automatic search): where this node's
  // environment gives another interface, the job saw fewer links than this view does.
  if (logIfnames.length && logIfnames.every((n) => n === 'lo') && !x.envDiff.length) {
    return { likely: 'container', evidence: ['the job used lo, which NCCL takes only when no other interface qualifies: the job ran in a network namespace (a container without the host\'s network) whose only interface up was lo, or with NCCL_SOCKET_IFNAME=lo (the log states no such variable: NCCL_DEBUG_SUBSYS=INIT,ENV logs them); `ncclx explain --pid PID` on the running job reads its namespace'] };
  }
  if (c === 'bootstrap' && !logIfnames.length && !x.envDiff.length) {
    return { likely: 'environment', evidence: ['the job\'s bootstrap found no interface where this node\'s environment gives one: the job ran with another NCCL_SOCKET_IFNAME, NCCL_COMM_ID or NCCL_SOCKET_FAMILY (the log states none of them: NCCL_DEBUG_SUBSYS=INIT,ENV logs them), or in a network namespace without that interface; `ncclx explain --pid PID` on the running job models its own environment and namespace'] };
  }
  if (x.envDiff.length && agreesWithLogEnv) {
    return { likely: 'environment', evidence: [`the job ran with ${x.envDiff.map((d) => `${d.name}=${d.log}`).join(', ')} (the log's "set by environment" lines); this node has ${x.envDiff.map((d) => `${d.name}=${d.node ?? '(unset)'}`).join(', ')}`, 'predicted with the log\'s values, ncclx agrees with the log'] };
  }
  if (c === 'transport' || c === 'ibDevices') {
    if (x.host.netPlugin) return { likely: 'net-plugin', evidence: [`the log shows the net plugin '${x.host.netPlugin}' loaded: the plugin, not NCCL's IB transport, decides the devices and the network`] };
  }
  if (x.envDiff.length) return { likely: 'environment', evidence: [`the job ran with ${x.envDiff.map((d) => `${d.name}=${d.log}`).join(', ')}; this node has ${x.envDiff.map((d) => `${d.name}=${d.node ?? '(unset)'}`).join(', ')}`] };
  // A log from a host of another name is first of all another node's log.
  if (x.hostNote) return { likely: 'other-node', evidence: [x.hostNote, ...(x.versionFromLog ? [] : [`the log states no NCCL version; predicted with ${x.versionUsed}`])] };
  if (!x.versionFromLog) return { likely: 'nccl-version', evidence: [`the log states no NCCL version; predicted with ${x.versionUsed}`] };
  return { likely: 'unexplained', evidence: ['the log and this node\'s data agree on the environment and version: the node changed since the job ran (links, addresses, ports), or ncclx mispredicts — please report it with the log and `ncclx snapshot`'] };
}

const BOOT_FAILED = 'no interface (bootstrap fails)';

/**
 * Whether the log shows HOST's bootstrap finding no interface: the WARN
 * bootstrap.cc prints (`NET/Socket : No usable listening interface found`
 * from bootstrapNetInit; `Bootstrap : no socket interface found` in older
 * releases). The same words from net_socket.cc or net_ib.cc are the socket
 * transport's or the IB OOB's, not the bootstrap's.
 */
function bootstrapFoundNoInterface(a: LogAnalysis, host: string): boolean {
  return a.summary.errors.some((p) => p.signature === 'no-socket-interface' && p.hosts.includes(host) && p.line !== null && /(?:^|\s)bootstrap\.cc:\d+|Bootstrap ?: ?no socket interface found/.test(p.line));
}

export function comparePrediction(a: LogAnalysis, snapshot: NodeSnapshot, o: { host?: string; ncclVersion?: string } = {}): Prediction {
  const node = snapshot.host.hostname;
  const picked = pickHost(a, node, o.host);
  const host = picked.host;
  const logVersion = host?.ncclVersion ?? a.summary.ncclVersion;
  const versionArg = o.ncclVersion ?? logVersion ?? undefined;
  const choice = chooseVersion(versionArg, snapshot);
  const versionUsed = versionString(choice.version);
  const nodeEnv = effectiveEnv(snapshot.env, profileFor(choice.version)).vars;
  const logEnv = host?.env ?? {};
  const envDifferences = Object.entries(logEnv)
    .filter(([k, v]) => (nodeEnv[k] ?? null) !== v)
    .map(([name, log]) => ({ name, log, node: nodeEnv[name] ?? null }));
  const predicted = predictFacts(snapshot, versionArg);
  const withLogEnv = envDifferences.length ? predictFacts(snapshot, versionArg, Object.fromEntries(envDifferences.map((d) => [d.name, d.log]))) : null;
  const empty: Prediction = { node, logHost: host?.host ?? '', hostNote: picked.note, ncclVersion: versionUsed, versionSource: logVersion && !o.ncclVersion ? 'the log' : choice.source, envDifferences, consumers: [], agree: false };
  if (!host) return empty;
  const x: Ctx = { host, nodeLinks: new Set(snapshot.network.links.map((l) => l.name)), envDiff: envDifferences, withLogEnv, versionFromLog: !!logVersion || !!o.ncclVersion, versionUsed, hostNote: picked.note };
  const consumers: ConsumerComparison[] = [];
  const push = (consumer: Consumer, logV: string | null, predV: string | null, agree: boolean, logIfnames: string[], agreeWithLogEnv: boolean | null) => {
    const ind = predicted.indeterminate[consumer];
    if (logV === null) return consumers.push({ consumer, status: 'not-in-log', log: null, predicted: predV, likely: null, evidence: [] });
    if (ind) return consumers.push({ consumer, status: 'not-predicted', log: logV, predicted: null, likely: null, evidence: [ind] });
    if (agree) return consumers.push({ consumer, status: 'agree', log: logV, predicted: predV, likely: null, evidence: [] });
    const why = explainDifference(consumer, logIfnames, agreeWithLogEnv, x);
    return consumers.push({ consumer, status: 'differ', log: logV, predicted: predV, ...why });
  };
  // A log whose bootstrap found no interface states that as much as a `Bootstrap : Using` line states one.
  const bootFailed = !host.bootstrap && bootstrapFoundNoInterface(a, host.host);
  const bootAgree = (p: PredictedFacts) => (host.bootstrap ? !!p.bootstrap && endpointsAgree(host.bootstrap, p.bootstrap) : bootFailed && !p.bootstrap);
  push('bootstrap', ep(host.bootstrap) ?? (bootFailed ? BOOT_FAILED : null), ep(predicted.bootstrap) ?? BOOT_FAILED, bootAgree(predicted), host.bootstrap ? [host.bootstrap.ifname] : [], withLogEnv ? bootAgree(withLogEnv) : null);
  const sockAgree = (p: PredictedFacts) => !!host.socket && host.socket.length === p.socket.length && host.socket.every((e, i) => endpointsAgree(e, p.socket[i]!));
  push('socket', host.socket ? eps(host.socket) || '(none)' : null, eps(predicted.socket) || 'no interface', sockAgree(predicted), host.socket?.map((e) => e.ifname) ?? [], withLogEnv ? sockAgree(withLogEnv) : null);
  const ibText = (l: { index: number; device: string; port: number; linkLayer: string }[]) => l.map((d) => `[${d.index}]${d.device}:${d.port}/${d.linkLayer}`).join(' ') || 'no device';
  const ibAgree = (p: PredictedFacts) => !!host.ib && host.ib.length === p.ib.length && host.ib.every((d, i) => d.device === p.ib[i]!.device && d.port === p.ib[i]!.port && d.linkLayer === p.ib[i]!.linkLayer);
  const logIb = host.ib ? ibText(host.ib) : host.ibNoDevice ? 'no device' : null;
  push('ibDevices', logIb, ibText(predicted.ib), host.ib ? ibAgree(predicted) : predicted.ib.length === 0, [], withLogEnv ? (host.ib ? ibAgree(withLogEnv) : withLogEnv.ib.length === 0) : null);
  const oobAgree = (p: PredictedFacts) => !!host.ibOob && !!p.ibOob && endpointsAgree(host.ibOob, p.ibOob);
  push('ibOob', ep(host.ibOob), ep(predicted.ibOob) ?? 'no interface', oobAgree(predicted), host.ibOob ? [host.ibOob.ifname] : [], withLogEnv ? oobAgree(withLogEnv) : null);
  const gidKeys = Object.keys(host.gidIndex);
  if (gidKeys.length) {
    const gidText = (m: Record<string, number | null>) => gidKeys.map((k) => `IbDev ${k}: ${m[k] ?? '?'}`).join(', ');
    const gidAgree = (p: PredictedFacts) => gidKeys.every((k) => p.gidIndex[k] === host.gidIndex[k]);
    push('gidIndex', gidText(host.gidIndex), gidText(predicted.gidIndex), gidAgree(predicted), [], withLogEnv ? gidAgree(withLogEnv) : null);
  } else push('gidIndex', null, null, false, [], null);
  const norm = (t: string | null) => (t ?? '').toLowerCase();
  push('transport', host.transport, predicted.transport ?? 'none (no network)', norm(host.transport) === norm(predicted.transport), [], withLogEnv ? norm(host.transport) === norm(withLogEnv.transport) : null);
  return { ...empty, consumers, agree: consumers.every((c) => c.status !== 'differ') };
}
