// Which GID each RoCE port should use, and the environment that makes NCCL
// use it (docs/nccl/gid.md). NCCL_IB_GID_INDEX applies to every port, so
// it is right only when one index is right everywhere; NCCL_IB_ADDR_RANGE can
// make the automatic walk right when the ports' own addresses share a prefix
// that the wrong GIDs (another pod's, an overlay's) are outside of. Otherwise
// no environment can, and the decision says why.

import { gidFamily, gidIPv4, gidText, gidValid, classifyType, parseGid, readAddrRange, selectGid, type GidFamily, type GidParams } from '../nccl/gid.js';
import type { Profile } from '../nccl/versions.js';
import type { GidEntry } from '../snapshot/rdma-types.js';

export interface GidPort {
  dev: string;
  port: number;
  gids: GidEntry[];
  /** The port netdev's own addresses (IPv4 and IPv6, no prefix length). */
  ownAddresses: string[];
}

export type GidDecision =
  /** NCCL's automatic walk ends on the right GID on every port (or there is no RoCE port). */
  | { kind: 'auto'; family: GidFamily }
  /** One index is right on every port. */
  | { kind: 'index'; index: number; family: GidFamily; why: string }
  /** The automatic walk is right on every port once restricted to this range. */
  | { kind: 'range'; range: string; family: GidFamily; why: string }
  /** No NCCL variable gives every port its right GID. */
  | { kind: 'none'; why: string };

interface Right {
  port: GidPort;
  /** The RoCE v2 GID of the port's own address, or null when it cannot be told. */
  index: number | null;
  address: string | null;
}

const label = (p: GidPort) => `${p.dev}:${p.port}`;

/** A port's own GIDs of `family`: valid, carrying one of its netdev's addresses. */
function rightIndex(p: GidPort, family: GidFamily): Right {
  const own = p.gids
    .map((g) => ({ g, bytes: typeof g.gid === 'string' ? parseGid(g.gid) : null }))
    .filter((x): x is { g: GidEntry; bytes: Uint8Array } => !!x.bytes && gidValid(x.bytes) && gidFamily(x.bytes) === family)
    .map((x) => ({ ...x, address: gidIPv4(x.bytes) ?? gidText(x.bytes) }))
    .filter((x) => p.ownAddresses.includes(x.address));
  const v2 = own.filter((x) => {
    const t = classifyType(x.g.type);
    return t.kind === 'version' && t.version === 2;
  });
  const pick = v2[0] ?? null;
  return { port: p, index: pick?.g.index ?? null, address: pick?.address ?? null };
}

/** The family NCCL should look for: IPv6 only when no port has an own IPv4 GID and every port has an own global IPv6 one. */
export function wantedFamily(ports: GidPort[]): GidFamily {
  if (ports.length === 0) return 'AF_INET';
  const v4 = ports.every((p) => rightIndex(p, 'AF_INET').index !== null);
  const v6 = ports.every((p) => rightIndex(p, 'AF_INET6').index !== null);
  return !v4 && v6 ? 'AF_INET6' : 'AF_INET';
}

/** The shortest IPv4 prefix containing every address. */
function coveringPrefix(addresses: string[]): string | null {
  const ints = addresses.map((a) => a.split('.').map(Number)).filter((b) => b.length === 4).map((b) => ((b[0]! << 24) | (b[1]! << 16) | (b[2]! << 8) | b[3]!) >>> 0);
  if (ints.length === 0 || ints.length !== addresses.length) return null;
  let len = 32;
  const masked = (v: number, l: number) => (l === 0 ? 0 : (v & (0xffffffff << (32 - l))) >>> 0);
  while (len > 0 && ints.some((v) => masked(v, len) !== masked(ints[0]!, len))) len--;
  const n = masked(ints[0]!, len);
  return `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}/${len}`;
}

/**
 * The decision for the RoCE ports NCCL keeps. `params` are the GID variables
 * as they will be once the recommendation applies (invalid values dropped).
 */
export function decideGid(ports: GidPort[], params: GidParams, profile: Profile): GidDecision {
  const family = wantedFamily(ports);
  if (ports.length === 0) return { kind: 'auto', family };
  const rights = ports.map((p) => rightIndex(p, family));
  const unknown = rights.filter((r) => r.index === null);
  if (unknown.length) {
    return { kind: 'none', why: `${unknown.map((r) => label(r.port)).join(', ')} ${unknown.length > 1 ? 'have' : 'has'} no RoCE v2 ${family === 'AF_INET' ? 'IPv4' : 'IPv6'} GID of ${unknown.length > 1 ? 'their' : 'its'} own netdev's address: no GID setting can make RoCE v2 routable there` };
  }
  const auto = { ...params, gidIndex: { ...params.gidIndex, value: -1, how: 'default' as const, raw: undefined }, family: { raw: family === 'AF_INET6' ? 'AF_INET6' : undefined, value: family, recognised: true } };
  const walk = (p: GidPort, ps: GidParams) => selectGid({ linkLayer: 'Ethernet', entries: p.gids }, ps, profile, p.dev, p.port).outcome;
  const rightsText = rights.map((r) => `${label(r.port)} needs ${r.index} (${r.address})`).join(', ');
  if (profile.gidAuto && rights.every((r) => {
    const o = walk(r.port, auto);
    return o.kind === 'index' && o.index === r.index;
  })) {
    return { kind: 'auto', family };
  }
  const indexes = [...new Set(rights.map((r) => r.index!))];
  if (indexes.length === 1) {
    return { kind: 'index', index: indexes[0]!, family, why: profile.gidAuto ? `the automatic choice is not ${indexes[0]} on every port; ${indexes[0]} is the RoCE v2 GID of each port's own address` : `NCCL ${profile.version.raw} uses a fixed index (default 0, RoCE v1 link-local); ${indexes[0]} is the RoCE v2 GID of each port's own address` };
  }
  if (profile.gidAuto && family === 'AF_INET') {
    const prefix = coveringPrefix(rights.map((r) => r.address!));
    if (prefix) {
      const range = readAddrRange(prefix, 'AF_INET');
      const ranged = { ...auto, range };
      if (rights.every((r) => {
        const o = walk(r.port, ranged);
        return o.kind === 'index' && o.index === r.index;
      })) {
        return { kind: 'range', range: prefix, family, why: `the ports need different indexes (${rightsText}); inside ${prefix} the automatic choice finds each port's own GID` };
      }
    }
  }
  return {
    kind: 'none',
    why: profile.gidAuto
      ? `the ports need different GID indexes (${rightsText}), NCCL_IB_GID_INDEX applies to every port, and no single NCCL_IB_ADDR_RANGE keeps the other GIDs out`
      : `the ports need different GID indexes (${rightsText}) and NCCL ${profile.version.raw} takes one NCCL_IB_GID_INDEX for every port: use NCCL ≥ 2.21.5 (automatic choice)`,
  };
}
