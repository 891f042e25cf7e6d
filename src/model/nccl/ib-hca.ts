// NCCL_IB_HCA (docs/nccl/ib.md §2): the interface-list grammar of
// src/model/nccl/ifname-list.ts applied to verbs device names and port numbers.
// Unlike NCCL_SOCKET_IFNAME there is no length rule: `m` is a real filter,
// `^` alone excludes everything, and an empty value means no filter.

import { matchList, matchName, parseList, type ListEntry, type ParsedList } from './ifname-list.js';
import type { Profile } from './versions.js';

export interface HcaFilter {
  /** The value as NCCL sees it; undefined = unset. */
  raw: string | undefined;
  /** The parsed list, or null when unset. */
  list: ParsedList | null;
}

export function readHcaFilter(raw: string | undefined, profile: Profile): HcaFilter {
  if (raw === undefined) return { raw, list: null };
  // MAX_IB_DEVS entries are parsed (32, or 16 before 2.18.5); ports matter here.
  return { raw, list: parseList(raw, { parser: profile.listParser, maxEntries: profile.ibMaxDevs, fieldsMatter: true }) };
}

export interface HcaMatch {
  accepted: boolean;
  /** The entry that decided, when one did. */
  entry: ListEntry | null;
  reason: string;
}

function portText(p: number): string {
  return p === -1 ? 'any port' : `port ${p}`;
}

/** matchIfList(name, port) XOR searchNot, with the reason in words. */
export function matchHca(f: HcaFilter, dev: string, port: number): HcaMatch {
  const list = f.list;
  if (!list) return { accepted: true, entry: null, reason: 'NCCL_IB_HCA unset: every HCA is eligible' };
  const spec = `NCCL_IB_HCA='${f.raw}'`;
  if (list.entries.length === 0) {
    return list.not
      ? { accepted: false, entry: null, reason: `${spec} is an empty exclusion list, which excludes every HCA` }
      : { accepted: true, entry: null, reason: `${spec} has no entries: no filter` };
  }
  const m = matchList(dev, port, list);
  if (m.entry) {
    const how = list.exact ? 'exact name' : m.entry.prefix === dev ? 'name' : `prefix '${m.entry.prefix}'`;
    return list.not
      ? { accepted: false, entry: m.entry, reason: `excluded by entry '${m.entry.text}' of ${spec} (${how}, ${portText(m.entry.port)})` }
      : { accepted: true, entry: m.entry, reason: `matched entry '${m.entry.text}' of ${spec} (${how}, ${portText(m.entry.port)})` };
  }
  if (list.not) return { accepted: true, entry: null, reason: `not excluded by ${spec}` };
  // Say why the closest entry missed: a port mismatch reads very differently from a wrong name.
  const byName = list.entries.find((e) => matchName(dev, e, list.exact));
  if (byName) {
    const why = byName.port === 0 ? `'${byName.text}' reads as port 0 in this NCCL, which never matches (ports start at 1)` : `'${byName.text}' names ${portText(byName.port)} only`;
    return { accepted: false, entry: null, reason: `not matched by ${spec}: ${why}` };
  }
  return { accepted: false, entry: null, reason: `not matched by ${spec}` };
}

/** The devices each entry of the list selects by name (for prefix-trap and no-match findings). */
export function entryHits(f: HcaFilter, devices: string[]): { entry: ListEntry; hits: string[] }[] {
  const list = f.list;
  if (!list) return [];
  return list.entries.map((entry) => ({ entry, hits: devices.filter((d) => matchName(d, entry, list.exact)) }));
}
