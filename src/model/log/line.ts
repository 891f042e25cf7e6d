// One line of an NCCL debug log as users paste it: launcher and collector
// artefacts around NCCL's own header `[ts ]host:pid:tid [cudaDev] [file:line [(func)] ]NCCL LEVEL msg`
// (docs/nccl/logging.md). Pure; the hot path of `ncclx log`, so prefixes are
// parsed once per distinct text and cached.

export type LogLevel = 'INFO' | 'WARN' | 'TRACE' | 'ABORT' | 'VERSION';

/** What a launcher or collector put in front of NCCL's text. */
export interface LauncherInfo {
  /** pdsh/clush host, Ray `ip=`, Kubernetes pod: where the line came from. */
  host: string | null;
  /** mpirun `[1,R]` or srun `-l` task: a process key, not NCCL's rank. */
  task: string | null;
}

export interface LogLine extends Prefix {
  level: LogLevel;
  /** The text after `NCCL LEVEL `, without trailing blanks and Ray's repeat note. */
  message: string;
  /** Ray `[repeated Nx across cluster]`: how many lines this one stands for. */
  repeat: number;
  /** The shared header object (null on bare lines): the same object for every line with the same header text. */
  prefix: Prefix | null;
  /** A VERSION line that is PyTorch's `NCCL error in: …, NCCL version X`: its text from `NCCL error`. */
  torchError?: string;
}

// Colour and cursor sequences left by terminals and collectors.
const ANSI = /\x1b\[[0-9;?]*[ -\/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/g;
const REPEATED = /\s*\[repeated (\d+)x across cluster\]\s*$/;

// `host:pid:tid [dev]` then, for WARN/TRACE, `file:line (func)` or a TRACE time.
// The host field may be empty (`:123:456 [0]`) or glued to a launcher prefix.
// The source is one token: pasted through a Markdown renderer it may carry a
// link (`transport/[net_ib.cc:1909](http://net_ib.cc:1909/)`).
// A plugin's WARN gives its own source, which may be a C++ signature (`tcpxResult_t tcpxCommProgress(tcpxComm*):1231`).
// A Markdown code span's backtick before the host is not part of it.
// The signature is bounded and holds no colon but the line's, so a long crafted prefix cannot make the search quadratic.
const HEADER = /(?:^|(?<=[\s:>\])`]))([^\s:[\]`]*):(\d+):(\d+) \[(-?\d+)\](?: (?:\d+\.\d+ )?(\S+(?: \([^)]*\))?|\S[^[\]:]{0,255}\):\d+))? ?$/;
// NCCL's header with `host:pid:tid` cut off, as users trim it when pasting:
// `[dev] [file:line ]` or `file:line `, after launcher artefacts only.
const HEADERLESS = /^(?:\[(-?\d+)\] ?)?(?:(\S+:\d+(?: \([^)]*\))?|\S[^[\]:]{0,255}\):\d+) ?)?$/;
// An ISO timestamp glued to the host field (a log collector's export: `…T16:39:51.208-07:00ip-10-0-0-1:79:79 [0]`).
const GLUED_TIME = /(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?)(?=[A-Za-z])/;
const BARE_VERSION = /(?:^|[\s:>\]])NCCL version (\d+\.\d+\.\d+\S*)/;

/** NCCL's header and what was in front of it; one object per distinct text (callers may key on its identity). */
export interface Prefix {
  /** NCCL's host field ('' when empty or mangled); null on bare lines. */
  host: string | null;
  pid: number | null;
  tid: number | null;
  /** The `[N]` after host:pid:tid: the CUDA device, not the rank. */
  cudaDev: number | null;
  /** WARN: `file:line` and `(func)` when printed. */
  source: string | null;
  launcher: LauncherInfo;
}

const NO_LAUNCHER: LauncherInfo = { host: null, task: null };

/** The launcher/collector part in front of NCCL's header (or of a bare line). */
export function parseLauncher(text: string): LauncherInfo {
  return peelLauncher(text).info;
}

/** Where a terminal copy that lost its newlines glued the next NCCL line on: blanks, then a full header and `NCCL LEVEL`. */
// Tried only where a blank run starts (the lookbehind): from inside a run the search would go quadratic in its length.
const GLUED = /(?<=\S)\s+(?=[^\s:[\]`]*:\d+:\d+ \[-?\d+\] (?:\S+ )?NCCL (?:INFO|WARN|TRACE|ABORT)(?: |$))/g;

/**
 * The NCCL lines a raw line holds when a terminal copy glued several together
 * (`… via NET/IB/5/GDRDMA      node1:11980:12549 [2] NCCL INFO Channel …`): the
 * pieces, the first with its launcher prefix; null for a line that is one.
 */
export function gluedLines(raw: string): string[] | null {
  const first = raw.indexOf('NCCL ');
  if (first < 0 || raw.indexOf('NCCL ', first + 5) < 0) return null;
  const cuts: [number, number][] = [];
  for (const m of raw.matchAll(GLUED)) if (m.index > first) cuts.push([m.index, m.index + m[0].length]);
  if (!cuts.length) return null;
  const out: string[] = [raw.slice(0, cuts[0]![0])];
  cuts.forEach(([, start], i) => out.push(raw.slice(start, i + 1 < cuts.length ? cuts[i + 1]![0] : raw.length)));
  return out;
}

/** A line that is not NCCL's, as its launcher tagged it: the launcher part and the text after it (trimmed). */
export function bareText(raw: string): { launcher: LauncherInfo; text: string } {
  const { info, rest } = peelLauncher(clean(raw));
  return { launcher: info, text: rest.trim() };
}

/**
 * PyTorch prints NCCL's last error (ncclGetLastError) on the line after a line
 * `Last error:` below its `NCCL error in: …`: NCCL's WARN text without its header.
 */
export const LAST_ERROR = 'Last error:';

/**
 * PyTorch's line right after its `NCCL error in: …, NCCL version X`: the name of NCCL's result and what
 * PyTorch says it means (c10d getNcclErrorDetailStr), e.g. `ncclInternalError: Internal check failed.`.
 */
const TORCH_RESULT = /nccl(?:UnhandledCudaError|SystemError|InternalError|InvalidArgument|InvalidUsage|RemoteError): /;

/** Such a line (after launcher artefacts only): its launcher and its text from the result's name; else null. */
export function torchResultLine(raw: string): { launcher: LauncherInfo; text: string } | null {
  const s = clean(raw);
  const m = TORCH_RESULT.exec(s);
  if (!m) return null;
  const { info, rest } = peelLauncher(s.slice(0, m.index));
  return rest.trim() === '' ? { launcher: info, text: s.slice(m.index).trim() } : null;
}

/** The launcher/collector artefacts at the start of `text`, and the text after them. */
function peelLauncher(text: string): { info: LauncherInfo; rest: string } {
  let host: string | null = null;
  let task: string | null = null;
  let s = text.trimStart();
  // Peel one artefact at a time, outermost first; unknown text is left alone.
  for (let guard = 0; guard < 8 && s.length > 0; guard++) {
    let m: RegExpExecArray | null;
    if ((m = /^(?:>\s*)+/.exec(s))) s = s.slice(m[0].length);
    else if ((m = /^\|\s*/.exec(s))) s = s.slice(m[0].length); // a column of a table export (CloudWatch `| time | message`)
    else if ((m = /^\[(\d+),(\d+)\]<(?:stdout|stderr)>:\s*/.exec(s))) {
      task ??= `${m[1]},${m[2]}`;
      s = s.slice(m[0].length);
    } else if ((m = /^\[([A-Za-z_][\w.-]*?\d+)\]:\s*/.exec(s))) {
      // torchrun --tee / --log-dir: `[{role}{local_rank}]:` (default role "default"), also `[rank3]:`.
      task ??= m[1]!;
      s = s.slice(m[0].length);
    } else if ((m = /^\((?:[A-Za-z_][\w.]* )?pid=(\d+)(?:, ip=([^,)\s]+))?[^)]*\)\s*/.exec(s))) {
      if (m[2]) host ??= m[2];
      task ??= `pid=${m[1]}`;
      s = s.slice(m[0].length);
    } else if ((m = /^\[pod\/([^/\]]+)(?:\/[^\]]*)?\]\s*/.exec(s))) {
      host ??= m[1]!;
      s = s.slice(m[0].length);
    } else if ((m = /^(\d+):(?:\s+|$)/.exec(s))) {
      task ??= m[1]!;
      s = s.slice(m[0].length);
    } else if ((m = /^([A-Za-z0-9][A-Za-z0-9_.\-]*):(?:\s+|$)/.exec(s))) {
      host ??= m[1]!;
      s = s.slice(m[0].length);
    } else if ((m = /^\[?\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?\]?[:\s]\s*/.exec(s))) {
      s = s.slice(m[0].length);
    } else if ((m = /^\w{3} \w{3} +\d+ \d\d:\d\d:\d\d \d{4}:?\s*/.exec(s))) {
      s = s.slice(m[0].length);
    } else break;
  }
  return { info: host === null && task === null ? NO_LAUNCHER : { host, task }, rest: s };
}

/**
 * A copy of a string that does not keep the text it was cut from alive: V8
 * keeps a slice's parent string (here a whole 1 MiB read) for as long as the
 * slice lives, so anything the collector keeps is copied first.
 */
/** V8 copies a substring shorter than this (SlicedString::kMinLength) instead of pointing into its parent. */
const SLICE_MIN = 13;
export const own = (s: string): string => (s.length < SLICE_MIN ? s : (JSON.parse(JSON.stringify(s)) as string));

const prefixCache = new Map<string, Prefix | null>();
const PREFIX_CACHE_MAX = 50_000;
/** Longest prefix kept in the cache: 50,000 × 512 characters bounds it at about 50 MB. */
const PREFIX_CACHE_KEY_MAX = 512;

let lastPre = '';
let lastPrefix: Prefix | null = null;

/** NCCL's header in `pre` (the text before `NCCL LEVEL`), or null; the same object for the same text while it is cached. */
export function parsePrefix(pre: string): Prefix | null {
  // Consecutive lines of one thread share their header: compare before hashing.
  if (pre === lastPre && lastPrefix) return lastPrefix;
  const hit = prefixCache.get(pre);
  if (hit) {
    lastPre = pre;
    lastPrefix = hit;
  }
  if (hit !== undefined) return hit;
  // Real headers are short and kept: parsed from a copy, so the fields and the cache key keep
  // nothing else alive. A long prefix (a pasted blob before NCCL's text) is parsed, not kept.
  const keep = pre.length <= PREFIX_CACHE_KEY_MAX;
  if (keep) pre = own(pre);
  const p = headerOf(pre);
  if (!keep) return p;
  if (prefixCache.size >= PREFIX_CACHE_MAX) prefixCache.clear();
  prefixCache.set(pre, p);
  if (p) {
    lastPre = pre;
    lastPrefix = p;
  }
  return p;
}

/**
 * PyTorch before 1.11 decoded NCCL ≥ 2.9's version code (major·10000 + minor·100 + patch) as code/1000 .
 * (code%1000)/100 . code%100: `NCCL version 21.1.4` is 2.11.4.
 */
function torchVersion(message: string): string {
  return message.replace(/^NCCL version (\d{2})\.(\d)\.(\d{1,2})\b/, (all, a: string, b: string, c: string) => {
    const code = Number(a) * 1000 + Number(b) * 100 + Number(c);
    return code >= 20900 ? `NCCL version ${Math.floor(code / 10000)}.${Math.floor((code % 10000) / 100)}.${code % 100}` : all;
  });
}

/** parsePrefix's answer, uncached. */
function headerOf(pre: string): Prefix | null {
  let text = pre;
  let m = HEADER.exec(text);
  // A host field that starts with digits may be a time's last digits glued to it: looked for only then (headers can be long).
  const glued = m && /^\d/.test(m[1]!) ? GLUED_TIME.exec(pre) : null;
  if (glued) {
    text = `${pre.slice(0, glued.index + glued[1]!.length)} ${pre.slice(glued.index + glued[1]!.length)}`;
    m = HEADER.exec(text);
  }
  if (m) return { host: m[1]!, pid: Number(m[2]), tid: Number(m[3]), cudaDev: Number(m[4]), source: m[5] ?? null, launcher: m.index > 0 ? parseLauncher(text.slice(0, m.index)) : NO_LAUNCHER };
  // No host:pid:tid: an NCCL line only when nothing but launcher artefacts comes before `[dev] file:line`.
  const { info, rest } = peelLauncher(text);
  const h = HEADERLESS.exec(rest);
  return h ? { host: '', pid: null, tid: null, cudaDev: h[1] !== undefined ? Number(h[1]) : null, source: h[2] ?? null, launcher: info } : null;
}

function clean(raw: string): string {
  let s = raw;
  if (s.includes('\x1b')) s = s.replace(ANSI, '');
  if (s.includes('\r')) s = s.replace(/\r/g, '');
  return s;
}

function finish(message: string): { message: string; repeat: number } {
  let msg = message;
  let repeat = 1;
  if (msg.endsWith(']') || msg.endsWith(' ')) {
    const r = REPEATED.exec(msg);
    if (r) {
      repeat = Math.max(1, Number(r[1]));
      msg = msg.slice(0, r.index);
    }
  }
  return { message: msg.trimEnd(), repeat };
}

const LEVELS: readonly LogLevel[] = ['INFO', 'WARN', 'TRACE', 'ABORT'];

function levelAt(s: string, i: number): LogLevel | null {
  // INFO first: nearly every line is one.
  for (const l of LEVELS) if (s.startsWith(l, i) && (s.length === i + l.length || s.charCodeAt(i + l.length) === 32)) return l;
  return null;
}

/**
 * An NCCL line, or null for anything else. Lines NCCL prints without its
 * header (the bare `NCCL version …` of ≤ 2.21) come back with level VERSION.
 */
export function parseLine(raw: string): LogLine | null {
  if (!raw.includes('NCCL')) return null;
  const s = clean(raw);
  let from = 0;
  for (;;) {
    const k = s.indexOf('NCCL ', from);
    if (k < 0) break;
    from = k + 5;
    const level = levelAt(s, k + 5);
    if (!level) continue;
    const pre = k > 0 ? s.slice(0, k) : '';
    const p = parsePrefix(pre);
    if (!p) continue;
    const { message, repeat } = finish(s.slice(Math.min(s.length, k + 6 + level.length)));
    return { level, host: p.host, pid: p.pid, tid: p.tid, cudaDev: p.cudaDev, source: p.source, launcher: p.launcher, message, repeat, prefix: p };
  }
  const v = BARE_VERSION.exec(s);
  if (v) {
    const before = s.slice(0, v.index + (v[0].startsWith('NCCL') ? 0 : 1));
    // NCCL prints the banner at the start of a line: after anything but launcher artefacts (an exception's
    // `…, internal error, NCCL version 2.14.3`) it is someone else's text.
    const { info, rest } = peelLauncher(own(before));
    // PyTorch's `NCCL error in: file:line, <error>, NCCL version X` does state the version NCCL runs; its
    // words before it are no launcher's.
    const torch = rest.trim() !== '' && /NCCL error\b.*, $/.test(before);
    if (rest.trim() && !torch) return null;
    const { message, repeat } = finish(s.slice(s.indexOf('NCCL version', v.index)));
    // The exception's words are no pdsh host; a launcher task in front still says whose line it is.
    const launcher = torch ? (info.task !== null ? { host: null, task: info.task } : NO_LAUNCHER) : info;
    const line: LogLine = { level: 'VERSION', host: null, pid: null, tid: null, cudaDev: null, source: null, launcher, message: torch ? torchVersion(message) : message, repeat, prefix: null };
    if (torch) line.torchError = own(s.slice(s.lastIndexOf('NCCL error', v.index)));
    return line;
  }
  return null;
}
