// Which GID index NCCL's IB transport uses on a port (docs/nccl/gid.md):
// the fixed default before 2.21.5, the automatic walk after it, an explicit
// NCCL_IB_GID_INDEX, and the routable-FLID rule for InfiniBand (≥ 2.22.3).
// Pure: the GID table comes from the snapshot, the variables from the
// effective environment.
//
// NCCL compares RoCE versions it may never have read (an uninitialised
// variable when a types file is unreadable or unrecognised). Instead of
// guessing, the walk follows both outcomes of every comparison it cannot
// decide and reports all indexes NCCL could end with; one index means the
// unknown did not matter.

import type { GidEntry, SysfsRead } from '../snapshot/rdma-types.js';
import { parseNcclInt, toInt32, type NcclIntParam } from './cint.js';
import { formatIPv6, parseIPv4, parseIPv6 } from '../linux/ip.js';
import type { Profile } from './versions.js';
import { append } from '../list.js';

export type GidFamily = 'AF_INET' | 'AF_INET6';

// ---------------------------------------------------------------------------
// GID arithmetic (§3.2)

const gidCache = new Map<string, Uint8Array | null>();
const SYSFS_GID = /^[0-9a-fA-F]{4}(?::[0-9a-fA-F]{4}){7}$/;

/**
 * A GID as sysfs prints it (8 groups of 4 hex digits); compressed IPv6 text is
 * accepted too. Tables repeat the same text (hundreds of all-zero entries per
 * port), so results are cached; callers must not modify the returned bytes.
 */
export function parseGid(text: string): Uint8Array | null {
  const hit = gidCache.get(text);
  if (hit !== undefined) return hit;
  const t = text.trim();
  let out: Uint8Array | null;
  if (SYSFS_GID.test(t)) {
    out = new Uint8Array(16);
    for (let w = 0; w < 8; w++) {
      const v = parseInt(t.slice(w * 5, w * 5 + 4), 16);
      out[w * 2] = v >> 8;
      out[w * 2 + 1] = v & 0xff;
    }
  } else {
    out = parseIPv6(t);
  }
  if (gidCache.size > 100_000) gidCache.clear();
  gidCache.set(text, out);
  return out;
}

const word32 = (b: Uint8Array, i: number) => ((b[i * 4]! << 24) | (b[i * 4 + 1]! << 16) | (b[i * 4 + 2]! << 8) | b[i * 4 + 3]!) >>> 0;

/** getGidAddrFamily(): IPv4-mapped (also the ff0e::ffff:a.b.c.d multicast form) is AF_INET, everything else AF_INET6. */
export function gidFamily(b: Uint8Array): GidFamily {
  const mapped = word32(b, 0) === 0 && word32(b, 1) === 0 && word32(b, 2) === 0x0000ffff;
  const mappedMcast = word32(b, 0) === 0xff0e0000 && word32(b, 1) === 0 && word32(b, 2) === 0x0000ffff;
  return mapped || mappedMcast ? 'AF_INET' : 'AF_INET6';
}

export function isZeroGid(b: Uint8Array): boolean {
  return b.every((x) => x === 0);
}

/** configuredGid(): not all-zero and not exactly fe80:: . */
export function gidConfigured(b: Uint8Array): boolean {
  const trailer = word32(b, 1) | word32(b, 2) | word32(b, 3);
  if ((word32(b, 0) | trailer) === 0) return false;
  if (word32(b, 0) === 0xfe800000 && trailer === 0) return false;
  return true;
}

/** linkLocalGid(): the first 64 bits are fe80:0000:0000:0000 (only fe80::/64). */
export function gidLinkLocal(b: Uint8Array): boolean {
  return word32(b, 0) === 0xfe800000 && word32(b, 1) === 0;
}

export function gidValid(b: Uint8Array): boolean {
  return gidConfigured(b) && !gidLinkLocal(b);
}

/** FLID: bytes 4–5, big-endian (InfiniBand routable GIDs). */
export function gidFlid(b: Uint8Array): number {
  return (b[4]! << 8) | b[5]!;
}

/** The IPv4 address of an IPv4-mapped GID, else null. */
export function gidIPv4(b: Uint8Array): string | null {
  return word32(b, 0) === 0 && word32(b, 1) === 0 && word32(b, 2) === 0x0000ffff ? `${b[12]}.${b[13]}.${b[14]}.${b[15]}` : null;
}

/** Short form for people: ::ffff:10.0.0.5, fe80::ac0:ebff:feda:1cfb. */
export function gidText(b: Uint8Array): string {
  return formatIPv6(b);
}

// ---------------------------------------------------------------------------
// Reading gid_attrs/types/<i> the way ncclIbRoceGetVersionNum does

const OPEN_ERRORS = new Set(['ENOENT', 'EACCES', 'EPERM', 'ENOTDIR', 'ELOOP', 'ENAMETOOLONG', 'EMFILE', 'ENFILE', 'ENXIO', 'ENODEV']);
const STRERROR: Record<string, string> = {
  ENOENT: 'No such file or directory',
  EINVAL: 'Invalid argument',
  EACCES: 'Permission denied',
  EPERM: 'Operation not permitted',
  EIO: 'Input/output error',
  ENODEV: 'No such device',
  ENXIO: 'No such device or address',
  EISDIR: 'Is a directory',
};
export const strerror = (errno: string) => STRERROR[errno] ?? errno;

export type TypeRead =
  | { kind: 'version'; version: 1 | 2; text: string }
  /** Read fine but neither v1 nor v2 (NCCL leaves its variable unset). */
  | { kind: 'unrecognised'; text: string }
  | { kind: 'open-failed'; errno: string }
  | { kind: 'read-failed'; errno: string };

/** What the types file says, read as NCCL reads it (first 15 bytes, prefix compare). */
export function classifyType(t: SysfsRead): TypeRead {
  if (typeof t !== 'string') return OPEN_ERRORS.has(t.error) ? { kind: 'open-failed', errno: t.error } : { kind: 'read-failed', errno: t.error };
  const head = Buffer.from(t + '\n', 'utf8').subarray(0, 15).toString('latin1');
  if (head.startsWith('IB/RoCE v1') || head.startsWith('RoCE v1')) return { kind: 'version', version: 1, text: t };
  if (head.startsWith('RoCE v2')) return { kind: 'version', version: 2, text: t };
  return { kind: 'unrecognised', text: t };
}

/** A label for tables: RoCE v1 / RoCE v2 / IB, or the reason it is unknown. */
export function typeLabel(t: SysfsRead, linkLayer: string | null): string {
  const c = classifyType(t);
  if (c.kind === 'version') return linkLayer === 'InfiniBand' ? 'IB' : `RoCE v${c.version}`;
  if (c.kind === 'unrecognised') return c.text === '' ? '(empty)' : c.text;
  return `?(${c.errno})`;
}

// ---------------------------------------------------------------------------
// The variables (§3.2, §9)

export interface AddrRange {
  raw: string;
  /** How NCCL ended up reading it. */
  effect: 'all' | 'prefix' | 'none-match';
  family: GidFamily;
  bytes: Uint8Array | null;
  prefixlen: number;
  /** The INFO line NCCL prints when it ignores part of the value. */
  log: string | null;
  note: string;
}

export interface GidParams {
  /** NCCL_IB_GID_INDEX: default -1 (auto) from 2.21.5, 0 before. */
  gidIndex: NcclIntParam & { raw: string | undefined };
  /** NCCL_IB_ADDR_FAMILY exactly AF_INET or AF_INET6; anything else is AF_INET. */
  family: { raw: string | undefined; value: GidFamily; recognised: boolean };
  range: AddrRange | null;
  /** NCCL_IB_ROCE_VERSION_NUM (default 2, not validated). */
  roceVersion: NcclIntParam & { raw: string | undefined };
  /** NCCL_IB_ROUTABLE_FLID_GID_INDEX (default 1, ≥ 2.22.3). */
  flidIndex: NcclIntParam & { raw: string | undefined };
}

/** strtol(s, NULL, 10) then the cast to int that envIbAddrRange does. */
export function strtol10(s: string): number {
  const m = /^[ \t\n\v\f\r]*([+-]?)(\d*)/.exec(s)!;
  if (!m[2]) return 0;
  let v = BigInt(m[2]);
  if (m[1] === '-') v = -v;
  const max = (1n << 63n) - 1n;
  if (v > max) v = max;
  if (v < -max - 1n) v = -max - 1n;
  return Number(BigInt.asIntN(32, v));
}

/** inet_pton(AF_INET) refuses leading zeros that parseIPv4 tolerates. */
function ptonV4(s: string): Uint8Array | null {
  if (!/^(0|[1-9]\d{0,2})(\.(0|[1-9]\d{0,2})){3}$/.test(s)) return null;
  return parseIPv4(s);
}

export function readAddrRange(raw: string | undefined, family: GidFamily): AddrRange | null {
  if (raw === undefined || raw === '') return null;
  const text = raw.slice(0, 127);
  const slash = text.indexOf('/');
  const base = { raw, family, bytes: null, prefixlen: 0 };
  if (slash < 0) return { ...base, effect: 'all', log: null, note: `'${raw}' has no '/': NCCL ignores it silently (every GID is in range)` };
  const addr = text.slice(0, slash);
  const bytes = family === 'AF_INET' ? ptonV4(addr) : parseIPv6(addr);
  if (!bytes) {
    return {
      ...base,
      effect: 'all',
      log: `NET/IB: Ip address '${addr}' is invalid for family ${family}, ignoring address`,
      note: `'${addr}' is not an ${family === 'AF_INET' ? 'IPv4' : 'IPv6'} address (the range is read in NCCL_IB_ADDR_FAMILY=${family}): ignored`,
    };
  }
  const len = strtol10(text.slice(slash + 1));
  if ((family === 'AF_INET' && len > 32) || (family === 'AF_INET6' && len > 128)) {
    return { ...base, effect: 'all', log: `NET/IB: Ip address mask '${len}' is invalid for family ${family}, ignoring mask`, note: `prefix length ${len} is too long for ${family}: the range is ignored` };
  }
  if (len < 0) return { ...base, bytes, prefixlen: len, effect: 'none-match', log: null, note: `a negative prefix length (${len}) makes every GID fail the range test` };
  if (len === 0) return { ...base, bytes, prefixlen: 0, effect: 'all', log: null, note: 'prefix length 0 matches every GID' };
  return { ...base, bytes, prefixlen: len, effect: 'prefix', log: null, note: `GIDs must be in ${addr}/${len}` };
}

const mask32 = (bits: number) => (bits >= 32 ? 0xffffffff : (0xffffffff ^ ((1 << (32 - bits)) - 1)) >>> 0);

/** matchGidAddrPrefix(): AF_INET compares the GID's last 32 bits; AF_INET6 word by word. */
export function gidInRange(range: AddrRange | null, g: Uint8Array): boolean {
  if (!range || range.effect === 'all') return true;
  if (range.effect === 'none-match') return false;
  const base = range.bytes!;
  let len = range.prefixlen;
  if (range.family === 'AF_INET') {
    const m = mask32(len);
    const b = ((base[0]! << 24) | (base[1]! << 16) | (base[2]! << 8) | base[3]!) >>> 0;
    return ((b & m) >>> 0) === ((word32(g, 3) & m) >>> 0);
  }
  let i = 0;
  while (len > 0 && i < 4) {
    if (len >= 32) {
      if (word32(base, i) !== word32(g, i)) return false;
      len -= 32;
      i++;
    } else {
      const m = mask32(len);
      return ((word32(base, i) & m) >>> 0) === ((word32(g, i) & m) >>> 0);
    }
  }
  return len === 0;
}

export function readGidParams(vars: Record<string, string | undefined>, profile: Profile): GidParams {
  const famRaw = vars['NCCL_IB_ADDR_FAMILY'];
  const recognised = famRaw === 'AF_INET' || famRaw === 'AF_INET6';
  const family: GidFamily = famRaw === 'AF_INET6' ? 'AF_INET6' : 'AF_INET';
  const p = (name: string, def: number) => ({ ...parseNcclInt(vars[name], def), raw: vars[name] });
  return {
    gidIndex: p('NCCL_IB_GID_INDEX', profile.gidAuto ? -1 : 0),
    family: { raw: famRaw, value: family, recognised: famRaw === undefined || famRaw === '' || recognised },
    range: profile.gidAuto ? readAddrRange(vars['NCCL_IB_ADDR_RANGE'], family) : null,
    roceVersion: p('NCCL_IB_ROCE_VERSION_NUM', 2),
    flidIndex: p('NCCL_IB_ROUTABLE_FLID_GID_INDEX', 1),
  };
}

// ---------------------------------------------------------------------------
// The choice

export type GidOutcome =
  | { kind: 'index'; index: number }
  /** NCCL's connection setup fails on this port; `index` is the index NCCL uses when it is known (an explicit one outside the table). */
  | { kind: 'failure'; log: string[]; why: string; index?: number }
  /** The result depends on values NCCL never read (uninitialised variable): every index it could end with. */
  | { kind: 'indeterminate'; candidates: number[]; failurePossible: boolean; why: string }
  /** InfiniBand before 2.22.3: peers are addressed by LID, no GID index is chosen. */
  | { kind: 'not-used'; why: string };

export type GidVerdict = 'start' | 'switch-family' | 'switch-version' | 'kept' | 'skipped' | 'uncertain' | 'fails' | 'explicit' | 'chosen';

export interface GidTraceEntry {
  index: number;
  verdict: GidVerdict;
  reason: string;
}

export interface GidSelection {
  mode: 'fixed-default' | 'explicit' | 'auto' | 'ib-flid' | 'ib-lid';
  outcome: GidOutcome;
  trace: GidTraceEntry[];
  /** Indexes whose types file NCCL read and got EINVAL (a container view), in walk order. */
  einval: number[];
}

export interface GidTable {
  linkLayer: 'InfiniBand' | 'Ethernet';
  /** Entries as listed; a missing index is unknown (a transcribed, incomplete table). */
  entries: GidEntry[];
}

interface Entry {
  bytes: Uint8Array | null;
  type: SysfsRead;
  /** Facts the walk asks for on every step, computed once. */
  family: GidFamily | 'unknown';
  valid: boolean | 'unknown';
  zero: boolean;
}

/** gid_tbl_len: the kernel lists every entry, so the highest listed index + 1 (and at least the count). */
export function tableLength(entries: GidEntry[]): number {
  return entries.reduce((m, e) => Math.max(m, e.index + 1), entries.length);
}

type IndexedTable = { len: number; at(i: number): Entry | null };
// Parsed once per table: every walk over the same port (other parameters, other profiles) reuses it.
const indexed = new WeakMap<GidEntry[], IndexedTable>();

function indexTable(entries: GidEntry[]): IndexedTable {
  let t = indexed.get(entries);
  if (!t) indexed.set(entries, (t = buildIndex(entries)));
  return t;
}

function buildIndex(entries: GidEntry[]): IndexedTable {
  const byIndex = new Map<number, Entry>();
  for (const e of entries) {
    const bytes = typeof e.gid === 'string' ? parseGid(e.gid) : null;
    byIndex.set(e.index, { bytes, type: e.type, family: bytes ? gidFamily(bytes) : 'unknown', valid: bytes ? gidValid(bytes) : 'unknown', zero: bytes ? isZeroGid(bytes) : false });
  }
  return { len: tableLength(entries), at: (i) => byIndex.get(i) ?? null };
}

const describeGid = (e: Entry | null) => (!e ? 'not listed (unknown)' : !e.bytes ? 'unreadable' : isZeroGid(e.bytes) ? 'all-zero (unset)' : gidText(e.bytes));

/** Three-valued logic: the walk cannot decide some comparisons. */
type Tri = boolean | 'unknown';
const not = (a: Tri): Tri => (a === 'unknown' ? a : !a);
const and = (...xs: Tri[]): Tri => (xs.includes(false) ? false : xs.includes('unknown') ? 'unknown' : true);
const or = (...xs: Tri[]): Tri => (xs.includes(true) ? true : xs.includes('unknown') ? 'unknown' : false);
const eq = <T>(a: T | 'unknown', b: T | 'unknown'): Tri => (a === 'unknown' || b === 'unknown' ? 'unknown' : a === b);

/** A RoCE version as NCCL's variable holds it: a number, or whatever was on the stack. */
type Ver = number | 'unknown';

const typesPath = (dev: string, port: number, i: number) => `/sys/class/infiniband/${dev}/ports/${port}/gid_attrs/types/${i}`;

type VerRead = { ok: true; v: Ver; einval: boolean; note: string } | { ok: false; log: string | null; why: string };

function readVer(e: Entry | null, i: number, candidate: boolean, profile: Profile, dev: string, port: number): VerRead {
  if (!e) return { ok: true, v: 'unknown', einval: false, note: `types/${i} not in the snapshot` };
  const c = classifyType(e.type);
  // ≥ 2.26.2 the candidate's variable starts at -1; the current one never does.
  const unset: Ver = candidate && profile.gidEinvalTolerant ? -1 : 'unknown';
  switch (c.kind) {
    case 'version':
      return { ok: true, v: c.version, einval: false, note: `v${c.version}` };
    case 'unrecognised':
      return { ok: true, v: unset, einval: false, note: `types/${i} reads '${c.text}', neither v1 nor v2` };
    case 'open-failed':
      return {
        ok: false,
        log: profile.gidReadWarns ? `NET/IB: open failed in ncclIbRoceGetVersionNum: ${strerror(c.errno)}` : null,
        why: `cannot open ${typesPath(dev, port, i)} (${c.errno})`,
      };
    case 'read-failed':
      if (c.errno === 'EINVAL' && profile.gidEinvalTolerant) {
        return { ok: true, v: unset, einval: true, note: `types/${i} read fails with EINVAL, tolerated since 2.26.2 (version unknown)` };
      }
      return {
        ok: false,
        log: profile.gidReadWarns ? `NET/IB: read failed in ncclIbRoceGetVersionNum: ${strerror(c.errno)}` : null,
        why: `reading ${typesPath(dev, port, i)} fails with ${c.errno}${c.errno === 'EINVAL' ? ' (NCCL before 2.26.2 does not tolerate it)' : ''}`,
      };
  }
}

type StepResult = { next: number } | { fail: { log: string | null; why: string } };
interface Step {
  results: StepResult[];
  verdict: GidVerdict;
  /** Said only when shown: a walk over a table with unknown entries takes a step from each possible index. */
  reason: () => string;
  /** Indexes whose types file read failed with EINVAL (tolerated) in this step. */
  einval: number[];
}

/** One ncclUpdateGidIndex(cur, i) call. */
function step(
  cur: number,
  i: number,
  t: { at(i: number): Entry | null },
  params: GidParams,
  profile: Profile,
  dev: string,
  port: number,
): Step {
  const ci = t.at(cur);
  const gi = t.at(i);
  const fam = params.family.value;
  const rv = toInt32(params.roceVersion.value);
  const famI = gi ? gi.family : 'unknown';
  const famC = ci ? ci.family : 'unknown';
  const inRange: Tri = gi?.bytes ? gidInRange(params.range, gi.bytes) : 'unknown';
  const validI: Tri = gi ? gi.valid : 'unknown';
  const validC: Tri = ci ? ci.valid : 'unknown';

  // Fast path: both entries known and the candidate unset or of the other family (most of a 255-entry table).
  if (gi?.bytes && ci?.bytes && famI !== fam && !(famI !== famC && famI === fam)) {
    return { results: [{ next: cur }], verdict: 'skipped', reason: () => `family ${famI}${gi.zero ? ' (all-zero entry)' : ''}, NCCL_IB_ADDR_FAMILY wants ${fam}`, einval: [] };
  }
  const switchFamily = and(not(eq(famI, famC)), eq(famI, fam), inRange);
  if (switchFamily === true) {
    return { results: [{ next: i }], verdict: 'switch-family', reason: () => `family ${famI} differs from GID ${cur}'s ${famC} and is ${fam}${params.range ? ', in range' : ''}: NCCL switches without checking validity or version`, einval: [] };
  }
  const results: StepResult[] = [];
  const reasons: string[] = [];
  if (switchFamily === 'unknown') {
    results.push({ next: i });
    reasons.push(`unknown GID content: NCCL may switch on family (${describeGid(gi)} vs ${describeGid(ci)})`);
  }
  const skip = or(not(eq(famI, fam)), not(validI), not(inRange));
  if (skip === true) {
    const why = () =>
      famI !== 'unknown' && famI !== fam ? `family ${famI}${gi?.zero ? ' (all-zero entry)' : ''}, NCCL_IB_ADDR_FAMILY wants ${fam}` : validI === false ? `${gi?.zero ? 'unset (all-zero)' : 'link-local'}, not a valid GID` : `outside NCCL_IB_ADDR_RANGE ${params.range?.raw}`;
    if (results.length === 0) return { results: [{ next: cur }], verdict: 'skipped', reason: why, einval: [] };
    results.push({ next: cur });
    return { results, verdict: 'uncertain', reason: () => [...reasons, `or skipped: ${why()}`].join('; '), einval: [] };
  }
  if (skip === 'unknown') {
    results.push({ next: cur });
    reasons.push('unknown GID content: NCCL may skip it');
  }
  // Branch B proper: read both versions (current first; a failure stops there).
  const vc = readVer(ci, cur, false, profile, dev, port);
  if (!vc.ok) {
    results.push({ fail: { log: vc.log, why: vc.why } });
    return { results, verdict: results.length > 1 ? 'uncertain' : 'fails', reason: () => [...reasons, `NCCL reads the version of GID ${cur}: ${vc.why} — the connection fails`].join('; '), einval: [] };
  }
  const vi = readVer(gi, i, true, profile, dev, port);
  if (!vi.ok) {
    results.push({ fail: { log: vi.log, why: vi.why } });
    return { results, verdict: results.length > 1 ? 'uncertain' : 'fails', reason: () => [...reasons, `NCCL reads the version of GID ${i}: ${vi.why} — the connection fails`].join('; '), einval: vc.einval ? [cur] : [] };
  }
  const cond = and(or(not(eq<number>(vc.v, vi.v)), not(validC)), eq<number>(vi.v, rv));
  const vtext = (v: Ver) => (v === 'unknown' ? 'unknown' : v === -1 ? 'unknown (-1)' : `v${v}`);
  const einval = [...(vc.einval ? [cur] : []), ...(vi.einval ? [i] : [])];
  const readNotes = [vc.note, vi.note].filter((n) => !/^v\d$/.test(n));
  const detail = () => `GID ${cur} is ${vtext(vc.v)}${validC === false ? ' and not valid' : ''}, GID ${i} is ${vtext(vi.v)}, NCCL_IB_ROCE_VERSION_NUM=${rv}${readNotes.length ? ` (${readNotes.join('; ')})` : ''}`;
  if (cond === true) {
    results.push({ next: i });
    return { results, verdict: results.length > 1 ? 'uncertain' : 'switch-version', reason: () => [...reasons, `valid ${fam}; ${detail()}: switch`].join('; '), einval };
  }
  if (cond === false) {
    results.push({ next: cur });
    return { results, verdict: results.length > 1 ? 'uncertain' : 'kept', reason: () => [...reasons, `valid ${fam}; ${detail()}: no switch`].join('; '), einval };
  }
  results.push({ next: i }, { next: cur });
  return { results, verdict: 'uncertain', reason: () => [...reasons, `valid ${fam}; ${detail()}: NCCL compares a value it never read — it may or may not switch`].join('; '), einval };
}

/**
 * What a step depends on in the current entry (ncclUpdateGidIndex reads its
 * family, validity and RoCE version): possible current indexes whose entries
 * agree step alike, only their own index differing. A table with unknown
 * entries (a gap in a partial capture) makes one possible index per unknown
 * entry; walked one by one, that is quadratic in the table. Walked by class,
 * each step costs the few classes there are.
 */
function entryClass(e: Entry | null): string {
  if (!e) return 'unlisted';
  const c = classifyType(e.type);
  return `${e.family}|${e.valid}|${e.bytes ? 'read' : 'unread'}|${c.kind}|${c.kind === 'version' ? c.version : c.kind === 'unrecognised' ? '' : c.errno}`;
}

/** The step from each possible index is said for the first few; the rest are counted by verdict, so the trace stays linear in the table. */
const PATHS_SHOWN = 4;
function pathsReason(shown: { cur: number; s: Step }[], rest: { count: number; from: number; to: number; verdicts: Map<GidVerdict, number> }): string {
  const said = shown.map((p) => `from GID ${p.cur}: ${p.s.reason()}`);
  if (rest.count === 0) return said.join(' | ');
  const tally = [...rest.verdicts].map(([v, n]) => `${n} ${v}`).join(', ');
  return `${said.join(' | ')} | from ${rest.count} more possible GIDs (${rest.from}–${rest.to}): ${tally}`;
}

/** ncclIbGetGidIndex's RoCE walk, following every undecidable branch. */
function autoWalk(table: GidTable, params: GidParams, profile: Profile, dev: string, port: number): GidSelection {
  const t = indexTable(table.entries);
  const trace: GidTraceEntry[] = [{ index: 0, verdict: 'start', reason: `NCCL starts at GID 0 (${describeGid(t.at(0))})` }];
  const einval: number[] = [];
  // The possible current indexes, by entry class, each class in the order its indexes became possible.
  let groups = new Map<string, number[]>([[entryClass(t.at(0)), [0]]]);
  let size = 1;
  let firstFailure: { log: string | null; why: string } | undefined;
  const einvalSaid = new WeakMap<number[], number>();
  for (let i = 1; i < t.len; i++) {
    if (size === 1) {
      // One possible current index (the usual case): no bookkeeping for branches.
      const cur = groups.values().next().value![0]!;
      const s = step(cur, i, t, params, profile, dev, port);
      const only = s.results.length === 1 ? s.results[0]! : null;
      if (only && 'next' in only) {
        if (s.einval.length) append(einval, s.einval);
        trace.push({ index: i, verdict: s.verdict, reason: s.reason() });
        if (only.next !== cur) groups = new Map([[entryClass(t.at(only.next)), [only.next]]]);
        continue;
      }
    }
    const next = new Map<string, number[]>();
    let reachesI = false;
    const shown: { cur: number; s: Step }[] = [];
    const rest = { count: 0, from: Infinity, to: -Infinity, verdicts: new Map<GidVerdict, number>() };
    const verdicts = new Set<GidVerdict>();
    for (const [key, members] of groups) {
      const rep = members[0]!;
      const s = step(rep, i, t, params, profile, dev, port);
      verdicts.add(s.verdict);
      let stays = false;
      for (const r of s.results) {
        if ('next' in r) {
          if (r.next === rep) stays = true;
          else reachesI = true;
        } else firstFailure ??= r.fail;
      }
      if (stays) next.set(key, members);
      // The current entry's EINVAL is every member's (they share its read), each said once; the candidate's is i's.
      if (s.einval.includes(rep)) {
        const done = einvalSaid.get(members) ?? 0;
        for (let m = done; m < members.length; m++) einval.push(members[m]!);
        einvalSaid.set(members, members.length);
      }
      if (s.einval.includes(i)) einval.push(i);
      let m = 0;
      for (; m < members.length && shown.length < PATHS_SHOWN; m++) shown.push({ cur: members[m]!, s: m === 0 ? s : step(members[m]!, i, t, params, profile, dev, port) });
      if (m < members.length) {
        // Members are in increasing order (each joined as the walk's index grew).
        rest.count += members.length - m;
        rest.from = Math.min(rest.from, members[m]!);
        rest.to = Math.max(rest.to, members[members.length - 1]!);
        rest.verdicts.set(s.verdict, (rest.verdicts.get(s.verdict) ?? 0) + members.length - m);
      }
    }
    if (reachesI) {
      const key = entryClass(t.at(i));
      const g = next.get(key);
      if (g) g.push(i);
      else next.set(key, [i]);
    }
    trace.push({ index: i, verdict: verdicts.size === 1 ? shown[0]!.s.verdict : 'uncertain', reason: size === 1 ? shown[0]!.s.reason() : pathsReason(shown, rest) });
    groups = next;
    size = 0;
    for (const g of groups.values()) size += g.length;
    if (size === 0) break;
  }
  const candidates = [...groups.values()].flat().sort((a, b) => a - b);
  let outcome: GidOutcome;
  if (candidates.length === 0 && firstFailure) {
    outcome = { kind: 'failure', log: firstFailure.log ? [firstFailure.log] : [], why: firstFailure.why };
  } else if (candidates.length === 1 && !firstFailure) {
    outcome = { kind: 'index', index: candidates[0]! };
  } else {
    outcome = {
      kind: 'indeterminate',
      candidates,
      failurePossible: !!firstFailure,
      why: firstFailure ? `some paths fail (${firstFailure.why}), others end at ${candidates.join(' or ') || 'none'}` : `NCCL compares a RoCE version it could not read (an uninitialised value): it ends at ${candidates.join(' or ')}`,
    };
  }
  if (outcome.kind === 'index') {
    const e = t.at(outcome.index);
    trace.push({ index: outcome.index, verdict: 'chosen', reason: outcome.index === 0 ? `nothing qualified: NCCL stays at GID 0 (${describeGid(e)})` : `NCCL uses GID ${outcome.index} (${describeGid(e)})` });
  }
  return { mode: 'auto', outcome, trace, einval: [...new Set(einval)] };
}

function explicit(table: GidTable, index: number, mode: 'explicit' | 'fixed-default', why: string): GidSelection {
  const t = indexTable(table.entries);
  if (index < 0 || index >= t.len) {
    return {
      mode,
      outcome: {
        kind: 'failure',
        log: ['Call to ibv_query_gid failed'],
        why: `GID index ${index} is outside the table (${t.len} entries): ibv_query_gid fails and the connection with it`,
        index,
      },
      trace: [{ index, verdict: 'fails', reason: `${why}; the table has ${t.len} entries` }],
      einval: [],
    };
  }
  return { mode, outcome: { kind: 'index', index }, trace: [{ index, verdict: 'explicit', reason: `${why}: ${describeGid(t.at(index))}` }], einval: [] };
}

// The walk over a port's GID table is the costly part of the IB model (256
// entries × 32 ports on a large node), and verifying advice rebuilds the model
// under several environments that mostly leave the GID parameters alone. The
// answer depends only on the table, the parameters and the profile, so it is
// remembered per table array (shared by every copy of a snapshot), by the
// profile's content (callers derive variants of a profile, e.g. the automatic
// choice IB-006 compares with, and every context makes its own object).
const gidMemo = new WeakMap<object, Map<string, GidSelection>>();
// A profile's content as a number, found once per profile object: a version's profile is one object
// (versions.ts), and stringifying it into every port's key cost more than the walk the memo saves.
const profileIds = new WeakMap<Profile, number>();
const idOfProfileText = new Map<string, number>();
const profileId = (p: Profile): number => {
  let id = profileIds.get(p);
  if (id === undefined) {
    const text = JSON.stringify(p);
    id = idOfProfileText.get(text);
    if (id === undefined) idOfProfileText.set(text, (id = idOfProfileText.size));
    profileIds.set(p, id);
  }
  return id;
};

/** ncclIbGetGidIndex() for one port, as this profile does it. */
export function selectGid(table: GidTable, params: GidParams, profile: Profile, dev: string, port: number): GidSelection {
  let byKey = gidMemo.get(table.entries);
  if (!byKey) gidMemo.set(table.entries, (byKey = new Map()));
  const key = JSON.stringify([table.linkLayer, params, profileId(profile), dev, port]);
  let sel = byKey.get(key);
  if (!sel) byKey.set(key, (sel = walkGidTable(table, params, profile, dev, port)));
  return sel;
}

function walkGidTable(table: GidTable, params: GidParams, profile: Profile, dev: string, port: number): GidSelection {
  if (table.linkLayer === 'InfiniBand') {
    if (!profile.gidIbFlid) {
      return { mode: 'ib-lid', outcome: { kind: 'not-used', why: 'InfiniBand: NCCL before 2.22.3 addresses peers by LID, no GID index is chosen' }, trace: [], einval: [] };
    }
    const t = indexTable(table.entries);
    const r = toInt32(params.flidIndex.value);
    const src = params.flidIndex.how === 'default' ? 'NCCL_IB_ROUTABLE_FLID_GID_INDEX default 1' : `NCCL_IB_ROUTABLE_FLID_GID_INDEX=${params.flidIndex.raw}`;
    if (r >= t.len) {
      return { mode: 'ib-flid', outcome: { kind: 'index', index: 0 }, trace: [{ index: 0, verdict: 'chosen', reason: `${src} is not below the table length ${t.len}: GID 0` }], einval: [] };
    }
    if (r < 0) {
      return { mode: 'ib-flid', outcome: { kind: 'failure', log: ['Call to ibv_query_gid failed'], why: `${src} is negative: ibv_query_gid(${r}) fails` }, trace: [{ index: r, verdict: 'fails', reason: `${src}: negative index` }], einval: [] };
    }
    const e = t.at(r);
    if (!e?.bytes) {
      return {
        mode: 'ib-flid',
        outcome: { kind: 'indeterminate', candidates: [0, r], failurePossible: false, why: `GID ${r} is ${describeGid(e)}: its FLID decides between ${r} and 0` },
        trace: [{ index: r, verdict: 'uncertain', reason: `GID ${r} ${describeGid(e)}` }],
        einval: [],
      };
    }
    const flid = gidFlid(e.bytes);
    if (flid !== 0) {
      return { mode: 'ib-flid', outcome: { kind: 'index', index: r }, trace: [{ index: r, verdict: 'chosen', reason: `GID ${r} (${src}) has routable FLID 0x${flid.toString(16)}` }], einval: [] };
    }
    return {
      mode: 'ib-flid',
      outcome: { kind: 'index', index: 0 },
      trace: [
        { index: r, verdict: 'skipped', reason: `GID ${r} (${src}) is ${describeGid(e)}: FLID 0, not routable` },
        { index: 0, verdict: 'chosen', reason: `GID 0 (${describeGid(t.at(0))}); NCCL_IB_GID_INDEX does not apply to InfiniBand` },
      ],
      einval: [],
    };
  }
  const gi = toInt32(params.gidIndex.value);
  if (!profile.gidAuto) {
    const why = params.gidIndex.how === 'default' ? 'NCCL before 2.21.5 uses NCCL_IB_GID_INDEX, default 0, with no detection' : `NCCL_IB_GID_INDEX=${params.gidIndex.raw} (NCCL before 2.21.5 uses it as is)`;
    return explicit(table, gi, params.gidIndex.how === 'default' ? 'fixed-default' : 'explicit', why);
  }
  if (gi >= 0) return explicit(table, gi, 'explicit', `NCCL_IB_GID_INDEX=${params.gidIndex.raw} is used as is, without any check`);
  return autoWalk(table, params, profile, dev, port);
}
