// NCCL behaviour profiles. Every rule in src/model asks a Profile what the
// version it models does, never the raw version string, so a version
// difference lives in exactly one place: here (docs/nccl/versions.md lists
// every flag with the NCCL source that sets its threshold;
// test/arch/versions.test.ts keeps it so).

import { UserError } from '../errors.js';

export type Vendor = 'nvidia' | 'ncclx';

export interface NcclVersion {
  vendor: Vendor;
  major: number;
  minor: number;
  patch: number;
  /** What the user or the library said, e.g. "2.28", "ncclx-2.30", "2.21.5". */
  raw: string;
  /** True when the patch level was not given and was taken as the first release of that minor. */
  patchAssumed: boolean;
}

/** The newest NVIDIA release docs/nccl/ describes. */
export const NEWEST_KNOWN: NcclVersion = {
  vendor: 'nvidia',
  major: 2,
  minor: 30,
  patch: 7,
  raw: '2.30.7',
  patchAssumed: false,
};

// First release tag of each 2.x minor that the behaviour thresholds name. A
// version given as "2.28" means its first release, so "2.28" behaves like 2.28.3.
const FIRST_PATCH: Record<number, number> = {
  3: 5, 4: 2, 5: 6, 6: 4, 7: 3, 8: 3, 9: 6, 10: 3, 11: 4, 12: 7, 13: 4, 14: 3, 15: 1, 16: 2,
  17: 1, 18: 1, 19: 3, 20: 3, 21: 5, 22: 3, 23: 4, 24: 3, 25: 1, 26: 2, 27: 3, 28: 3, 29: 2, 30: 3,
};

export class VersionError extends UserError {}

/** Parse `X.Y[.Z]`, `vX.Y.Z-1`, or `ncclx-X.Y`. */
export function parseVersion(text: string): NcclVersion {
  const raw = text.trim();
  const ncclx = /^ncclx[-_ ]?v?(\d+)[._](\d+)(?:[._](\d+))?$/i.exec(raw);
  const nvidia = /^v?(\d+)\.(\d+)(?:\.(\d+))?(?:-\d+)?$/.exec(raw);
  const m = ncclx ?? nvidia;
  if (!m) {
    throw new VersionError(
      `cannot read NCCL version '${text}': use X.Y[.Z] (NVIDIA NCCL, e.g. 2.28.3) or ncclx-X.Y (Meta's NCCLX, e.g. ncclx-2.30)`,
    );
  }
  const major = Number(m[1]);
  const minor = Number(m[2]);
  const patchAssumed = m[3] === undefined;
  const patch = patchAssumed ? (major === 2 ? FIRST_PATCH[minor] ?? 0 : 0) : Number(m[3]);
  const vendor: Vendor = ncclx ? 'ncclx' : 'nvidia';
  if (vendor === 'ncclx' && !(major === 2 && minor >= 29 && minor <= 31)) {
    throw new VersionError(`NCCLX '${text}' is not modelled: ncclx knows NCCLX v2_29, v2_30 and v2_31`);
  }
  if (major !== 2) {
    throw new VersionError(`NCCL ${raw}: only NCCL 2.x is modelled`);
  }
  return { vendor, major, minor, patch, raw, patchAssumed };
}

/** Whether "X.Y" names a minor whose first release is known (so "X.Y" can be read as X.Y.<first>). */
export function firstPatchKnown(v: NcclVersion): boolean {
  return v.major === 2 && FIRST_PATCH[v.minor] !== undefined;
}

export function versionString(v: NcclVersion): string {
  // "2.31" with no known first release stays "2.31": no patch level is invented.
  const base = v.patchAssumed && v.vendor === 'nvidia' && !firstPatchKnown(v) ? `${v.major}.${v.minor}` : `${v.major}.${v.minor}.${v.patch}`;
  return v.vendor === 'ncclx' ? `ncclx-${v.major}.${v.minor}` : base;
}

/** The release numbers of each threshold written in this file ("2.28.3" → [2, 28, 3]), read once. */
const thresholds = new Map<string, readonly [number, number, number]>();

function thresholdOf(b: string): readonly [number, number, number] {
  let t = thresholds.get(b);
  if (!t) {
    t = b.split('.').map(Number) as [number, number, number];
    thresholds.set(b, t);
  }
  return t;
}

/** -1, 0, 1 like strcmp, on (major, minor, patch). */
export function compareVersion(a: { major: number; minor: number; patch: number }, b: string): number {
  const [bm, bn, bp] = thresholdOf(b);
  if (a.major !== bm) return a.major < bm ? -1 : 1;
  if (a.minor !== bn) return a.minor < bn ? -1 : 1;
  if (a.patch !== bp) return a.patch < bp ? -1 : 1;
  return 0;
}

export const atLeast = (v: NcclVersion, b: string): boolean => compareVersion(v, b) >= 0;

export type ListParser = 'scanner' | 'tokenizer';

/** What one NCCL build does, as far as ncclx models it. */
export interface Profile {
  /** Stable id shown in JSON, e.g. "nccl>=2.28.3". */
  id: string;
  version: NcclVersion;
  /** ≥ 2.28.3: interfaces without IFF_RUNNING are skipped by the per-address filter. */
  runningFilter: boolean;
  /** The exclusion list of auto step 3. */
  autoExclude: string;
  /** ≥ 2.28.3 (not NCCLX v2_29/v2_30): a last auto step tries `virbr`. */
  virbrStep: boolean;
  /** 2.29.2 – 2.30.2 and NCCLX v2_29: IPv4 subnet comparison is inverted. */
  invertedV4Subnet: boolean;
  /** ≤ 2.30.4 hand-written scanner; ≥ 2.30.7 tokenizer (docs/nccl/socket.md §3). */
  listParser: ListParser;
  /** NCCLX v2_29 and v2_30: NCCL_SOCKET_IPADDR_PREFIX filters addresses after the name match (v2_31's os/linux.cc has no such filter). */
  ipaddrPrefix: boolean;
  /** ≥ 2.23.4: NCCL_CONF_FILE names the user conf file. */
  confFileVar: boolean;
  /** ≥ 2.26.2: conf lines starting with '#' are skipped. */
  confComments: boolean;
  /** ≥ 2.30.3: a trailing CR in a conf line is dropped. */
  confCrlf: boolean;
  /** ≥ 2.30.3: ~ is $HOME; before, the passwd entry's home. */
  confHomeFromEnv: boolean;
  /** Log line prefix for the bootstrap interface. */
  bootstrapLogPrefix: string;

  // IB transport (docs/nccl/ib.md; docs/nccl/gid.md; docs/nccl/gdr.md; docs/nccl/net-plugins.md).
  /** MAX_IB_DEVS: ports kept, and NCCL_IB_HCA entries parsed (32 from 2.18.5, 16 before). */
  ibMaxDevs: number;
  /** ≥ 2.18.1: NCCL_IB_MERGE_VFS (default 1) folds both PCI device digits; before, only the low one is folded. */
  ibMergeVfsParam: boolean;
  /** Who merges ports that share a folded PCI path: nobody (< 2.20.3), the IB transport (2.20.3–2.23.x), the core's virtual NICs (≥ 2.24.3). */
  ibMerge: 'none' | 'ib-transport' | 'core-vnic';
  /** ≥ 2.27.3: NCCL_IB_MERGE_NICS=0 refusing a vNIC is an INFO line (a WARN in 2.24.3–2.26). */
  ibMergeRefusalInfo: boolean;
  /**
   * How the core's vNICs enter the topology (topo.cc ncclTopoProcessNet/MakeVnic): 'every-group' (2.24.3–2.26.x)
   * makes a virtual device of every AutoMerge group, one device included, and renumbers them; 'fused-only'
   * (≥ 2.27.3) only groups of two or more, whose members leave the graph. 'none' before 2.24.3.
   */
  vnicMode: 'none' | 'every-group' | 'fused-only';
  /**
   * A vNIC the IB transport refuses (mixed link layers, NCCL_IB_MERGE_NICS=0): 'fatal' in 2.24.3–2.25.x
   * (ncclTopoMakeVnic's error ends initialisation); 'retry' from 2.26.2 (ncclTopoAutoMerge marks the
   * devices unplaced at distance DIS and places them apart).
   */
  vnicRefusal: 'fatal' | 'retry';
  /** ≥ 2.30.7: NCCL_NET_MERGE_POLICY (ALL, RAIL) exists. */
  mergePolicy: boolean;
  /** NCCL_NET_MAX_DEVS_PER_NIC: physical devices per vNIC (4; 8 from 2.30.3, net plugin API v12). */
  vnicMaxDevs: number;
  /** ≥ 2.29.7: NCCL_IB_DEVICE_PCI_ORDER (default 1) sorts devices by PCI BDF; before, libibverbs order. */
  ibPciOrder: boolean;
  /** ≥ 2.21.5: NCCL_IB_GID_INDEX defaults to -1 (automatic choice); before, a fixed default of 0. */
  gidAuto: boolean;
  /** ≥ 2.22.3: InfiniBand ports use the routable-FLID rule and NCCL_IB_GID_INDEX is RoCE-only. */
  gidIbFlid: boolean;
  /** ≥ 2.26.2: EINVAL reading gid_attrs/types/<i> means "version unknown" instead of a failed connection. */
  gidEinvalTolerant: boolean;
  /** ≥ 2.23.4: the GID choice WARNs when a types file cannot be opened or read (silent before). */
  gidReadWarns: boolean;
  /** GPUDirect RDMA peer-memory paths this version checks (§5). */
  peerMemPaths: string[];
  /** ≥ 2.23.4: /sys/module/nvidia_peermem/version is one of those paths, so a loaded nvidia_peermem is seen. */
  peerMemModule: boolean;
  /** ≥ 2.13.4: GPUDirect RDMA through DMA-BUF, without a peer-memory module. */
  dmabuf: boolean;
  /** The NCCL_NET_GDR_LEVEL names this release accepts (C2C from 2.26.2, P2C from 2.27.3), in NCCL's order. */
  gdrLevelNames: string[];
  /** ≥ 2.26.2: NCCL_IB_TC defaults to -1 (the connecting side's value, else the communicator's, else 0); 0 before. */
  ibTcDefaultUnset: boolean;
  /** How the core places a vNIC in its topology (ncclTopoGetVNicParent, ncclTopoWidenLinks). */
  vnic: VnicRules;
  /** ≥ 2.28.7: ncclTopoMakeVnic calls the transport's makeVDevice under NOWARN, so a refusal prints as INFO. */
  vnicRefusalQuiet: boolean;
  /** ≥ 2.26.2: the IB transport refuses a vNIC mixing link layers with 'Attempted to merge incompatible devices' (before: 'Trying to merge multiple devices together with different link_layer properties'). */
  vnicLinkLayerLog: 'incompatible' | 'link-layer';
  /**
   * 2.24.3–2.29.1 (core vNICs, search.cc): a failed graph search falls back to NET id 0, which may be gone
   * (renumbered or fused into a vNIC): "Could not find NET with id 0". Fixed in 2.29.2.
   */
  searchFallbackNetZero: boolean;
  /** ≥ 2.30.7: NCCL_IB_SUBNET_AWARE_ROUTING exists (with NCCL_IB_MERGE_NICS=0, connections pick a port on the peer's subnet). */
  ibSubnetAwareRouting: boolean;
  /** ≥ 2.29.2: NCCL_NET filters transports before they initialise (so `NET/IB : Using` no longer appears with NCCL_NET=Socket). */
  netFilterBeforeInit: boolean;
  /** What NCCL prints when NCCL_NET names a transport that cannot be used. */
  netNotFoundLog: string;
  /** ≥ 2.4.8: bootstrap prints the interface it uses (`Bootstrap : Using`); before, a log says it only through `NET/Socket : Using`. */
  logsBootstrap: boolean;
  /** ≥ 2.6.4: init prints `Using network <name>`; before, a log names the transport only through what it lists. */
  logsNetwork: boolean;

  // Net plugins (src/plugin/net.cc and plugin_open.cc ≥ 2.26.2; src/net.cc 2.12–2.25; src/init.cc before).
  /**
   * The libraries NCCL dlopens for NCCL_NET_PLUGIN=X: 'ignored' (< 2.11.4: only libnccl-net.so), 'suffix'
   * (2.11.4–2.20.x: libnccl-net-X.so), 'name-then-suffix' (2.21.5–2.26.x: X, then libnccl-net-X.so), 'lib-or-suffix'
   * (2.27.3: X when it looks like lib….so, else libnccl-net-X.so), 'name-then-suffix-unless-lib' (≥ 2.27.5: X, then
   * libnccl-net-X.so unless X has a '/' or looks like lib….so).
   */
  netPluginNames: 'ignored' | 'suffix' | 'name-then-suffix' | 'lib-or-suffix' | 'name-then-suffix-unless-lib';
  /** ≥ 2.27.3: NCCL_NET_PLUGIN is a comma list (at most 14 entries); the first that loads and initialises wins; set but empty loads none. */
  netPluginList: boolean;
  /** ≥ 2.28.3: NCCL_NET_PLUGIN=none (any case) loads no external plugin. */
  netPluginNone: boolean;
  /** Net plugin API versions this NCCL looks for (ncclNetPlugin_vN symbols), newest first. */
  netPluginApis: number[];
  /** The INFO line when no plugin library is found. */
  netPluginMissingLog: string;
}

/** What a release does when placing a vNIC in its topology (Profile.vnic). */
export interface VnicRules {
  /** ≥ 2.27.3: the common node is raised to its first <pci> (ncclFindFirstPciParent), and only a bridge gets a made-up parent. */
  firstPciParent: boolean;
  /** ≥ 2.28.3: a CPU parent gets a made-up <pci> too (before, the vNIC's <nic> hangs off the CPU). */
  cpuMadeUp: boolean;
  /** How fused links are widened (when the path is PIX, PXB or PHB): none before 2.28.3; 'chain' 2.28.3–2.30.4 (ncclTopoWidenLinks); 'parent' ≥ 2.30.7. */
  widen: 'none' | 'chain' | 'parent';
  /** ≥ 2.30.7: a vNIC across CPUs is refused (WARN, initialisation fails). */
  numaFatal: boolean;
}

/** NCCL_NET_GDR_LEVEL's names in NCCL's order, with the release that added each. */
const GDR_LEVEL_SINCE: [name: string, since: string][] = [
  ['LOC', '2.0.0'], ['NVL', '2.0.0'], ['NVB', '2.0.0'], ['PIX', '2.0.0'], ['PXB', '2.0.0'], ['PXN', '2.0.0'], ['PHB', '2.0.0'], ['SYS', '2.0.0'], ['C2C', '2.26.2'], ['P2C', '2.27.3'],
];

/** NCCLX branches are forks of upstream minors; their upstream-equivalent release. */
const NCCLX_BASE: Record<number, string> = { 29: '2.29.2', 30: '2.30.3', 31: '2.31.0' };

/**
 * Profiles are pure functions of the version and are asked for again and again
 * (every check, every what-if): each version's profile is built once, and
 * frozen, so no caller can change another's. Keyed by what the version says,
 * not by the object: every parseVersion() call (each context of each what-if)
 * makes a new one, and a profile rebuilt per call was a measurable part of
 * verifying advice. The key holds every field, so the profile's `version` is
 * one equal to the caller's.
 */
const PROFILES_KEPT = 1024;
const profiles = new Map<string, Profile>();
const topoProfiles = new Map<string, TopoProfile>();

/** cache's entry for v, built (and frozen) the first time. */
function builtOnce<T extends object>(cache: Map<string, T>, v: NcclVersion, build: (v: NcclVersion) => T): T {
  const key = `${v.vendor}\0${v.major}\0${v.minor}\0${v.patch}\0${v.patchAssumed}\0${v.raw}`;
  let p = cache.get(key);
  if (!p) {
    p = Object.freeze(build(v));
    // Bounded: the versions a log names are the reader's input.
    if (cache.size >= PROFILES_KEPT) cache.clear();
    cache.set(key, p);
  }
  return p;
}

export function profileFor(v: NcclVersion): Profile {
  return builtOnce(profiles, v, buildProfile);
}

function buildProfile(v: NcclVersion): Profile {
  // Behaviour of the upstream code the build is based on.
  const base =
    v.vendor === 'ncclx'
      ? (() => {
          const [major, minor, patch] = NCCLX_BASE[v.minor]!.split('.').map(Number) as [number, number, number];
          return { ...v, major, minor, patch };
        })()
      : v;
  const ge = (b: string) => compareVersion(base, b) >= 0;
  const ncclxOld = v.vendor === 'ncclx' && v.minor <= 30;
  const running = ge('2.28.3');
  const virbr = running && !ncclxOld;
  const inverted = ge('2.29.2') && !ge('2.30.3');
  let id: string;
  if (v.vendor === 'ncclx') id = `ncclx-v2_${v.minor}`;
  else if (inverted) id = 'nccl-2.29.2..2.29.7';
  else if (running) id = 'nccl>=2.28.3';
  else id = 'nccl<2.28.3';
  return {
    id,
    version: v,
    runningFilter: running,
    autoExclude: virbr ? '^docker,lo,virbr' : '^docker,lo',
    virbrStep: virbr,
    invertedV4Subnet: inverted,
    listParser: ge('2.30.7') ? 'tokenizer' : 'scanner',
    ipaddrPrefix: ncclxOld,
    confFileVar: ge('2.23.4'),
    confComments: ge('2.26.2'),
    confCrlf: ge('2.30.3'),
    confHomeFromEnv: ge('2.30.3'),
    bootstrapLogPrefix: ge('2.24.3') ? 'Bootstrap: Using' : 'Bootstrap : Using',
    ibMaxDevs: ge('2.18.5') ? 32 : 16,
    ibMergeVfsParam: ge('2.18.1'),
    ibMerge: ge('2.24.3') ? 'core-vnic' : ge('2.20.3') ? 'ib-transport' : 'none',
    ibMergeRefusalInfo: ge('2.27.3'),
    vnicMode: ge('2.27.3') ? 'fused-only' : ge('2.24.3') ? 'every-group' : 'none',
    vnicRefusal: ge('2.26.2') ? 'retry' : 'fatal',
    mergePolicy: ge('2.30.7'),
    vnicMaxDevs: ge('2.30.3') ? 8 : 4,
    ibPciOrder: ge('2.29.7'),
    gidAuto: ge('2.21.5'),
    gidIbFlid: ge('2.22.3'),
    gidEinvalTolerant: ge('2.26.2'),
    gidReadWarns: ge('2.23.4'),
    peerMemPaths: [
      '/sys/kernel/mm/memory_peers/nv_mem/version',
      ...(ge('2.9.8') && !ge('2.22.3') ? ['/sys/kernel/mm/memory_peers/nvidia-peermem/version'] : []),
      ...(ge('2.22.3') ? ['/sys/kernel/mm/memory_peers/nv_mem_nc/version'] : []),
      ...(ge('2.23.4') ? ['/sys/module/nvidia_peermem/version'] : []),
    ],
    peerMemModule: ge('2.23.4'),
    dmabuf: ge('2.13.4'),
    gdrLevelNames: GDR_LEVEL_SINCE.filter(([, since]) => ge(since)).map(([name]) => name),
    ibTcDefaultUnset: ge('2.26.2'),
    vnic: { firstPciParent: ge('2.27.3'), cpuMadeUp: ge('2.28.3'), widen: ge('2.30.7') ? 'parent' : ge('2.28.3') ? 'chain' : 'none', numaFatal: ge('2.30.7') },
    vnicRefusalQuiet: ge('2.28.7'),
    vnicLinkLayerLog: ge('2.26.2') ? 'incompatible' : 'link-layer',
    searchFallbackNetZero: ge('2.24.3') && !ge('2.29.2'),
    ibSubnetAwareRouting: ge('2.30.7'),
    netFilterBeforeInit: ge('2.29.2'),
    netNotFoundLog: ge('2.27.3') ? 'Failed to initialize any NET plugin' : 'Error: network %s not found.',
    logsBootstrap: ge('2.4.8'),
    logsNetwork: ge('2.6.4'),
    netPluginNames: ge('2.27.5') ? 'name-then-suffix-unless-lib' : ge('2.27.3') ? 'lib-or-suffix' : ge('2.21.5') ? 'name-then-suffix' : ge('2.11.4') ? 'suffix' : 'ignored',
    netPluginList: ge('2.27.3'),
    netPluginNone: ge('2.28.3'),
    netPluginApis: pluginApis(ge),
    netPluginMissingLog: ge('2.28.3')
      ? 'NET/Plugin: Could not find: %s'
      : ge('2.26.2')
        ? 'NET/Plugin: Could not find: %s. '
        : ge('2.24.3')
          ? 'NET/Plugin: Could not find: %s. Using internal network plugin.'
          : ge('2.21.5')
            ? 'NET/Plugin: Using internal network plugin.'
            : 'NET/Plugin : No plugin found (%s), using internal implementation',
  };
}

/** ncclNetPlugin_vN symbols each release looks for (the net plugin loaders of NCCL 2.4.8 … 2.30.7). */
function pluginApis(ge: (v: string) => boolean): number[] {
  const span = (hi: number, lo: number) => Array.from({ length: hi - lo + 1 }, (_, i) => hi - i);
  if (ge('2.30.3')) return span(12, 6);
  if (ge('2.28.3')) return span(11, 6);
  if (ge('2.26.2')) return span(10, 6);
  if (ge('2.24.3')) return span(9, 5);
  if (ge('2.20.3')) return span(8, 5);
  if (ge('2.19.1')) return span(7, 5);
  if (ge('2.13.4')) return span(6, 4);
  if (ge('2.12.7')) return span(5, 4);
  if (ge('2.8.3')) return [4];
  if (ge('2.6.4')) return [3];
  return [2];
}

/**
 * The Profile of the release a log states ("2.18.3", "2.18.3+cuda12.2"), or
 * null when the text does not start with a modelled release number.
 */
export function profileOfStated(text: string): Profile | null {
  const m = /^(\d+)\.(\d+)\.(\d+)/.exec(text);
  if (!m) return null;
  try {
    return profileFor(parseVersion(`${m[1]}.${m[2]}.${m[3]}`));
  } catch (e) {
    if (e instanceof VersionError) return null;
    throw e;
  }
}

/** Where the version came from, for the report. */
export interface VersionChoice {
  version: NcclVersion;
  source: string;
  /** True when nothing told us and the newest known release was assumed. */
  assumed: boolean;
  /** For a version newer than the newest modelled release: which release's rules answer for it, and how sure that is. */
  beyond: VersionBeyond | null;
}

export interface VersionBeyond {
  /** The modelled release whose behaviour is used. */
  modelledAs: string;
  /** Always false: rules NCCL changed after `modelledAs` are not known to ncclx. */
  certain: false;
  note: string;
}

/** A version past NEWEST_KNOWN is modelled with NEWEST_KNOWN's rules, and said so. */
export function beyondModel(v: NcclVersion): VersionBeyond | null {
  if (v.vendor !== 'nvidia' || compareVersion(v, versionString(NEWEST_KNOWN)) <= 0) return null;
  const newest = versionString(NEWEST_KNOWN);
  return {
    modelledAs: newest,
    certain: false,
    note: `${v.raw} is newer than ${newest}, the newest release this ncclx models: it is answered with ${newest}'s rules, which holds only where later releases did not change them`,
  };
}

// ---------------------------------------------------------------------------
// The topology engine's flags (model/topo: engine.ts, engine-paths.ts, search.ts)
// Every topology rule that differs between NCCL releases, as one record built
// once from the version: the graph engine (engine.ts, engine-paths.ts,
// search.ts) asks these flags, never the version. Each flag names the
// release that introduced it (NVIDIA/nccl src/graph at that tag). Pure.

export interface TopoProfile {
  version: NcclVersion;
  /** ≥ 2.30.3: a GPU hangs off a DEV node (its PCI function), NVLinks and C2C start at the DEV (topo.cc ncclTopoAddGpuSub). */
  devNodes: boolean;
  /** ≥ 2.30.7: ncclTopoSetPaths keeps the better path type first, then bandwidth, then fewer hops. */
  pathTypeFirst: boolean;
  /** ≥ 2.8.3: a path may cross one GPU over two NVLinks (NVB). */
  nvb: boolean;
  /** ≥ 2.9.6: Broadcom PEX Gen4 switches are flattened. */
  bcmGen4: boolean;
  /** ≥ 2.20.3: Broadcom PEX Gen5 switches are flattened. */
  bcmGen5: boolean;
  /** ≥ 2.19.1: <c2c> links the GPU to its CPU (topo.cc ncclTopoAddC2c; the 2.21.5 oracle has it). */
  c2cLinks: boolean;
  /** How C2C is linked: an NVL link (2.19.1–2.25.x), a C2C link (≥ 2.26.2). */
  c2cLinkType: 'NVL' | 'C2C';
  /**
   * topo.cc findLocalCpu, the walk up from a GPU to its CPU (for <c2c> and NVLinks to a CPU): over every
   * PCI link (before 2.22.3), over PCI links to PCI switches and CPUs only (2.22.3–2.25.x), and from
   * 2.26.2 never back over the link it came from. The first two have no guard: a walk that comes back
   * to a node recurses without end and the process dies (stack overflow).
   */
  localCpuWalk: 'any-pci' | 'switches' | 'switches-from';
  /** ≥ 2.29.7: a <net> is a network device only when its `net` attribute (default 1) says so (topo.cc ncclTopoAddNic; `gin`/`rma` devices may be net="0"); before, every <net> with a `dev` is one. */
  netAttr: boolean;
  /** ≥ 2.27.3: a GPU whose CPU is C2C reaches that CPU's PHB NICs at P2C. */
  p2cPaths: boolean;
  /** ≥ 2.28.7: NETs stay in a one-node job's graph (TrimSystem sets `inter` instead of removing them). */
  keepNetsIntra: boolean;
  /** MAXCHANNELS (src/include/device.h): 32 before 2.25.1, 64 from 2.25.1; the ring graph may take half. */
  maxChannels: 32 | 64;
  /** GB/s per NVLink (ncclTopoNVLinkBw) by compute capability; sm ≥ 100 has its own value from 2.25.1 (40.0, 40.1 from 2.27.5), before it shares sm 90's. */
  nvlBw: { sm70: number; sm80: number; sm90: number; sm100: number };
  /**
   * ≥ 2.21.5, one GPU: ncclTopoSearchInit sets totalBw (LOC_BW) with maxBw when there is no NET, and
   * ncclTopoCompute scales totalBw by ngpus/(ngpus-1) only with more than one GPU. Before, totalBw stays
   * 0 there, and one GPU's totalBw is scaled by 1/0 (0 × ∞ is NaN: no speed is skipped for it).
   */
  singleGpuBw: boolean;
  /**
   * ncclTopoCompute (the graph search) is modelled from 2.18.5, the earliest release whose NCCL code
   * ncclx was held to (docs/topo-oracle.md: 2.18.5, 2.19.1, 2.19.3, 2.20.3, 2.21.5, 2.22.3, 2.23.4,
   * 2.27.7, 2.30.7); `search` holds search.cc's release differences up to 2.23.4. Before 2.18.5
   * (whose search.cc differs from 2.18.1's) ncclx shows no graphs and says so.
   */
  searchModelled: boolean;
  /** search.cc's release differences (src/model/topo/search.ts reads them). */
  search: SearchRules;
  /** ≥ 2.19.1: AMD CPUs are linked at AMD_BW (16 GB/s, ncclTopoGetInterCpuBw); before, at LOC_BW like an unknown CPU. */
  amdInterCpuBw: boolean;
  /** ≥ 2.19.1: the NVLink-peer condition on GPUDirect RDMA reads applies below sm 80 only (ncclTopoCheckGdr); before, to every GPU. */
  gdrReadNvlinkPreAmpereOnly: boolean;
  /** ≥ 2.28.7: a <net>'s guid is read with strtoull base 16; before, sscanf("0x%lx"), which leaves the ASIC 0 for a guid without 0x. */
  guidStrtoull: boolean;
  /** ≥ 2.30.7: ncclGetLocalCpu picks among the CPUs of best bandwidth and type the fewest hops; before, the fewest hops. */
  localCpuByBw: boolean;
  /** ≥ 2.30.3: a PXN relay needs GPUDirect RDMA (read) to the NIC. */
  pxnRelayGdr: boolean;
  /** PXN's "avoid the CPU" test: the GPU's own path worse than PXN (≥ 2.27.6), else worse than PXB. */
  pxnAvoid: 'PXN' | 'PXB';
  /** NCCL_PXN_C2C's default (1 from 2.28.3, 0 in 2.27.x; no such parameter before 2.27.3). */
  pxnC2cDefault: number;
  /** NCCL_NET_GDR_C2C's default (1 from 2.27.3, 0 in 2.26.x; no such parameter before 2.26.2). */
  gdrC2cDefault: number;
  /** How GDR treats a P2C NIC with NCCL_NET_GDR_C2C: 'c2c-distance' (2.27.3–2.28.x, P2C compared as C2C), 'p2c-level' (≥ 2.29.2, the default level is P2C), 'none'. */
  gdrC2cRule: 'none' | 'c2c-distance' | 'p2c-level';
  /** ≥ 2.29.2: the C2C + PHB → P2C rewrite looks at the GPU's local NETs only; before, every NET. */
  p2cLocalNetsOnly: boolean;
  /** ≥ 2.29.2: below sm 90 the inter-node search may go up to SYS (maxTypeInter). */
  ampereInterSys: boolean;
  /** ≥ 2.30.3: the sm 100 speed arrays with 86/80 (inter) and 45 (intra). */
  sm100SpeedsV2: boolean;
  /** ≥ 2.29.2: a search that finds nothing falls back to the NETs ncclTopoSelectNets prefers; before, NET 0 at 0.1 GB/s. */
  fallbackSelectNets: boolean;
  /** ≥ 2.28.3: NCCL_NETDEVS_POLICY. */
  netDevsPolicy: boolean;
  /** 2.30.7: ncclTopoGetLocalNet takes the GPU's index modulo the GPUs local to the first NET. */
  localNetModGpus: boolean;
  /** ≥ 2.26.2: Intel Sapphire (model ≥ 0x8f, 22 GB/s) and Emerald Rapids (≥ 0xcf, 40 GB/s) between sockets; before, Skylake or Broadwell only. */
  intelSrpErp: boolean;
  /** ≥ 2.25.1: the search's path types range over what the GPUs' paths have (min/max); before, NVL (LOC alone) and PIX up to SYS. */
  searchTypeRanges: boolean;
  /** ≥ 2.25.1: NVLS at most 32 heads, CollNet direct at most 8; before, one per GPU. */
  searchArity: boolean;
  /** ≥ 2.26.2: a ring over two NVLink domains joined by a slower link needs 2 channels. */
  splitNvLink: boolean;
  /** ≥ 2.25.1: sm 100 speed arrays (before, sm ≥ 90 shared sm 90's). */
  sm100Speeds: boolean;
  /** ≥ 2.27.5: the inter-node search starts each NET's channel from its local GPU(s), replaying only with sameChannels; before, from the GPUs of best bandwidth then fewest hops, in turn. */
  netLocalGpuStart: boolean;
  /** The path types this release has, in its order (C2C from 2.26.2, P2C from 2.27.3): the search steps through them. */
  pathTypes: readonly number[];
  /** The path names in the numbering NCCL prints (e.g. "distance 4 <= 5"): 2.27.3–2.27.4 put PXN before P2C, 2.27.5 after. */
  logPathOrder: readonly string[];
  /** ≥ 2.9.9: NCCL_NVB_DISABLE exists. */
  nvbDisableParam: boolean;
  /** PXN and ncclTopoGetNetDev's peer NIC: none before 2.12.7, the peer's own NIC / first GPU whose NIC it is (2.12.7–2.18.0), the local GPU of the NIC (≥ 2.18.1). */
  pxnMode: 'none' | 'first-peer' | 'local-gpu';
  /** ≥ 2.27.6: ncclTopoGetNetDev accepts a relay at P2C with NCCL_PXN_C2C. */
  p2pPxnC2c: boolean;
  /** ≥ 2.27.3: NCCL_PXN_C2C exists. */
  pxnC2cParam: boolean;
  /** ≥ 2.26.2: NCCL_NET_GDR_C2C exists. */
  gdrC2cParam: boolean;
  /** ncclTopoGetLocalNet's spreading: modulo (before 2.18.1), mask (2.18.1–2.18.4), mirror (≥ 2.18.5). */
  localNetSpread: 'modulo' | 'mask' | 'mirror';
  /** Where the GPUDirect RDMA decision is logged: TRACE from 2.30.3, INFO GRAPH|NET from 2.27.3, INFO NET before. */
  gdrLogWhere: string;
  /** ≥ 2.27.3: NCCL_COLLNET_ENABLE is any non-zero integer (strtol); before, exactly "1" (init.cc). */
  collnetEnableInt: boolean;
  /** ≥ 2.28.7: NVLS with two GPUs in the node (ncclNvlsInit: gpuCount < 2 off); before, more than two. */
  nvlsTwoGpus: boolean;
  /** ≥ 2.25.1: NCCL_MIN_CTAS / NCCL_MAX_CTAS ≤ 0 are ignored; before, taken as they are (init.cc parseCommConfig). */
  ctasPositiveOnly: boolean;
  /** ≥ 2.25.1: ncclTopoPostset doubles the channels of a multi-node job on sm ≥ 90 (ring above 45 GB/s, under 16 channels); before, on sm 90 only. */
  channelDoubleSm90Plus: boolean;
  /** ≥ 2.20.3: that doubling needs fewer than 16 channels; before, only that twice as many fit MAXCHANNELS (connect.cc ncclTopoPostset). */
  sm90DoubleBelow16: boolean;
}

/** NCCL's src/graph/search.cc (and ncclTopoGetLocalGpu) as it changed between 2.18.5 and 2.23.4, each at the first release tag whose code has it. */
export interface SearchRules {
  /** ≥ 2.19.1: followPath's reverse link is the one of the same type, and a CPU's NVLink takes reverse bandwidth only on POWER; before, the first link back, on any CPU. */
  revLinkTyped: boolean;
  /** NCCL_SEARCH_GLOBAL_TIMEOUT: 1<<19 search steps from 2.19.1, 5<<16 before. */
  globalTimeout: number;
  /** ≥ 2.19.1: ncclTopoCompareGraphs keeps an NVLS graph with more nChannels × bwInter too. */
  nvlsCompareBw: boolean;
  /** ≥ 2.19.1: ncclTopoSearchRecNet starts at the channel's index in the NET list and tries the GPUs from it; before, NETs in list order and the GPUs whose PCI link still has bandwidth first. */
  netRotation: boolean;
  /**
   * How ncclTopoSearchRecNet picks NVLS (and CollNet direct) heads: 'every-net' (< 2.19.1: every NET
   * tries the local GPU of NET number nChannels, without following a path), 'first-net' (2.19.1: one NET,
   * from the NET), 'found' (2.22.3: NETs until one head is tried; a duplicate head skips its NET without
   * giving its bandwidth back), 'found-break' (≥ 2.23.4).
   */
  nvlsHeads: 'every-net' | 'first-net' | 'found' | 'found-break';
  /**
   * NCCL_CROSS_NIC: 'flag' (< 2.19.1: any non-zero value allows a retry with crossNic 1, the graph keeps
   * the value, 2 read as 0; crossing NICs costs 15 % in ncclTopoCompareGraphs), 'param' (2.19.1: 2 retries
   * with 1, the graph has 1 only for 1), 'alternate' (2.20.3: no 15 %; with crossNic an odd channel starts
   * at the NET the previous one ended at and ends at the one it started at), 'ring-alternate' (≥ 2.23.4:
   * only rings alternate, with crossNic 2, and only rings and balanced trees retry).
   */
  crossNic: 'flag' | 'param' | 'alternate' | 'ring-alternate';
  /** ≥ 2.19.1: through AMD CPUs (typeIntra SYS) the search keeps trying the same channels. */
  amdSameChannels: boolean;
  /** ncclTopoCompute's last pass: 'trees' (< 2.19.1: bwIntra up for every pattern but rings), 'trees-then-nvls' (2.19.1: then bwInter up for NVLS), 'merged' (≥ 2.19.3: rings' bandwidth up too, one pass). */
  pass2: 'trees' | 'trees-then-nvls' | 'merged';
  /** ≥ 2.19.1: an NVLS graph has at most one channel per GPU (maxChannels). */
  nvlsMaxGpus: boolean;
  /** sm 90 speed arrays: 50 GB/s intra-node from 2.19.1, 22 inter-node from 2.19.3, 11 intra-node from 2.21.5. */
  sm90Intra50: boolean;
  sm90Inter22: boolean;
  sm90Intra11: boolean;
  /** NVSwitch systems try ring/tree neighbours first: 'none' (< 2.19.3), 'first' (2.19.3: then the others), 'only' (≥ 2.21.5). */
  nvsNeighbours: 'none' | 'first' | 'only';
  /** ≥ 2.19.3: the inter-node search skips the PCI-order reference channel on NVSwitch systems. */
  pciRefSkipsNvs: boolean;
  /** ≥ 2.19.3: ncclTopoDupChannels runs after the first pass (the second searches the doubled graph); before, at the very end. */
  dupAfterPass1: boolean;
  /** < 2.21.5: ncclTopoFollowPath reaches a node over an empty path (itself, or one it has no path to) without checking anything. */
  followEmptyPath: boolean;
  /** ≥ 2.21.5: ncclTopoSelectNets adds at most MAXCHANNELS NETs by path type. */
  selectNetsCap: boolean;
  /** ≥ 2.21.5: NCCL_GRAPH_DUMP_FILE writes only the head GPU of an NVLS channel. */
  nvlsDumpHead: boolean;
  /** ≥ 2.22.3: the CollNet direct graph (id 4, its own pattern); before, CollNet has only the chain graph (id 2). */
  collnetDirect: boolean;
  /** ≥ 2.23.4: the GPUs closest to a NET (fewest hops) ignore GPUs it has no path to. */
  minHopsReachable: boolean;
  /** ≥ 2.19.1: ncclTopoGetLocalGpu looks among the NET's local GPUs only; before, every GPU. */
  localGpuFromLocals: boolean;
}

export function topoProfileFor(version: NcclVersion): TopoProfile {
  return builtOnce(topoProfiles, version, buildTopoProfile);
}

function buildTopoProfile(version: NcclVersion): TopoProfile {
  const at = (v: string) => atLeast(version, v);
  return {
    version,
    devNodes: at('2.30.3'),
    pathTypeFirst: at('2.30.7'),
    nvb: at('2.8.3'),
    bcmGen4: at('2.9.6'),
    bcmGen5: at('2.20.3'),
    c2cLinks: at('2.19.1'),
    c2cLinkType: at('2.26.2') ? 'C2C' : 'NVL',
    localCpuWalk: at('2.26.2') ? 'switches-from' : at('2.22.3') ? 'switches' : 'any-pci',
    netAttr: at('2.29.7'),
    p2cPaths: at('2.27.3'),
    keepNetsIntra: at('2.28.7'),
    maxChannels: at('2.25.1') ? 64 : 32,
    // SM90_NVLINK_BW is 20.0 before 2.20.3; sm ≥ 100 takes SM90's value until SM100_NVLINK_BW (2.25.1).
    nvlBw: { sm70: 20, sm80: 20, sm90: at('2.20.3') ? 20.6 : 20, sm100: at('2.27.5') ? 40.1 : at('2.25.1') ? 40.0 : at('2.20.3') ? 20.6 : 20 },
    singleGpuBw: at('2.21.5'),
    searchModelled: at('2.18.5'),
    search: {
      revLinkTyped: at('2.19.1'),
      globalTimeout: at('2.19.1') ? 1 << 19 : 5 << 16,
      nvlsCompareBw: at('2.19.1'),
      netRotation: at('2.19.1'),
      nvlsHeads: at('2.23.4') ? 'found-break' : at('2.22.3') ? 'found' : at('2.19.1') ? 'first-net' : 'every-net',
      crossNic: at('2.23.4') ? 'ring-alternate' : at('2.20.3') ? 'alternate' : at('2.19.1') ? 'param' : 'flag',
      amdSameChannels: at('2.19.1'),
      pass2: at('2.19.3') ? 'merged' : at('2.19.1') ? 'trees-then-nvls' : 'trees',
      nvlsMaxGpus: at('2.19.1'),
      sm90Intra50: at('2.19.1'),
      sm90Inter22: at('2.19.3'),
      sm90Intra11: at('2.21.5'),
      nvsNeighbours: at('2.21.5') ? 'only' : at('2.19.3') ? 'first' : 'none',
      pciRefSkipsNvs: at('2.19.3'),
      dupAfterPass1: at('2.19.3'),
      followEmptyPath: !at('2.21.5'),
      selectNetsCap: at('2.21.5'),
      nvlsDumpHead: at('2.21.5'),
      collnetDirect: at('2.22.3'),
      minHopsReachable: at('2.23.4'),
      localGpuFromLocals: at('2.19.1'),
    },
    amdInterCpuBw: at('2.19.1'),
    gdrReadNvlinkPreAmpereOnly: at('2.19.1'),
    guidStrtoull: at('2.28.7'),
    localCpuByBw: at('2.30.7'),
    pxnRelayGdr: at('2.30.3'),
    pxnAvoid: at('2.27.6') ? 'PXN' : 'PXB',
    pxnC2cDefault: at('2.28.3') ? 1 : 0,
    gdrC2cDefault: at('2.27.3') ? 1 : 0,
    gdrC2cRule: at('2.29.2') ? 'p2c-level' : at('2.27.3') ? 'c2c-distance' : 'none',
    p2cLocalNetsOnly: at('2.29.2'),
    ampereInterSys: at('2.29.2'),
    sm100SpeedsV2: at('2.30.3'),
    fallbackSelectNets: at('2.29.2'),
    netDevsPolicy: at('2.28.3'),
    localNetModGpus: at('2.30.7'),
    intelSrpErp: at('2.26.2'),
    searchTypeRanges: at('2.25.1'),
    searchArity: at('2.25.1'),
    splitNvLink: at('2.26.2'),
    sm100Speeds: at('2.25.1'),
    netLocalGpuStart: at('2.27.5'),
    collnetEnableInt: at('2.27.3'),
    nvlsTwoGpus: at('2.28.7'),
    ctasPositiveOnly: at('2.25.1'),
    channelDoubleSm90Plus: at('2.25.1'),
    sm90DoubleBelow16: at('2.20.3'),
    // PT values: LOC 0, NVL 1, NVB 2, C2C 3, PIX 4, PXB 5, P2C 6, PXN 7, PHB 8, SYS 9.
    pathTypes: at('2.27.3') ? [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] : at('2.26.2') ? [0, 1, 2, 3, 4, 5, 7, 8, 9] : [0, 1, 2, 4, 5, 7, 8, 9],
    logPathOrder: at('2.27.5')
      ? ['LOC', 'NVL', 'NVB', 'C2C', 'PIX', 'PXB', 'P2C', 'PXN', 'PHB', 'SYS', 'NET']
      : at('2.27.3')
        ? ['LOC', 'NVL', 'NVB', 'C2C', 'PIX', 'PXB', 'PXN', 'P2C', 'PHB', 'SYS', 'NET']
        : at('2.26.2')
          ? ['LOC', 'NVL', 'NVB', 'C2C', 'PIX', 'PXB', 'PXN', 'PHB', 'SYS', 'NET']
          : ['LOC', 'NVL', 'NVB', 'PIX', 'PXB', 'PXN', 'PHB', 'SYS', 'NET'],
    nvbDisableParam: at('2.9.9'),
    pxnMode: !at('2.12.7') ? 'none' : at('2.18.1') ? 'local-gpu' : 'first-peer',
    p2pPxnC2c: at('2.27.6'),
    pxnC2cParam: at('2.27.3'),
    gdrC2cParam: at('2.26.2'),
    localNetSpread: !at('2.18.1') ? 'modulo' : at('2.18.5') ? 'mirror' : 'mask',
    gdrLogWhere: at('2.30.3') ? 'TRACE (not printed by release builds)' : at('2.27.3') ? 'INFO GRAPH|NET' : 'INFO NET',
  };
}
