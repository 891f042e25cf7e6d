// A large log read in parts, one collector each (worker threads,
// src/probe/log-parallel.ts), merged in input order — one of LogCollector's
// parts, analyze.ts. What a part hands over is plain data, so it crosses
// threads by structured clone. Problems come as the events that made them, to
// be replayed in input order; everything else merges as the later part
// following the earlier (first statement wins, counts add up). Where only the
// order of the lines can decide, the merge declines and the caller reads the
// whole input again as one.

import { procKey, rankKey, type HostTable, type HostState, type BareVersion, type SummaryState } from './host-table.js';
import type { ProblemEvent, ProblemGroups } from './problem-groups.js';
import type { LineCounts } from './text-lines.js';
import type { RankFacts } from './analyze.js';

/** Keys of `from` that `to` lacks, in `from`'s order (a first statement wins). */
function addNew<T>(to: Record<string, T>, from: Record<string, T>): void {
  for (const [k, v] of Object.entries(from)) if (!(k in to)) to[k] = v;
}

/** What a collector that read one part of the input hands to absorb(). */
export interface CollectorPart {
  lines: number;
  ncclLines: number;
  truncated: number;
  capped: number;
  /** Some line's host was looked up in the launcher maps: a part before this one could have mapped it otherwise. */
  hostFromMaps: boolean;
  /** The part met a bound it cannot merge exactly past (its own caps, too many problem events). */
  unmergeable: boolean;
  summary: SummaryState;
  hosts: (Omit<HostState, 'pids' | 'problems'> & { pids: number[] })[];
  procs: { host: string; pid: number | null; ranks: (RankFacts & { devStated: boolean })[] }[];
  events: ProblemEvent[];
  taskHost: [string, string][];
  launcherHost: [string, string][];
  bareVersions: [string, BareVersion][];
}

export class PartMerger {
  /** How many parts absorb() has taken. */
  private parts = 0;

  constructor(
    private readonly counts: LineCounts,
    private readonly hosts: HostTable,
    private readonly problems: ProblemGroups,
  ) {}

  /** Facts not kept because a bound was reached, in all. */
  capped(): number {
    return this.hosts.capped + this.problems.capped;
  }

  /** A collection has reached its bound: past it, the order of the lines decides what is kept, which parts read apart do not know. */
  atBound(): boolean {
    return this.hosts.atBound() || this.problems.atBound();
  }

  /**
   * This part's state for absorb(). `holdsNextLine`: the part ends on a line that leaves its next line to
   * the next part (PyTorch's `NCCL error in:` or `Last error:`), which cannot know: read again whole.
   */
  part(holdsNextLine: boolean): CollectorPart {
    const h = this.hosts;
    const events = this.problems.partEvents();
    return {
      lines: this.counts.lines,
      ncclLines: this.counts.ncclLines,
      truncated: this.counts.truncated,
      capped: this.capped(),
      hostFromMaps: h.hostFromMaps,
      unmergeable: events === null || this.atBound() || holdsNextLine,
      summary: h.summary,
      hosts: [...h.hosts.values()].map(({ pids, problems: _p, ...x }) => ({ ...x, pids: [...pids] })),
      procs: [...h.procs.values()].map((p) => ({ host: p.host.host, pid: p.pid, ranks: [...p.byRank.values()].map((r) => ({ ...r, devStated: h.devStated.has(r) })) })),
      events: events ?? [],
      taskHost: [...h.taskHost],
      launcherHost: [...h.launcherHost],
      bareVersions: [...h.bareVersions],
    };
  }

  /**
   * Continues with the part that follows what this collector has read, as if
   * its lines had come next. false when that cannot be exact — a bound was
   * met, or a line's host depended on what earlier parts taught the launcher
   * maps — and the caller then reads the whole input again as one.
   */
  absorb(p: CollectorPart): boolean {
    if (p.capped > 0 || p.unmergeable || (p.hostFromMaps && this.parts > 0)) return false;
    this.parts++;
    this.counts.lines += p.lines;
    this.counts.ncclLines += p.ncclLines;
    this.counts.truncated += p.truncated;
    this.summary(p.summary);
    this.hostsOf(p);
    this.procsOf(p);
    const h = this.hosts;
    for (const [k, v] of p.taskHost) if (!h.taskHost.has(k)) h.taskHost.set(k, v);
    for (const [k, v] of p.launcherHost) if (!h.launcherHost.has(k)) h.launcherHost.set(k, v);
    for (const [k, v] of p.bareVersions) if (!h.bareVersions.has(k)) h.bareVersions.set(k, v);
    this.problems.replay(p.events);
    return this.capped() === 0 && !this.atBound();
  }

  private summary(q: SummaryState): void {
    const s = this.hosts.summary;
    s.ncclVersion ??= q.ncclVersion;
    s.bootstrap ??= q.bootstrap;
    if (!s.socketStated && q.socketStated) {
      s.socketStated = true;
      s.socket = q.socket;
    }
    if (!s.ibStated && q.ibStated) {
      s.ibStated = true;
      s.ib = q.ib;
      s.ibOob = q.ibOob;
    }
    s.netPlugin ??= q.netPlugin;
    s.transport ??= q.transport;
    addNew(s.env, q.env);
  }

  private hostsOf(p: CollectorPart): void {
    for (const ph of p.hosts) {
      const h = this.hosts.hostState(ph.host);
      for (const pid of ph.pids) h.pids.add(pid);
      h.ncclVersion ??= ph.ncclVersion;
      h.bootstrap ??= ph.bootstrap;
      h.socket ??= ph.socket;
      if (h.ib === null && ph.ib !== null) {
        h.ib = ph.ib;
        h.ibOob = ph.ibOob;
      }
      h.ibNoDevice ||= ph.ibNoDevice;
      h.pluginMissing ||= ph.pluginMissing;
      h.netPlugin ??= ph.netPlugin;
      h.transport ??= ph.transport;
      addNew(h.env, ph.env);
      addNew(h.gidIndex, ph.gidIndex);
      for (const g of ph.gdr) if (!h.gdr.some((x) => x.hca === g.hca)) h.gdr.push(g);
    }
  }

  private procsOf(p: CollectorPart): void {
    const hosts = this.hosts;
    for (const pp of p.procs) {
      const key = procKey(pp.host, pp.pid);
      let proc = hosts.procs.get(key);
      if (!proc) hosts.procs.set(key, (proc = { host: hosts.hostState(pp.host), pid: pp.pid, byRank: new Map() }));
      for (const { devStated, ...pr } of pp.ranks) {
        const r = proc.byRank.get(pr.rank);
        if (!r) {
          proc.byRank.set(pr.rank, pr);
          hosts.ranks.set(rankKey(pp.host, pp.pid, pr.rank), pr);
          if (devStated) hosts.devStated.add(pr);
          continue;
        }
        // The later part's statements override; the header's device only fills in.
        r.nranks = pr.nranks ?? r.nranks;
        if (devStated) {
          r.cudaDev = pr.cudaDev;
          hosts.devStated.add(r);
        } else r.cudaDev ??= pr.cudaDev;
        r.busId = pr.busId ?? r.busId;
        r.comm = pr.comm ?? r.comm;
        r.initComplete ||= pr.initComplete;
        for (const [t, n] of Object.entries(pr.transports)) r.transports[t] = (Object.hasOwn(r.transports, t) ? r.transports[t]! : 0) + n;
        for (const d of pr.netDevices) if (!r.netDevices.includes(d)) r.netDevices.push(d);
        r.netChannels += pr.netChannels;
        r.gdrChannels += pr.gdrChannels;
      }
    }
  }
}
