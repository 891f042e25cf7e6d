// The GID index NCCL picks on a port (src/model/nccl/gid.ts selectGid), remembered
// across ports and nodes. A cluster has thousands of ports whose tables have
// the same shape — link-local v1/v2, IPv4 v1/v2, then ~250 unset entries —
// and differ only in addresses, which the walk does not look at (unless
// NCCL_IB_ADDR_RANGE is set). The key below is everything selectGid's outcome
// depends on, entry by entry: whether the entry is listed, its family,
// validity, range match, routable FLID, and how its types file reads. Equal
// keys give equal outcomes, so the walk runs once per shape.

import type { GidKind } from './types.js';
import { classifyType, gidFamily, gidFlid, gidInRange, gidIPv4, gidLinkLocal, gidText, gidValid, isZeroGid, parseGid, selectGid, typeLabel, type GidOutcome, type GidParams, type GidSelection } from '../nccl/gid.js';
import type { Profile } from '../nccl/versions.js';
import type { GidEntry, SysfsRead } from '../snapshot/rdma-types.js';

const ZERO_GID = '0000:0000:0000:0000:0000:0000:0000:0000';

function typeClass(t: SysfsRead): string {
  const c = classifyType(t);
  switch (c.kind) {
    case 'version':
      return `v${c.version}`;
    case 'unrecognised':
      return 'u';
    case 'open-failed':
      return 'o';
    case 'read-failed':
      return c.errno === 'EINVAL' ? 'e' : 'r';
  }
}

/** One entry's class: what the walk can observe about it. */
function entryClass(e: GidEntry, params: GidParams): string {
  if (e.gid === ZERO_GID && typeof e.type !== 'string' && e.type.error === 'EINVAL') return 'z';
  if (typeof e.gid !== 'string') return `?${typeClass(e.type)}`;
  const b = parseGid(e.gid);
  if (!b) return `?${typeClass(e.type)}`;
  const fam = gidFamily(b) === 'AF_INET' ? '4' : '6';
  const valid = gidValid(b) ? 'V' : isZeroGid(b) ? '0' : 'i';
  const range = params.range && params.range.effect !== 'all' ? (gidInRange(params.range, b) ? 'R' : 'r') : '';
  const flid = gidFlid(b) !== 0 ? 'F' : '';
  return `${fam}${valid}${range}${flid}${typeClass(e.type)}`;
}

/** Entries in listed order as "index:class" runs; consecutive indexes of one class collapse to "a-b:class". */
export function tableShape(entries: GidEntry[], params: GidParams): string {
  let out = '';
  let runStart = -1;
  let runEnd = -1;
  let runClass = '';
  let maxIndex = -1;
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    const index = e.index;
    if (index > maxIndex) maxIndex = index;
    const c = entryClass(e, params);
    if (c === runClass && index === runEnd + 1) {
      runEnd = index;
      continue;
    }
    if (runStart >= 0) out += runStart === runEnd ? `${runStart}:${runClass},` : `${runStart}-${runEnd}:${runClass},`;
    runStart = runEnd = index;
    runClass = c;
  }
  if (runStart >= 0) out += runStart === runEnd ? `${runStart}:${runClass}` : `${runStart}-${runEnd}:${runClass}`;
  // gid_tbl_len as selectGid computes it (tableLength): the highest index + 1, and at least the count.
  return `${Math.max(maxIndex + 1, entries.length)}|${out}`;
}

function paramsKey(params: GidParams, profile: Profile): string {
  const v = profile.version;
  // The exact release, not the profile id: the key must not depend on how ids group versions.
  return [v.vendor, v.major, v.minor, v.patch, params.gidIndex.value, params.gidIndex.how, params.family.value, params.range?.raw ?? '', params.range?.effect ?? '', params.roceVersion.value, params.flidIndex.value].join('\u0000');
}

const cache = new Map<string, { mode: GidSelection['mode']; outcome: GidOutcome }>();

export interface GidChoice {
  mode: GidSelection['mode'];
  outcome: GidOutcome;
  /** The chosen entry, when the outcome is one index. */
  entry: GidEntry | null;
}

/** selectGid for one port, computed once per (shape, parameters, profile). */
export function chooseGid(entries: GidEntry[], linkLayer: 'InfiniBand' | 'Ethernet', params: GidParams, profile: Profile, dev: string, port: number): GidChoice {
  const key = `${linkLayer}\u0000${paramsKey(params, profile)}\u0000${tableShape(entries, params)}`;
  let hit = cache.get(key);
  // Failure and indeterminate outcomes carry texts naming this device: compute them for the port itself.
  if (!hit || hit.outcome.kind === 'failure' || hit.outcome.kind === 'indeterminate') {
    const sel = selectGid({ linkLayer, entries }, params, profile, dev, port);
    hit = { mode: sel.mode, outcome: sel.outcome };
    if (cache.size > 10_000) cache.clear();
    cache.set(key, hit);
  }
  const index = hit.outcome.kind === 'index' ? hit.outcome.index : null;
  return { mode: hit.mode, outcome: hit.outcome, entry: index === null ? null : entries.find((e) => e.index === index) ?? null };
}

export type { GidKind };

/** What the chosen GID is, for people and for comparing nodes. */
export function describeChosen(entry: GidEntry | null, linkLayer: string | null): { type: string | null; kind: GidKind | null; address: string | null; ipv4: string | null } {
  if (!entry) return { type: null, kind: null, address: null, ipv4: null };
  const type = typeLabel(entry.type, linkLayer);
  if (typeof entry.gid !== 'string') return { type, kind: 'unreadable', address: null, ipv4: null };
  const b = parseGid(entry.gid);
  if (!b) return { type, kind: 'unreadable', address: null, ipv4: null };
  const ipv4 = gidIPv4(b);
  const kind: GidKind = isZeroGid(b) ? 'unset' : ipv4 ? 'IPv4' : gidLinkLocal(b) ? 'link-local' : 'IPv6';
  return { type, kind, address: gidText(b), ipv4 };
}
