// `ncclx ib` as data: every RDMA device and port, whether NCCL's IB transport
// uses it and why, the GID index it picks, and the findings. Pure: one
// snapshot and one set of overrides in, one IbReport out (docs/ib-json.md).

import { ibFindings } from './ib-findings/index.js';
import { gidIPv4, gidText, parseGid, readGidParams, selectGid, tableLength, typeLabel, type GidParams, type GidSelection } from './gid.js';
import { parseNumbered, parseRateGbps, roceMtuFor, selectIbDevices, sysError, sysText, type IbSelection } from './ib.js';
import { selectSocketInterfaces } from './socket.js';
import { versionString, type Profile } from './versions.js';
import { originLabel, withFlags, type EffectiveEnv } from './conf.js';
import type { GidEntry, RdmaDevice, RdmaPart, RdmaPort, SysfsRead } from '../snapshot/rdma-types.js';
import type { NodeSnapshot } from '../snapshot/types.js';
import { reasoningContext } from './explain.js';
import type { DeviceReport, IbReport, NetdevView, PortReport } from './ib-types.js';
import { append } from '../list.js';
import { snapshotMemo } from '../snapshot/memo.js';

export type { DeviceReport, IbReport, NetdevView, PortReport };

export interface IbOverrides {
  /** NCCL_IB_HCA to model (--hca). */
  hca?: string;
  /** NCCL_IB_GID_INDEX to model (--gid-index). */
  gidIndex?: string;
  ncclVersion?: string;
  /** Further NCCL_* values to model (--set NAME=VALUE), over the environment. */
  set?: Record<string, string>;
}

const ZERO_GID = '0000:0000:0000:0000:0000:0000:0000:0000';

export const IB_INPUT_VARS = [
  'NCCL_IB_DISABLE',
  'NCCL_IB_HCA',
  'NCCL_IB_GID_INDEX',
  'NCCL_IB_ADDR_FAMILY',
  'NCCL_IB_ADDR_RANGE',
  'NCCL_IB_ROCE_VERSION_NUM',
  'NCCL_IB_ROUTABLE_FLID_GID_INDEX',
  'NCCL_IB_MERGE_VFS',
  'NCCL_IB_MERGE_NICS',
  'NCCL_IB_DEVICE_PCI_ORDER',
  'NCCL_NET_MERGE_LEVEL',
  'NCCL_NET_FORCE_MERGE',
  'NCCL_NET',
  'NCCL_SOCKET_IFNAME',
] as const;

/** Flags beat the environment (and conf files), like explain's overrides. */
export function applyIbOverrides(env: EffectiveEnv, o: IbOverrides): EffectiveEnv {
  return withFlags(env, [
    ...Object.entries(o.set ?? {}).map(([k, v]): [string, string, string] => [k, v, `--set ${k}`]),
    ['NCCL_IB_HCA', o.hca, '--hca'],
    ['NCCL_IB_GID_INDEX', o.gidIndex, '--gid-index'],
  ]);
}

const num = (r: SysfsRead | undefined): number | null => {
  const t = sysText(r);
  return t === null || t.trim() === '' || !Number.isFinite(Number(t)) ? null : Number(t);
};

/** 0-based port number a netdev belongs to: dev_port, else dev_id (older drivers). */
function netdevPortIndex(f: RdmaPart['netdevs'][string] | undefined): number | null {
  if (!f) return null;
  const dp = num(f.devPort);
  if (dp !== null) return dp;
  const di = sysText(f.devId);
  return di !== null && /^0x[0-9a-f]+$/i.test(di.trim()) ? parseInt(di, 16) : null;
}

/** The netdevs a port carries: GID ndevs first (authoritative for RoCE), then device/net by dev_port, then bond masters. */
export function portNetdevs(d: RdmaDevice, p: RdmaPort, snap: NodeSnapshot): NetdevView[] {
  const rdma = snap.rdma!;
  const seen = new Map<string, string>();
  for (const g of p.gids) {
    const n = sysText(g.ndev);
    if (n && !seen.has(n)) seen.set(n, 'gid_attrs/ndevs');
  }
  for (const n of d.pciNetdevs) {
    const idx = netdevPortIndex(rdma.netdevs[n]);
    if (d.ports.length > 1 && idx !== null && idx + 1 !== p.port) continue;
    const master = rdma.netdevs[n]?.master ?? null;
    const mf = master ? rdma.netdevs[master] : undefined;
    if (master && mf && mf.bondSlaves !== null && !seen.has(master)) seen.set(master, `bond master of ${n}`);
    if (!seen.has(n)) seen.set(n, d.ports.length > 1 && idx !== null ? `device/net (dev_port ${idx})` : 'device/net');
  }
  return [...seen.entries()].map(([name, via]) => {
    const f = rdma.netdevs[name];
    const link = snap.network.links.find((l) => l.name === name);
    const addrs = snap.network.addresses.filter((a) => a.link === name);
    return {
      name,
      via,
      present: !!link || !!f?.present,
      operstate: link?.operstate ?? sysText(f?.operstate)?.toUpperCase() ?? null,
      mtu: link?.mtu ?? num(f?.mtu),
      master: link?.master ?? f?.master ?? null,
      ipv4: addrs.filter((a) => a.family === 'AF_INET').map((a) => `${a.address}/${a.prefixlen}`),
      ipv6: addrs.filter((a) => a.family === 'AF_INET6').map((a) => `${a.address}/${a.prefixlen}`),
    };
  });
}

/** The bond (RoCE LAG) a device is, from its netdevs: the bond master and its members; null for an ordinary device. */
export function bondOf(d: RdmaDevice, snap: NodeSnapshot, netdevs: NetdevView[]): DeviceReport['bond'] {
  const rdma = snap.rdma!;
  const bondNetdev = netdevs.find((n) => (rdma.netdevs[n.name]?.bondSlaves ?? null) !== null || snap.network.links.some((l) => l.name === n.name && l.kind === 'bond'));
  if (!bondNetdev && !/bond/.test(d.name)) return null;
  const members = bondNetdev ? rdma.netdevs[bondNetdev.name]?.bondSlaves ?? snap.network.links.filter((l) => l.master === bondNetdev.name).map((l) => l.name) : [];
  return { members, netdev: bondNetdev?.name ?? null };
}

// The table's counts are the same under every environment: counted once per table.
const countsOf = new WeakMap<readonly GidEntry[], { configured: number; unreadableTypes: number }>();
const NONZERO_HEX = /[1-9a-fA-F]/;

/** Entries set (not all zeros), and of them those whose type cannot be read (not ENOENT). */
function gidCounts(gids: readonly GidEntry[]): { configured: number; unreadableTypes: number } {
  let c = countsOf.get(gids);
  if (!c) {
    c = { configured: 0, unreadableTypes: 0 };
    for (const g of gids) {
      if (typeof g.gid !== 'string' || g.gid === ZERO_GID || !NONZERO_HEX.test(g.gid)) continue;
      c.configured++;
      const e = sysError(g.type);
      if (e !== null && e !== 'ENOENT') c.unreadableTypes++;
    }
    countsOf.set(gids, c);
  }
  return c;
}

function gidFields(port: RdmaPort, sel: GidSelection | null, linkLayer: string | null) {
  // An explicit index outside the table is still the index NCCL uses (and fails with): say it.
  const idx = sel?.outcome.kind === 'index' ? sel.outcome.index : sel?.outcome.kind === 'failure' ? sel.outcome.index ?? null : null;
  const e = idx !== null ? port.gids.find((g) => g.index === idx) : undefined;
  const text = e ? sysText(e.gid) : null;
  const bytes = text ? parseGid(text) : null;
  return {
    gidIndex: idx,
    gid: text,
    gidAddress: bytes ? gidText(bytes) : null,
    gidIPv4: bytes ? gidIPv4(bytes) : null,
    gidType: e ? typeLabel(e.type, linkLayer) : null,
    gidNetdev: e ? sysText(e.ndev) : null,
  };
}

// A port's GID walk as trace steps (a step per table entry), made once per selection: selectGid
// remembers its selections, and re-making these per model build was most of the build's garbage.
const gidTraces = new WeakMap<GidSelection, PortReport['trace']>();
function gidTrace(sel: GidSelection | null): PortReport['trace'] {
  if (!sel) return [];
  let t = gidTraces.get(sel);
  if (!t) gidTraces.set(sel, (t = sel.trace.map((x) => ({ stage: 'gid' as const, index: x.index, verdict: x.verdict, reason: x.reason }))));
  return t;
}

export interface IbModel {
  report: IbReport;
  selection: IbSelection;
  gidParams: GidParams;
  profile: Profile;
}

// Verifying advice builds the IB model of the same node under several
// environments, often the same one twice (the command's own model, the
// doctor's, the recommended environment's). The model is a function of the
// snapshot and the overrides only, so it is remembered (snapshot/memo.ts).
// The kernel part (routes, rules, sysctls, qdiscs, firewall) is left out of
// the key: nothing under src/model/nccl reads it, and a kernel remediation
// checked in the model (src/model/fix/commands.ts) changes only that part,
// so its doctor run reuses the node's IB model.
const modelMemo = snapshotMemo<IbModel>(['kernel'], (s) => s.rdma ?? s.network);

export function ibModel(snapshot: NodeSnapshot, o: IbOverrides = {}): IbModel {
  return modelMemo(snapshot, o, () => buildIbModel(snapshot, o));
}

function buildIbModel(snapshot: NodeSnapshot, o: IbOverrides): IbModel {
  const base = reasoningContext(snapshot, { ncclVersion: o.ncclVersion });
  const { choice, profile } = base;
  const env = applyIbOverrides(base.env, o);
  // The OOB interface follows the socket rules with the same variables (NCCL_SOCKET_IFNAME applies to it).
  const socketCtx = { ...base.socketCtx, vars: env.vars };
  const sockets = selectSocketInterfaces(socketCtx);
  // A fixture without recorded `ip addr` output knows links but no addresses: the OOB is unknown, not absent.
  const addressesUnknown = snapshot.network.source === 'sysfs' && snapshot.network.addresses.length === 0;
  const ibOob = addressesUnknown ? { ...sockets.ibOob, indeterminate: 'no IP addresses were captured for this node (no commands/ip-addr.json under the root)' } : sockets.ibOob;
  const selection = selectIbDevices(snapshot.rdma, { profile, vars: env.vars, ibOob });
  const gidParams = readGidParams(env.vars, profile);

  const devices: DeviceReport[] = (snapshot.rdma?.devices ?? []).map((d) => {
    const allNetdevs: NetdevView[] = [];
    const ports: PortReport[] = d.ports.map((p) => {
      const decision = selection.ports.find((x) => x.dev === d.name && x.port === p.port)!;
      const netdevs = portNetdevs(d, p, snapshot);
      append(allNetdevs, netdevs);
      const ll = sysText(p.linkLayer);
      const gidSel = decision.linkLayer ? selectGid({ linkLayer: decision.linkLayer, entries: p.gids }, gidParams, profile, d.name, p.port) : null;
      const first = netdevs[0] ?? null;
      const { configured, unreadableTypes } = gidCounts(p.gids);
      return {
        port: p.port,
        state: parseNumbered(p.state).name,
        physState: parseNumbered(p.physState).name,
        linkLayer: ll,
        rate: sysText(p.rate),
        rateGbps: parseRateGbps(p.rate),
        lid: sysText(p.lid),
        sysfs: { state: p.state, physState: p.physState, linkLayer: p.linkLayer, rate: p.rate },
        netdevs,
        netdev: first?.name ?? null,
        ipv4: first?.ipv4[0] ?? null,
        mtu: first?.mtu ?? null,
        roceMtu: ll === 'Ethernet' ? roceMtuFor(first?.mtu ?? null) : null,
        usedByNccl: decision.usedByNccl,
        reason: decision.reason,
        ncclIndex: decision.ncclIndex,
        netDevice: decision.netDevice,
        ...gidFields(p, gidSel, ll),
        gidSelection: gidSel ? { mode: gidSel.mode, outcome: gidSel.outcome, einvalReads: gidSel.einval } : null,
        gidTable: { length: tableLength(p.gids), configured, unreadableTypes },
        trace: [...decision.trace, ...gidTrace(gidSel)],
      };
    });
    const ncclDev = selection.devices.find((x) => x.dev === d.name);
    const folded = d.device.folded.find((f) => f.path === ncclDev?.pciPath) ?? null;
    return {
      name: d.name,
      nodeType: sysText(d.nodeType),
      fwVer: sysText(d.fwVer),
      nodeGuid: sysText(d.nodeGuid),
      hcaType: sysText(d.hcaType),
      boardId: sysText(d.boardId),
      bond: bondOf(d, snapshot, allNetdevs),
      device: {
        kind: d.device.kind,
        link: d.device.link,
        realpath: d.device.realpath,
        subsystem: d.device.subsystem,
        pciPath: folded?.path ?? ncclDev?.pciPath ?? null,
        pciPathIsPci: folded ? folded.subsystem === 'pci' : d.device.subsystem === 'pci',
      },
      pci: d.pci
        ? {
            bdf: d.pci.bdf,
            vendor: sysText(d.pci.vendor),
            device: sysText(d.pci.device),
            class: sysText(d.pci.class),
            numaNode: sysText(d.pci.numaNode),
            linkSpeed: sysText(d.pci.currentLinkSpeed),
            linkWidth: sysText(d.pci.currentLinkWidth),
          }
        : null,
      uverbs: d.uverbs,
      ports,
    };
  });

  const oobSel = sockets.ibOob.selected[0] ?? null;
  const inputs: IbReport['inputs'] = {};
  for (const v of IB_INPUT_VARS) inputs[v] = { value: env.vars[v] ?? null, source: originLabel(env.origins[v]) };

  const report: IbReport = {
    ncclVersion: versionString(choice.version),
    profile: profile.id,
    versionSource: choice.source,
    versionBeyondModel: choice.beyond,
    host: snapshot.host.hostname,
    inputs,
    transport: { ...selection.transport, oob: { interface: oobSel?.name ?? null, address: oobSel?.display ?? null, stage: sockets.ibOob.stage } },
    ncclDevices: selection.devices,
    netDevices: selection.netDevices,
    merge: selection.merge,
    devices,
    environment: {
      peerMem: (snapshot.rdma?.peerMem ?? []).map((p) => ({ ...p, checkedByThisVersion: profile.peerMemPaths.includes(p.path) })),
      devInfiniband: snapshot.rdma?.devInfiniband ?? null,
      memlock: snapshot.rdma?.memlock ?? null,
      container: snapshot.rdma?.container ?? null,
    },
    findings: [],
    warnings: snapshot.warnings.map((w) => `${w.source}: ${w.message}`),
  };
  report.findings = ibFindings({ report, selection, gidParams, profile, env, snapshot, versionAssumed: choice.assumed, oob: ibOob });
  return { report, selection, gidParams, profile };
}

export function ibReport(snapshot: NodeSnapshot, o: IbOverrides = {}): IbReport {
  return ibModel(snapshot, o).report;
}
