import { minOf } from '../list.js';
// Which NET devices NCCL fuses into virtual NICs (≥ 2.24.3, graph/topo.cc
// ncclTopoAutoMerge; docs/nccl/topology.md §3). The one decision `ncclx ib` and
// `ncclx topo` both use. Pure.

import type { VnicRules } from './versions.js';

export type { VnicRules } from './versions.js';

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
export function autoMerge(count: number, distance: (i: number, j: number) => number, level: number, maxPerNic: number, refuses: ((group: number[]) => boolean) | null = null, refused: number[][] = [], already: Set<number> = new Set()): number[][] {
  // `already`: devices NCCL_NET_FORCE_MERGE placed before the scan.
  const placed = Array.from({ length: count }, (_, i) => already.has(i));
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
  /** false: a vNIC NCCL numbered but placed where its topology never reads it (vnicHome 'unread'). */
  inGraph: boolean;
}

/**
 * The NET devices NCCL ends with, in index order (topo.cc ncclTopoProcessNet;
 * docs/nccl/topology.md §3), from the groups it fused, whether its topology
 * reads each group's vNIC (`read`, parallel to `fused`; vnicHome), and the
 * physical count:
 * - 'fused-only' (≥ 2.27.3): unfused devices keep their index; each fused
 *   group, in root order, is a vNIC numbered from the physical count, and its
 *   members leave the topology (keep=0) whether or not the vNIC is read.
 * - 'every-group' (2.24.3–2.26.x): every AutoMerge group, in root order, is a
 *   virtual device numbered from the physical count, a device alone included
 *   (so NET 0 disappears); a fused group's members stay as they were, under
 *   their own indexes, beside its vNIC when that is read.
 * - 'none': the physical devices.
 * The first `forced` fused groups (NCCL_NET_FORCE_MERGE) are numbered first;
 * `unplaced` devices (never placed by AutoMerge) keep their index.
 * The one numbering `ncclx ib` and `ncclx topo` both show.
 */
export function netNumbering(fused: number[][], physical: number, mode: 'none' | 'every-group' | 'fused-only', read: boolean[] = fused.map(() => true), forced = 0, unplaced: readonly number[] = []): NetNumber[] {
  const all = Array.from({ length: physical }, (_, i) => i);
  if (mode === 'none') return all.map((i) => ({ index: i, members: [i], inGraph: true }));
  const inFused = new Set(fused.flat());
  // The first `forced` groups (NCCL_NET_FORCE_MERGE) are made before AutoMerge's, which come in root order.
  const first = fused.slice(0, forced).map((g, k) => ({ g, fused: true, read: read[k] !== false }));
  const rest = [...fused.slice(forced).map((g, k) => ({ g, fused: true, read: read[k + forced] !== false })), ...all.filter((i) => !inFused.has(i)).map((i) => ({ g: [i], fused: false, read: true }))].sort((a, b) => minOf(a.g) - minOf(b.g));
  const groups = [...first, ...rest];
  const out: NetNumber[] = [];
  let next = physical;
  if (mode === 'fused-only') {
    for (const { g, fused: f } of groups) if (!f) out.push({ index: g[0]!, members: g, inGraph: true });
    for (const { g, fused: f, read: r } of groups) if (f) out.push({ index: next++, members: g, inGraph: r });
  } else {
    for (const { g, fused: f, read: r } of groups) {
      // A device AutoMerge never placed (a refused root 0, 2.26.x) gets no virtual device: it keeps its index.
      if (!f && unplaced.includes(g[0]!)) {
        out.push({ index: g[0]!, members: g, inGraph: true });
        continue;
      }
      const index = next++;
      if (!f) out.push({ index, members: g, inGraph: true });
      else {
        out.push({ index, members: g, inGraph: r });
        for (const m of g) out.push({ index: m, members: [m], inGraph: true });
      }
    }
  }
  return out.sort((a, b) => a.index - b.index);
}

// ---------------------------------------------------------------------------
// Distance between NETs and where a vNIC lands (topo.cc ncclTopoGetPath,
// ncclTopoGetVNicParent, ncclTopoMakePciParent, xml.cc ncclTopoFillNet).

const BDF = /^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$/i;

/**
 * A NET's place in NCCL's XML: the <pci> nodes from its NIC up, as xml.cc
 * climbs sysfs (two path components at a time, skipping each switch's
 * downstream port, stopping at the first component that is not a bus id),
 * then its CPU (the NUMA node). `pci` is empty for a device that is not on the
 * PCI tree: NCCL hangs it in the first CPU's <nic>; which CPU that is depends
 * on the rank's GPU, so it is kept apart ('first') from every numbered CPU.
 */
export interface NetPlace {
  pci: string[];
  cpu: string;
}

export function netPlace(pciPath: string | null, isPci: boolean, numa: number | null): NetPlace {
  if (!pciPath || !isPci) return { pci: [], cpu: 'first' };
  const c = pciPath.split('/');
  let i = c.length - 1;
  const pci = [c[i]!.toLowerCase()];
  while (i >= 2 && BDF.test(c[i - 1]!) && BDF.test(c[i - 2]!)) {
    i -= 2;
    pci.push(c[i]!.toLowerCase());
  }
  // An unreadable numa_node reads as '' and converts to 0 (as buildSystem's cpuOf).
  return { pci, cpu: String(numa ?? 0) };
}

/** An XML node on a NET's way up, top first: `system`, `cpu:N`, `pci:BDF`…, `nic:…`, `net:i`. */
export function xmlStack(p: NetPlace, net: number): string[] {
  return ['system', `cpu:${p.cpu}`, ...[...p.pci].reverse().map((b) => `pci:${b}`), `nic:${p.pci[0] ?? `cpu:${p.cpu}`}`, `net:${net}`];
}

export type XmlPath = 'PORT' | 'PIX' | 'PXB' | 'PHB' | 'SYS';

/**
 * ncclTopoGetPath over XML nodes: the deepest node every NET descends from
 * decides — system SYS, cpu PHB, nic PORT, a <pci> PIX when it is the direct
 * parent of every NET's NIC (ncclTopoCheckPix) and PXB otherwise. Where the
 * ways first part, <pci> siblings whose bus ids differ only in their last
 * character (functions of one device not folded together) are PORT.
 * `common`: that deepest shared node's key (xmlStack).
 */
export function xmlNetPath(places: NetPlace[], nets: number[]): { path: XmlPath; common: string } {
  return stackPath(places, places.map((p, k) => xmlStack(p, nets[k]!)));
}

/** Where two ways part: <pci> siblings whose bus ids differ only in their last character (functions of one device not folded together). */
const sameDevice = (x: string, y: string): boolean => y.startsWith('pci:') && y.length === x.length && y.slice(0, -1) === x.slice(0, -1);

/** Whether a NET's NIC hangs directly from the <pci> `bdf` (ncclTopoCheckPix; a NIC off the PCI tree is not checked). */
const directlyUnder = (p: NetPlace, bdf: string): boolean => p.pci.length === 0 || p.pci[1] === bdf;

/** The path type the deepest shared node gives; `pix` tells whether every NIC hangs directly from a shared <pci>. */
function pathBelow(common: string, pix: (bdf: string) => boolean): XmlPath {
  if (common === 'system') return 'SYS';
  if (common.startsWith('cpu:')) return 'PHB';
  if (common.startsWith('nic:') || common.startsWith('net:')) return 'PORT';
  return pix(common.slice(4)) ? 'PIX' : 'PXB';
}

/** The XmlPath of two NETs from their stacks (xmlStack), as stackPath gives it, without building arrays: AutoMerge asks it of every pair. */
export function pairPath(a: string[], b: string[], pa: NetPlace, pb: NetPlace): XmlPath {
  let d = 0;
  while (d < a.length && a[d] === b[d]) d++;
  const x = a[d];
  const y = b[d];
  if (x !== undefined && x.startsWith('pci:') && (y === undefined || sameDevice(x, y))) return 'PORT';
  return pathBelow(a[d - 1]!, (bdf) => directlyUnder(pa, bdf) && directlyUnder(pb, bdf));
}

/** xmlNetPath over stacks already built (xmlStack). */
export function stackPath(places: NetPlace[], stacks: string[][]): { path: XmlPath; common: string } {
  let common = 'system';
  for (let d = 0; d < stacks[0]!.length; d++) {
    const top = stacks[0]![d]!;
    if (stacks.every((s) => s[d] === top)) {
      common = top;
      continue;
    }
    if (top.startsWith('pci:') && stacks.slice(1).every((s) => s[d] === undefined || sameDevice(top, s[d]!))) return { path: 'PORT', common };
    break;
  }
  return { path: pathBelow(common, (bdf) => places.every((p) => directlyUnder(p, bdf))), common };
}


/**
 * Where a fused group's vNIC lands in NCCL's XML, and so whether its topology
 * reads it (ncclTopoGetVNicParent, then ncclTopoFillNet with that parent):
 * - 'in-nic': in the <nic> of the members' NIC (≥ 2.27.3, common node the NIC);
 * - 'made-up': under a made-up <pci> (NIC 0's attributes, bus id NIC 0's + 1,
 *   stepping past ids in use) below the common switch, or below the CPU from
 *   2.28.3, with the links widened as `widen` says;
 * - 'cpu-nic': in the CPU's own <nic> (a CPU parent before 2.28.3);
 * - 'unread': in a <nic> nested in a <nic>, or under <system>: the topology never reads it;
 * - 'fatal': NCCL refuses it and initialisation fails (`log` is its WARN).
 */
export type VnicHome =
  | { kind: 'in-nic'; path: XmlPath; nic: string }
  | { kind: 'made-up'; path: XmlPath; under: { pci: string } | { cpu: string }; bdf: string; widen: 'none' | 'chain' | 'parent' }
  | { kind: 'cpu-nic'; path: XmlPath; cpu: string }
  | { kind: 'unread'; path: XmlPath; why: string }
  | { kind: 'fatal'; path: XmlPath; log: string };

/** busIdToInt64 + 1 as int64ToBusId prints it (`%04lx:%02lx:%02lx.%01lx`, so a function past 7 prints as 8…f). */
function nextBusId(bdf: string): string {
  const n = Number.parseInt(bdf.replace(/[:.]/g, ''), 16) + 1;
  const hex = (v: number, w: number) => v.toString(16).padStart(w, '0');
  return `${hex(Math.floor(n / 0x100000), 4)}:${hex(Math.floor(n / 0x1000) % 0x100, 2)}:${hex(Math.floor(n / 0x10) % 0x100, 2)}.${hex(n % 0x10, 1)}`;
}

/**
 * The home of the vNIC of `members` (their places and NCCL indexes, NIC 0
 * first; `names` for NCCL's WARN), `inUse`: the bus ids of the XML's <pci>
 * nodes (a made-up id steps past them and is added).
 */
export function vnicHome(places: NetPlace[], members: number[], names: string[], rules: VnicRules, inUse: Set<string>): VnicHome {
  const { path, common } = xmlNetPath(places, members);
  const nic0 = places[0]!;
  const madeUp = (under: { pci: string } | { cpu: string }): VnicHome => {
    if (!nic0.pci.length) return { kind: 'fatal', path, log: `TOPO/NET : Can't find busId of child 0 ${names[0]}` };
    let bdf = nic0.pci[0]!;
    // ncclTopoMakeUniqueBusId gives up after 100 tries; a real tree never gets there.
    for (let i = 0; i < 100; i++) {
      bdf = nextBusId(bdf);
      if (!inUse.has(bdf)) break;
    }
    inUse.add(bdf);
    return { kind: 'made-up', path, under, bdf, widen: path === 'PIX' || path === 'PXB' || path === 'PHB' ? rules.widen : 'none' };
  };
  if (common === 'system') {
    if (rules.numaFatal) return { kind: 'fatal', path, log: 'Fusing NET devices from different NUMA domains is not supported.' };
    return { kind: 'unread', path, why: 'its <nic> goes under <system>, which the topology does not read' };
  }
  if (common.startsWith('cpu:')) {
    const cpu = common.slice(4);
    return rules.cpuMadeUp ? madeUp({ cpu }) : { kind: 'cpu-nic', path, cpu };
  }
  if (common.startsWith('nic:') || common.startsWith('net:')) {
    // The members' own <nic>: raised to the NIC's <pci> from 2.27.3 (a NIC off the PCI tree has none to raise to).
    if (rules.firstPciParent && nic0.pci.length) return { kind: 'in-nic', path, nic: nic0.pci[0]! };
    return { kind: 'unread', path, why: "its <nic> is nested in the members' <nic>, which the topology does not read" };
  }
  // A <pci> switch: a made-up <pci> below it (before 2.27.3 below any <pci>; the common one is always a switch here).
  return madeUp({ pci: common.slice(4) });
}
