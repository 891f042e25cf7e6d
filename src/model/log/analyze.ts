// `ncclx log` as data: lines in (in input order), what NCCL did out — per
// host, per rank and in summary — with the problems grouped by signature and
// the hosts that chose differently from the others. Pure and streaming: the
// collector keeps facts, not lines, so memory follows hosts and ranks, not
// the log's size.

import type { Endpoint, IbEntry } from './facts.js';
import type { AsciiBytes } from './ascii.js';
import type { ProblemSeverity } from './signatures.js';
import { profileOfStated } from '../nccl/versions.js';
import { HostTable } from './host-table.js';
import { ProblemGroups, type DetailKind } from './problem-groups.js';
import { TextLines, type LineCounts } from './text-lines.js';
import { ByteLines } from './byte-lines.js';
import { PartMerger, type CollectorPart } from './part-merge.js';

export type { CollectorPart } from './part-merge.js';
export type { DetailKind } from './problem-groups.js';

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

/**
 * `ncclx log`'s reader of one input: it keeps facts, not lines, and only wires
 * the parts that do its four jobs: the lines read as text (TextLines); the
 * lines read from bytes and the scanner's records (ByteLines); what the lines
 * state of hosts, processes and ranks (HostTable), and the problems they show
 * (ProblemGroups); the merge of a log read in parts (PartMerger).
 */
export class LogCollector {
  private readonly counts: LineCounts = { lines: 0, ncclLines: 0, truncated: 0 };
  private readonly hosts = new HostTable();
  private readonly problems: ProblemGroups;
  private readonly text: TextLines;
  private readonly bytes: ByteLines;
  private readonly merge: PartMerger;

  /** A collector for the whole input; `part` (LogCollector.part()): for one part of it. */
  constructor(part = false) {
    this.problems = new ProblemGroups(this.hosts, part);
    this.text = new TextLines(this.counts, this.hosts, this.problems);
    this.bytes = new ByteLines(this.counts, this.hosts, this.text);
    this.merge = new PartMerger(this.counts, this.hosts, this.problems);
  }

  /** A collector for one part of the input: it also records what absorb() replays. */
  static part(): LogCollector {
    return new LogCollector(true);
  }

  /** One input line (without its newline). `truncated`: the reader cut it at its line limit. */
  addLine(raw: string, truncated = false): void {
    this.text.addLine(raw, truncated);
  }

  /** One line of an ASCII chunk (ByteLines.addAsciiLine). */
  addAsciiLine(b: AsciiBytes, a: number, e: number, k: number): void {
    this.bytes.addAsciiLine(b, a, e, k);
  }

  /** Whether the next line must come to addAsciiLine or addLine, not as a count or a run (the one after PyTorch's `NCCL error in:` or `Last error:`). */
  holdsNextLine(): boolean {
    return this.text.holdsNextLine();
  }

  /** n lines with no `NCCL` in them, as addAsciiLine takes each (they only count). */
  addBareLines(n: number): void {
    this.bytes.addBareLines(n);
  }

  /** Consecutive channel lines the scanner found (ByteLines.addChannelRun). */
  addChannelRun(b: AsciiBytes, a: number, k: number, rank: number, rec: Int32Array, at: number, nvia: number): boolean {
    return this.bytes.addChannelRun(b, a, k, rank, rec, at, nvia);
  }

  /** A rank line as the scanner read it (ByteLines.addRankLine). */
  addRankLine(b: AsciiBytes, a: number, k: number, rec: Int32Array, at: number): boolean {
    return this.bytes.addRankLine(b, a, k, rec, at);
  }

  /** A QP line as the scanner read it (ByteLines.addGidLine). */
  addGidLine(b: AsciiBytes, a: number, k: number, ibDev: number, gidIndex: number): boolean {
    return this.bytes.addGidLine(b, a, k, ibDev, gidIndex);
  }

  /** This part's state for absorb() (see CollectorPart). */
  part(): CollectorPart {
    return this.merge.part(this.text.holdsNextLine());
  }

  /** Continues with the part that follows (PartMerger.absorb); false when the whole input must be read again as one. */
  absorb(p: CollectorPart): boolean {
    return this.merge.absorb(p);
  }

  result(): LogAnalysis {
    const h = this.hosts;
    h.hostsOfBareVersions();
    const problems = this.problems.list();
    const ranksOf = new Map<string, Set<number>>();
    for (const r of h.ranks.values()) {
      let set = ranksOf.get(r.host);
      if (!set) ranksOf.set(r.host, (set = new Set()));
      set.add(r.rank);
    }
    // A host whose own lines state no version (a bare banner without a launcher prefix) runs the log's, when the log states one.
    const versions = new Set([...h.hosts.values()].map((x) => x.ncclVersion).filter((v) => v !== null));
    const logVersion = versions.size <= 1 ? h.summary.ncclVersion : null;
    const hosts: HostFacts[] = [...h.hosts.values()]
      .map(({ pids, problems: pr, ...x }) => ({
        ...x,
        ...impliedBefore26({ ...x, ncclVersion: x.ncclVersion ?? logVersion }),
        processes: pids.size,
        ranks: [...(ranksOf.get(x.host) ?? [])].sort((a, b) => a - b),
        problems: Object.fromEntries(pr),
      }))
      .sort((a, b) => a.host.localeCompare(b.host, 'en', { numeric: true }));
    const ranks = [...h.ranks.values()].sort((a, b) => a.rank - b.rank || a.host.localeCompare(b.host, 'en', { numeric: true }) || (a.pid ?? 0) - (b.pid ?? 0));
    const { socketStated, ibStated: _i, ...stated } = h.summary;
    const summary = { ...stated, ...impliedBefore26({ ...stated, socket: socketStated ? stated.socket : null }) };
    const c = this.counts;
    return {
      input: { lines: c.lines, ncclLines: c.ncclLines, truncatedLines: c.truncated, capped: this.merge.capped() },
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
