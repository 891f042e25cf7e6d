// `ncclx explain` as data: the three consumers' selections, the trace and the
// findings, for one snapshot and one set of overrides. Pure.

import { assumedLocalhost, isLocalhostName } from './comm-id.js';
import { effectiveEnv, originLabel, withFlags, type EffectiveEnv } from './conf.js';
import { selectIbDevices } from './ib.js';
import { libraryFindings } from './library.js';
import { socketFindings, type Finding } from './socket-findings.js';
import { selectSocketInterfaces, type ConsumerResult, type SocketContext } from './socket.js';
import { chooseVersion } from './version-choice.js';
import { profileFor, versionString, type Profile, type VersionBeyond, type VersionChoice } from './versions.js';
import type { NodeSnapshot, ProcessView } from '../snapshot/types.js';

export interface SocketOverrides {
  ifname?: string;
  commId?: string;
  family?: string;
  ncclVersion?: string;
}

export interface ExplainReport {
  ncclVersion: string;
  profile: string;
  versionSource: string;
  /** Set when the version is newer than the newest modelled release (docs/explain-json.md). */
  versionBeyondModel: VersionBeyond | null;
  host: string;
  /** --pid: the process reasoned about (its environment, NCCL, conf files and network namespace). */
  process: ProcessView | null;
  inputs: Record<string, { value: string | null; source: string }>;
  bootstrap: ConsumerResult;
  socket: ConsumerResult;
  ibOob: ConsumerResult;
  findings: Finding[];
  warnings: string[];
}

const INPUT_VARS = ['NCCL_SOCKET_IFNAME', 'NCCL_SOCKET_FAMILY', 'NCCL_COMM_ID', 'NCCL_SOCKET_IPADDR_PREFIX'] as const;

/** Effective variables with command-line overrides on top (flags beat the environment). */
export function applyOverrides(env: EffectiveEnv, o: SocketOverrides): EffectiveEnv {
  return withFlags(env, [
    ['NCCL_SOCKET_IFNAME', o.ifname, '--ifname'],
    ['NCCL_COMM_ID', o.commId, '--comm-id'],
    ['NCCL_SOCKET_FAMILY', o.family, '--family'],
  ]);
}

export interface ReasoningContext {
  choice: VersionChoice;
  profile: Profile;
  env: EffectiveEnv;
  socketCtx: SocketContext;
}

export function reasoningContext(snapshot: NodeSnapshot, o: SocketOverrides): ReasoningContext {
  const choice = chooseVersion(o.ncclVersion, snapshot);
  const profile = profileFor(choice.version);
  const env = applyOverrides(effectiveEnv(snapshot.env, profile), o);
  const socketCtx: SocketContext = {
    profile,
    links: snapshot.network.links,
    addresses: snapshot.network.addresses,
    vars: env.vars,
    // A localhost name is loopback whatever the resolver says first (comm-id.ts assumedLocalhost), so the model need not give up on it.
    resolve: (h) => snapshot.resolutions[h] ?? (isLocalhostName(h) ? assumedLocalhost(h, snapshot.network.addresses.some((a) => a.address === '::1')) : undefined),
  };
  return { choice, profile, env, socketCtx };
}

/**
 * The IB transport's summary line, as NCCL prints it once the OOB interface is
 * found: "NET/IB : Using …" with the devices, or "NET/IB : No device found."
 * when none is usable. Without RDMA data, the line is what NCCL prints if it
 * finds a device, and says so.
 */
function ibOobLog(snapshot: NodeSnapshot, profile: Profile, vars: Record<string, string>, ibOob: ConsumerResult): string | null {
  if (!ibOob.log) return null;
  if (!snapshot.rdma) return `${ibOob.log} (if the IB transport finds a device; ncclx has no RDMA data for this node)`;
  const ib = selectIbDevices(snapshot.rdma, { profile, vars, ibOob });
  const line = [...ib.transport.log].reverse().find((l) => l.level === 'INFO' && /^NET\/IB : (Using|No device found)/.test(l.text));
  return line?.text ?? ibOob.log;
}

export function explain(snapshot: NodeSnapshot, o: SocketOverrides = {}): ExplainReport {
  const { choice, profile, env, socketCtx } = reasoningContext(snapshot, o);
  const selection = selectSocketInterfaces(socketCtx);
  const ibOob = { ...selection.ibOob, log: ibOobLog(snapshot, profile, env.vars, selection.ibOob) };
  // The NCCL libraries' findings (LIB-*) only when the version was detected: --nccl-version settles which NCCL is modelled.
  const findings = [...socketFindings({ ctx: socketCtx, selection, env, versionAssumed: choice.assumed }), ...(o.ncclVersion === undefined ? libraryFindings(snapshot.ncclLibrary, snapshot.env.process) : [])];
  const inputs: ExplainReport['inputs'] = {};
  for (const v of INPUT_VARS) {
    if (v === 'NCCL_SOCKET_IPADDR_PREFIX' && !profile.ipaddrPrefix) continue;
    inputs[v] = { value: env.vars[v] ?? null, source: originLabel(env.origins[v]) };
  }
  return {
    ncclVersion: versionString(choice.version),
    profile: profile.id,
    versionSource: choice.source,
    versionBeyondModel: choice.beyond,
    host: snapshot.host.hostname,
    process: snapshot.process ?? null,
    inputs,
    bootstrap: selection.bootstrap,
    socket: selection.socket,
    ibOob,
    findings,
    warnings: snapshot.warnings.map((w) => `${w.source}: ${w.message}`),
  };
}
