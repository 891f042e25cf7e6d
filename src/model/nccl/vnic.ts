// Which NET devices NCCL fuses into virtual NICs (≥ 2.24.3, graph/topo.cc
// ncclTopoAutoMerge; nccl-behavior.md §7.3). The one decision `ncclx ib` and
// `ncclx topo` both use. Pure.

/** NCCL_NET_MERGE_LEVEL names in NCCL's order (nicPathKvList; PORT sits between LOC and PIX). */
export const MERGE_LEVELS = ['LOC', 'PORT', 'PIX', 'PXB', 'P2C', 'PXN', 'PHB', 'SYS'] as const;
export type MergeLevel = (typeof MERGE_LEVELS)[number];
export const mergeRank = (l: string): number => MERGE_LEVELS.indexOf(l as MergeLevel);

/**
 * ncclTopoAutoMerge: the first device not yet placed is a root; every later
 * device not yet placed whose distance from the root is within `level` joins
 * it, until the vNIC holds `maxPerNic` devices. `distance(i, j)` is a
 * MERGE_LEVELS rank (larger = further). Groups of one are returned too.
 *
 * `refuses` (2.26.2 on): a group the transport will not fuse. NCCL then marks
 * its devices unplaced, puts the root at distance DIS from the others and
 * restarts the scan — at index 1, as its `i = 0` is followed by the loop's
 * `i++`, so a refused root 0 stays unplaced (a physical NET). Refused groups go
 * to `refused`.
 */
export function autoMerge(count: number, distance: (i: number, j: number) => number, level: number, maxPerNic: number, refuses: ((group: number[]) => boolean) | null = null, refused: number[][] = []): number[][] {
  const placed = new Array<boolean>(count).fill(false);
  const apart = new Set<number>();
  const far = (i: number, j: number) => apart.has(i * count + j) || distance(i, j) > level;
  const groups: number[][] = [];
  for (let i = 0; i < count; i++) {
    if (placed[i]) continue;
    placed[i] = true;
    const group = [i];
    for (let j = 0; j < count && group.length < maxPerNic; j++) {
      if (placed[j] || far(i, j)) continue;
      placed[j] = true;
      group.push(j);
    }
    if (group.length > 1 && refuses?.(group)) {
      refused.push(group);
      for (const k of group) placed[k] = false;
      for (const k of group.slice(1)) apart.add(i * count + k).add(k * count + i);
      i = 0;
      continue;
    }
    groups.push(group);
  }
  return groups;
}

/** A NET device as NCCL numbers it once the core has made its virtual NICs. */
export interface NetNumber {
  index: number;
  /** The physical devices (NCCL indexes) behind it: one, or a fused group. */
  members: number[];
  /** false: a vNIC NCCL numbered but placed where its topology never reads it (2.24.3–2.26.x). */
  inGraph: boolean;
}

/**
 * The NET devices NCCL ends with, in index order (topo.cc ncclTopoProcessNet;
 * nccl-behavior.md §7.3), from the groups it fused and the physical count:
 * - 'fused-only' (≥ 2.27.3): unfused devices keep their index; each fused
 *   group, in root order, is a vNIC numbered from the physical count.
 * - 'every-group' (2.24.3–2.26.x): every AutoMerge group, in root order, is a
 *   virtual device numbered from the physical count, a device alone included
 *   (so NET 0 disappears); a fused group's vNIC lands in a <nic> nested in its
 *   members' <nic>, which the topology does not read, so its members stay as
 *   they were, under their own indexes.
 * - 'none': the physical devices.
 * The one numbering `ncclx ib` and `ncclx topo` both show.
 */
export function netNumbering(fused: number[][], physical: number, mode: 'none' | 'every-group' | 'fused-only'): NetNumber[] {
  const all = Array.from({ length: physical }, (_, i) => i);
  if (mode === 'none') return all.map((i) => ({ index: i, members: [i], inGraph: true }));
  const inFused = new Set(fused.flat());
  const groups = [...fused.map((g) => ({ g, fused: true })), ...all.filter((i) => !inFused.has(i)).map((i) => ({ g: [i], fused: false }))].sort((a, b) => Math.min(...a.g) - Math.min(...b.g));
  const out: NetNumber[] = [];
  let next = physical;
  if (mode === 'fused-only') {
    for (const { g, fused: f } of groups) if (!f) out.push({ index: g[0]!, members: g, inGraph: true });
    for (const { g, fused: f } of groups) if (f) out.push({ index: next++, members: g, inGraph: true });
  } else {
    for (const { g, fused: f } of groups) {
      const index = next++;
      if (!f) out.push({ index, members: g, inGraph: true });
      else {
        out.push({ index, members: g, inGraph: false });
        for (const m of g) out.push({ index: m, members: [m], inGraph: true });
      }
    }
  }
  return out.sort((a, b) => a.index - b.index);
}
