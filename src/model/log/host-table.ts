// What `ncclx log` learns of the job's hosts, processes and ranks (one of
// the parts LogCollector wires, analyze.ts): the facts the log states, for the
// whole log (the summary) and per host, process and rank, and the launcher's
// task and host names that tell whose a bare line is. Every collection is
// bounded whatever the log holds; past a bound, facts go to one overflow entry
// and `capped` counts them.

import type { Fact, Via } from './facts.js';
import { own, type LogLine, type Prefix } from './line.js';
import type { HostFacts, LogSummary, RankFacts } from './analyze.js';

export interface HostState extends Omit<HostFacts, 'processes' | 'ranks' | 'problems'> {
  pids: Set<number>;
  problems: Map<string, number>;
}

/** One process (host, pid): its host's facts and its ranks. */
export interface Proc {
  host: HostState;
  pid: number | null;
  byRank: Map<number, RankFacts>;
}

/** The log-wide facts, with whether the socket and IB lines were stated at all (an empty list is a statement). */
export type SummaryState = Omit<LogSummary, 'errors' | 'warnings'> & { socketStated: boolean; ibStated: boolean };

/** A bare `NCCL version` line: its launcher task and host, to find the host it belongs to once the log is read. */
export interface BareVersion {
  task: string | null;
  host: string | null;
  version: string;
}

const UNKNOWN_HOST = '(unknown host)';
const OVERFLOW_HOST = '(more hosts than ncclx keeps)';
const MAX_RANKS = 200_000;
const MAX_HOSTS = 20_000;
/** Processes, and entries of each launcher map. */
export const MAX_MAP = 50_000;
/** Environment variables, GID indexes, GPUDirect HCAs and network devices per host or rank; hosts per problem. */
export const MAX_PER_HOST = 256;

// The map keys a collector and absorb() must spell alike: a process, a rank of it.
export const procKey = (host: string, pid: number | null) => `${host}\u0000${pid ?? ''}`;
export const rankKey = (host: string, pid: number | null, rank: number) => `${procKey(host, pid)}\u0000${rank}`;

function newHost(host: string): HostState {
  return { host, pids: new Set(), ncclVersion: null, bootstrap: null, socket: null, ib: null, ibNoDevice: false, ibOob: null, netPlugin: null, pluginMissing: false, transport: null, env: {}, gidIndex: {}, gdr: [], problems: new Map() };
}

/** A process's rank: the one in its largest communicator (the job's world; its other communicators are subgroups of it). */
function procRank(p: Proc): number | null {
  let best: RankFacts | null = null;
  for (const r of p.byRank.values()) {
    const n = r.nranks ?? 0;
    const m = best?.nranks ?? 0;
    if (best === null || n > m || (n === m && r.rank < best.rank)) best = r;
  }
  return best?.rank ?? null;
}

export class HostTable {
  readonly summary: SummaryState = {
    ncclVersion: null, bootstrap: null, socket: [], socketStated: false, ib: [], ibStated: false, ibOob: null, netPlugin: null, transport: null, env: {},
  };
  readonly hosts = new Map<string, HostState>();
  readonly ranks = new Map<string, RankFacts>();
  readonly procs = new Map<string, Proc>();
  /** The process of a header with a host field, by the header object's identity (the hot path). */
  private readonly procOfPrefix = new Map<Prefix, Proc>();
  /** Launcher task → host, learned from NCCL lines, for bare lines that carry no host. */
  readonly taskHost = new Map<string, string>();
  /** Launcher host (pdsh name, Ray ip) → NCCL's host field, for the same reason. */
  readonly launcherHost = new Map<string, string>();
  readonly bareVersions = new Map<string, BareVersion>();
  /** Ranks whose cudaDev a rank line stated (a later statement overrides, the header's device only fills in). */
  readonly devStated = new Set<RankFacts>();
  /** Facts not kept because a bound was reached. */
  capped = 0;
  /** Some line's host was looked up in the launcher maps: a part before this one could have mapped it otherwise. */
  hostFromMaps = false;

  /** The rank the last channel line counted for, so the next line of the same rank skips the lookup. */
  private lastRank: RankFacts | null = null;
  private lastRankProc: Proc | null = null;

  /** The rank of the process `key` (procKey), or null when none is known. */
  rankOfProc(key: string): number | null {
    const proc = this.procs.get(key);
    return proc ? procRank(proc) : null;
  }

  /** What a line with NCCL's host field teaches about its launcher prefix (see hostOf). */
  learnLauncher(l: Pick<LogLine, 'host' | 'launcher'>): void {
    if (!l.host) return;
    if (l.launcher.task && !this.taskHost.has(l.launcher.task) && this.taskHost.size < MAX_MAP) this.taskHost.set(l.launcher.task, l.host);
    if (l.launcher.host && l.launcher.host !== l.host && !this.launcherHost.has(l.launcher.host) && this.launcherHost.size < MAX_MAP) this.launcherHost.set(l.launcher.host, l.host);
  }

  hostOf(l: Pick<LogLine, 'host' | 'launcher'>): string {
    if (l.host) return l.host;
    if (l.launcher.host) return this.launcherHost.get(l.launcher.host) ?? l.launcher.host;
    if (l.launcher.task) return this.taskHost.get(l.launcher.task) ?? UNKNOWN_HOST;
    return UNKNOWN_HOST;
  }

  /** A line's host was put to use: note when it came from the launcher maps (see CollectorPart.hostFromMaps). */
  usedHost(l: Pick<LogLine, 'host' | 'launcher'>): void {
    if (!l.host && (l.launcher.host || l.launcher.task)) this.hostFromMaps = true;
  }

  hostState(name: string): HostState {
    let h = this.hosts.get(name);
    if (!h) {
      if (this.hosts.size >= MAX_HOSTS && name !== OVERFLOW_HOST) {
        this.capped++;
        return this.hostState(OVERFLOW_HOST);
      }
      this.hosts.set(name, (h = newHost(name)));
    }
    return h;
  }

  procOf(l: Pick<LogLine, 'prefix' | 'host' | 'pid'>, host: string): Proc {
    if (l.prefix && l.host) {
      const hit = this.procOfPrefix.get(l.prefix);
      if (hit) return hit;
    }
    const key = procKey(host, l.pid);
    let p = this.procs.get(key);
    if (!p) {
      if (this.procs.size >= MAX_MAP) {
        this.capped++;
        return { host: this.hostState(host), pid: l.pid, byRank: new Map() };
      }
      this.procs.set(key, (p = { host: this.hostState(host), pid: l.pid, byRank: new Map() }));
      if (l.pid !== null) p.host.pids.add(l.pid);
    }
    if (l.prefix && l.host) {
      if (this.procOfPrefix.size > 20_000) this.procOfPrefix.clear();
      this.procOfPrefix.set(l.prefix, p);
    }
    return p;
  }

  /** `lines`: how many lines asked (a refused rank counts each). */
  private rankState(proc: Proc, rank: number, lines = 1): RankFacts | null {
    let r = proc.byRank.get(rank);
    if (!r) {
      if (this.ranks.size >= MAX_RANKS) {
        this.capped += lines;
        return null;
      }
      r = { host: proc.host.host, pid: proc.pid, rank, nranks: null, cudaDev: null, busId: null, comm: null, initComplete: false, transports: {}, netDevices: [], netChannels: 0, gdrChannels: 0 };
      proc.byRank.set(rank, r);
      this.ranks.set(rankKey(proc.host.host, proc.pid, rank), r);
    }
    return r;
  }

  /** rankState, remembering the last answer: a rank's lines come in runs. */
  rankOf(proc: Proc, rank: number, lines = 1): RankFacts | null {
    const r = this.lastRank;
    // A process's RankFacts, once made, stays its own (rankState and absorb only add).
    if (r !== null && r.rank === rank && this.lastRankProc === proc) return r;
    const s = this.rankState(proc, rank, lines);
    if (s) {
      this.lastRank = s;
      this.lastRankProc = proc;
    }
    return s;
  }

  /**
   * What a rank line states, read from text or bytes alike: a stated cudaDev overrides and is
   * remembered as stated (absorb needs it); the header's device only fills in.
   */
  rankStated(r: RankFacts, nranks: number, cudaDev: number | null, headerDev: number | null, complete: boolean): void {
    r.nranks = nranks;
    if (cudaDev !== null) {
      r.cudaDev = cudaDev;
      this.devStated.add(r);
    } else if (headerDev !== null && headerDev >= 0) r.cudaDev ??= headerDev;
    if (complete) r.initComplete = true;
  }

  /** A `GID` statement of IB device `ibDev` on host h: the first one for a device stands. */
  gid(h: HostState, ibDev: number, gidIndex: number): void {
    if (!(String(ibDev) in h.gidIndex) && Object.keys(h.gidIndex).length < MAX_PER_HOST) h.gidIndex[String(ibDev)] = gidIndex;
  }

  /** `lines` channel lines of one rank and via: what one such line does, that many times. */
  channel(proc: Proc, rank: number, t: Via, lines = 1): void {
    const r = this.rankOf(proc, rank, lines);
    if (!r) return;
    // Own keys only: a transport named by the log text may be `constructor` or `toString`.
    if (Object.hasOwn(r.transports, t.transport)) r.transports[t.transport]! += lines;
    else if (Object.keys(r.transports).length < 64) r.transports[t.transport] = lines;
    if (t.transport.startsWith('NET/')) {
      r.netChannels += lines;
      if (t.gdr) r.gdrChannels += lines;
      if (t.netDev !== null && !r.netDevices.includes(t.netDev) && r.netDevices.length < MAX_PER_HOST) r.netDevices.push(t.netDev);
      // Without a `Using network` line, the channel's transport is the one NCCL used; a name other than
      // NCCL's own (IB, Socket) is a plugin's, as for `Using network`.
      if (this.summary.transport === null || proc.host.transport === null) {
        const name = t.transport.slice(4);
        const plugin = name !== 'IB' && name !== 'Socket';
        if (this.summary.transport === null) {
          this.summary.transport = name;
          if (plugin) this.summary.netPlugin ??= name;
        }
        if (proc.host.transport === null) {
          proc.host.transport = name;
          if (plugin) proc.host.netPlugin ??= name;
        }
      }
    }
  }

  /** A bare `NCCL version` line's version: the log's, and its host's once the log is read (hostsOfBareVersions). */
  bareVersion(l: Pick<LogLine, 'launcher'>, version: string): void {
    this.summary.ncclVersion ??= version;
    const key = `${l.launcher.task ?? ''}\u0000${l.launcher.host ?? ''}\u0000${version}`;
    if (!this.bareVersions.has(key) && this.bareVersions.size < MAX_MAP) this.bareVersions.set(key, { task: l.launcher.task, host: l.launcher.host, version });
  }

  /** Bare `NCCL version` lines belong to the host their launcher task showed elsewhere. */
  hostsOfBareVersions(): void {
    for (const b of this.bareVersions.values()) {
      const host = (b.host ? (this.launcherHost.get(b.host) ?? b.host) : undefined) ?? (b.task ? this.taskHost.get(b.task) : undefined);
      if (!host) continue;
      const h = this.hostState(host);
      h.ncclVersion ??= b.version;
    }
  }

  fact(f: Fact, host: string, l: LogLine): void {
    const proc = this.procOf(l, host);
    const h = proc.host;
    const s = this.summary;
    switch (f.kind) {
      case 'version':
        s.ncclVersion ??= f.version;
        h.ncclVersion ??= f.version;
        break;
      case 'env':
        if (!(f.name in s.env) && Object.keys(s.env).length < MAX_PER_HOST) s.env[f.name] = f.value;
        if (!(f.name in h.env) && Object.keys(h.env).length < MAX_PER_HOST) h.env[f.name] = f.value;
        break;
      case 'bootstrap':
        if (f.endpoint) {
          s.bootstrap ??= f.endpoint;
          h.bootstrap ??= f.endpoint;
        }
        break;
      case 'socket':
        if (!s.socketStated) {
          s.socketStated = true;
          s.socket = f.endpoints;
        }
        h.socket ??= f.endpoints;
        break;
      case 'ib':
        if (!s.ibStated) {
          s.ibStated = true;
          s.ib = f.devices;
          s.ibOob = f.oob;
        }
        if (h.ib === null) {
          h.ib = f.devices;
          h.ibOob = f.oob;
        }
        break;
      case 'ib-none':
        h.ibNoDevice = true;
        break;
      case 'plugin':
        s.netPlugin ??= f.name;
        h.netPlugin ??= f.name;
        break;
      case 'network':
        s.transport ??= f.name;
        h.transport ??= f.name;
        // NCCL's own networks are IB and Socket; any other name is a plugin's (before 2.18 NCCL says nothing else when one loads).
        if (f.name !== 'IB' && f.name !== 'Socket') {
          s.netPlugin ??= f.name;
          h.netPlugin ??= f.name;
        }
        break;
      case 'rank': {
        const r = this.rankState(proc, f.rank);
        if (!r) break;
        this.rankStated(r, f.nranks, f.cudaDev, l.cudaDev, f.stage === 'complete');
        if (f.busId && r.busId !== f.busId) r.busId = own(f.busId);
        if (f.comm && r.comm !== f.comm) r.comm = own(f.comm);
        break;
      }
      case 'channel':
        this.channel(proc, f.rank, f);
        break;
      case 'gid':
        this.gid(h, f.ibDev, f.gidIndex);
        break;
      case 'gdr-hca':
        if (!h.gdr.some((g) => g.hca === f.hca) && h.gdr.length < MAX_PER_HOST) h.gdr.push({ hca: f.hca, name: f.name, enabled: f.enabled });
        break;
      case 'plugin-missing':
        h.pluginMissing = true;
        break;
    }
  }

  /** A collection has reached its bound: past it, the order of the lines decides what is kept, which parts read apart do not know. */
  atBound(): boolean {
    if (this.hosts.size >= MAX_HOSTS || this.procs.size >= MAX_MAP || this.ranks.size >= MAX_RANKS) return true;
    if (this.taskHost.size >= MAX_MAP || this.launcherHost.size >= MAX_MAP || this.bareVersions.size >= MAX_MAP) return true;
    if (Object.keys(this.summary.env).length >= MAX_PER_HOST) return true;
    for (const h of this.hosts.values()) if (Object.keys(h.env).length >= MAX_PER_HOST || Object.keys(h.gidIndex).length >= MAX_PER_HOST || h.gdr.length >= MAX_PER_HOST) return true;
    for (const r of this.ranks.values()) if (Object.keys(r.transports).length >= 64 || r.netDevices.length >= MAX_PER_HOST) return true;
    return false;
  }
}
