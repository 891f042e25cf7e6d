// What every IB finding reads (ib-findings/index.ts runs them): the report,
// the selection and the environment of one `ncclx ib` model, the ports in a
// few useful cuts, and the helpers the findings share to name ports and build
// fixes.

import type { IbReport, PortReport } from '../ib-types.js';
import { advise, setEnv } from '../../result/build.js';
import type { Remediation } from '../../result/types.js';
import type { GidEntry } from '../../snapshot/rdma-types.js';
import type { NodeSnapshot } from '../../snapshot/types.js';
import type { EffectiveEnv, Origin } from '../conf.js';
import { classifyType, gidFamily, gidValid, parseGid, selectGid, type GidParams } from '../gid.js';
import { sysText, type IbSelection } from '../ib.js';
import type { Finding, Severity } from '../socket-findings.js';
import type { ConsumerResult } from '../socket.js';
import { versionString, type Profile } from '../versions.js';

export interface IbFindingContext {
  report: IbReport;
  selection: IbSelection;
  gidParams: GidParams;
  profile: Profile;
  env: EffectiveEnv;
  snapshot: NodeSnapshot;
  versionAssumed: boolean;
  oob: ConsumerResult;
}

export interface PortRef {
  dev: string;
  port: PortReport;
}

/** The context and the cuts of it most findings start from. */
export interface IbView extends IbFindingContext {
  /** Every port of every device, in the report's order. */
  ports: PortRef[];
  /** Ports NCCL uses. */
  used: PortRef[];
  /** Ports the selection keeps (used, or would be if the transport came up). */
  kept: PortRef[];
  hasRdma: boolean;
  /** The modelled release as the report prints it. */
  version: string;
  /** ` (from FLAG)` / ` (from FILE:LINE)` when the variable came from a flag or a conf file. */
  origin(name: string): string;
}

export function ibView(c: IbFindingContext): IbView {
  const ports = c.report.devices.flatMap((d) => d.ports.map((port) => ({ dev: d.name, port })));
  return {
    ...c,
    ports,
    used: ports.filter((r) => r.port.usedByNccl === true),
    kept: ports.filter((r) => c.selection.ports.find((x) => x.dev === r.dev && x.port === r.port.port)?.kept === true),
    hasRdma: ports.length > 0,
    version: versionString(c.profile.version),
    origin: (name) => originText(c.env.origins[name]),
  };
}

export function finding(id: string, severity: Severity, message: string, remediation: Remediation): Finding {
  return { id, severity, message, remediation };
}

export function originText(o: Origin | undefined): string {
  if (!o || o.source === 'environment') return '';
  return o.source === 'flag' ? ` (from ${o.flag})` : ` (from ${o.path}:${o.line})`;
}

export const label = (r: PortRef) => `${r.dev}:${r.port.port}`;
export const withNetdev = (r: PortRef) => `${label(r)}${r.port.netdev ? ` (${r.port.netdev})` : ''}`;

/** `=mlx5_0:1,mlx5_1:1`: an NCCL_IB_HCA value that names exactly these ports. */
export function exactHca(refs: PortRef[]): string {
  return `=${refs.map(label).join(',')}`;
}

/** Set one variable. */
export const setEnvOf = (name: string, value: string): Remediation => setEnv({ [name]: value });

/** NCCL_IB_HCA naming exactly these ports, or advice when there are none. */
export function hcaSuggestion(refs: PortRef[], advice: string): Remediation {
  return refs.length ? setEnv({ NCCL_IB_HCA: exactHca(refs) }, advice) : advise(`${advice} (no ACTIVE port was found on this node)`);
}

export interface ParsedGid {
  index: number;
  bytes: Uint8Array | null;
  type: GidEntry['type'];
  ndev: string | null;
}

// Several findings walk the same table under every environment the doctor verifies advice under: parsed once per table.
const parsedTables = new WeakMap<readonly GidEntry[], readonly ParsedGid[]>();
const NO_GIDS: readonly ParsedGid[] = [];

/** A port's GID entries, parsed (shared: not to be modified). */
export function portGids(v: IbFindingContext, r: PortRef): readonly ParsedGid[] {
  const p = v.snapshot.rdma?.devices.find((x) => x.name === r.dev)?.ports.find((x) => x.port === r.port.port);
  if (!p) return NO_GIDS;
  let parsed = parsedTables.get(p.gids);
  if (!parsed) parsedTables.set(p.gids, (parsed = p.gids.map((g) => ({ index: g.index, bytes: typeof g.gid === 'string' ? parseGid(g.gid) : null, type: g.type, ndev: sysText(g.ndev) }))));
  return parsed;
}

/** The index a tolerant NCCL (≥ 2.26.2) would pick, to suggest as an explicit value. */
export function tolerantChoice(v: IbFindingContext, r: PortRef): number | null {
  const d = v.snapshot.rdma?.devices.find((x) => x.name === r.dev);
  const p = d?.ports.find((x) => x.port === r.port.port);
  if (!d || !p || (r.port.linkLayer !== 'Ethernet' && r.port.linkLayer !== 'InfiniBand')) return null;
  const sel = selectGid({ linkLayer: r.port.linkLayer, entries: p.gids }, { ...v.gidParams, gidIndex: { ...v.gidParams.gidIndex, value: -1, how: 'default' } }, { ...v.profile, gidAuto: true, gidEinvalTolerant: true }, d.name, p.port);
  if (sel.outcome.kind === 'index') return sel.outcome.index;
  if (sel.outcome.kind === 'indeterminate') return bestCandidate(v, r, sel.outcome.candidates);
  return null;
}

/** Among possible indexes, prefer a valid IPv4 RoCE v2 GID, then any valid one, then the highest. */
export function bestCandidate(v: IbFindingContext, r: PortRef, cands: number[]): number | null {
  const p = v.snapshot.rdma?.devices.find((x) => x.name === r.dev)?.ports.find((x) => x.port === r.port.port);
  const score = (i: number) => {
    const e = p?.gids.find((g) => g.index === i);
    const b = e && typeof e.gid === 'string' ? parseGid(e.gid) : null;
    if (!b || !gidValid(b)) return 0;
    const t = e ? classifyType(e.type) : null;
    return (gidFamily(b) === v.gidParams.family.value ? 2 : 1) + (t?.kind === 'version' && t.version === 2 ? 2 : 0);
  };
  if (!cands.length) return null;
  return [...cands].sort((a, b) => score(b) - score(a) || b - a)[0]!;
}

/** RDMA devices whose `device` link is not a symlink to a PCI function: NCCL cannot place them. */
export function offPci(v: IbView) {
  return v.report.devices.filter((d) => d.device.kind !== 'symlink' || d.device.subsystem !== 'pci');
}

/** Why a fused group that NCCL places is one virtual NIC (IB-028 reports them, IB-032 the MERGE_VFS case). */
export type FusedKind = 'beyond-nic' | 'merge-vfs' | 'one-nic' | 'first-cpu';

export interface Fused {
  kind: FusedKind;
  forced: boolean;
  /** `mlx5_0+mlx5_1` as NCCL names the vNIC. */
  name: string;
  devs: IbSelection['devices'];
  key: string;
}

/**
 * The fused groups NCCL places (not refused, not unread), each with the reason it is one device:
 * forced or fused across NICs (a merge level beyond PORT); different PCI devices that
 * NCCL_IB_MERGE_VFS folds onto one path; ports of one NIC; NICs attached to the first CPU.
 */
export function fusedGroups(v: IbView): Fused[] {
  return v.selection.merge.groups
    .filter((x) => x.merged && x.home?.kind !== 'unread' && x.home?.kind !== 'fatal')
    .map((g) => {
      const devs = g.members.map((m) => v.selection.devices[m]!);
      const distinctSlots = new Set(devs.map((d) => d.fullPciPath.replace(/\.[0-7]$/, '')));
      // MERGE_VFS is the cause only when the folding made them one NIC (one folded path), not for a group fused across NICs.
      const oneNic = new Set(devs.map((d) => d.pciPath)).size === 1;
      const firstCpu = g.key.startsWith('first CPU');
      const kind: FusedKind =
        g.forced || !oneNic ? 'beyond-nic' : distinctSlots.size > 1 && !firstCpu && v.profile.ibMergeVfsParam && v.selection.inputs.mergeVfs.value !== 0 ? 'merge-vfs' : firstCpu ? 'first-cpu' : 'one-nic';
      return { kind, forced: !!g.forced, name: devs.map((d) => d.dev).join('+'), devs, key: g.key };
    });
}

/** A merge NCCL refuses (ib.ts autoMerge). */
export type Refusal = IbSelection['merge']['refusals'][number];

/** `mlx5_0:1` for each member of a refused group. */
export function refusedNames(v: IbView, r: Refusal): string[] {
  return r.members.map((m) => `${v.selection.devices[m]!.dev}:${v.selection.devices[m]!.port}`);
}

/** Fused groups whose vNIC lands where NCCL's topology never reads it (vnic.ts vnicHome). */
export function unreadGroups(v: IbView) {
  return v.selection.merge.groups.filter((x) => x.merged && x.home?.kind === 'unread');
}
