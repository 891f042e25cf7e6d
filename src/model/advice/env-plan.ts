// The NCCL environment this node should run with: the one function behind
// `ncclx env`, every environment remediation of the doctor, explain and ib,
// the nccl-conf fix, the TUI's Env view and compare's cluster values.
//
// It follows the doctor's own judgements rather than re-deciding them:
//   - sockets: what NCCL selects now, minus interfaces that other nodes cannot
//     reach (SOCK-003) or that carry another network's default route next to
//     the data interfaces (SOCK-031), pinned with `=`;
//   - IB: the ACTIVE ports of usable RDMA netdevs, without a bond next to
//     ordinary HCAs (IB-003), of one link layer (IB-015) and one rate
//     (IB-010), exact names with ports;
//   - GID: only where one index is right on every port NCCL keeps, else the
//     NCCL_IB_ADDR_RANGE that makes the automatic choice right, else a
//     statement that no environment can (advice/gid.ts);
//   - every other warning or error whose remediation is an environment change
//     (typos, C-style integers, merge levels, NCCL_NET_GDR_LEVEL …), taken
//     from the same findings the doctor shows.
// Where the answer is not an NCCL variable (MASTER_ADDR points at localhost, a
// port without an address), it says so and sets nothing. Pure: a
// CheckContext in, an EnvPlan out.

import { makeContext } from '../doctor/context.js';
import type { CheckContext } from '../doctor/types.js';
import { intersectPeer, rdmaCandidates } from '../linux/candidates.js';
import { siteIntendedDscp } from '../linux/dscp.js';
import { isIPv6Loopback, parseIPv6 } from '../linux/ip.js';
import { rdmaNetdevs } from '../linux/rdma-netdevs.js';
import { describePlugin, netInputsOf, netVerdict } from '../nccl/net-plugin.js';
import { parseNcclInt } from '../nccl/cint.js';
import { integerFindings, unknownVarFindings } from '../nccl/env-findings.js';
import { gdrLevelFinding } from '../nccl/gdr.js';
import { readGidParams } from '../nccl/gid.js';
import { ibModel, type IbModel } from '../nccl/ib-report.js';
import { KNOWN_VARS } from '../nccl/known-vars.js';
import { socketFindings, suggestedInterfaces } from '../nccl/socket-findings.js';
import { socketLinks } from '../nccl/socket-links.js';
import { MAX_IFS } from '../nccl/socket.js';
import type { Finding, Remediation } from '../result/types.js';
import { withEnv } from '../snapshot/with-env.js';
import { decideGid, type GidDecision, type GidPort } from './gid.js';
import { sameInterfaces, socketPolicy } from './socket-policy.js';
import { chooseIbPorts, type PortChoice } from './ib-ports.js';

/** One variable to export. */
export interface EnvVar {
  name: string;
  value: string;
}

export interface PlannedVar extends EnvVar {
  why: string;
}

export interface PlannedUnset {
  name: string;
  why: string;
}

/** A problem no environment variable fixes, and the variables that cannot fix it. */
export interface Statement {
  topic: 'socket' | 'bootstrap' | 'ib' | 'gid';
  /** Variables a remediation must not set for it (they would not help, or would hurt). */
  vars: string[];
  text: string;
  /** An error stays until a person acts (NCCL_COMM_ID needs rank 0's address): `ncclx env` says it first and exits 1. */
  blocking?: boolean;
}

export interface EnvPlan {
  /** Variables to set, each with why. */
  vars: PlannedVar[];
  /** Variables to unset (they hurt here), each with why. */
  unset: PlannedUnset[];
  /** What no environment can fix here, and why. */
  statements: Statement[];
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

/** Who reads a variable the plan sets, and whether NCCL's conf file can carry it. */
export interface VarReader {
  reader: string;
  /**
   * NCCL applies nccl.conf lines at its own initialisation (only where the
   * environment has no value): right for what NCCL reads, too late and in the
   * wrong place for anything read before or by another program.
   */
  ncclConf: boolean;
}

/** The readers of the variables ncclx writes (docs/env-formats.md): one answer for `ncclx env` and `ncclx fix --only nccl-conf`. */
export function readerOf(name: string): VarReader {
  if (name === 'GLOO_SOCKET_IFNAME') return { reader: "PyTorch's Gloo reads it from the process environment when the process group is created, before NCCL initialises", ncclConf: false };
  if (name === 'RDMA_PEER_IFACES') return { reader: "NCCL and PyTorch do not read it: the job's launch scripts do (which RDMA netdevs a pod or container gets), and ncclx env --peer-ifaces on the peer node", ncclConf: false };
  if (name.startsWith('NCCL_')) return { reader: 'NCCL reads it at its initialisation, from the environment or else nccl.conf', ncclConf: true };
  return { reader: 'the job reads it from its process environment', ncclConf: false };
}

/** Variables this plan decides itself; findings' remediations for them are replaced by the plan's value. */
const DECIDED = [
  'NCCL_SOCKET_IFNAME',
  'GLOO_SOCKET_IFNAME',
  'NCCL_SOCKET_FAMILY',
  'NCCL_SOCKET_IPADDR_PREFIX',
  'NCCL_COMM_ID',
  'NCCL_IB_DISABLE',
  'NCCL_IB_HCA',
  'NCCL_IB_GID_INDEX',
  'NCCL_IB_ADDR_RANGE',
  'NCCL_IB_ADDR_FAMILY',
  'NCCL_IB_ROCE_VERSION_NUM',
  'NCCL_IB_TC',
  'NCCL_SOCKET_TOS_CONFIG',
  'RDMA_PEER_IFACES',
];

// ':' splits the port field and ',' the list, so such names cannot be written in NCCL's grammar.
const expressible = (name: string) => !/[:,]/.test(name);

class Builder {
  readonly plan: EnvPlan = { vars: [], unset: [], statements: [], summary: [], notes: [], peerLine: '' };
  constructor(private readonly ctx: CheckContext) {}

  has(name: string): boolean {
    return this.plan.vars.some((v) => v.name === name) || this.plan.unset.some((u) => u.name === name);
  }

  set(name: string, value: string, why: string): void {
    if (this.has(name)) return;
    this.plan.vars.push({ name, value, why });
  }

  /**
   * Unset a variable that hurts. One that comes from a conf file cannot be
   * unset from the environment (the environment only wins over it): an
   * integer gets its default explicitly, anything else needs the file edited.
   */
  unset(name: string, why: string): void {
    const env = this.ctx.reasoning.env;
    if (this.has(name) || env.vars[name] === undefined) return;
    const o = env.origins[name];
    if (o?.source === 'conf') {
      const int = KNOWN_VARS[name]?.int;
      if (int) {
        this.set(name, String(int.default), `${why}; it is set in ${o.path}:${o.line}, and the environment overrides it with NCCL's default`);
        return;
      }
      this.statement('socket', [name], `${name} is set in ${o.path} line ${o.line}: remove that line (${why}); the environment cannot unset a conf-file value`);
      return;
    }
    this.plan.unset.push({ name, why });
  }

  statement(topic: Statement['topic'], vars: string[], text: string, blocking = false): void {
    if (!this.plan.statements.some((s) => s.text === text)) this.plan.statements.push({ topic, vars, text, ...(blocking ? { blocking } : {}) });
  }
}

// ---------------------------------------------------------------------------
// Sockets and bootstrap

function loopbackHost(host: string): boolean {
  if (host === 'localhost' || /^localhost\./.test(host) || host.startsWith('127.')) return true;
  const h = host.replace(/^\[|\]$/g, '').split('%')[0]!;
  const b = h.includes(':') ? parseIPv6(h) : null;
  return !!b && isIPv6Loopback(b);
}

/** The host part of NCCL_COMM_ID ("[v6]:port" or "host:port"). */
function hostOf(value: string): string {
  if (value.startsWith('[')) {
    const end = value.indexOf(']');
    return end < 0 ? value.slice(1) : value.slice(1, end);
  }
  return value.split(/[:,]/)[0] ?? '';
}

function socketVars(ctx: CheckContext, b: Builder, ib: IbChoice): string[] {
  const sel = ctx.selection;
  const vars = ctx.reasoning.env.vars;
  const snap = ctx.snapshot;

  // Where the answer is not an NCCL variable, say so.
  const commId = vars['NCCL_COMM_ID'];
  if (commId === '') b.unset('NCCL_COMM_ID', 'exported but empty, it stops bootstrap ("Invalid NCCL_COMM_ID")');
  else if (commId !== undefined && loopbackHost(hostOf(commId))) {
    b.statement('bootstrap', ['NCCL_SOCKET_IFNAME'], `NCCL_COMM_ID=${commId} points at this node's loopback: bootstrap binds it and ranks on other nodes cannot connect (NCCL_SOCKET_IFNAME does not apply to bootstrap while NCCL_COMM_ID is set). Point NCCL_COMM_ID at rank 0's address on the data network, or unset it`);
  }
  // NCCL_COMM_ID that cannot be used (a name that does not resolve, a bad form) or has no local subnet: bootstrap stops,
  // and only the address of rank 0 fixes it — which ncclx cannot know. The root cause, first; the sockets are then
  // chosen as NCCL would choose them once it is fixed (its automatic hint no longer empties them).
  const filters: Record<string, string | null> = {};
  const comm = sel.inputs.commId;
  const commBroken = commId !== undefined && commId !== '' && comm.parse && !loopbackHost(hostOf(commId)) && ((!comm.parse.ok && !comm.parse.indeterminate) || (comm.parse.ok && sel.bootstrap.error !== null));
  if (commBroken) {
    const why = !comm.parse!.ok ? comm.parse!.reason : `no interface of this node is on ${comm.parse!.target.address}'s subnet, so bootstrap has nowhere to listen`;
    b.statement('bootstrap', ['NCCL_COMM_ID'], `First fix NCCL_COMM_ID=${commId}: ${why}, and NCCL stops at init. Set it to rank 0's address and port on the network every node reaches (NCCL_COMM_ID=<rank 0 address>:<port>)${!comm.parse!.ok && /does not resolve/.test(why) ? ', or make the name resolve on every node (DNS, /etc/hosts)' : ''}, or unset it (PyTorch hands NCCL its unique id through MASTER_ADDR)`, true);
    filters['NCCL_COMM_ID'] = null;
  }
  // A name that was not resolved when the node was read (a --root tree, a snapshot): NCCL's bootstrap interface is
  // the one on that address's subnet, which nobody can tell from here. The doctor says it cannot predict it
  // (SOCK-020); so does this plan, rather than passing the exports off as the whole answer.
  const unresolved = commId !== undefined && commId !== '' && !loopbackHost(hostOf(commId)) && comm.parse && !comm.parse.ok && comm.parse.indeterminate ? comm.parse : null;
  if (unresolved) {
    b.statement('bootstrap', ['NCCL_COMM_ID'], `NCCL_COMM_ID=${commId}: ${unresolved.reason}. Bootstrap listens on the interface on that address's subnet (NCCL_SOCKET_IFNAME does not apply to it while NCCL_COMM_ID is set), which ncclx cannot tell: run ncclx env on the node itself with the job's environment, or set NCCL_COMM_ID to rank 0's IP address`);
  }
  const master = vars['MASTER_ADDR'];
  if (master !== undefined && master !== '' && loopbackHost(master)) {
    b.statement('bootstrap', ['NCCL_SOCKET_IFNAME'], `MASTER_ADDR=${master} is this node's loopback: PyTorch's store (and NCCL's unique id with it) is unreachable from other nodes. Set MASTER_ADDR to rank 0's address on the data network`);
  }

  // The address filters first (NCCL_SOCKET_FAMILY, NCCLX's NCCL_SOCKET_IPADDR_PREFIX): the interfaces are chosen
  // from what NCCL selects once they are as the plan leaves them.
  const good = suggestedInterfaces(ctx.reasoning.socketCtx);
  const routableOf = (n: string, family: string) => snap.network.addresses.some((a) => a.name === n && a.family === family && !/^fe[89ab]/i.test(a.address) && a.address !== '::1');
  const famRaw = vars['NCCL_SOCKET_FAMILY'];
  if (famRaw !== undefined && famRaw !== 'AF_INET' && famRaw !== 'AF_INET6') {
    // A value NCCL ignores: the family meant, when the interfaces have it; else drop it.
    const guess = /6/.test(famRaw) ? 'AF_INET6' : 'AF_INET';
    if (good.length && good.some((n) => routableOf(n, guess))) {
      b.set('NCCL_SOCKET_FAMILY', guess, `NCCL reads only AF_INET or AF_INET6 (exact): '${famRaw}' is read as ${guess}`);
      filters['NCCL_SOCKET_FAMILY'] = guess;
    } else {
      b.unset('NCCL_SOCKET_FAMILY', `NCCL ignores '${famRaw}' (only AF_INET and AF_INET6, exact)`);
      filters['NCCL_SOCKET_FAMILY'] = null;
    }
  } else if (famRaw !== undefined && !good.some((n) => routableOf(n, famRaw))) {
    // SOCK-002: a forced family no interface has a routable address of selects link-local addresses, or nothing.
    b.unset('NCCL_SOCKET_FAMILY', `no RUNNING interface has a routable ${famRaw === 'AF_INET6' ? 'IPv6' : 'IPv4'} address: NCCL_SOCKET_FAMILY=${famRaw} selects link-local addresses or nothing`);
    filters['NCCL_SOCKET_FAMILY'] = null;
  }
  const prefix = ctx.reasoning.profile.ipaddrPrefix ? vars['NCCL_SOCKET_IPADDR_PREFIX'] : undefined;
  if (prefix && !snap.network.addresses.some((a) => a.address.startsWith(prefix) && !a.address.startsWith('127.') && a.address !== '::1' && !/^fe[89ab]/i.test(a.address))) {
    b.unset('NCCL_SOCKET_IPADDR_PREFIX', `no routable address of this node starts with '${prefix}': NCCLX keeps no interface`);
    filters['NCCL_SOCKET_IPADDR_PREFIX'] = null;
  }
  const selNow = Object.keys(filters).length ? makeContext(withEnv(snap, filters), { ncclVersion: ctx.options.ncclVersion }, ctx.options).selection : sel;

  // What NCCL can select at all once the filters are as the plan leaves them: a forced family, NCCLX's address prefix.
  const family = filters['NCCL_SOCKET_FAMILY'] !== undefined ? filters['NCCL_SOCKET_FAMILY'] : famRaw === 'AF_INET' || famRaw === 'AF_INET6' ? famRaw : null;
  const keptPrefix = filters['NCCL_SOCKET_IPADDR_PREFIX'] === null ? undefined : prefix;
  const eligible = good.filter((n) => snap.network.addresses.some((a) => a.name === n && (!family || routableOf(n, family) && a.family === family) && (!keptPrefix || a.address.startsWith(keptPrefix))));
  // ncclx's one socket policy (socket-policy.ts): the same answer SOCK-031 judges by.
  const policy = socketPolicy(ctx, { selection: selNow, good: eligible, dataOnIb: ib.kind !== null, frontEndBonds: ib.frontEndBonds });
  const current = selNow.socket.selected.map((s) => s.name);
  let names = policy.names;
  const bad = names.filter((n) => !expressible(n));
  if (bad.length) b.plan.notes.push(`cannot name ${bad.join(', ')} exactly in NCCL_SOCKET_IFNAME (':' and ',' are separators); left out`);
  names = names.filter(expressible).slice(0, MAX_IFS);
  if (names.length === 0) {
    b.plan.notes.push('no RUNNING interface with a routable address: NCCL_SOCKET_IFNAME not set');
    return [];
  }
  const same = sameInterfaces(names, current);
  const out = policy.leftOut.filter((x) => !names.includes(x.name));
  const left = [...new Set(out.map((x) => x.why))].map((why) => `${out.filter((x) => x.why === why).map((x) => x.name).join(', ')}: ${why}`);
  // What NCCL would pick alone, or null when that cannot be predicted (an NCCL_COMM_ID name nobody resolved).
  const alone = selNow.socket.indeterminate !== null ? null : current.join(', ') || 'nothing';
  b.set('NCCL_SOCKET_IFNAME', `=${names.join(',')}`, `${same ? `what NCCL selects now (${selNow.socket.stage}), pinned with = so eth1 cannot match eth10` : alone === null ? `NCCL's own choice cannot be predicted (${selNow.socket.indeterminate})` : `NCCL would use ${alone}`}; ${policy.rule}${left.length ? ` (left out: ${left.join('; ')})` : ''}`);
  // Bootstrap: the NCCL_COMM_ID subnet match when it is set (NCCL_SOCKET_IFNAME does not apply to it), else the first name.
  const commBoot = commId !== undefined && commId !== '' ? selNow.bootstrap.selected[0]?.name : undefined;
  const boot = commBoot !== undefined && good.includes(commBoot) ? commBoot : names[0]!;
  if (expressible(boot)) b.set('GLOO_SOCKET_IFNAME', boot, "PyTorch's Gloo and TCPStore traffic on the bootstrap interface (Gloo takes exact names)");
  b.plan.summary.push(`socket: ${names.join(', ')}${same ? '' : alone === null ? " (NCCL's own choice cannot be predicted)" : ` (NCCL alone would pick ${alone})`}`);
  return names;
}

// ---------------------------------------------------------------------------
// IB transport

interface PortRef extends PortChoice {
  dev: string;
  port: number;
  netdev: string | null;
}

/** What the plan does with NCCL's IB transport: the ports NCCL_IB_HCA names, or why it names none. */
export interface IbChoice {
  /** The link layer of the ports kept, or null when the IB transport does not carry the data. */
  kind: 'InfiniBand' | 'RoCE' | null;
  chosen: PortRef[];
  /** `dev:port (why)` of each usable port left out. */
  dropped: string[];
  /** Netdevs of bonded RDMA devices left out next to ordinary HCAs (IB-003). */
  frontEndBonds: string[];
  /** Why no port is named (kind null). */
  note: string | null;
  /** NCCL_IB_DISABLE reads a word as 0: set it to 1 as meant (IB-016). */
  disableWord: string | null;
  model: IbModel | null;
}

/** The IB ports the plan gives NCCL (pure: nothing is set here). */
export function ibChoice(ctx: CheckContext, kept: Set<string>): IbChoice {
  const none = (note: string, disableWord: string | null = null): IbChoice => ({ kind: null, chosen: [], dropped: [], frontEndBonds: [], note, disableWord, model: null });
  const snap = ctx.snapshot;
  const vars = ctx.reasoning.env.vars;
  if (!snap.rdma) return none('no RDMA data: NCCL_IB_HCA not set');
  const profile = ctx.reasoning.profile;
  const disable = parseNcclInt(vars['NCCL_IB_DISABLE'], 0);
  if (vars['NCCL_IB_DISABLE'] !== undefined && disable.value !== 0) return none(`NCCL_IB_DISABLE=${vars['NCCL_IB_DISABLE']} disables the IB transport: NCCL_IB_* not set`);
  // IB-016: a word reads as 0; the setting meant to disable IB.
  if (vars['NCCL_IB_DISABLE'] !== undefined && /^\s*(true|yes|on)\s*$/i.test(vars['NCCL_IB_DISABLE'])) return none('NCCL_IB_DISABLE is meant to disable the IB transport', vars['NCCL_IB_DISABLE']);
  const net = vars['NCCL_NET'];
  if (net !== undefined && net !== '' && net.toLowerCase() !== 'ib') return none(`NCCL_NET=${net} selects another transport: NCCL_IB_* not set`);
  // The unfiltered view: which ports NCCL could use if NCCL_IB_HCA did not narrow them.
  const model = ctx.memo('advice.ibModelUnfiltered', () => ibModel(snap, { ncclVersion: ctx.options.ncclVersion, hca: '' }));
  const report = model.report;
  const all: PortRef[] = model.selection.ports
    .filter((p) => p.kept === true && (p.linkLayer === 'InfiniBand' || p.linkLayer === 'Ethernet'))
    .map((p) => {
      const d = report.devices.find((x) => x.name === p.dev)!;
      const pr = d.ports.find((x) => x.port === p.port)!;
      return { hca: `${p.dev}:${p.port}`, dev: p.dev, port: p.port, linkLayer: p.linkLayer as PortRef['linkLayer'], netdev: pr.netdev, rateGbps: pr.rateGbps, bond: !!d.bond };
    });
  const label = (p: PortRef) => `${p.dev}:${p.port}`;
  const dropped: string[] = [];
  const usable = all.filter((p) => {
    if (p.linkLayer === 'InfiniBand') return true;
    const ok = p.netdev !== null && kept.has(p.netdev);
    if (!ok) dropped.push(`${label(p)} (${p.netdev ?? 'no netdev'}: not in the RDMA candidate set)`);
    return ok;
  });
  if (usable.length === 0) return { ...none('no usable RDMA port: NCCL_IB_HCA not set (NCCL will use sockets)'), model };
  // IB-003, IB-015, IB-010: no bond next to HCAs, one link layer, one rate (advice/ib-ports.ts).
  const choice = chooseIbPorts(usable);
  for (const d of choice.dropped) dropped.push(`${label(d.port)} (${d.why})`);
  const chosen = choice.chosen.slice(0, profile.ibMaxDevs);
  const frontEndBonds = choice.dropped.filter((d) => d.port.bond && !chosen.some((c) => c.bond) && d.port.netdev).map((d) => d.port.netdev!);
  return { kind: chosen[0]!.linkLayer === 'InfiniBand' ? 'InfiniBand' : 'RoCE', chosen, dropped, frontEndBonds, note: null, disableWord: null, model };
}

/** The IB variables of the choice. */
function ibVars(ctx: CheckContext, b: Builder, ib: IbChoice): void {
  if (ib.disableWord !== null) {
    b.set('NCCL_IB_DISABLE', '1', `NCCL reads '${ib.disableWord}' as 0 (IB stays on); 1 disables the IB transport as meant`);
    return;
  }
  if (ib.kind === null) {
    if (ib.note) b.plan.notes.push(ib.note);
    return;
  }
  const label = (p: PortRef) => `${p.dev}:${p.port}`;
  b.set('NCCL_IB_HCA', `=${ib.chosen.map(label).join(',')}`, `the ${ib.chosen.length} ACTIVE ${ib.kind} port(s), exact names with ports`);
  b.plan.summary.push(`HCAs: ${ib.chosen.map((p) => `${label(p)}${p.netdev ? ` (${p.netdev})` : ''}`).join(', ')}`);
  if (ib.dropped.length) b.plan.summary.push(`left out: ${ib.dropped.join('; ')}`);
  if (ib.kind === 'RoCE') gidVars(ctx, b, ib.model!, ib.chosen);
}

/** The GID variables for the RoCE ports NCCL keeps (advice/gid.ts decides). */
function gidVars(ctx: CheckContext, b: Builder, model: IbModel, ports: PortRef[]): void {
  const snap = ctx.snapshot;
  const vars = ctx.reasoning.env.vars;
  const profile = ctx.reasoning.profile;
  const gidPorts: GidPort[] = ports.map((p) => {
    const d = snap.rdma!.devices.find((x) => x.name === p.dev)!;
    const port = d.ports.find((x) => x.port === p.port)!;
    const own = model.report.devices.find((x) => x.name === p.dev)!.ports.find((x) => x.port === p.port)!.netdevs.flatMap((n) => [...n.ipv4, ...n.ipv6].map((a) => a.split('/')[0]!));
    return { dev: p.dev, port: p.port, gids: port.gids, ownAddresses: own };
  });
  // The parameters as they will be once invalid values are dropped.
  const params = readGidParams({}, profile);
  const d: GidDecision = decideGid(gidPorts, params, profile);
  const famRaw = vars['NCCL_IB_ADDR_FAMILY'];
  const rv = vars['NCCL_IB_ROCE_VERSION_NUM'];
  if (rv !== undefined && parseNcclInt(rv, 2).value !== 2) b.unset('NCCL_IB_ROCE_VERSION_NUM', 'NCCL looks for RoCE v2 GIDs by default; another value can end on a RoCE v1 GID');
  if (d.kind === 'none') {
    b.statement('gid', ['NCCL_IB_GID_INDEX', 'NCCL_IB_ADDR_RANGE'], `No NCCL variable gives every RoCE port its own RoCE v2 GID: ${d.why}`);
    b.plan.notes.push(`GID: ${d.why}`);
    return;
  }
  if (d.family === 'AF_INET6') b.set('NCCL_IB_ADDR_FAMILY', 'AF_INET6', 'the RoCE ports have global IPv6 GIDs and no IPv4 ones');
  else if (famRaw !== undefined && famRaw !== 'AF_INET') b.unset('NCCL_IB_ADDR_FAMILY', `the ports' own GIDs are IPv4 (NCCL's default family); '${famRaw}' ${famRaw === 'AF_INET6' ? 'looks for IPv6 ones' : 'is ignored'}`);
  if (d.kind === 'auto') {
    if (vars['NCCL_IB_GID_INDEX'] !== undefined) b.unset('NCCL_IB_GID_INDEX', "NCCL's automatic choice is the RoCE v2 GID of each port's own address");
    if (vars['NCCL_IB_ADDR_RANGE'] !== undefined) b.unset('NCCL_IB_ADDR_RANGE', "not needed: the automatic choice is right on every port");
    return;
  }
  if (d.kind === 'index') {
    b.set('NCCL_IB_GID_INDEX', String(d.index), d.why);
    if (vars['NCCL_IB_ADDR_RANGE'] !== undefined) b.unset('NCCL_IB_ADDR_RANGE', 'NCCL_IB_GID_INDEX decides');
    return;
  }
  b.set('NCCL_IB_ADDR_RANGE', d.range, d.why);
  if (vars['NCCL_IB_GID_INDEX'] !== undefined) b.unset('NCCL_IB_GID_INDEX', 'an explicit index applies to every port; the range lets NCCL choose per port');
}

// ---------------------------------------------------------------------------
// Everything else the doctor flags with an environment change

/** Warnings and errors of the NCCL models whose remediation changes the environment. */
function findingsWithEnv(ctx: CheckContext): Finding[] {
  const r = ctx.reasoning;
  const ib: IbModel | null = ctx.snapshot.rdma ? ctx.memo('ibModel', () => ibModel(ctx.snapshot, { ncclVersion: ctx.options.ncclVersion })) : null;
  const all: Finding[] = [
    ...ctx.memo('socketFindings', () => socketFindings({ ctx: r.socketCtx, selection: ctx.selection, env: r.env, versionAssumed: r.choice.assumed })),
    ...(ib?.report.findings ?? []),
    ...unknownVarFindings(r.env, r.profile),
    ...integerFindings(r.env),
    ...[gdrLevelFinding(r.env.vars['NCCL_NET_GDR_LEVEL'], r.profile)].filter((f): f is Finding => f !== null),
  ];
  return all.filter((f) => (f.severity === 'warn' || f.severity === 'error') && f.remediation.env && Object.keys(f.remediation.env).length > 0);
}

const RANK = { error: 0, warn: 1, info: 2 } as const;

/**
 * Repairs are read from the findings of the node as the plan leaves it, and
 * again until no new one appears: a fix can reveal the next problem (an
 * NCCL_IB_HCA that matched nothing hid a fusion across subnets). The worse
 * finding wins a variable two findings want set differently.
 */
function repairs(ctx: CheckContext, b: Builder): void {
  for (let round = 0; round < 3; round++) {
    const planned = makeContext(withEnv(ctx.snapshot, planEnv(b.plan)), { ncclVersion: ctx.options.ncclVersion }, ctx.options);
    const found = findingsWithEnv(planned).sort((x, y) => RANK[x.severity] - RANK[y.severity]);
    let added = 0;
    for (const f of found) {
      for (const [name, value] of Object.entries(f.remediation.env!)) {
        if (DECIDED.includes(name) || b.has(name) || b.plan.statements.some((s) => s.vars.includes(name))) continue;
        if (value === null) b.unset(name, `${f.id}: ${f.message}`);
        else b.set(name, value, `${f.id}: ${f.message}`);
        added++;
      }
    }
    if (added === 0) return;
  }
}

// ---------------------------------------------------------------------------

export function envPlan(ctx: CheckContext, o: EnvOptions): EnvPlan {
  const b = new Builder(ctx);
  const cands = rdmaCandidates(ctx.snapshot, ctx.options);
  let kept = cands.kept;
  if (o.peerIfaces) {
    const x = intersectPeer(kept, o.peerIfaces);
    if (x.onlyHere.length) b.plan.summary.push(`not on the peer, left out: ${x.onlyHere.join(', ')}`);
    if (x.onlyPeer.length) b.plan.notes.push(`the peer advertises ${x.onlyPeer.join(', ')}, which this node cannot offer`);
    kept = x.common;
  }
  // The IB ports first: whether the IB transport carries the data decides the socket policy.
  const ib = ibChoice(ctx, new Set(kept));
  const names = socketVars(ctx, b, ib);
  ibVars(ctx, b, ib);
  const kind = ib.kind;
  // The network between nodes, as the doctor's NET checks judge it (model/nccl/net-plugin.ts): said, never overridden.
  const net = ctx.memo('netVerdict', () => netVerdict(netInputsOf(ctx.snapshot, ctx.reasoning, ctx.selection)));
  b.plan.summary.push(`network: ${net.decision.network}${net.decision.plugin ? ` (${describePlugin(net.decision.plugin)})` : ''}`);
  for (const f of net.findings) if (f.severity !== 'info') b.plan.notes.push(`${f.id}: ${f.message}`);
  // The DSCP the site marks on the RDMA netdevs and NCCL's links: RoCE's class is NCCL_IB_TC = DSCP × 4.
  const nics = new Set([...rdmaNetdevs(ctx.snapshot).map((r) => r.netdev), ...socketLinks(ctx.snapshot, ctx.selection), ...names]);
  const dscp = siteIntendedDscp(ctx.snapshot.kernel, nics);
  if (dscp !== null && kind === 'RoCE') b.set('NCCL_IB_TC', String(dscp * 4), `the site marks DSCP ${dscp}; the RoCE traffic class is DSCP × 4`);
  if (dscp !== null && ctx.reasoning.profile.version.vendor === 'ncclx') b.set('NCCL_SOCKET_TOS_CONFIG', String(dscp * 4), `NCCLX marks its own sockets; the site marks DSCP ${dscp}`);
  if (ctx.snapshot.rdma) {
    b.set('RDMA_PEER_IFACES', kept.join(' '), `RDMA netdevs with IPv4 that are not uplinks, the same set on every node (${readerOf('RDMA_PEER_IFACES').reader})`);
  }
  b.plan.peerLine = `RDMA_PEER_IFACES=${kept.join(' ')}`;
  repairs(ctx, b);
  if (o.debug) {
    b.set('NCCL_DEBUG', 'INFO', 'log what NCCL decides');
    b.set('NCCL_DEBUG_SUBSYS', 'INIT,BOOTSTRAP,ENV,NET,GRAPH', 'the subsystems that log interface, HCA, GID and topology choices');
    b.set('NCCL_DEBUG_FILE', '/tmp/nccl-debug.%h.%p.log', 'one file per host and process (%h, %p are expanded by NCCL)');
    b.set('NCCL_TOPO_DUMP_FILE', '/tmp/nccl-topo.xml', 'rank 0 writes the topology NCCL detected');
  }
  // Blocking statements lead the summary (env-text.ts); the others are notes.
  for (const s of b.plan.statements) if (!s.blocking) b.plan.notes.push(s.text);
  return b.plan;
}

/** The plan as environment changes: values to set, null to unset. */
export function planEnv(plan: EnvPlan): Record<string, string | null> {
  return { ...Object.fromEntries(plan.unset.map((u) => [u.name, null])), ...Object.fromEntries(plan.vars.map((v) => [v.name, v.value])) };
}

/**
 * A finding's remediation, aligned with the plan: a variable the plan decides
 * takes the plan's value; one that no environment can fix is dropped and the
 * reason becomes advice; a change to what the variable already is (`current`,
 * the effective values) is no change and is dropped. So the doctor, explain,
 * ib and env never disagree.
 */
export function alignRemediation(r: Remediation, plan: EnvPlan, current: Record<string, string | undefined> = {}): Remediation {
  if (!r.env || Object.keys(r.env).length === 0) return r;
  const decided = planEnv(plan);
  const env: Record<string, string | null> = {};
  const reasons: string[] = [];
  for (const [name, value] of Object.entries(r.env)) {
    const st = plan.statements.find((s) => s.vars.includes(name));
    if (st) {
      if (!reasons.includes(st.text)) reasons.push(st.text);
      continue;
    }
    const target = name in decided ? decided[name]! : DECIDED.includes(name) ? (current[name] ?? null) : value;
    if (target === (current[name] ?? null)) {
      // A variable the plan decides and keeps: changing it would contradict `ncclx env`.
      if (target !== value) reasons.push(`the recommended environment (ncclx env) keeps ${target === null ? `${name} unset` : `${name}=${target}`}`);
      continue;
    }
    env[name] = target;
  }
  const out: Remediation = { ...r };
  if (Object.keys(env).length) out.env = env;
  else delete out.env;
  if (reasons.length) out.advice = [r.advice && Object.keys(env).length ? r.advice : null, ...reasons].filter(Boolean).join('. ');
  return out;
}
