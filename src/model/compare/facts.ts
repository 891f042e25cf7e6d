// One node's snapshot → the facts compare needs about it (NodeFacts). Pure.
// Built from the same models the single-node commands use — NCCL's version
// profile and effective environment (explain), socket selection, the IB
// transport's device choice (ib), the GID walk, the RDMA candidate rule
// (doctor CAND-001) and GPUDirect RDMA (GDR-001) — without their reports and
// findings, which cost more than reading the file.

import { routeFrom } from '../linux/arp.js';
import { rdmaCandidates } from '../linux/candidates.js';
import { gdrReadiness, gdrSummary, gpuCount } from '../nccl/gdr.js';
import { gdrVerdict } from '../topo/gdr-verdict.js';
import { bondOf, portNetdevs } from '../nccl/ib-report.js';
import { reasoningContext } from '../nccl/explain.js';
import { originLabel } from '../nccl/conf.js';
import { readGidParams } from '../nccl/gid.js';
import { parseNumbered, parseRateGbps, selectIbDevices, sysText } from '../nccl/ib.js';
import { inetAton, parseIPv4, subnetOf } from '../linux/ip.js';
import { selectSocketInterfaces } from '../nccl/socket.js';
import { versionString } from '../nccl/versions.js';
import type { IpRouteJson } from '../snapshot/kernel-types.js';
import type { AddressInfo, HostResolution, NodeSnapshot } from '../snapshot/types.js';
import { chooseGid, describeChosen } from './gid-choice.js';
import { gdrLevel, netFusion, netGdrC2c, topoFacts } from '../topo/report.js';
import type { BootstrapFacts, GidFacts, NodeFacts, PortFacts, TargetFacts } from './types.js';

/**
 * topoFacts, remembered by the content of its inputs: a cluster's nodes mostly
 * share one layout, and rebuilding NCCL's graph per node was a tenth of
 * compare's time. The answer is the same data (read only, never changed by
 * compare); at most TOPO_MEMO layouts are kept.
 */
const TOPO_MEMO = 64;
const topoMemo = new Map<string, ReturnType<typeof topoFacts>>();
function sameTopoFacts(...args: Parameters<typeof topoFacts>): ReturnType<typeof topoFacts> {
  const key = JSON.stringify(args);
  let hit = topoMemo.get(key);
  if (!hit) {
    if (topoMemo.size >= TOPO_MEMO) topoMemo.clear();
    topoMemo.set(key, (hit = topoFacts(...args)));
  }
  return hit;
}

export interface FactsOptions {
  /** Model this NCCL version on every node instead of the one found there. */
  ncclVersion?: string;
  /** NCCL_COMM_ID / MASTER_ADDR to assume on every node (the job's, when the snapshots were taken outside it). */
  commId?: string;
  masterAddr?: string;
  /** Host names in those values, resolved where compare runs (a node's own resolutions win). */
  resolutions?: Record<string, HostResolution>;
  uplinkRegex: RegExp;
  include: string[];
}

/** The numeric address a host text stands for on this node: an IPv4 literal as getaddrinfo reads it, else the captured resolution. */
function addressOf(host: string, snap: NodeSnapshot, extra: Record<string, HostResolution> | undefined): { address: string | null; unresolved: string | null } {
  const lit = inetAton(host);
  if (lit) return { address: `${lit[0]}.${lit[1]}.${lit[2]}.${lit[3]}`, unresolved: null };
  if (host.includes(':')) return { address: host, unresolved: null };
  const r = snap.resolutions[host] ?? extra?.[host];
  if (!r) return { address: null, unresolved: `${host} was not resolved on this node when the snapshot was taken` };
  if (r.error || r.addresses.length === 0) return { address: null, unresolved: `${host}: ${r.error ?? 'no address'}` };
  return { address: r.addresses[0]!.address, unresolved: null };
}

function routeTo(snap: NodeSnapshot, address: string): TargetFacts['route'] {
  const k = snap.kernel;
  if (!k) return null;
  const recorded = k.routeTargets.find((t) => t.address === address && t.route?.ok);
  if (recorded?.route?.ok) {
    const r = recorded.route.data[0];
    return r ? { how: 'ip route get', dev: r.dev ?? null, gateway: r.gateway ?? null, note: null } : { how: 'ip route get', dev: null, gateway: null, note: 'no route' };
  }
  const bytes = parseIPv4(address);
  if (!bytes || !k.rules.ok || !k.routes.ok) return null;
  // NCCL's connect() is not bound to a source address: the lookup a packet from 0.0.0.0 would make.
  const src: AddressInfo = { name: '', link: '', ifindex: 0, family: 'AF_INET', address: '0.0.0.0', prefixlen: 0, scope: 'global', scopeId: 0, flags: [] };
  const d = routeFrom(k.rules.data, k.routes.data as IpRouteJson[], src, { bytes, len: 32 });
  return { how: 'replayed', dev: d.dev, gateway: d.route?.gateway ?? null, note: d.unsure ?? (d.dev ? null : 'no route') };
}

/** What routeFrom needs to replay a lookup on another machine: IPv4 routes outside the local table, with the fields it reads. */
function routingOf(snap: NodeSnapshot): NodeFacts['routing'] {
  const k = snap.kernel;
  if (!k || !k.rules.ok || !k.routes.ok) return null;
  const routes: IpRouteJson[] = [];
  for (const r of k.routes.data as IpRouteJson[]) {
    if (r.table === 'local' || (r.dst ?? '').includes(':') || (r.gateway ?? '').includes(':')) continue;
    const out: IpRouteJson = {};
    if (r.dst !== undefined) out.dst = r.dst;
    if (r.table !== undefined) out.table = r.table;
    if (r.type !== undefined) out.type = r.type;
    if (r.dev !== undefined) out.dev = r.dev;
    if (r.gateway !== undefined) out.gateway = r.gateway;
    if (r.metric !== undefined) out.metric = r.metric;
    if (r.nexthops !== undefined) out.nexthops = r.nexthops;
    routes.push(out);
  }
  return { rules: k.rules.data, routes };
}

function targetsOf(snap: NodeSnapshot, vars: Record<string, string | undefined>, origins: (n: string) => string, commIdParse: ReturnType<typeof selectSocketInterfaces>['inputs']['commId']['parse'], o: FactsOptions): TargetFacts[] {
  const out: TargetFacts[] = [];
  const commId = vars['NCCL_COMM_ID'];
  if (commId !== undefined) {
    const host = commIdParse?.ok ? commIdParse.target.host : commId.split(/[:,]/)[0] ?? '';
    const address = commIdParse?.ok ? commIdParse.target.address : null;
    const unresolved = commIdParse && !commIdParse.ok ? commIdParse.reason : null;
    out.push({ variable: 'NCCL_COMM_ID', value: commId, origin: origins('NCCL_COMM_ID'), host, address, unresolved, route: address ? routeTo(snap, address) : null });
  }
  const master = o.masterAddr ?? snap.env.process['MASTER_ADDR'];
  if (master !== undefined && master !== '') {
    const a = addressOf(master, snap, o.resolutions);
    const own = snap.env.process['MASTER_ADDR'];
    const replaced = o.masterAddr !== undefined && own !== undefined && own !== '' && own !== o.masterAddr ? { replaced: own } : {};
    out.push({ variable: 'MASTER_ADDR', value: master, origin: o.masterAddr !== undefined ? '--master-addr' : 'environment', host: master, ...a, route: a.address ? routeTo(snap, a.address) : null, ...replaced });
  }
  return out;
}

/** The snapshot with each port's GID entries cut down to those whose ndev names a netdev. */
function withNamedGidsOnly(snap: NodeSnapshot): NodeSnapshot {
  if (!snap.rdma) return snap;
  const devices = snap.rdma.devices.map((d) => ({ ...d, ports: d.ports.map((p) => ({ ...p, gids: p.gids.filter((g) => typeof g.ndev === 'string') })) }));
  return { ...snap, rdma: { ...snap.rdma, devices } };
}

export function nodeFacts(snap: NodeSnapshot, file: string, o: FactsOptions): NodeFacts {
  // Host names of --comm-id resolved where compare runs, unless the node captured its own answer.
  const view: NodeSnapshot = o.resolutions ? { ...snap, resolutions: { ...o.resolutions, ...snap.resolutions } } : snap;
  const reasoning = reasoningContext(view, { ncclVersion: o.ncclVersion, commId: o.commId });
  const { profile, env, choice } = reasoning;
  const selection = selectSocketInterfaces(reasoning.socketCtx);

  const settings: NodeFacts['settings'] = {};
  for (const name of Object.keys(env.vars).sort()) {
    if (name.startsWith('NCCL_')) settings[name] = { value: env.vars[name]!, origin: originLabel(env.origins[name]) };
  }

  const b = selection.bootstrap;
  const sel = b.selected[0];
  const addr = sel ? snap.network.addresses.find((a) => a.name === sel.name && a.address === sel.address) : undefined;
  const bootstrap: BootstrapFacts = {
    iface: sel?.name ?? null,
    link: addr?.link ?? sel?.name ?? null,
    address: sel?.address ?? null,
    prefixlen: addr?.prefixlen ?? null,
    subnet: addr && addr.family === 'AF_INET' ? subnetOf(addr.address, addr.prefixlen) : null,
    stage: b.stage,
    error: b.error ? `${b.error.why}${b.error.log.length ? ` (NCCL: "${b.error.log.join('" / "')}")` : ''}` : null,
    indeterminate: b.indeterminate,
  };

  const ib = selectIbDevices(snap.rdma, { profile, vars: env.vars, ibOob: selection.ibOob });
  const gidParams = readGidParams(env.vars, profile);
  // The candidate rule and the port → netdev mapping read only the GID entries that name a netdev:
  // give them those (a handful per port) instead of the whole 255-entry tables.
  const named = withNamedGidsOnly(snap);
  const cands = named.rdma ? rdmaCandidates(named, { uplinkRegex: o.uplinkRegex, include: o.include }) : null;
  const verdict = new Map(cands?.verdicts.map((v) => [v.netdev, v]) ?? []);

  const ports: PortFacts[] = [];
  const namedDevices = named.rdma?.devices ?? [];
  for (const [di, d] of (snap.rdma?.devices ?? []).entries()) {
    for (const [pi, p] of d.ports.entries()) {
      const decision = ib.ports.find((x) => x.dev === d.name && x.port === p.port);
      const nd = namedDevices[di]!;
      const netdevs = portNetdevs(nd, nd.ports[pi]!, named);
      const first = netdevs[0] ?? null;
      const ipv4 = first?.ipv4[0] ?? null;
      const [a, len] = ipv4 ? ipv4.split('/') : [];
      const ll = sysText(p.linkLayer)?.trim() ?? null;
      const st = parseNumbered(p.state);
      let gid: GidFacts | null = null;
      if (decision?.linkLayer) {
        const c = chooseGid(p.gids, decision.linkLayer, gidParams, profile, d.name, p.port);
        const what = describeChosen(c.entry, ll);
        gid = {
          mode: c.mode,
          outcome: c.outcome.kind,
          index: c.outcome.kind === 'index' ? c.outcome.index : null,
          candidates: c.outcome.kind === 'indeterminate' ? c.outcome.candidates : [],
          ...what,
          why: c.outcome.kind === 'index' ? null : c.outcome.why,
        };
      }
      const v = first ? verdict.get(first.name) : undefined;
      ports.push({
        hca: `${d.name}:${p.port}`,
        dev: d.name,
        port: p.port,
        netdev: first?.name ?? null,
        ipv4,
        subnet: a && len ? subnetOf(a, Number(len)) : null,
        mtu: first?.mtu ?? null,
        rate: sysText(p.rate)?.trim() ?? null,
        rateGbps: parseRateGbps(p.rate),
        linkLayer: ll,
        state: st.name,
        active: st.num === null ? null : st.num === 4,
        ncclIndex: decision?.usedByNccl ? decision.ncclIndex : null,
        usedByNccl: decision?.usedByNccl ?? null,
        reason: decision?.reason ?? '',
        gid,
        gidLabel: !gid ? null : gid.outcome !== 'index' ? `(${gid.outcome})` : ll === 'InfiniBand' ? 'IB' : `${gid.type ?? '?'} ${gid.kind ?? '?'}`,
        candidate: v ? { kept: v.kept, reason: v.reason } : null,
        bond: bondOf(nd, named, netdevs) !== null,
      });
    }
  }

  const readiness = gdrReadiness(snap.rdma, profile, env.vars);
  const topo = snap.pci?.topology ? sameTopoFacts(snap.pci.topology, ib.transport.used ? ib.devices : [], profile, env.vars, readiness.status, netFusion(ib.transport.used ? ib : null, profile)) : null;
  // The doctor's verdict (topo/gdr-verdict.ts): the NIC side and, per GPU, the distance NCCL compares.
  const level = gdrLevel(env.vars['NCCL_NET_GDR_LEVEL'], profile, netGdrC2c(profile, env.vars)).level;
  const perGpu = topo?.gpus.map((g, k) => ({ gpu: k, bdf: g.bdf, nic: g.nic, enabled: g.gdr, distance: g.gdrPath, level })) ?? null;
  const gdrOn = gdrVerdict(readiness, perGpu, gpuCount(snap));
  const gdr = { status: readiness.status, summary: gdrSummary(readiness, choice.version.raw), verdict: gdrOn.label };

  return {
    file,
    host: snap.host.hostname,
    nccl: { version: versionString(choice.version), source: choice.source, assumed: choice.assumed, profile: profile.id, subnetAwareRouting: profile.ibSubnetAwareRouting },
    settings,
    bootstrap,
    targets: targetsOf(view, env.vars, (n) => originLabel(env.origins[n]), selection.inputs.commId.parse, o),
    transport: { status: ib.transport.status, network: ib.transport.network, why: ib.transport.why },
    netDevices: ib.netDevices.length,
    ports,
    gdr,
    localAddresses: snap.network.addresses.filter((a) => a.scope !== 'host' && a.scope !== 'link').map((a) => a.address),
    routing: routingOf(snap),
    probeWarnings: snap.warnings.length,
    topo,
  };
}
