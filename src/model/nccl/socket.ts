// NCCL's socket interface selection (docs/nccl/socket.md): ncclFindInterfaces,
// the per-address filter, the NCCL_COMM_ID subnet match, and the three
// consumers that use them. Pure: everything comes from the snapshot.

import type { AddressInfo, Family, HostResolution, LinkInfo } from '../snapshot/types.js';
import { cLength, parseCommId, type CommIdParse, type SocketTarget } from './comm-id.js';
import { matchList, parseList, type ParsedList } from './ifname-list.js';
import { isIPv6Loopback, maskBytes, parseIPv4, parseIPv6, sameUnderMask } from '../linux/ip.js';
import type { Profile } from './versions.js';
import { append } from '../list.js';

/** MAX_IFS: the socket transport's device limit and the list entry limit. */
export const MAX_IFS = 16;

export type Consumer = 'bootstrap' | 'socket' | 'ibOob';

export interface SelectedInterface {
  name: string;
  address: string;
  family: Family;
  /** Address as NCCL prints it: IPv6 link-local gets %link. */
  display: string;
}

export type Verdict = 'selected' | 'skipped' | 'duplicate' | 'not-examined';

export interface TraceEntry {
  /** The search this verdict belongs to, e.g. "auto: ib" or "NCCL_SOCKET_IFNAME". */
  stage: string;
  name: string;
  address: string;
  family: Family;
  verdict: Verdict;
  reason: string;
}

export interface StageSummary {
  stage: string;
  /** The list NCCL searched with, or the subnet target. */
  spec: string;
  found: string[];
}

export interface ConsumerResult {
  consumer: Consumer;
  selected: SelectedInterface[];
  /** The stage that produced the selection, null when nothing was selected. */
  stage: string | null;
  stages: StageSummary[];
  trace: TraceEntry[];
  /** The INFO line NCCL prints on success. */
  log: string | null;
  /** When NCCL fails: the WARN lines it prints and why. */
  error: { log: string[]; why: string } | null;
  /** ncclx cannot predict (unresolved host name, invalid address literal): why. */
  indeterminate: string | null;
}

export interface SocketContext {
  profile: Profile;
  links: LinkInfo[];
  /** getifaddrs() order. */
  addresses: AddressInfo[];
  /** Effective NCCL variables (environment over conf files, flags over both). */
  vars: Record<string, string | undefined>;
  resolve(host: string): HostResolution | undefined;
}

export interface SocketSelection {
  bootstrap: ConsumerResult;
  socket: ConsumerResult;
  ibOob: ConsumerResult;
  /** How the inputs were read (parsed list, family, COMM_ID), for findings. */
  inputs: SocketInputs;
}

export interface SocketInputs {
  ifname: { raw: string | undefined; used: boolean; list: ParsedList | null };
  family: { raw: string | undefined; forced: Family | null };
  commId: { raw: string | undefined; usedByAuto: boolean; parse: CommIdParse | null };
  ipaddrPrefix: string | null;
}

/** ncclEnvSocketFamily(): exactly AF_INET or AF_INET6, anything else ignored. */
export function socketFamily(raw: string | undefined): Family | null {
  return raw === 'AF_INET' || raw === 'AF_INET6' ? raw : null;
}

export function displayAddress(a: { address: string; family: Family; scopeId: number }, links: LinkInfo[]): string {
  if (a.family === 'AF_INET6' && a.scopeId !== 0) {
    const link = links.find((l) => l.ifindex === a.scopeId);
    return `${a.address}%${link ? link.name : a.scopeId}`;
  }
  return a.address;
}

function addrBytes(a: AddressInfo): Uint8Array | null {
  return a.family === 'AF_INET' ? parseIPv4(a.address) : parseIPv6(a.address);
}

function linkOf(ctx: SocketContext, a: AddressInfo): LinkInfo | undefined {
  return ctx.links.find((l) => l.ifindex === a.ifindex) ?? ctx.links.find((l) => l.name === a.link);
}

function notRunningReason(link: LinkInfo | undefined): string {
  if (!link) return 'link state unknown';
  if (!link.flags.includes('UP')) return 'link is DOWN';
  return `link is UP but ${link.operstate === 'DORMANT' ? 'DORMANT' : 'NO-CARRIER'}, not RUNNING`;
}

interface FindResult {
  found: SelectedInterface[];
  trace: TraceEntry[];
}

/**
 * ncclOsFindInterfaces(): walk getifaddrs() once with one name list and keep
 * the first address of each accepted name, up to maxIfs names.
 */
export function findInterfaces(
  ctx: SocketContext,
  stage: string,
  list: ParsedList,
  describe: (accepted: boolean, entry: string | null) => string,
  family: Family | null,
  maxIfs: number,
  ipaddrPrefix: string | null,
): FindResult {
  const found: SelectedInterface[] = [];
  const trace: TraceEntry[] = [];
  const firstOf = new Map<string, SelectedInterface>();
  for (const a of ctx.addresses) {
    const t = (verdict: Verdict, reason: string) =>
      trace.push({ stage, name: a.name, address: a.address, family: a.family, verdict, reason });
    if (found.length >= maxIfs) {
      t('not-examined', maxIfs === 1 ? 'NCCL stops after the first interface' : `NCCL stops after ${maxIfs} interfaces (MAX_IFS)`);
      continue;
    }
    const link = linkOf(ctx, a);
    const running = link?.flags.includes('RUNNING') ?? false;
    if (ctx.profile.runningFilter && !running) {
      t('skipped', `${notRunningReason(link)} — skipped since 2.28.3`);
      continue;
    }
    if (family !== null && a.family !== family) {
      t('skipped', `NCCL_SOCKET_FAMILY=${family} keeps only ${family === 'AF_INET' ? 'IPv4' : 'IPv6'} addresses`);
      continue;
    }
    const bytes = addrBytes(a);
    if (a.family === 'AF_INET6' && bytes && isIPv6Loopback(bytes)) {
      t('skipped', 'IPv6 loopback ::1 is always skipped');
      continue;
    }
    const m = matchList(a.name, -1, list);
    if (!m.accepted) {
      t('skipped', describe(false, m.entry?.text ?? null));
      continue;
    }
    const display = displayAddress(a, ctx.links);
    if (ipaddrPrefix !== null && ipaddrPrefix !== '' && !display.startsWith(ipaddrPrefix)) {
      t('skipped', `address '${display}' does not start with NCCL_SOCKET_IPADDR_PREFIX '${ipaddrPrefix}'`);
      continue;
    }
    const prior = firstOf.get(a.name);
    if (prior) {
      t('duplicate', `already have ${prior.name} ${prior.display} (first address wins)`);
      continue;
    }
    const sel: SelectedInterface = { name: a.name, address: a.address, family: a.family, display };
    firstOf.set(a.name, sel);
    found.push(sel);
    const oldNotRunning = !ctx.profile.runningFilter && !running ? ` (${notRunningReason(link)}: NCCL before 2.28.3 does not check RUNNING)` : '';
    t('selected', describe(true, m.entry?.text ?? null) + oldNotRunning);
  }
  return { found, trace };
}

/** Whether local address a is in target's subnet, under a's own netmask, as matchSubnet() decides. */
export function subnetMatch(a: AddressInfo, target: SocketTarget, profile: Profile): { match: boolean; reason: string } {
  if (a.family !== target.family) return { match: false, reason: `different family from ${target.address}` };
  const bytes = addrBytes(a);
  if (!bytes) return { match: false, reason: 'unreadable address' };
  const mask = maskBytes(a.prefixlen, a.family === 'AF_INET' ? 4 : 16);
  const same = sameUnderMask(bytes, target.bytes, mask);
  if (a.family === 'AF_INET') {
    if (profile.invertedV4Subnet) {
      return same
        ? { match: false, reason: `in ${target.address}'s subnet under /${a.prefixlen}, but the IPv4 test is inverted in this version, so it is rejected` }
        : { match: true, reason: `NOT in ${target.address}'s subnet under /${a.prefixlen}; the IPv4 test is inverted in this version (2.29.2–2.29.7 bug), so it matches` };
    }
    return same
      ? { match: true, reason: `same subnet as ${target.address} under the local /${a.prefixlen}` }
      : { match: false, reason: `${target.address} is outside the local /${a.prefixlen}` };
  }
  if (!same) return { match: false, reason: `${target.address} is outside the local /${a.prefixlen}` };
  if (a.scopeId !== target.scopeId) {
    return { match: false, reason: `same prefix, but scope id ${a.scopeId} ≠ ${target.scopeId} of the target` };
  }
  return { match: true, reason: `same subnet as ${target.address} under the local /${a.prefixlen}${a.scopeId ? ` and same scope` : ''}` };
}

/** ncclFindInterfaceMatchSubnet(): the first address, in getifaddrs() order, in the target's subnet. */
export function findSubnetInterface(ctx: SocketContext, stage: string, target: SocketTarget): FindResult {
  const found: SelectedInterface[] = [];
  const trace: TraceEntry[] = [];
  for (const a of ctx.addresses) {
    const t = (verdict: Verdict, reason: string) =>
      trace.push({ stage, name: a.name, address: a.address, family: a.family, verdict, reason });
    if (found.length > 0) {
      t('not-examined', 'the subnet match stops at the first hit');
      continue;
    }
    const r = subnetMatch(a, target, ctx.profile);
    if (!r.match) {
      t('skipped', r.reason);
      continue;
    }
    found.push({ name: a.name, address: a.address, family: a.family, display: displayAddress(a, ctx.links) });
    t('selected', `${r.reason} (no RUNNING, name or family filter applies here)`);
  }
  return { found, trace };
}

function listDescriber(kind: 'user' | 'auto', spec: string, list: ParsedList) {
  return (accepted: boolean, entry: string | null): string => {
    const what = kind === 'user' ? `NCCL_SOCKET_IFNAME '${spec}'` : `'${spec}'`;
    if (list.not) {
      return accepted ? `not excluded by ${what}` : `excluded by ${what} (entry '${entry}')`;
    }
    if (accepted) return entry === null ? `matched by ${what}` : `matched entry '${entry}' of ${what}`;
    if (kind === 'auto') return `name does not start with '${spec}'`;
    return `not matched by ${what}`;
  };
}

interface FindInterfacesOutcome {
  selected: SelectedInterface[];
  stage: string | null;
  stages: StageSummary[];
  trace: TraceEntry[];
  /** A COMM_ID hint that failed to parse makes ncclFindInterfaces itself fail. */
  error: { log: string[]; why: string } | null;
  indeterminate: string | null;
}

/** ncclFindInterfaces(maxIfs): the user list, or the automatic cascade. */
export function ncclFindInterfaces(ctx: SocketContext, maxIfs: number, inputs: SocketInputs): FindInterfacesOutcome {
  const family = inputs.family.forced;
  const prefix = inputs.ipaddrPrefix;
  const parserOpts = { parser: ctx.profile.listParser, maxEntries: MAX_IFS };
  const stages: StageSummary[] = [];
  const trace: TraceEntry[] = [];
  const run = (stage: string, spec: string, kind: 'user' | 'auto') => {
    const list = kind === 'user' && inputs.ifname.list ? inputs.ifname.list : parseList(spec, parserOpts);
    const r = findInterfaces(ctx, stage, list, listDescriber(kind, spec, list), family, maxIfs, prefix);
    stages.push({ stage, spec, found: r.found.map((f) => f.name) });
    append(trace, r.trace);
    return r.found;
  };
  const done = (selected: SelectedInterface[], stage: string | null): FindInterfacesOutcome => ({
    selected,
    stage: selected.length ? stage : null,
    stages,
    trace,
    error: null,
    indeterminate: null,
  });

  if (inputs.ifname.used) {
    const spec = inputs.ifname.raw!;
    return done(run('NCCL_SOCKET_IFNAME', spec, 'user'), 'NCCL_SOCKET_IFNAME');
  }
  let found = run('auto: ib', 'ib', 'auto');
  if (found.length) return done(found, 'auto: ib');

  if (inputs.commId.usedByAuto) {
    const parse = inputs.commId.parse!;
    const stage = 'auto: NCCL_COMM_ID subnet';
    if (!parse.ok) {
      stages.push({ stage, spec: inputs.commId.raw!, found: [] });
      if (parse.indeterminate) {
        return { selected: [], stage: null, stages, trace, error: null, indeterminate: parse.reason };
      }
      return { selected: [], stage: null, stages, trace, error: { log: parse.log ? [parse.log] : [], why: `NCCL_COMM_ID hint: ${parse.reason}; ncclFindInterfaces returns an error, with no fall-through to later steps` }, indeterminate: null };
    }
    const r = findSubnetInterface(ctx, stage, parse.target);
    stages.push({ stage, spec: `${parse.target.address} (from NCCL_COMM_ID)`, found: r.found.map((f) => f.name) });
    append(trace, r.trace);
    if (r.found.length) return done(r.found, stage);
  }
  const steps: string[] = [ctx.profile.autoExclude, 'docker', 'lo'];
  if (ctx.profile.virbrStep) steps.push('virbr');
  for (const spec of steps) {
    found = run(`auto: ${spec}`, spec, 'auto');
    if (found.length) return done(found, `auto: ${spec}`);
  }
  return done([], null);
}

function readInputs(ctx: SocketContext): SocketInputs {
  const ifnameRaw = ctx.vars['NCCL_SOCKET_IFNAME'];
  const used = ifnameRaw !== undefined && cLength(ifnameRaw) > 1;
  const familyRaw = ctx.vars['NCCL_SOCKET_FAMILY'];
  const commRaw = ctx.vars['NCCL_COMM_ID'];
  const commCtx = {
    profile: ctx.profile,
    ifindexOf: (name: string) => ctx.links.find((l) => l.name === name)?.ifindex ?? null,
    resolve: ctx.resolve,
  };
  const prefixRaw = ctx.profile.ipaddrPrefix ? ctx.vars['NCCL_SOCKET_IPADDR_PREFIX'] : undefined;
  return {
    ifname: {
      raw: ifnameRaw,
      used,
      list: used ? parseList(ifnameRaw!, { parser: ctx.profile.listParser, maxEntries: MAX_IFS }) : null,
    },
    family: { raw: familyRaw, forced: socketFamily(familyRaw) },
    commId: {
      raw: commRaw,
      usedByAuto: commRaw !== undefined && cLength(commRaw) > 1,
      parse: commRaw !== undefined ? parseCommId(commRaw, commCtx) : null,
    },
    ipaddrPrefix: prefixRaw !== undefined && prefixRaw !== '' ? prefixRaw : null,
  };
}

function addrLog(s: SelectedInterface): string {
  return `${s.name}:${s.display}<0>`;
}

function consumerResult(consumer: Consumer, o: FindInterfacesOutcome, noneLog: string, okLog: (sel: SelectedInterface[]) => string): ConsumerResult {
  const base = { consumer, selected: o.selected, stage: o.stage, stages: o.stages, trace: o.trace, indeterminate: o.indeterminate };
  if (o.indeterminate) return { ...base, log: null, error: null };
  if (o.error) return { ...base, log: null, error: { log: [...o.error.log], why: o.error.why } };
  if (o.selected.length === 0) {
    return { ...base, log: null, error: { log: [noneLog], why: 'no address passed the selection' } };
  }
  return { ...base, log: okLog(o.selected), error: null };
}

/** The three consumers of docs/nccl/socket.md §6. */
export function selectSocketInterfaces(ctx: SocketContext): SocketSelection {
  const inputs = readInputs(ctx);

  const socketOutcome = ncclFindInterfaces(ctx, MAX_IFS, inputs);
  const socket = consumerResult('socket', socketOutcome, 'NET/Socket : no interface found', (sel) =>
    `NET/Socket : Using ${sel.map((s, i) => `[${i}]${addrLog(s)}`).join(' ')}`,
  );

  const oobOutcome = ncclFindInterfaces(ctx, 1, inputs);
  const ibOob = consumerResult('ibOob', oobOutcome, 'NET/IB : No IP interface found.', (sel) => `NET/IB : Using … ; OOB ${addrLog(sel[0]!)}`);

  let bootstrap: ConsumerResult;
  if (inputs.commId.raw !== undefined) {
    // Bootstrap only asks "is NCCL_COMM_ID set": even an empty value takes this path.
    const parse = inputs.commId.parse!;
    const stage = 'NCCL_COMM_ID subnet match (NCCL_SOCKET_IFNAME ignored)';
    const invalid = 'Invalid NCCL_COMM_ID, please use format: <ipv4>:<port> or [<ipv6>]:<port> or <hostname>:<port>';
    if (!parse.ok) {
      const stages = [{ stage, spec: inputs.commId.raw, found: [] }];
      bootstrap = parse.indeterminate
        ? { consumer: 'bootstrap', selected: [], stage: null, stages, trace: [], log: null, error: null, indeterminate: parse.reason }
        : {
            consumer: 'bootstrap',
            selected: [],
            stage: null,
            stages,
            trace: [],
            log: null,
            error: { log: [...(parse.log ? [parse.log] : []), invalid], why: parse.reason },
            indeterminate: null,
          };
    } else {
      const r = findSubnetInterface(ctx, stage, parse.target);
      const o: FindInterfacesOutcome = {
        selected: r.found,
        stage: r.found.length ? stage : null,
        stages: [{ stage, spec: `${parse.target.address} (from NCCL_COMM_ID)`, found: r.found.map((f) => f.name) }],
        trace: r.trace,
        error: null,
        indeterminate: null,
      };
      bootstrap = consumerResult('bootstrap', o, 'NET/Socket : No usable listening interface found', (sel) => `${ctx.profile.bootstrapLogPrefix} ${addrLog(sel[0]!)}`);
    }
  } else {
    const o = ncclFindInterfaces(ctx, 1, inputs);
    bootstrap = consumerResult('bootstrap', o, 'Bootstrap : no socket interface found', (sel) => `${ctx.profile.bootstrapLogPrefix} ${addrLog(sel[0]!)}`);
  }
  return { bootstrap, socket, ibOob, inputs };
}
