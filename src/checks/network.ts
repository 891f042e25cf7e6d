// The network NCCL uses between nodes (NET-*): the external net plugin it
// loads, if any (aws-ofi-nccl, gIB, TCPX/TCPXO, HPC-X's IBext …), then IB, then
// sockets; NCCL_NET; EFA without its plugin; the socket-only warning. The
// decision and every judgement are src/model/nccl/net-plugin.ts (netVerdict),
// which `ncclx env` and `ncclx log` use too.

import type { Check, CheckContext } from '../model/doctor/types.js';
import { describePlugin, netInputsOf, netVerdict, type NetVerdict } from '../model/nccl/net-plugin.js';
import { findingResults } from '../model/result/build.js';
import type { Evidence } from '../model/result/types.js';

export function netVerdictOf(ctx: CheckContext): NetVerdict {
  return ctx.memo('netVerdict', () => netVerdict(netInputsOf(ctx.snapshot, ctx.reasoning, ctx.selection)));
}

function evidence(ctx: CheckContext, v: NetVerdict): Evidence[] {
  const ev: Evidence[] = v.decision.entries.map((e) => ({
    kind: 'value',
    source: `net plugin entry ${e.entry}`,
    value: `${e.tried.map((t) => `${t.name} → ${t.path ?? 'not found'}`).join('; ')} (${e.outcome})`,
  }));
  for (const l of ctx.snapshot.netPlugins?.elsewhere ?? []) ev.push({ kind: 'file', source: l.path, value: `${describePlugin(l)}, ncclNetPlugin_v${l.apis.join('/v') || '?'} (not on the loader's path)` });
  ev.push({ kind: 'value', source: `ncclx model of NCCL ${ctx.reasoning.choice.version.raw}`, value: `network ${v.decision.network}: ${v.decision.why}` });
  return ev;
}

const SPECS = [
  { id: 'NET-001', title: 'EFA devices have their plugin (aws-ofi-nccl)', why: "NCCL's own transports cannot drive EFA: without aws-ofi-nccl every inter-node byte goes over TCP sockets, an order of magnitude slower, and NCCL says nothing." },
  { id: 'NET-002', title: 'NCCL_NET names a transport that initialises', why: 'NCCL keeps only the transport NCCL_NET names; when it does not initialise, communicator creation fails.' },
  { id: 'NET-003', title: 'NCCL_NET_PLUGIN names a library NCCL finds', why: 'A plugin NCCL cannot dlopen is skipped with an INFO line only: the job silently runs on IB or sockets.' },
  { id: 'NET-004', title: 'The net plugin speaks an API version this NCCL takes', why: 'NCCL looks for ncclNetPlugin_vN symbols of the versions it knows; a plugin built for another NCCL is not used.' },
  { id: 'NET-010', title: 'Inter-node traffic uses an RDMA transport', why: 'With no RDMA transport NCCL falls back to TCP sockets without a warning: collectives between nodes run at the socket interface\'s speed.' },
];

function okText(ctx: CheckContext, id: string, v: NetVerdict): string {
  const d = v.decision;
  switch (id) {
    case 'NET-001':
      return ctx.snapshot.rdma ? (v.decision.plugin?.product === 'aws-ofi-nccl' ? `aws-ofi-nccl drives the EFA devices (${describePlugin(v.decision.plugin)})` : 'no EFA device') : 'no RDMA data: EFA devices unknown';
    case 'NET-002':
      return ctx.reasoning.env.vars['NCCL_NET'] ? `NCCL_NET=${ctx.reasoning.env.vars['NCCL_NET']} keeps ${d.network}` : 'NCCL_NET is unset';
    case 'NET-003':
      return ctx.reasoning.env.vars['NCCL_NET_PLUGIN'] !== undefined ? `NCCL_NET_PLUGIN=${ctx.reasoning.env.vars['NCCL_NET_PLUGIN']}: ${d.entries.map((e) => `${e.entry} ${e.outcome}`).join(', ') || 'no external plugin'}` : `NCCL_NET_PLUGIN is unset: ${d.plugin ? `${d.plugin.path} (${describePlugin(d.plugin)})` : 'libnccl-net.so is not found, NCCL uses its own transports'}`;
    case 'NET-004':
      return d.plugin ? `${d.plugin.path} exports ncclNetPlugin_v${d.plugin.apis.join('/v') || '?'}` : 'no external plugin to check';
    default:
      return `NCCL uses ${d.network} between nodes: ${d.why}`;
  }
}

export const networkChecks: Check[] = SPECS.map((spec) => ({
  id: spec.id,
  title: spec.title,
  family: 'network',
  run(ctx) {
    const v = netVerdictOf(ctx);
    if (spec.id === 'NET-010' && v.decision.network === 'none' && !v.findings.length) return { severity: 'na', summary: `NCCL finds no network at all (${v.decision.why}): see SOCK-001 and the IB checks`, evidence: evidence(ctx, v), why: '', remediation: null };
    if (spec.id === 'NET-010' && v.decision.network === 'unknown') return { severity: 'unknown', summary: `which network NCCL uses between nodes: ${v.decision.why}`, evidence: evidence(ctx, v), why: spec.why, remediation: null };
    return findingResults(v.findings.filter((f) => f.id === spec.id), { ok: okText(ctx, spec.id, v), why: spec.why }, evidence(ctx, v));
  },
}));
