// The lines of `ncclx log` read as text (one of LogCollector's parts,
// analyze.ts): each line parsed (line.ts), its facts to the host table, its
// problems to the problem groups. PyTorch's lines that follow its `NCCL error
// in:` and `Last error:` are read with the line before them, so this part
// remembers, from one line to the next, what the last one asked for.

import { factOf, type Fact } from './facts.js';
import { bareText, gluedLines, LAST_ERROR, parseLine, torchResultLine, type LogLine } from './line.js';
import { ifaceProblem, infoProblem, torchProblem, warnProblem, type ProblemMatch } from './signatures.js';
import type { HostTable } from './host-table.js';
import { hash53, launcherRank, LINE_KEEP, type ProblemGroups, type Shower } from './problem-groups.js';

/** Lines read, lines with an NCCL statement, lines the reader cut at its limit: the text and byte paths count alike. */
export interface LineCounts {
  lines: number;
  ncclLines: number;
  truncated: number;
}

/** `Last error:` then blanks (spaces, tabs) at the end of a line: the byte path and the scanner test the same. */
const LAST_ERROR_END = /Last error:[ \t]*$/;

/** An interface other nodes cannot reach, in a line that states a consumer's interface. */
function ifaceOf(f: Fact): ProblemMatch | null {
  if (f.kind === 'bootstrap') return f.endpoint ? ifaceProblem('bootstrap', [f.endpoint]) : null;
  if (f.kind === 'socket') return ifaceProblem('socket transport', f.endpoints);
  if (f.kind === 'ib') return f.oob ? ifaceProblem('IB OOB', [f.oob]) : null;
  return null;
}

/** PyTorch's `NCCL error in:` problem and who showed it: the next line may name NCCL's result (line.ts torchResultLine). */
interface TorchError {
  match: ProblemMatch;
  who: Shower;
  task: string | null;
}

export class TextLines {
  /** The line after PyTorch's `Last error:` is NCCL's WARN text (line.ts LAST_ERROR); set by that line, used by the next. */
  private lastErrorNext = false;
  /** Set by PyTorch's `NCCL error in:` line, used by the next. */
  private torchNext: TorchError | null = null;

  constructor(
    private readonly counts: LineCounts,
    private readonly hosts: HostTable,
    private readonly problems: ProblemGroups,
  ) {}

  /** Whether the next line must be read as text (the one after PyTorch's `NCCL error in:` or `Last error:`). */
  holdsNextLine(): boolean {
    return this.lastErrorNext || this.torchNext !== null;
  }

  /** One input line (without its newline). `truncated`: the reader cut it at its line limit. */
  addLine(raw: string, truncated = false): void {
    this.counts.lines++;
    if (truncated) this.counts.truncated++;
    const glued = gluedLines(raw);
    if (glued) for (const piece of glued) this.statement(piece);
    else this.statement(raw);
  }

  /** Whether the line ends with `Last error:` (then blanks), as byte-lines.ts endsWithLastError tests its bytes. */
  static endsWithLastError(raw: string): boolean {
    return raw.length < 256 && raw.length >= LAST_ERROR.length && LAST_ERROR_END.test(raw);
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
    this.counts.ncclLines++;
    this.add(l, raw);
  }

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
      const who = { host: this.hosts.hostOf(l), pid: null, rank: launcherRank(launcher) };
      this.hosts.usedHost(l);
      this.problems.record(m, raw, who, 1, null);
      this.problems.problem(m, raw, who, 1);
    } else if (TextLines.endsWithLastError(raw)) this.lastErrorNext = true;
  }

  /** PyTorch's line after `NCCL error in:`, of the same launcher task: a message of that problem, no occurrence of its own. */
  private torchResult(torch: TorchError, raw: string): boolean {
    const r = torchResultLine(raw);
    if (!r || r.launcher.task !== torch.task || r.text.length > LINE_KEEP) return false;
    const m = { ...torch.match, facts: { message: r.text } };
    this.problems.record(m, raw, torch.who, 0, null);
    this.problems.problem(m, raw, torch.who, 0);
    return true;
  }

  /** Who showed a problem on line l of `host`: its process when NCCL's header names one, the rank its launcher names. */
  private showerOf(l: Pick<LogLine, 'host' | 'pid' | 'launcher'>, host: string): Shower {
    return { host, pid: l.host ? l.pid : null, rank: launcherRank(l.launcher) };
  }

  /** A parsed NCCL statement. `raw`: the line, or how to get it (the ASCII path makes the string only when a problem keeps it). */
  add(l: LogLine, raw: string | (() => string)): void {
    const hosts = this.hosts;
    // Channel lines are most of a log: straight to their process.
    if (l.level === 'INFO' && l.host && l.message.charCodeAt(0) === 67 /* C */) {
      const f = factOf(l.message);
      if (f?.kind === 'channel') {
        hosts.channel(hosts.procOf(l, l.host), f.rank, f);
        return;
      }
    }
    const host = hosts.hostOf(l);
    hosts.learnLauncher(l);
    if (l.level === 'WARN') {
      if (typeof raw === 'function') raw = raw();
      const key = hash53(raw.trim());
      if (!this.problems.newWarn(key)) return;
      const m = warnProblem(l.message, l.source);
      if (l.host) hosts.procOf(l, l.host);
      hosts.usedHost(l);
      const who = this.showerOf(l, host);
      this.problems.record(m, raw, who, l.repeat, key);
      this.problems.problem(m, raw, who, l.repeat);
      return;
    }
    if (l.level === 'VERSION') {
      if (l.torchError !== undefined) {
        if (typeof raw === 'function') raw = raw();
        const m = torchProblem(l.torchError);
        hosts.usedHost(l);
        const who = this.showerOf(l, host);
        this.problems.record(m, raw, who, l.repeat, null);
        this.problems.problem(m, raw, who, l.repeat);
        this.torchNext = { match: m, who, task: l.launcher.task };
      }
      const f = factOf(l.message);
      if (f?.kind === 'version') hosts.bareVersion(l, f.version);
      return;
    }
    if (l.level !== 'INFO') return;
    const f = factOf(l.message);
    const p = infoProblem(l.message) ?? (f ? ifaceOf(f) : null);
    if (p) {
      if (l.host) hosts.procOf(l, l.host);
      hosts.usedHost(l);
      if (typeof raw === 'function') raw = raw();
      const who = this.showerOf(l, host);
      this.problems.record(p, raw, who, l.repeat, null);
      this.problems.problem(p, raw, who, l.repeat);
    }
    if (f) {
      hosts.usedHost(l);
      hosts.fact(f, host, l);
    } else if (!p && l.host) hosts.procOf(l, l.host); // a line that states nothing still shows its host and process
  }
}
