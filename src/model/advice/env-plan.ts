// `ncclx env`: the exports that make NCCL do the right thing on this node,
// each with the reason it is there. Pure: a CheckContext in, an EnvPlan out.

import type { CheckContext } from '../doctor/types.js';
import { intersectPeer, rdmaCandidates } from '../linux/candidates.js';
import { siteIntendedDscp } from '../linux/dscp.js';
import { rdmaNetdevs } from '../linux/rdma-netdevs.js';
import { selectGid, tableLength } from '../nccl/gid.js';
import { ibModel } from '../nccl/ib-report.js';
import { suggestedInterfaces } from '../nccl/socket-findings.js';
import { socketLinks } from '../nccl/socket-links.js';
import { profileFor, parseVersion } from '../nccl/versions.js';

/** One variable to export. */
export interface EnvVar {
  name: string;
  value: string;
}

export interface PlannedVar extends EnvVar {
  why: string;
}

export interface EnvPlan {
  vars: PlannedVar[];
  /** What was chosen and why, for the summary block. */
  summary: string[];
  /** What could not be expressed or needs a person. */
  notes: string[];
  /** The RDMA_PEER_IFACES line to copy to the peer node. */
  peerLine: string;
}

export interface EnvOptions {
  debug: boolean;
  /** The peer node's RDMA_PEER_IFACES, to advertise only the common set. */
  peerIfaces?: string[];
}

// ':' splits the port field and ',' the list, so such names cannot be written in NCCL's grammar.
const expressible = (name: string) => !/[:,]/.test(name);

function socketVars(ctx: CheckContext, plan: EnvPlan) {
  const sel = ctx.selection;
  const good = suggestedInterfaces(ctx.reasoning.socketCtx);
  const current = sel.socket.selected.map((s) => s.name);
  const currentGood = current.length > 0 && current.every((n) => good.includes(n));
  let names = currentGood ? current : good.slice(0, 1);
  const bad = names.filter((n) => !expressible(n));
  if (bad.length) plan.notes.push(`cannot name ${bad.join(', ')} exactly in NCCL_SOCKET_IFNAME (':' and ',' are separators); left out`);
  names = names.filter(expressible);
  if (names.length === 0) {
    plan.notes.push('no RUNNING interface with a routable address: NCCL_SOCKET_IFNAME not set');
    return;
  }
  plan.vars.push({
    name: 'NCCL_SOCKET_IFNAME',
    value: `=${names.join(',')}`,
    why: currentGood ? `what NCCL selects now (${sel.socket.stage}), pinned with = so eth1 cannot match eth10` : `NCCL would use ${current.join(', ') || 'nothing'}; ${names[0]} is RUNNING with a routable address`,
  });
  const boot = currentGood && sel.bootstrap.selected[0] && expressible(sel.bootstrap.selected[0].name) ? sel.bootstrap.selected[0].name : names[0]!;
  plan.vars.push({ name: 'GLOO_SOCKET_IFNAME', value: boot, why: 'PyTorch\'s Gloo and TCPStore traffic on the bootstrap interface (Gloo takes exact names)' });
  plan.summary.push(`socket: ${names.join(', ')}${currentGood ? '' : ` (NCCL alone would pick ${current.join(', ') || 'nothing'})`}`);
}

function ibVars(ctx: CheckContext, plan: EnvPlan, kept: Set<string>) {
  if (!ctx.snapshot.rdma) {
    plan.notes.push('no RDMA data: NCCL_IB_HCA not set');
    return;
  }
  // The unfiltered view: which ports NCCL could use if NCCL_IB_HCA did not narrow them.
  const model = ibModel(ctx.snapshot, { ncclVersion: ctx.options.ncclVersion, hca: '' });
  const ports = model.selection.ports.filter((p) => p.kept === true && p.linkLayer !== null);
  const report = model.report;
  const netdevOf = (dev: string, port: number) => report.devices.find((d) => d.name === dev)?.ports.find((p) => p.port === port)?.netdev ?? null;
  const usable = ports.filter((p) => {
    if (p.linkLayer === 'InfiniBand') return true;
    const nd = netdevOf(p.dev, p.port);
    return nd !== null && kept.has(nd);
  });
  const dropped = ports.filter((p) => !usable.includes(p)).map((p) => `${p.dev}:${p.port} (${netdevOf(p.dev, p.port) ?? 'no netdev'}: not in the RDMA candidate set)`);
  if (usable.length === 0) {
    plan.notes.push('no usable RDMA port: NCCL_IB_HCA not set (NCCL will use sockets)');
    return;
  }
  // NCCL refuses to fuse InfiniBand with RoCE; keep the larger group (InfiniBand on a tie).
  const ib = usable.filter((p) => p.linkLayer === 'InfiniBand');
  const roce = usable.filter((p) => p.linkLayer === 'Ethernet');
  const chosen = ib.length >= roce.length ? ib : roce;
  const other = chosen === ib ? roce : ib;
  if (other.length) dropped.push(...other.map((p) => `${p.dev}:${p.port} (${p.linkLayer === 'Ethernet' ? 'RoCE' : 'InfiniBand'}: one link layer per job)`));
  const hca = `=${chosen.map((p) => `${p.dev}:${p.port}`).join(',')}`;
  plan.vars.push({ name: 'NCCL_IB_HCA', value: hca, why: `the ${chosen.length} ACTIVE ${chosen === ib ? 'InfiniBand' : 'RoCE'} port(s), exact names with ports` });
  plan.summary.push(`HCAs: ${chosen.map((p) => `${p.dev}:${p.port}${netdevOf(p.dev, p.port) ? ` (${netdevOf(p.dev, p.port)})` : ''}`).join(', ')}`);
  if (dropped.length) plan.summary.push(`left out: ${dropped.join('; ')}`);

  if (chosen === roce) gidVar(ctx, plan, model, chosen.map((p) => ({ dev: p.dev, port: p.port })));
}

/**
 * NCCL_IB_GID_INDEX only where the automatic choice is wrong or undecided:
 * before 2.21.5 (fixed index 0, RoCE v1 link-local), or when the walk is
 * indeterminate. The value is what NCCL ≥ 2.21.5's automatic walk picks.
 */
function gidVar(ctx: CheckContext, plan: EnvPlan, model: ReturnType<typeof ibModel>, ports: { dev: string; port: number }[]) {
  const profile = ctx.reasoning.profile;
  const auto = profileFor(parseVersion('2.26.2'));
  const params = { ...model.gidParams, gidIndex: { ...model.gidParams.gidIndex, value: -1 } };
  const outcomes = ports.map((p) => {
    const dev = ctx.snapshot.rdma!.devices.find((d) => d.name === p.dev)!;
    const port = dev.ports.find((x) => x.port === p.port)!;
    const now = model.report.devices.find((d) => d.name === p.dev)?.ports.find((x) => x.port === p.port)?.gidSelection?.outcome ?? null;
    const want = selectGid({ linkLayer: 'Ethernet', entries: port.gids }, params, profile.gidAuto ? profile : auto, p.dev, p.port).outcome;
    return { ...p, now, want, tableLen: tableLength(port.gids) };
  });
  const needs = outcomes.filter((o) => !profile.gidAuto || o.now?.kind === 'indeterminate');
  if (needs.length === 0) return;
  const indexes = [...new Set(outcomes.map((o) => (o.want.kind === 'index' ? o.want.index : o.want.kind === 'indeterminate' ? o.want.candidates[o.want.candidates.length - 1]! : -1)))];
  if (indexes.length === 1 && indexes[0]! >= 0) {
    plan.vars.push({
      name: 'NCCL_IB_GID_INDEX',
      value: String(indexes[0]),
      why: profile.gidAuto ? 'the automatic choice is indeterminate on ' + needs.map((o) => `${o.dev}:${o.port}`).join(', ') : `NCCL ${profile.version.raw} defaults to index 0 (RoCE v1 link-local); ${indexes[0]} is the RoCE v2 IPv4 GID on every port`,
    });
  } else {
    plan.notes.push(`ports need different GID indexes (${outcomes.map((o) => `${o.dev}:${o.port}→${o.want.kind === 'index' ? o.want.index : '?'}`).join(', ')}): one NCCL_IB_GID_INDEX cannot serve them — use NCCL ≥ 2.21.5 automatic selection`);
  }
}

export function envPlan(ctx: CheckContext, o: EnvOptions): EnvPlan {
  const plan: EnvPlan = { vars: [], summary: [], notes: [], peerLine: '' };
  socketVars(ctx, plan);
  const cands = rdmaCandidates(ctx.snapshot, ctx.options);
  let kept = cands.kept;
  if (o.peerIfaces) {
    const x = intersectPeer(kept, o.peerIfaces);
    if (x.onlyHere.length) plan.summary.push(`not on the peer, left out: ${x.onlyHere.join(', ')}`);
    if (x.onlyPeer.length) plan.notes.push(`the peer advertises ${x.onlyPeer.join(', ')}, which this node cannot offer`);
    kept = x.common;
  }
  ibVars(ctx, plan, new Set(kept));
  const dscp = siteIntendedDscp(ctx.snapshot.kernel, new Set([...rdmaNetdevs(ctx.snapshot).map((r) => r.netdev), ...socketLinks(ctx.snapshot, ctx.selection)]));
  if (dscp !== null && ctx.snapshot.rdma?.devices.length) {
    plan.vars.push({ name: 'NCCL_IB_TC', value: String(dscp * 4), why: `the site marks DSCP ${dscp}; the RoCE traffic class is DSCP × 4` });
  }
  if (ctx.snapshot.rdma) {
    plan.vars.push({ name: 'RDMA_PEER_IFACES', value: kept.join(' '), why: 'RDMA netdevs with IPv4 that are not uplinks (advertise the same set on every node)' });
    plan.summary.push(`RDMA netdevs: ${kept.join(' ') || '(none)'}`);
  }
  plan.peerLine = `RDMA_PEER_IFACES=${kept.join(' ')}`;
  if (o.debug) {
    plan.vars.push(
      { name: 'NCCL_DEBUG', value: 'INFO', why: 'log what NCCL decides' },
      { name: 'NCCL_DEBUG_SUBSYS', value: 'INIT,BOOTSTRAP,ENV,NET,GRAPH', why: 'the subsystems that log interface, HCA, GID and topology choices' },
      { name: 'NCCL_DEBUG_FILE', value: '/tmp/nccl-debug.%h.%p.log', why: 'one file per host and process (%h, %p are expanded by NCCL)' },
      { name: 'NCCL_TOPO_DUMP_FILE', value: '/tmp/nccl-topo.xml', why: 'rank 0 writes the topology NCCL detected' },
    );
  }
  return plan;
}
