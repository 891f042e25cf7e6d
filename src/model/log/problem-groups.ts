// The problems of `ncclx log`, grouped by signature (one of LogCollector's
// parts, analyze.ts): each group's first line, count, hosts and distinct
// details, WARN lines that collectors duplicated counted once, and — in a
// collector that reads one part of a large log — the events that made them,
// for the merge to replay in input order.

import { own, type LauncherInfo } from './line.js';
import type { ProblemFacts, ProblemMatch } from './signatures.js';
import type { LogProblem } from './analyze.js';
import { MAX_PER_HOST, procKey, type HostTable } from './host-table.js';

export type DetailKind = keyof ProblemFacts | 'rank';
/** Distinct values kept per kind and problem: enough to see a pattern, bounded whatever the log. */
const MAX_DETAIL = 8;

interface ProblemState {
  match: ProblemMatch;
  line: string;
  count: number;
  hosts: Set<string>;
  details: Map<DetailKind, Set<string>>;
  /** Ranks its lines named (a launcher's `[rank3]:`), at most MAX_DETAIL. */
  ranks: Set<number>;
  /** Processes (procKey) whose lines showed it, at most MAX_PER_HOST: their ranks are known only once the whole log is read. */
  procs: Set<string>;
}

/** Who showed one occurrence of a problem: its host, its process id when NCCL's header gives one, the rank a launcher prefix names. */
export interface Shower {
  host: string;
  pid: number | null;
  rank: number | null;
}

/** A problem as one line showed it; `warn`: the WARN line's hash (duplicates from collectors count once). */
export interface ProblemEvent extends Shower {
  match: ProblemMatch;
  /** The line as kept for display; null when an earlier event of this part already gives the problem its first line. */
  line: string | null;
  /** 0 for what only adds to an occurrence already counted (PyTorch's line after `NCCL error in:`). */
  repeat: number;
  warn: number | null;
}

/** Problem events a part records at most, and the characters of their lines: past either, the parts are read again as one. */
const MAX_EVENTS = 20_000;
const MAX_EVENT_CHARS = 8_000_000;
const MAX_DEDUP = 200_000;
const MAX_PROBLEMS = 2_000;
/** The first line of a problem is kept to show it, up to this many characters. */
export const LINE_KEEP = 4096;
const keptLine = (raw: string) => own(raw.length > LINE_KEEP ? `${raw.slice(0, LINE_KEEP)}…` : raw);
// The key a collector and absorb() must spell alike.
const problemKey = (m: ProblemMatch) => `${m.signature.id}\u0000${m.detail.slice(0, 200)}`;

/** cyrb53: a 53-bit string hash, so duplicate detection keeps numbers, not lines. */
export function hash53(str: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < str.length; i++) {
    const ch = str.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/** The rank a launcher prefix names (`[rank3]:`); a torchrun role's `[default3]:` numbers the local rank and names none. */
export function launcherRank(l: LauncherInfo): number | null {
  const m = l.task !== null ? /^rank(\d{1,9})$/.exec(l.task) : null;
  return m ? Number(m[1]) : null;
}

function addDetail(p: ProblemState, kind: DetailKind, value: string): void {
  let set = p.details.get(kind);
  if (!set) p.details.set(kind, (set = new Set()));
  if (set.size < MAX_DETAIL) set.add(own(value.slice(0, 200)));
}

/** IPv4 of an IPv4-mapped GID (`::ffff:10.0.0.1`), or null. */
const mappedV4 = (gid: string) => /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(gid)?.[1] ?? null;

/**
 * Status 12 (retry exceeded) between a local and a remote GID whose IPv4 addresses differ in the first three
 * octets: the log does not state prefixes, so it says "/24", the usual rail subnet, and that routing is then needed.
 */
function gidSubnetNote(p: ProblemState): string | undefined {
  if (p.match.signature.id !== 'ib-completion-12') return undefined;
  const local = [...(p.details.get('localGid') ?? [])].map(mappedV4).filter((x): x is string => x !== null);
  const remote = [...(p.details.get('remoteGid') ?? [])].map(mappedV4).filter((x): x is string => x !== null);
  const net = (a: string) => a.split('.').slice(0, 3).join('.');
  const pairs = local.flatMap((l) => remote.filter((r) => net(l) !== net(r)).map((r) => `${l} → ${r}`));
  if (pairs.length === 0) return undefined;
  return `local and remote GIDs are on different /24 subnets (${pairs.slice(0, 4).join(', ')}${pairs.length > 4 ? ', …' : ''}): RoCE v2 between them needs an IP route on both ends and the same GID type; where each rail is its own subnet, this pair crosses rails`;
}

export class ProblemGroups {
  private readonly problems = new Map<string, ProblemState>();
  private readonly seenWarn = new Set<number>();
  /** Distinct problems not kept past MAX_PROBLEMS. */
  capped = 0;
  /** A part's problem events, in order, for absorb(); null in a collector that reads the whole input. */
  private readonly events: ProblemEvent[] | null;
  private eventChars = 0;
  private readonly eventKeys = new Set<string>();
  private overflowEvents = false;

  constructor(private readonly hosts: HostTable, part: boolean) {
    this.events = part ? [] : null;
  }

  /** Whether the WARN line whose trimmed text hashes to `key` is new (a collector's duplicate is not); remembers it. */
  newWarn(key: number): boolean {
    if (this.seenWarn.has(key)) return false;
    if (this.seenWarn.size < MAX_DEDUP) this.seenWarn.add(key);
    return true;
  }

  /** `line`: the kept text of `raw` when the caller has it (a replayed event). */
  problem(m: ProblemMatch, raw: string, who: Shower, repeat: number, line?: string): void {
    const host = who.host;
    let key = problemKey(m);
    let p = this.problems.get(key);
    // What only adds to an occurrence adds nothing where that occurrence went past the cap.
    if (!p && repeat === 0) return;
    if (!p && this.problems.size >= MAX_PROBLEMS) {
      // Past the cap every new signature counts under one entry.
      this.capped++;
      key = '\u0000overflow';
      p = this.problems.get(key);
      m = { signature: { ...m.signature, id: 'warn:(more distinct warnings than ncclx keeps)', title: 'more distinct warnings than ncclx keeps' }, detail: '' };
    }
    if (!p) this.problems.set(own(key), (p = { match: { ...m, signature: { ...m.signature, id: own(m.signature.id) }, detail: own(m.detail.slice(0, 200)) }, line: line ?? keptLine(raw), count: 0, hosts: new Set(), details: new Map(), ranks: new Set(), procs: new Set() }));
    p.count += repeat;
    if (m.facts) for (const [k, v] of Object.entries(m.facts)) addDetail(p, k as DetailKind, v);
    if (p.hosts.size < MAX_PER_HOST) p.hosts.add(host);
    if (who.rank !== null) {
      if (p.ranks.size < MAX_DETAIL) p.ranks.add(who.rank);
    } else if (who.pid !== null && p.procs.size < MAX_PER_HOST) p.procs.add(procKey(host, who.pid));
    const h = this.hosts.hostState(host);
    h.problems.set(m.signature.id, (h.problems.get(m.signature.id) ?? 0) + repeat);
  }

  /** A part keeps each problem event for absorb(); the line only where replay may need it (a new problem, or a WARN replay may find a duplicate of). */
  record(m: ProblemMatch, raw: string, who: Shower, repeat: number, warn: number | null): void {
    if (!this.events) return;
    if (this.events.length >= MAX_EVENTS || this.eventChars >= MAX_EVENT_CHARS) {
      this.overflowEvents = true;
      return;
    }
    const key = problemKey(m);
    const first = !this.eventKeys.has(key);
    if (first) this.eventKeys.add(key);
    const line = first || warn !== null ? keptLine(raw) : null;
    this.eventChars += line?.length ?? 0;
    this.events.push({ match: m, line, host: who.host, pid: who.pid, rank: who.rank, repeat, warn });
  }

  /** This part's events, or null when they cannot be replayed exactly (not a part, too many events, too many WARNs to tell apart). */
  partEvents(): ProblemEvent[] | null {
    return this.events === null || this.overflowEvents || this.seenWarn.size >= MAX_DEDUP ? null : this.events;
  }

  /** The events of the part that follows, replayed as its lines made them. */
  replay(events: ProblemEvent[]): void {
    for (const e of events) {
      if (e.warn !== null && !this.newWarn(e.warn)) continue;
      this.problem(e.match, '', e, e.repeat, e.line ?? '');
    }
  }

  /** A collection has reached its bound (see HostTable.atBound). */
  atBound(): boolean {
    if (this.problems.size >= MAX_PROBLEMS || this.seenWarn.size >= MAX_DEDUP) return true;
    for (const p of this.problems.values()) if (p.hosts.size >= MAX_PER_HOST || p.procs.size >= MAX_PER_HOST) return true;
    return false;
  }

  /** The groups, in the order first met, but `ib-no-device` where every host that showed it turned IB off. */
  list(): LogProblem[] {
    // `No device found` is no silent fallback where the job turned IB off (NCCL_IB_DISABLE=1; the line then comes from a plugin's probe).
    const ibOff = (host: string) => this.hosts.hosts.get(host)?.env['NCCL_IB_DISABLE'] === '1';
    const kept = [...this.problems.values()].filter((p) => p.match.signature.id !== 'ib-no-device' || ![...p.hosts].every(ibOff));
    return kept.map((p): LogProblem => ({
      signature: p.match.signature.id,
      severity: p.match.signature.severity,
      title: p.match.detail ? `${p.match.signature.title}: ${p.match.detail}` : p.match.signature.title,
      detail: p.match.detail,
      line: p.line,
      ...this.detailsOf(p),
      ...(gidSubnetNote(p) ? { note: gidSubnetNote(p)! } : {}),
      count: p.count,
      hosts: [...p.hosts].sort(),
      meaning: p.match.signature.meaning,
      causes: p.match.signature.causes,
      next: p.match.signature.next,
      reports: p.match.signature.reports,
    }));
  }

  /** A problem's distinct details, its ranks among them: those its lines named, then those of the processes that showed it. */
  private detailsOf(p: ProblemState): Pick<LogProblem, 'details'> {
    const ranks = new Set(p.ranks);
    for (const key of p.procs) {
      if (ranks.size >= MAX_DETAIL) break;
      const r = this.hosts.rankOfProc(key);
      if (r !== null) ranks.add(r);
    }
    const details: Partial<Record<DetailKind, string[]>> = Object.fromEntries([...p.details].map(([k, v]) => [k, [...v]]));
    if (ranks.size) details.rank = [...ranks].sort((a, b) => a - b).map(String);
    return Object.keys(details).length ? { details } : {};
  }
}
