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
 */
export function autoMerge(count: number, distance: (i: number, j: number) => number, level: number, maxPerNic: number): number[][] {
  const placed = new Array<boolean>(count).fill(false);
  const groups: number[][] = [];
  for (let i = 0; i < count; i++) {
    if (placed[i]) continue;
    placed[i] = true;
    const group = [i];
    for (let j = 0; j < count && group.length < maxPerNic; j++) {
      if (placed[j] || distance(i, j) > level) continue;
      placed[j] = true;
      group.push(j);
    }
    groups.push(group);
  }
  return groups;
}
