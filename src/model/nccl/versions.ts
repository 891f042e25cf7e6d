// NCCL behaviour profiles. Every rule in src/nccl asks a Profile what the
// version it models does, never the raw version string, so a version
// difference lives in exactly one place (nccl-behavior.md §1.5, §8, §0.1).

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

/** The newest NVIDIA release nccl-behavior.md was written against. */
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

/** -1, 0, 1 like strcmp, on (major, minor, patch). */
export function compareVersion(a: { major: number; minor: number; patch: number }, b: string): number {
  const [bm, bn, bp] = b.split('.').map(Number) as [number, number, number];
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
  /** ≤ 2.30.4 hand-written scanner; ≥ 2.30.7 tokenizer (nccl-behavior.md §1.3). */
  listParser: ListParser;
  /** NCCLX: NCCL_SOCKET_IPADDR_PREFIX filters addresses after the name match. */
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

  // IB transport (nccl-behavior.md §2, §3, §5, §6).
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
  /** ≥ 2.29.2: NCCL_NET filters transports before they initialise (so `NET/IB : Using` no longer appears with NCCL_NET=Socket). */
  netFilterBeforeInit: boolean;
  /** What NCCL prints when NCCL_NET names a transport that cannot be used. */
  netNotFoundLog: string;

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

/** NCCLX branches are forks of upstream minors; their upstream-equivalent release. */
const NCCLX_BASE: Record<number, string> = { 29: '2.29.2', 30: '2.30.3', 31: '2.31.0' };

export function profileFor(v: NcclVersion): Profile {
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
    ipaddrPrefix: v.vendor === 'ncclx',
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
    netFilterBeforeInit: ge('2.29.2'),
    netNotFoundLog: ge('2.27.3') ? 'Failed to initialize any NET plugin' : 'Error: network %s not found.',
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
