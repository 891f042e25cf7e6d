// `ncclx ps`: the processes on this node with an NCCL library mapped. Every
// /proc/PID/maps is read once (a cheap substring test rejects most of them);
// only NCCL processes are read further: identity, container, environment,
// the mapped library's version, sockets, and a light snapshot of their view
// (environment, conf files through their root, their network namespace) for
// the prediction. Namespaces are read once each, versions once per inode.

import { readFileSync } from 'node:fs';
import { candidatePids, type ScanCandidates } from './ps-scan.js';
import type { MappedNccl, PsEntry, PsScan } from '../model/snapshot/process-types.js';
import { SNAPSHOT_SCHEMA_VERSION, type NetworkPart, type NodeSnapshot, type ProbeWarning } from '../model/snapshot/types.js';
import { probeEnv } from './env.js';
import { quickHost } from './host.js';
import { probeNetwork } from './links.js';
import { containerOf, mappedNccl, mappedNotes, processSockets, psRelevantVar, readEnviron, readNamespace, TcpTables } from './process.js';
import { Root } from './root.js';
import { liveRunner } from './runner.js';

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

function read(p: string): string | null {
  try {
    return readFileSync(p, 'utf8');
  } catch {
    return null;
  }
}

function passwdNames(): Map<number, string> {
  const out = new Map<number, string>();
  for (const line of (read('/etc/passwd') ?? '').split('\n')) {
    const f = line.split(':');
    if (f.length > 2 && /^\d+$/.test(f[2]!)) out.set(Number(f[2]), f[0]!);
  }
  return out;
}

/** The second pass: what each candidate of src/probe/ps-scan.ts is (its maps read again, whole). */
export function scanProcesses(c: ScanCandidates = candidatePids()): PsScan {
  const found: { pid: number; mapped: MappedNccl }[] = [];
  for (const pid of c.pids) {
    const maps = read(`/proc/${pid}/maps`);
    const mapped = maps ? mappedNccl(pid, maps, () => readEnviron(pid).env) : null;
    if (mapped) found.push({ pid, mapped });
  }
  const { scanned, unreadable } = c;
  const names = found.length ? passwdNames() : new Map<number, string>();
  const tables = new TcpTables();
  const networks = new Map<string, { part: NetworkPart; from: string; warnings: ProbeWarning[] }>();
  const warnings: string[] = [];
  const hostRoot = new Root('/');
  const processes: PsEntry[] = [];
  for (const { pid, mapped } of found) {
    const status = read(`/proc/${pid}/status`) ?? '';
    const uid = Number(/^Uid:\s+\d+\s+(\d+)/m.exec(status)?.[1] ?? NaN);
    const comm = /^Name:\s+(.*)$/m.exec(status)?.[1] ?? '';
    const cmd = (read(`/proc/${pid}/cmdline`) ?? '').split('\0').filter(Boolean).join(' ');
    const container = containerOf(pid);
    const { env, error } = readEnviron(pid);
    const netKey = container.netNs ?? `pid:${pid}`;
    let net = networks.get(netKey);
    if (!net) {
      const w: ProbeWarning[] = [];
      const ns = readNamespace(pid, !container.otherNetNs, w);
      const part = ns.network ?? probeNetwork(hostRoot, liveRunner(), w);
      net = { part, from: ns.from, warnings: w };
      networks.set(netKey, net);
      for (const x of w) warnings.push(`${netKey}: ${x.message}`);
    }
    const { sockets, error: socketsError } = processSockets(pid, container.netNs, tables, net.part.addresses);
    const root = new Root(`/proc/${pid}/root`, { confined: true });
    const snapshot: NodeSnapshot = {
      schemaVersion: SNAPSHOT_SCHEMA_VERSION,
      tool: { name: 'ncclx', version: '0' },
      capturedAt: new Date().toISOString(),
      root: '/',
      host: quickHost(hostRoot),
      network: net.part,
      env: probeEnv(root, env, { uid: Number.isFinite(uid) ? uid : null }),
      resolutions: {},
      ncclLibrary: {
        candidates: [{ path: mapped.path, version: mapped.version, via: `mapped by process ${pid}`, versionFrom: mapped.version ? 'binary' : null, versionText: mapped.versionText, loadedBy: ['process'], loadNotes: [`/proc/${pid}/maps${mapped.readThrough ? `; read through ${mapped.readThrough}` : ''}`, ...mappedNotes(mapped)], ...(mapped.static ? { static: true } : {}) }],
        searched: [],
      },
      warnings: net.warnings,
      process: { pid, command: cmd, ownRoot: container.ownRoot, netns: container.netNs, sameNetns: !container.otherNetNs, networkFrom: net.from },
    };
    processes.push({
      pid,
      command: cmd.length > 300 ? `${cmd.slice(0, 297)}...` : cmd,
      comm,
      uid: Number.isFinite(uid) ? uid : null,
      user: Number.isFinite(uid) ? (names.get(uid) ?? null) : null,
      container,
      ncclLibrary: mapped,
      env: Object.fromEntries(Object.entries(env).filter(([k]) => psRelevantVar(k)).sort(([a], [b]) => (a < b ? -1 : 1))),
      envError: error,
      netns: container.netNs,
      sockets,
      socketsError,
      snapshot,
    });
  }
  return { processes, scanned, unreadable, asRoot: isRoot(), warnings };
}
