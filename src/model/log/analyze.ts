// `ncclx log` as data: lines in (in input order), what NCCL did out — per
// host, per rank and in summary — with the problems grouped by signature and
// the hosts that chose differently from the others. Pure and streaming: the
// collector keeps facts, not lines, so memory follows hosts and ranks, not
// the log's size.

import { factOf, type Endpoint, type Fact, type IbEntry, type Via } from './facts.js';
import { channelAt, channelHeadAt, channelRead, copyBytes, gidAt, gidRead, rankAt, rankRead, sameBytes, viaAt, type AsciiBytes } from './ascii.js';
import { bareText, gluedLines, LAST_ERROR, own, parseLine, parsePrefix, torchResultLine, type LauncherInfo, type LogLine, type Prefix } from './line.js';
import { ifaceProblem, infoProblem, torchProblem, warnProblem, type ProblemFacts, type ProblemMatch, type ProblemSeverity } from './signatures.js';
import { profileOfStated } from '../nccl/versions.js';

export interface LogProblem {
  signature: string;
  severity: ProblemSeverity;
  title: string;
  /** The occurrence's distinguishing part (completion status, errno text), '' when none. */
  detail: string;
  /** The first line showing it, as it appears in the input. */
  line: string;
  /**
   * The distinct values its occurrences name, at most MAX_DETAIL each (a completion error's peers, local and
   * remote GIDs, devices; the ranks that showed it, in numeric order; PyTorch's messages after `NCCL error in:`);
   * absent when none.
   */
  details?: Partial<Record<DetailKind, string[]>>;
  /** A remark the occurrences support (status 12 between GIDs on different subnets). */
  note?: string;
  count: number;
  hosts: string[];
  meaning: string;
  causes: string[];
  next: string[];
  reports: string[];
}

export interface HostFacts {
  host: string;
  processes: number;
  ranks: number[];
  ncclVersion: string | null;
  bootstrap: Endpoint | null;
  socket: Endpoint[] | null;
  /** null when the log shows no `NET/IB : Using` line for this host. */
  ib: IbEntry[] | null;
  ibNoDevice: boolean;
  ibOob: Endpoint | null;
  netPlugin: string | null;
  /** The log says NCCL found no external net plugin (`NET/Plugin : No plugin found`, `Could not find: libnccl-net.so`). */
  pluginMissing: boolean;
  transport: string | null;
  env: Record<string, string>;
  /** GID index per NCCL IB device index (`IbDev n Port p … GID g`). */
  gidIndex: Record<string, number>;
  gdr: { hca: number; name: string; enabled: boolean }[];
  problems: Record<string, number>;
}

export interface RankFacts {
  host: string;
  pid: number | null;
  rank: number;
  nranks: number | null;
  cudaDev: number | null;
  busId: string | null;
  comm: string | null;
  initComplete: boolean;
  /** Channel connections by transport as printed (`NET/IB`, `NET/Socket`, `P2P/IPC`, `SHM`, a plugin's name). */
  transports: Record<string, number>;
  netDevices: number[];
  /** Network channels and those with GPUDirect RDMA (`/GDRDMA`). */
  netChannels: number;
  gdrChannels: number;
}

export type AsymmetryFact = 'ncclVersion' | 'bootstrap' | 'socket' | 'ibCount' | 'ibDevices' | 'ibOob' | 'transport' | 'netPlugin' | 'gidIndex';

export interface Asymmetry {
  fact: AsymmetryFact;
  severity: ProblemSeverity;
  /** Each distinct value and its hosts, most hosts first. */
  values: { value: string; hosts: string[] }[];
  /** Hosts outside the largest group. */
  outliers: string[];
  meaning: string;
}

export interface LogSummary {
  ncclVersion: string | null;
  bootstrap: Endpoint | null;
  socket: Endpoint[];
  ib: IbEntry[];
  ibOob: Endpoint | null;
  netPlugin: string | null;
  transport: string | null;
  env: Record<string, string>;
  errors: LogProblem[];
  /** Problems of warning severity (the silent fallback to sockets, libibverbs missing). */
  warnings: LogProblem[];
}

export interface LogAnalysis {
  /** capped: facts not kept because a bound was reached (hosts, ranks, distinct warnings). */
  input: { lines: number; ncclLines: number; truncatedLines: number; capped: number };
  summary: LogSummary;
  hosts: HostFacts[];
  ranks: RankFacts[];
  asymmetries: Asymmetry[];
}

interface HostState extends Omit<HostFacts, 'processes' | 'ranks' | 'problems'> {
  pids: Set<number>;
  problems: Map<string, number>;
}

/** One process (host, pid): its host's facts and its ranks. */
interface Proc {
  host: HostState;
  pid: number | null;
  byRank: Map<number, RankFacts>;
}

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
interface Shower {
  host: string;
  pid: number | null;
  rank: number | null;
}

function addDetail(p: ProblemState, kind: DetailKind, value: string): void {
  let set = p.details.get(kind);
  if (!set) p.details.set(kind, (set = new Set()));
  if (set.size < MAX_DETAIL) set.add(own(value.slice(0, 200)));
}

/** The rank a launcher prefix names (`[rank3]:`); a torchrun role's `[default3]:` numbers the local rank and names none. */
function launcherRank(l: LauncherInfo): number | null {
  const m = l.task !== null ? /^rank(\d{1,9})$/.exec(l.task) : null;
  return m ? Number(m[1]) : null;
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

/**
 * What a collector that read one part of the input (a byte range of a large
 * log, read by a worker thread) hands to absorb(): plain data, so it crosses
 * threads by structured clone. The problems come as the events that made them,
 * to be replayed in input order; everything else merges as the later part
 * following the earlier (first statement wins, counts add up).
 */
export interface CollectorPart {
  lines: number;
  ncclLines: number;
  truncated: number;
  capped: number;
  /** Some line's host was looked up in the launcher maps: a part before this one could have mapped it otherwise. */
  hostFromMaps: boolean;
  /** The part met a bound it cannot merge exactly past (its own caps, too many problem events). */
  unmergeable: boolean;
  summary: LogCollector['summary'];
  hosts: (Omit<HostState, 'pids' | 'problems'> & { pids: number[] })[];
  procs: { host: string; pid: number | null; ranks: (RankFacts & { devStated: boolean })[] }[];
  events: ProblemEvent[];
  taskHost: [string, string][];
  launcherHost: [string, string][];
  bareVersions: [string, { task: string | null; host: string | null; version: string }][];
}

/** A problem as one line showed it; `warn`: the WARN line's hash (duplicates from collectors count once). */
interface ProblemEvent extends Shower {
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

const UNKNOWN_HOST = '(unknown host)';
// What the collector keeps is bounded whatever the log holds (a crafted or corrupt log must not
// take the memory of the machine): beyond these, facts go to one overflow entry and input.capped counts them.
const MAX_DEDUP = 200_000;
const MAX_RANKS = 200_000;
const MAX_HOSTS = 20_000;
const MAX_PROBLEMS = 2_000;
const MAX_MAP = 50_000;
const MAX_PER_HOST = 256;
/** The first line of a problem is kept to show it, up to this many characters. */
const LINE_KEEP = 4096;
const OVERFLOW_HOST = '(more hosts than ncclx keeps)';
/** A header of the byte path and what it parses to (LogCollector.asciiHead). */
interface AsciiHead {
  bytes: Uint8Array;
  prefix: Prefix;
  /** Its process, once a channel line asked (kept: procs never drops one). */
  proc: Proc | null;
  /** learnLauncher has run for it: once it has, running it again changes nothing (the maps only grow). */
  learned: boolean;
  /**
   * The last two headers found in the table right after this one, tried before hashing. They point
   * only to entries of the table as it was then, so after a clear the old entries go once no line
   * uses them: at most two tables' worth is alive.
   */
  next: AsciiHead | null;
  next2: AsciiHead | null;
}
const HEAD_MAX = 8192;
/** Longer headers are parsed from their text each time: the table holds at most HEAD_MAX × HEAD_KEEP bytes. */
const HEAD_KEEP = 512;
const EMPTY = new Uint8Array(0);
const keptLine = (raw: string) => own(raw.length > LINE_KEEP ? `${raw.slice(0, LINE_KEEP)}…` : raw);

// The map keys a collector and absorb() must spell alike: a process, a rank of it, a problem.
const procKey = (host: string, pid: number | null) => `${host}\u0000${pid ?? ''}`;
const rankKey = (host: string, pid: number | null, rank: number) => `${procKey(host, pid)}\u0000${rank}`;
const problemKey = (m: ProblemMatch) => `${m.signature.id}\u0000${m.detail.slice(0, 200)}`;

/** cyrb53: a 53-bit string hash, so duplicate detection keeps numbers, not lines. */
function hash53(str: string): number {
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

/** An interface other nodes cannot reach, in a line that states a consumer's interface. */
function ifaceOf(f: Fact): ProblemMatch | null {
  if (f.kind === 'bootstrap') return f.endpoint ? ifaceProblem('bootstrap', [f.endpoint]) : null;
  if (f.kind === 'socket') return ifaceProblem('socket transport', f.endpoints);
  if (f.kind === 'ib') return f.oob ? ifaceProblem('IB OOB', [f.oob]) : null;
  return null;
}

/** `Last error:` then blanks (spaces, tabs) at the end of a line: the byte path and the scanner test the same. */
const LAST_ERROR_END = /Last error:[ \t]*$/;

/** Whether the line [a, e) ends with `Last error:` (then blanks). */
function endsWithLastError(b: AsciiBytes, a: number, e: number): boolean {
  while (e > a && (b[e - 1] === 32 || b[e - 1] === 9)) e--;
  if (e - a < LAST_ERROR.length) return false;
  for (let j = 0; j < LAST_ERROR.length; j++) if (b[e - LAST_ERROR.length + j] !== LAST_ERROR.charCodeAt(j)) return false;
  return true;
}

/** Whether bytes [i, e) of b spell s. */
function sameText(b: AsciiBytes, i: number, e: number, s: string | null): boolean {
  if (s === null || s.length !== e - i) return false;
  for (let j = 0; j < s.length; j++) if (b[i + j] !== s.charCodeAt(j)) return false;
  return true;
}

/** Keys of `from` that `to` lacks, in `from`'s order (a first statement wins). */
function addNew<T>(to: Record<string, T>, from: Record<string, T>): void {
  for (const [k, v] of Object.entries(from)) if (!(k in to)) to[k] = v;
}

function newHost(host: string): HostState {
  return { host, pids: new Set(), ncclVersion: null, bootstrap: null, socket: null, ib: null, ibNoDevice: false, ibOob: null, netPlugin: null, pluginMissing: false, transport: null, env: {}, gidIndex: {}, gdr: [], problems: new Map() };
}

export class LogCollector {
  private lines = 0;
  private ncclLines = 0;
  private truncated = 0;
  private readonly summary: Omit<LogSummary, 'errors' | 'warnings'> & { socketStated: boolean; ibStated: boolean } = {
    ncclVersion: null, bootstrap: null, socket: [], socketStated: false, ib: [], ibStated: false, ibOob: null, netPlugin: null, transport: null, env: {},
  };
  private readonly hosts = new Map<string, HostState>();
  private readonly ranks = new Map<string, RankFacts>();
  private readonly procs = new Map<string, Proc>();
  /** The process of a header with a host field, by the header object's identity (the hot path). */
  private readonly procOfPrefix = new Map<Prefix, Proc>();
  private readonly problems = new Map<string, ProblemState>();
  private readonly seenWarn = new Set<number>();
  private capped = 0;
  /** Launcher task → host, learned from NCCL lines, for bare lines that carry no host. */
  private readonly taskHost = new Map<string, string>();
  /** Launcher host (pdsh name, Ray ip) → NCCL's host field, for the same reason. */
  private readonly launcherHost = new Map<string, string>();
  private readonly bareVersions = new Map<string, { task: string | null; host: string | null; version: string }>();
  /** Ranks whose cudaDev a rank line stated (a later statement overrides, the header's device only fills in). */
  private readonly devStated = new Set<RankFacts>();
  /** Set by asPart(): the problem events, in order, for absorb(). */
  private events: ProblemEvent[] | null = null;
  private eventChars = 0;
  private eventKeys = new Set<string>();
  private hostFromMaps = false;
  private overflowEvents = false;
  /** How many parts absorb() has taken. */
  private parts = 0;

  /** A collector for one part of the input: it also records what absorb() replays. */
  static part(): LogCollector {
    const c = new LogCollector();
    c.events = [];
    return c;
  }

  /** One input line (without its newline). `truncated`: the reader cut it at its line limit. */
  addLine(raw: string, truncated = false): void {
    this.lines++;
    if (truncated) this.truncated++;
    const glued = gluedLines(raw);
    if (glued) for (const piece of glued) this.statement(piece);
    else this.statement(raw);
  }

  /** One NCCL statement (a line, or a piece of lines glued together) or a line that is not NCCL's. */
  private statement(raw: string): void {
    const l = parseLine(raw);
    if (!l) {
      this.bareLine(raw);
      return;
    }
    this.lastErrorNext = false;
    this.torchNext = null;
    this.ncclLines++;
    this.add(l, raw);
  }

  /** The line after PyTorch's `Last error:` is NCCL's WARN text (line.ts LAST_ERROR); set by that line, used by the next. */
  private lastErrorNext = false;

  /**
   * PyTorch's `NCCL error in:` problem and who showed it, set by that line: the next line may be PyTorch's
   * `ncclInternalError: …` (line.ts torchResultLine), which belongs to it.
   */
  private torchNext: { match: ProblemMatch; who: Shower; task: string | null } | null = null;

  /**
   * A line that is not NCCL's: PyTorch's line after its `NCCL error in:`, its `Last error:` and the line after
   * that are read, the rest only counted.
   */
  private bareLine(raw: string): void {
    const torch = this.torchNext;
    if (torch) {
      this.torchNext = null;
      if (this.torchResult(torch, raw)) return;
    }
    if (this.lastErrorNext) {
      this.lastErrorNext = false;
      const { launcher, text } = bareText(raw);
      if (!text || text.length > LINE_KEEP) return;
      const m = warnProblem(text);
      const l = { host: null, launcher };
      const who = { host: this.hostOf(l), pid: null, rank: launcherRank(launcher) };
      this.usedHost(l);
      this.record(m, raw, who, 1, null);
      this.problem(m, raw, who, 1);
    } else if (raw.length < 256 && raw.length >= LAST_ERROR.length && LAST_ERROR_END.test(raw)) this.lastErrorNext = true;
  }

  /** PyTorch's line after `NCCL error in:`, of the same launcher task: a message of that problem, no occurrence of its own. */
  private torchResult(torch: NonNullable<LogCollector['torchNext']>, raw: string): boolean {
    const r = torchResultLine(raw);
    if (!r || r.launcher.task !== torch.task || r.text.length > LINE_KEEP) return false;
    const m = { ...torch.match, facts: { message: r.text } };
    this.record(m, raw, torch.who, 0, null);
    this.problem(m, raw, torch.who, 0);
    return true;
  }

  /**
   * One line of an ASCII chunk: bytes [a, e), without its newline and trailing CR;
   * k is where its first `NCCL` starts, -1 when it has none. Channel lines, and the
   * rank and QP lines of each communicator, are read from the bytes in their plain
   * shape (ascii.ts); other INFO lines skip the cleaning (infoAscii); every other
   * line is handed to addLine as text, so the result is addLine's either way.
   */
  addAsciiLine(b: AsciiBytes, a: number, e: number, k: number): void {
    // PyTorch's line after `NCCL error in:`, its `Last error:` and the line after that go the text way (rare; the check is on the line's last bytes).
    if (this.lastErrorNext || this.torchNext !== null || (k < 0 && e - a >= 11 && e - a < 256 && endsWithLastError(b, a, e))) {
      this.addLine(b.latin1Slice(a, e));
      return;
    }
    if (k < 0) {
      this.lines++;
      return;
    }
    const m = channelHeadAt(b, k, e);
    if (m >= 0 && this.procs.size < MAX_MAP) {
      const proc = this.asciiProc(b, a, k);
      if (proc && channelAt(b, m, e)) {
        this.lines++;
        this.ncclLines++;
        this.channel(proc, channelRead.rank, channelRead.via);
        return;
      }
    }
    if (m < 0 && this.infoAscii(b, a, e, k)) return;
    this.addLine(b.latin1Slice(a, e));
  }

  /** Whether the next line must come to addAsciiLine or addLine, not as a count or a run (the one after PyTorch's `NCCL error in:` or `Last error:`). */
  holdsNextLine(): boolean {
    return this.lastErrorNext || this.torchNext !== null;
  }

  /** n lines with no `NCCL` in them, as addAsciiLine takes each (they only count). */
  addBareLines(n: number): void {
    this.lines += n;
  }

  /**
   * Consecutive channel lines of one header (bytes [a, k) of the first) and one
   * rank, as the reader's scanner (wasm/log-scan.c) found them: each distinct via
   * once, at rec[at + 4i …] as [start, end, hash, lines], in the order first met.
   * Has the effect of addAsciiLine on each of those lines, or does nothing and
   * returns false (the reader then gives the lines one by one) when addAsciiLine
   * would hand any of them to addLine.
   */
  addChannelRun(b: AsciiBytes, a: number, k: number, rank: number, rec: Int32Array, at: number, nvia: number): boolean {
    const h = this.scannedHead(b, a, k);
    if (!h) return false;
    const proc = this.headProc(h);
    for (let i = 0; i < nvia; i++) {
      const o = at + 4 * i;
      const n = rec[o + 3]!;
      this.lines += n;
      this.ncclLines += n;
      this.channel(proc, rank, viaAt(b, rec[o]!, rec[o + 1]!, rec[o + 2]!), n);
    }
    return true;
  }

  /**
   * A rank line as the scanner read it (rec[at …]: rankAt's fields in
   * wasm/log-scan.c's R_ order): what infoAscii does with it, or false (nothing
   * done) when infoAscii would not give it to rankAt.
   */
  addRankLine(b: AsciiBytes, a: number, k: number, rec: Int32Array, at: number): boolean {
    const h = this.scannedHead(b, a, k);
    if (!h) return false;
    const r = rankRead;
    r.commStart = rec[at]!;
    r.commEnd = rec[at + 1]!;
    r.rank = rec[at + 2]!;
    r.nranks = rec[at + 3]!;
    r.cudaDev = rec[at + 4] ? (rec[at + 5] ? -rec[at + 6]! : rec[at + 6]!) : null;
    r.busStart = rec[at + 7]!;
    r.busEnd = rec[at + 8]!;
    r.stage = rec[at + 9] === 1 ? 'start' : rec[at + 9] === 2 ? 'complete' : null;
    this.lines++;
    this.ncclLines++;
    this.learnHead(h);
    this.rankBytes(b, this.headProc(h), h.prefix);
    return true;
  }

  /** A QP line as the scanner read it: what infoAscii does with it, or false (nothing done) when infoAscii would not give it to gidAt. */
  addGidLine(b: AsciiBytes, a: number, k: number, ibDev: number, gidIndex: number): boolean {
    const h = this.scannedHead(b, a, k);
    if (!h) return false;
    this.lines++;
    this.ncclLines++;
    this.learnHead(h);
    this.gid(this.headProc(h).host, ibDev, gidIndex);
    return true;
  }

  /** The header of a line the scanner read, when it has a host and its process has room; else null (the line is read the ordinary way). */
  private scannedHead(b: AsciiBytes, a: number, k: number): AsciiHead | null {
    if (this.procs.size + 1 >= MAX_MAP || this.holdsNextLine()) return null;
    const h = this.asciiHead(b, a, k);
    return h?.prefix.host ? h : null;
  }

  /**
   * Any other `NCCL INFO` line of an ASCII chunk, as parseLine would read it
   * but without cleaning and re-scanning the whole line: false (nothing done)
   * when the line holds anything clean() or finish() would change, or a
   * header parseLine would pass over.
   */
  private infoAscii(b: AsciiBytes, a: number, e: number, k: number): boolean {
    if (e - k <= 10 || b[k + 4] !== 32 || b[k + 5] !== 73 || b[k + 6] !== 78 || b[k + 7] !== 70 || b[k + 8] !== 79 || b[k + 9] !== 32) return false; // 'NCCL INFO '
    const last = b[e - 1]!;
    if (last <= 32 || last === 93 /* ] */) return false;
    const h = this.asciiHead(b, a, k);
    if (!h) return false;
    const p = h.prefix;
    // The rank and QP lines NCCL prints for every communicator, read from the bytes as factOf reads their text
    // (neither is a problem infoProblem or ifaceOf knows); the process comes as for channel lines.
    if (p.host && this.procs.size < MAX_MAP) {
      const c = b[k + 10];
      if ((c === 99 /* c */ || c === 110 /* n */) && rankAt(b, k + 10, e)) {
        this.lines++;
        this.ncclLines++;
        this.learnHead(h);
        this.rankBytes(b, this.headProc(h), p);
        return true;
      }
      if (c === 78 /* N */ && gidAt(b, k + 10, e)) {
        this.lines++;
        this.ncclLines++;
        this.learnHead(h);
        this.gid(this.headProc(h).host, gidRead.ibDev, gidRead.gidIndex);
        return true;
      }
    }
    const message = b.latin1Slice(k + 10, e);
    if (message.includes('\x1b') || message.includes('\r')) return false;
    this.lines++;
    this.ncclLines++;
    this.add({ level: 'INFO', host: p.host, pid: p.pid, tid: p.tid, cudaDev: p.cudaDev, source: p.source, launcher: p.launcher, message, repeat: 1, prefix: p }, () => b.latin1Slice(a, e));
    return true;
  }

  /**
   * Headers met on the byte path, by a hash of their bytes, with what they
   * parse to: consecutive lines mostly repeat a header, and comparing its bytes
   * costs less than making the string to look it up. One entry a hash (a
   * collision replaces it), cleared past HEAD_MAX; `last` is the entry the
   * previous line used.
   */
  private readonly heads = new Map<number, AsciiHead>();
  private lastHead: AsciiHead | null = null;

  /** The entry for the header at [a, k): found by its bytes, or parsed and kept; null when clean() would change it or it does not parse. */
  private asciiHead(b: AsciiBytes, a: number, k: number): AsciiHead | null {
    const n = k - a;
    const last = this.lastHead;
    if (last) {
      if (last.bytes.length === n && sameBytes(b, a, last.bytes)) return last;
      // The two headers that followed this one before: a job's threads take turns in a pattern.
      const x = last.next;
      if (x && x.bytes.length === n && sameBytes(b, a, x.bytes)) return (this.lastHead = x);
      const y = last.next2;
      if (y && y.bytes.length === n && sameBytes(b, a, y.bytes)) return (this.lastHead = y);
    }
    if (n > HEAD_KEEP) {
      const p = this.textPrefix(b, a, k);
      return p && { bytes: EMPTY, prefix: p, proc: null, learned: false, next: null, next2: null };
    }
    let h = 0;
    for (let i = a; i < k; i++) h = (Math.imul(h, 31) + b[i]!) | 0;
    let hit = this.heads.get(h);
    if (!hit || hit.bytes.length !== n || !sameBytes(b, a, hit.bytes)) {
      const p = this.textPrefix(b, a, k);
      if (!p) return null;
      if (this.heads.size >= HEAD_MAX) this.heads.clear();
      this.heads.set(h, (hit = { bytes: copyBytes(b, a, k), prefix: p, proc: null, learned: false, next: null, next2: null }));
    }
    if (last) {
      last.next2 = last.next;
      last.next = hit;
    }
    this.lastHead = hit;
    return hit;
  }

  /** NCCL's header before k parsed from its text, when clean() would leave it as it is; null otherwise. */
  private textPrefix(b: AsciiBytes, a: number, k: number): Prefix | null {
    const pre = b.latin1Slice(a, k);
    if (pre.includes('\x1b') || pre.includes('\r')) return null;
    return parsePrefix(pre);
  }

  /** The process of the header before k, or null when addLine must judge the line. Called only while procs is below its bound. */
  private asciiProc(b: AsciiBytes, a: number, k: number): Proc | null {
    const h = this.asciiHead(b, a, k);
    return h?.prefix.host ? this.headProc(h) : null;
  }

  /** The process of a header with a host, as procOf finds it; called only while procs is below its bound, so it is one procs keeps and the entry may keep it too. */
  private headProc(h: AsciiHead): Proc {
    return (h.proc ??= this.procOf({ prefix: h.prefix, host: h.prefix.host, pid: h.prefix.pid }, h.prefix.host!));
  }

  /** A rank line rankAt() read from b, as fact() takes a rank fact: comm and busId become strings only when they change. */
  private rankBytes(b: AsciiBytes, proc: Proc, p: Prefix): void {
    const f = rankRead;
    const r = this.rankOf(proc, f.rank);
    if (!r) return;
    this.rankStated(r, f.nranks, f.cudaDev, p.cudaDev, f.stage === 'complete');
    // latin1Slice makes a string of its own: nothing to copy (own) as a slice of a read would need.
    if (f.busStart >= 0 && !sameText(b, f.busStart, f.busEnd, r.busId)) r.busId = b.latin1Slice(f.busStart, f.busEnd);
    if (!sameText(b, f.commStart, f.commEnd, r.comm)) r.comm = b.latin1Slice(f.commStart, f.commEnd);
  }

  /**
   * What a rank line states, read from text or bytes alike: a stated cudaDev overrides and is
   * remembered as stated (absorb needs it); the header's device only fills in.
   */
  private rankStated(r: RankFacts, nranks: number, cudaDev: number | null, headerDev: number | null, complete: boolean): void {
    r.nranks = nranks;
    if (cudaDev !== null) {
      r.cudaDev = cudaDev;
      this.devStated.add(r);
    } else if (headerDev !== null && headerDev >= 0) r.cudaDev ??= headerDev;
    if (complete) r.initComplete = true;
  }

  /** A `GID` statement of IB device `ibDev` on host h: the first one for a device stands. */
  private gid(h: HostState, ibDev: number, gidIndex: number): void {
    if (!(String(ibDev) in h.gidIndex) && Object.keys(h.gidIndex).length < MAX_PER_HOST) h.gidIndex[String(ibDev)] = gidIndex;
  }

  private learnHead(h: AsciiHead): void {
    if (h.learned) return;
    this.learnLauncher(h.prefix);
    h.learned = true;
  }

  /** What a line with NCCL's host field teaches about its launcher prefix (see hostOf). */
  private learnLauncher(l: Pick<LogLine, 'host' | 'launcher'>): void {
    if (!l.host) return;
    if (l.launcher.task && !this.taskHost.has(l.launcher.task) && this.taskHost.size < MAX_MAP) this.taskHost.set(l.launcher.task, l.host);
    if (l.launcher.host && l.launcher.host !== l.host && !this.launcherHost.has(l.launcher.host) && this.launcherHost.size < MAX_MAP) this.launcherHost.set(l.launcher.host, l.host);
  }

  private hostOf(l: Pick<LogLine, 'host' | 'launcher'>): string {
    if (l.host) return l.host;
    if (l.launcher.host) return this.launcherHost.get(l.launcher.host) ?? l.launcher.host;
    if (l.launcher.task) return this.taskHost.get(l.launcher.task) ?? UNKNOWN_HOST;
    return UNKNOWN_HOST;
  }

  /** A line's host was put to use: note when it came from the launcher maps (see CollectorPart.hostFromMaps). */
  private usedHost(l: Pick<LogLine, 'host' | 'launcher'>): void {
    if (!l.host && (l.launcher.host || l.launcher.task)) this.hostFromMaps = true;
  }

  private hostState(name: string): HostState {
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

  private procOf(l: Pick<LogLine, 'prefix' | 'host' | 'pid'>, host: string): Proc {
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

  /** `raw`: the line, or how to get it (the ASCII path makes the string only when a problem keeps it). */
  private add(l: LogLine, raw: string | (() => string)): void {
    // Channel lines are most of a log: straight to their process.
    if (l.level === 'INFO' && l.host && l.message.charCodeAt(0) === 67 /* C */) {
      const f = factOf(l.message);
      if (f?.kind === 'channel') {
        this.channel(this.procOf(l, l.host), f.rank, f);
        return;
      }
    }
    const host = this.hostOf(l);
    this.learnLauncher(l);
    if (l.level === 'WARN') {
      if (typeof raw === 'function') raw = raw();
      const key = hash53(raw.trim());
      if (this.seenWarn.has(key)) return;
      if (this.seenWarn.size < MAX_DEDUP) this.seenWarn.add(key);
      const m = warnProblem(l.message, l.source);
      if (l.host) this.procOf(l, l.host);
      this.usedHost(l);
      const who = this.showerOf(l, host);
      this.record(m, raw, who, l.repeat, key);
      this.problem(m, raw, who, l.repeat);
      return;
    }
    if (l.level === 'VERSION') {
      if (l.torchError !== undefined) {
        if (typeof raw === 'function') raw = raw();
        const m = torchProblem(l.torchError);
        this.usedHost(l);
        const who = this.showerOf(l, host);
        this.record(m, raw, who, l.repeat, null);
        this.problem(m, raw, who, l.repeat);
        this.torchNext = { match: m, who, task: l.launcher.task };
      }
      const f = factOf(l.message);
      if (f?.kind === 'version') {
        this.summary.ncclVersion ??= f.version;
        const key = `${l.launcher.task ?? ''}\u0000${l.launcher.host ?? ''}\u0000${f.version}`;
        if (!this.bareVersions.has(key) && this.bareVersions.size < MAX_MAP) this.bareVersions.set(key, { task: l.launcher.task, host: l.launcher.host, version: f.version });
      }
      return;
    }
    if (l.level !== 'INFO') return;
    const f = factOf(l.message);
    const p = infoProblem(l.message) ?? (f ? ifaceOf(f) : null);
    if (p) {
      if (l.host) this.procOf(l, l.host);
      this.usedHost(l);
      if (typeof raw === 'function') raw = raw();
      const who = this.showerOf(l, host);
      this.record(p, raw, who, l.repeat, null);
      this.problem(p, raw, who, l.repeat);
    }
    if (f) {
      this.usedHost(l);
      this.fact(f, host, l);
    } else if (!p && l.host) this.procOf(l, l.host); // a line that states nothing still shows its host and process
  }

  /** Who showed a problem on line l of `host`: its process when NCCL's header names one, the rank its launcher names. */
  private showerOf(l: Pick<LogLine, 'host' | 'pid' | 'launcher'>, host: string): Shower {
    return { host, pid: l.host ? l.pid : null, rank: launcherRank(l.launcher) };
  }

  /** `line`: the kept text of `raw` when the caller has it (a replayed event). */
  private problem(m: ProblemMatch, raw: string, who: Shower, repeat: number, line?: string): void {
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
    const h = this.hostState(host);
    h.problems.set(m.signature.id, (h.problems.get(m.signature.id) ?? 0) + repeat);
  }

  /** A part keeps each problem event for absorb(); the line only where replay may need it (a new problem, or a WARN replay may find a duplicate of). */
  private record(m: ProblemMatch, raw: string, who: Shower, repeat: number, warn: number | null): void {
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

  /** This part's state for absorb() (see CollectorPart). */
  part(): CollectorPart {
    const byProc = [...this.procs.values()];
    return {
      lines: this.lines,
      ncclLines: this.ncclLines,
      truncated: this.truncated,
      capped: this.capped,
      hostFromMaps: this.hostFromMaps,
      // A part that ends on `NCCL error in:` or `Last error:` leaves its next line to the next part, which cannot know: read again whole.
      unmergeable: this.overflowEvents || this.events === null || this.seenWarn.size >= MAX_DEDUP || this.atBound() || this.holdsNextLine(),
      summary: this.summary,
      hosts: [...this.hosts.values()].map(({ pids, problems: _p, ...h }) => ({ ...h, pids: [...pids] })),
      procs: byProc.map((p) => ({ host: p.host.host, pid: p.pid, ranks: [...p.byRank.values()].map((r) => ({ ...r, devStated: this.devStated.has(r) })) })),
      events: this.events ?? [],
      taskHost: [...this.taskHost],
      launcherHost: [...this.launcherHost],
      bareVersions: [...this.bareVersions],
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
    this.lines += p.lines;
    this.ncclLines += p.ncclLines;
    this.truncated += p.truncated;
    const s = this.summary;
    const q = p.summary;
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
    for (const ph of p.hosts) {
      const h = this.hostState(ph.host);
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
    for (const pp of p.procs) {
      const key = procKey(pp.host, pp.pid);
      let proc = this.procs.get(key);
      if (!proc) this.procs.set(key, (proc = { host: this.hostState(pp.host), pid: pp.pid, byRank: new Map() }));
      for (const { devStated, ...pr } of pp.ranks) {
        const r = proc.byRank.get(pr.rank);
        if (!r) {
          proc.byRank.set(pr.rank, pr);
          this.ranks.set(rankKey(pp.host, pp.pid, pr.rank), pr);
          if (devStated) this.devStated.add(pr);
          continue;
        }
        // The later part's statements override; the header's device only fills in.
        r.nranks = pr.nranks ?? r.nranks;
        if (devStated) {
          r.cudaDev = pr.cudaDev;
          this.devStated.add(r);
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
    for (const [k, v] of p.taskHost) if (!this.taskHost.has(k)) this.taskHost.set(k, v);
    for (const [k, v] of p.launcherHost) if (!this.launcherHost.has(k)) this.launcherHost.set(k, v);
    for (const [k, v] of p.bareVersions) if (!this.bareVersions.has(k)) this.bareVersions.set(k, v);
    for (const e of p.events) {
      if (e.warn !== null) {
        if (this.seenWarn.has(e.warn)) continue;
        if (this.seenWarn.size < MAX_DEDUP) this.seenWarn.add(e.warn);
      }
      this.problem(e.match, '', e, e.repeat, e.line ?? '');
    }
    return this.capped === 0 && !this.atBound();
  }

  /** A collection has reached its bound: past it, the order of the lines decides what is kept, which parts read apart do not know. */
  private atBound(): boolean {
    if (this.hosts.size >= MAX_HOSTS || this.procs.size >= MAX_MAP || this.ranks.size >= MAX_RANKS || this.problems.size >= MAX_PROBLEMS || this.seenWarn.size >= MAX_DEDUP) return true;
    if (this.taskHost.size >= MAX_MAP || this.launcherHost.size >= MAX_MAP || this.bareVersions.size >= MAX_MAP) return true;
    if (Object.keys(this.summary.env).length >= MAX_PER_HOST) return true;
    for (const h of this.hosts.values()) if (Object.keys(h.env).length >= MAX_PER_HOST || Object.keys(h.gidIndex).length >= MAX_PER_HOST || h.gdr.length >= MAX_PER_HOST) return true;
    for (const r of this.ranks.values()) if (Object.keys(r.transports).length >= 64 || r.netDevices.length >= MAX_PER_HOST) return true;
    for (const p of this.problems.values()) if (p.hosts.size >= MAX_PER_HOST || p.procs.size >= MAX_PER_HOST) return true;
    return false;
  }

  /** The rank the last channel line counted for, so the next line of the same rank skips the lookup. */
  private lastRank: RankFacts | null = null;
  private lastRankProc: Proc | null = null;

  /** rankState, remembering the last answer: a rank's lines come in runs. */
  private rankOf(proc: Proc, rank: number, lines = 1): RankFacts | null {
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

  /** `lines` channel lines of one rank and via: what one such line does, that many times. */
  private channel(proc: Proc, rank: number, t: Via, lines = 1): void {
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

  private fact(f: Fact, host: string, l: LogLine): void {
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

  /** A problem's distinct details, its ranks among them: those its lines named, then those of the processes that showed it. */
  private detailsOf(p: ProblemState): Pick<LogProblem, 'details'> {
    const ranks = new Set(p.ranks);
    for (const key of p.procs) {
      if (ranks.size >= MAX_DETAIL) break;
      const proc = this.procs.get(key);
      const r = proc ? procRank(proc) : null;
      if (r !== null) ranks.add(r);
    }
    const details: Partial<Record<DetailKind, string[]>> = Object.fromEntries([...p.details].map(([k, v]) => [k, [...v]]));
    if (ranks.size) details.rank = [...ranks].sort((a, b) => a - b).map(String);
    return Object.keys(details).length ? { details } : {};
  }

  result(): LogAnalysis {
    // Bare `NCCL version` lines belong to the host their launcher task showed elsewhere.
    for (const b of this.bareVersions.values()) {
      const host = (b.host ? (this.launcherHost.get(b.host) ?? b.host) : undefined) ?? (b.task ? this.taskHost.get(b.task) : undefined);
      if (!host) continue;
      const h = this.hostState(host);
      h.ncclVersion ??= b.version;
    }
    // `No device found` is no silent fallback where the job turned IB off (NCCL_IB_DISABLE=1; the line then comes from a plugin's probe).
    const ibOff = (host: string) => this.hosts.get(host)?.env['NCCL_IB_DISABLE'] === '1';
    const kept = [...this.problems.values()].filter((p) => p.match.signature.id !== 'ib-no-device' || ![...p.hosts].every(ibOff));
    const problems = kept.map((p): LogProblem => ({
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
    const ranksOf = new Map<string, Set<number>>();
    for (const r of this.ranks.values()) {
      let set = ranksOf.get(r.host);
      if (!set) ranksOf.set(r.host, (set = new Set()));
      set.add(r.rank);
    }
    // A host whose own lines state no version (a bare banner without a launcher prefix) runs the log's, when the log states one.
    const versions = new Set([...this.hosts.values()].map((h) => h.ncclVersion).filter((v) => v !== null));
    const logVersion = versions.size <= 1 ? this.summary.ncclVersion : null;
    const hosts: HostFacts[] = [...this.hosts.values()]
      .map(({ pids, problems: pr, ...h }) => ({
        ...h,
        ...impliedBefore26({ ...h, ncclVersion: h.ncclVersion ?? logVersion }),
        processes: pids.size,
        ranks: [...(ranksOf.get(h.host) ?? [])].sort((a, b) => a - b),
        problems: Object.fromEntries(pr),
      }))
      .sort((a, b) => a.host.localeCompare(b.host, 'en', { numeric: true }));
    const ranks = [...this.ranks.values()].sort((a, b) => a.rank - b.rank || a.host.localeCompare(b.host, 'en', { numeric: true }) || (a.pid ?? 0) - (b.pid ?? 0));
    const { socketStated, ibStated: _i, ...stated } = this.summary;
    const summary = { ...stated, ...impliedBefore26({ ...stated, socket: socketStated ? stated.socket : null }) };
    return {
      input: { lines: this.lines, ncclLines: this.ncclLines, truncatedLines: this.truncated, capped: this.capped },
      summary: { ...summary, errors: problems.filter((p) => p.severity === 'error'), warnings: problems.filter((p) => p.severity === 'warn') },
      hosts,
      ranks,
      asymmetries: asymmetries(hosts),
    };
  }
}

/**
 * What an old release's lines imply where it printed no line for the fact
 * (init.cc initNet): before 2.4.8 there is no `Bootstrap : Using` line, and
 * the bootstrap uses the socket transport's first interface, initialised
 * first whatever the transport (`NET/Socket : Using` is printed on every
 * run); before 2.6 there is no `Using network` line, and NCCL uses a loaded
 * plugin, else IB when `NET/IB : Using` lists devices, else sockets. Only
 * facts still unknown are filled, and only when the log states the version.
 */
function impliedBefore26(f: { ncclVersion: string | null; bootstrap: Endpoint | null; socket: Endpoint[] | null; ib: IbEntry[] | null; netPlugin: string | null; transport: string | null }): { bootstrap: Endpoint | null; transport: string | null } {
  const p = f.ncclVersion ? profileOfStated(f.ncclVersion) : null;
  if (!p) return { bootstrap: f.bootstrap, transport: f.transport };
  const bootstrap = f.bootstrap ?? (!p.logsBootstrap ? (f.socket?.[0] ?? null) : null);
  const transport = f.transport ?? (!p.logsNetwork ? (f.netPlugin ?? (f.ib?.length ? 'IB' : f.socket?.length ? 'Socket' : null)) : null);
  return { bootstrap, transport };
}

/**
 * An interface name up to its first digit (`ens*`, `ibP*`, `docker*`, `lo`): hosts whose names differ only
 * there (ens3 and ens5; Azure's IPoIB names, unique per VM) chose the same kind of interface, which is
 * what hangs a job when it differs (eth0 against docker0 or lo).
 */
function ifKind(name: string): string {
  const d = name.search(/\d/);
  return d > 0 ? `${name.slice(0, d)}*` : name;
}

const ibKey = (ib: IbEntry[]) => ib.map((d) => `${d.device}:${d.port}/${d.linkLayer}`).join(' ');

const FACTS: { fact: AsymmetryFact; severity: ProblemSeverity; value: (h: HostFacts) => string | null; meaning: string }[] = [
  { fact: 'ncclVersion', severity: 'error', value: (h) => h.ncclVersion, meaning: 'hosts run different NCCL releases: the protocol can differ between them and the job fails or hangs at its first collective' },
  { fact: 'transport', severity: 'error', value: (h) => h.transport, meaning: 'hosts use different network transports (one fell back to sockets): they cannot connect to each other and the job hangs' },
  // Whether a plugin is loaded, not its name: NCCL names one plugin several ways (`Loaded net plugin NCCL RDMA Plugin v6`,
  // `P2P plugin IBext`, `Using network IBext`), and a host whose excerpt shows another of them is no different. Two
  // plugins that differ show in `transport`.
  // Only where the log names no transport: a plugin that is used shows in `transport`, and one loaded but unused (HPC-X's in an
  // NGC container on a node without IB) changes nothing.
  { fact: 'netPlugin', severity: 'error', value: (h) => (h.transport === null && h.netPlugin !== null ? 'loaded' : null), meaning: 'a network plugin is loaded on some hosts only: their transports differ' },
  { fact: 'ibCount', severity: 'error', value: (h) => (h.ib ? String(h.ib.length) : h.ibNoDevice ? '0' : null), meaning: 'hosts see different numbers of IB devices: channels and rails do not line up and the first collective can hang' },
  { fact: 'ibDevices', severity: 'warn', value: (h) => (h.ib ? ibKey(h.ib) : null), meaning: 'hosts name or order their IB devices differently: rail k on one host is not rail k on another unless NCCL_IB_HCA lists them in the same order' },
  { fact: 'bootstrap', severity: 'warn', value: (h) => (h.bootstrap ? ifKind(h.bootstrap.ifname) : null), meaning: 'hosts bootstrap over different interfaces: fine if every address is reachable from every host, the classic hang when one is docker0, lo or a private network' },
  { fact: 'socket', severity: 'warn', value: (h) => (h.socket ? h.socket.map((e) => ifKind(e.ifname)).join(',') : null), meaning: 'the socket transport uses different interfaces per host' },
  { fact: 'ibOob', severity: 'warn', value: (h) => (h.ibOob ? ifKind(h.ibOob.ifname) : null), meaning: 'the IB transport\'s OOB socket uses different interfaces per host' },
  { fact: 'gidIndex', severity: 'warn', value: (h) => (Object.keys(h.gidIndex).length ? [...new Set(Object.values(h.gidIndex))].sort((a, b) => a - b).join(',') : null), meaning: 'hosts use different RoCE GID indexes: if they select different address types (v1/v2, IPv4/IPv6) the QPs cannot connect' },
];

function asymmetries(hosts: HostFacts[]): Asymmetry[] {
  const out: Asymmetry[] = [];
  for (const f of FACTS) {
    const groups = new Map<string, string[]>();
    for (const h of hosts) {
      const v = f.value(h);
      if (v === null) continue;
      let g = groups.get(v);
      if (!g) groups.set(v, (g = []));
      g.push(h.host);
    }
    if (groups.size < 2) continue;
    // Different counts already say the device lists differ.
    if (f.fact === 'ibDevices' && out.some((x) => x.fact === 'ibCount')) continue;
    const values = [...groups].map(([value, hs]) => ({ value, hosts: hs })).sort((a, b) => b.hosts.length - a.hosts.length || a.value.localeCompare(b.value));
    out.push({ fact: f.fact, severity: f.severity, values, outliers: values.slice(1).flatMap((v) => v.hosts), meaning: f.meaning });
  }
  return out;
}

/** 1 when the log shows an error (a WARN, or an asymmetry that breaks the job), else 0. */
export function logExitCode(a: LogAnalysis): 0 | 1 {
  return a.summary.errors.length > 0 || a.asymmetries.some((x) => x.severity === 'error') ? 1 : 0;
}
