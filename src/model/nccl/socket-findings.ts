// Findings about socket interface selection: each says what NCCL will do that
// the user probably did not intend, and the one-line fix.

import type { EffectiveEnv, Origin } from './conf.js';
import { groupNotes, matchName, parseList, type ParsedList } from './ifname-list.js';
import { looksLikeIPAddress } from '../linux/ip.js';
import { findInterfaces, MAX_IFS, type ConsumerResult, type SocketContext, type SocketSelection } from './socket.js';
import { advise, setEnv, unsetEnv } from '../result/build.js';
import type { Finding, FindingSeverity, Remediation } from '../result/types.js';
import { versionString } from './versions.js';
import { isLinkLocal6, privateKind } from './iface-kind.js';
import { append } from '../list.js';

export type { Finding };
export type Severity = FindingSeverity;

const CONSUMER_LABEL: Record<string, string> = {
  bootstrap: 'bootstrap',
  socket: 'socket transport',
  ibOob: 'IB transport OOB',
};

function originText(o: Origin | undefined): string {
  if (!o) return '';
  if (o.source === 'conf') return ` (from ${o.path}:${o.line})`;
  if (o.source === 'flag') return ` (from ${o.flag})`;
  return '';
}

/**
 * Interfaces worth suggesting: RUNNING, with a routable (not link-local, not
 * loopback) address, and not lo/docker/virbr/veth. getifaddrs() order, so
 * IPv4-carrying interfaces come first. This is ncclx's advice, not NCCL's rule.
 */
export function suggestedInterfaces(ctx: SocketContext, exclude: string[] = []): string[] {
  const out: string[] = [];
  for (const a of ctx.addresses) {
    if (out.includes(a.name) || exclude.includes(a.name)) continue;
    if (/^(lo|docker|virbr|veth)/.test(a.name)) continue;
    const link = ctx.links.find((l) => l.ifindex === a.ifindex);
    if (!link?.flags.includes('RUNNING')) continue;
    if (a.family === 'AF_INET6' && (/^fe[89ab]/i.test(a.address) || a.address === '::1')) continue;
    if (a.family === 'AF_INET' && a.address.startsWith('127.')) continue;
    out.push(a.name);
  }
  return out;
}

/** Pin NCCL_SOCKET_IFNAME to the first suggested interface; with none, only the advice (ncclx never exports a placeholder). */
function suggestion(ctx: SocketContext, advice: string, exclude: string[] = []): Remediation {
  const first = suggestedInterfaces(ctx, exclude)[0];
  return first ? setEnv({ NCCL_SOCKET_IFNAME: `=${first}` }, advice) : advise(`${advice} (no RUNNING interface with a routable address was found on this node)`);
}

export interface FindingContext {
  ctx: SocketContext;
  selection: SocketSelection;
  env: EffectiveEnv;
  versionAssumed: boolean;
}

export function socketFindings(f: FindingContext): Finding[] {
  const out: Finding[] = [];
  const { ctx, selection, env } = f;
  const { inputs } = selection;
  const names = [...new Set([...ctx.links.map((l) => l.name), ...ctx.addresses.map((a) => a.name)])];
  const origin = (v: string) => originText(env.origins[v]);
  const ifnameRaw = inputs.ifname.raw;

  if (f.versionAssumed) {
    out.push({
      id: 'SOCK-021',
      severity: 'info',
      message: `No NCCL library was found on this node; assuming NCCL ${versionString(ctx.profile.version)} (newest known)`,
      remediation: advise('Pass --nccl-version X.Y.Z (or ncclx-X.Y) to model the NCCL your job really loads'),
    });
  }

  // --- NCCL_SOCKET_IFNAME --------------------------------------------------
  if (ifnameRaw !== undefined && !inputs.ifname.used) {
    out.push({
      id: 'SOCK-005',
      severity: 'warn',
      message: `NCCL_SOCKET_IFNAME='${ifnameRaw}'${origin('NCCL_SOCKET_IFNAME')} is ${ifnameRaw === '' ? 'empty' : 'one character long'}: NCCL ignores it and selects automatically`,
      remediation: ifnameRaw === '' ? unsetEnv('NCCL_SOCKET_IFNAME') : suggestion(ctx, 'Set a real interface name'),
    });
  }
  const list = inputs.ifname.list;
  if (list) append(out, listFindings(list, names, ifnameRaw!, origin('NCCL_SOCKET_IFNAME'), selection, (advice) => suggestion(ctx, advice)));

  // --- NCCL_SOCKET_FAMILY --------------------------------------------------
  const famRaw = inputs.family.raw;
  if (famRaw !== undefined && inputs.family.forced === null) {
    const guess = /6/.test(famRaw) ? 'AF_INET6' : 'AF_INET';
    out.push({
      id: 'SOCK-006',
      severity: 'warn',
      message: `NCCL_SOCKET_FAMILY='${famRaw}'${origin('NCCL_SOCKET_FAMILY')} is not AF_INET or AF_INET6 (exact, case-sensitive): NCCL silently ignores it and keeps both families`,
      remediation: setEnv({ NCCL_SOCKET_FAMILY: guess }),
    });
  }

  // --- NCCL_COMM_ID --------------------------------------------------------
  const comm = inputs.commId;
  if (comm.raw !== undefined && comm.parse) {
    if (comm.raw === '') {
      out.push({
        id: 'SOCK-015',
        severity: 'error',
        message: `NCCL_COMM_ID is exported but empty${origin('NCCL_COMM_ID')}: bootstrap only checks that it is set, fails to parse it and initialization stops ("Invalid NCCL_COMM_ID …")`,
        remediation: unsetEnv('NCCL_COMM_ID'),
      });
    } else if (!comm.parse.ok) {
      out.push({
        id: comm.parse.indeterminate ? 'SOCK-020' : 'SOCK-007',
        severity: comm.parse.indeterminate ? 'warn' : 'error',
        message: comm.parse.indeterminate
          ? `Cannot predict what NCCL does with NCCL_COMM_ID='${comm.raw}': ${comm.parse.reason}`
          : `NCCL_COMM_ID='${comm.raw}'${origin('NCCL_COMM_ID')} cannot be used: ${comm.parse.reason}${comm.parse.log ? ` (NCCL WARN "${comm.parse.log}")` : ''}`,
        remediation: /does not resolve/.test(comm.parse.reason)
          ? advise(`Make '${commHost(comm.raw)}' resolve on every node (DNS, /etc/hosts), or give rank 0's IP address instead: NCCL_COMM_ID=<rank 0 address>:${commPort(comm.raw)}`)
          : advise('Use <ipv4>:<port>, <hostname>:<port> or [<ipv6>]:<port>, e.g. NCCL_COMM_ID=10.0.0.1:29600 with the address of rank 0\'s node'),
      });
    } else {
      for (const note of comm.parse.notes) {
        const badPort = /outside 1–65535/.test(note);
        out.push({
          id: 'SOCK-019',
          severity: /bare IPv6/.test(note) || / fail$/.test(note) ? 'error' : 'warn',
          message: `NCCL_COMM_ID='${comm.raw}': ${note}`,
          remediation: advise(badPort ? 'Use a port in 1–65535 (the one rank 0 listens on), e.g. <host>:29600' : 'Write NCCL_COMM_ID as <host>:<port> or [<ipv6>]:<port> with an explicit port'),
        });
      }
      if (ctx.profile.invertedV4Subnet && comm.parse.target.family === 'AF_INET') {
        out.push({
          id: 'SOCK-014',
          severity: 'error',
          message: `NCCL ${versionString(ctx.profile.version)} inverts the IPv4 subnet test of the NCCL_COMM_ID match (2.29.2–2.29.7; NCCLX v2_29): it picks the first address NOT in ${comm.parse.target.address}'s subnet${selection.bootstrap.selected[0] ? ` — here ${selection.bootstrap.selected[0].name} ${selection.bootstrap.selected[0].address}` : ''}`,
          remediation: advise('Upgrade to NCCL ≥ 2.30.3, or avoid NCCL_COMM_ID and set NCCL_SOCKET_IFNAME'),
        });
      }
    }
  }

  // --- per-consumer outcome ------------------------------------------------
  append(out, mergeByInterface([selection.bootstrap, selection.socket, selection.ibOob].flatMap((r) => consumerFindings(r, f, names))));

  // Bootstrap and data on different interfaces is legal, but worth knowing.
  const b = selection.bootstrap.selected[0];
  const s = selection.socket.selected[0];
  if (b && s && b.name !== s.name) {
    out.push({
      id: 'SOCK-016',
      severity: 'info',
      message: `Bootstrap uses ${b.name} ${b.display} but the socket transport starts with ${s.name} ${s.display}${comm.raw !== undefined ? ' (NCCL_COMM_ID drives bootstrap; NCCL_SOCKET_IFNAME does not apply to it)' : ''}`,
      remediation: advise('Make sure both networks reach every node; to align them, point NCCL_COMM_ID at an address on the data network'),
    });
  }

  // --- more than 16 candidates --------------------------------------------
  const socketStage = selection.socket.stage;
  if (socketStage && socketStage !== 'auto: NCCL_COMM_ID subnet' && selection.socket.selected.length >= MAX_IFS) {
    const stageSpec = selection.socket.stages.find((st) => st.stage === socketStage)!.spec;
    const unlimited = findInterfaces(
      ctx,
      socketStage,
      socketStage === 'NCCL_SOCKET_IFNAME' ? list! : parseListForStage(ctx, stageSpec),
      () => '',
      inputs.family.forced,
      Number.MAX_SAFE_INTEGER,
      inputs.ipaddrPrefix,
    );
    if (unlimited.found.length > MAX_IFS) {
      const lost = unlimited.found.slice(MAX_IFS).map((x) => x.name);
      out.push({
        id: 'SOCK-009',
        severity: 'warn',
        message: `${unlimited.found.length} interfaces qualify but NCCL keeps only the first ${MAX_IFS}; dropped: ${lost.join(', ')}`,
        remediation: setEnv({ NCCL_SOCKET_IFNAME: '=' + unlimited.found.slice(0, MAX_IFS).map((x) => x.name).join(',') }, 'Name the interfaces you want'),
      });
    }
  }

  // --- conf-file notes -----------------------------------------------------
  for (const n of env.notes) {
    if (n.kind === 'quoted') {
      out.push({ id: 'SOCK-010', severity: 'error', message: n.message, remediation: advise(`Edit ${n.path} line ${n.line}: remove the quotes (${n.variable}=${n.variable in env.vars ? env.vars[n.variable]!.replace(/^["']|["']$/g, '') : ''})`) });
    } else if (n.kind === 'carriage-return' && !ctx.profile.confCrlf) {
      out.push({ id: 'SOCK-010', severity: 'error', message: n.message, remediation: { advice: `Convert ${n.path} to Unix line endings`, commands: [['sed', '-i', 's/\\r$//', n.path]] } });
    } else if (n.kind === 'trailing-space') {
      out.push({ id: 'SOCK-010', severity: 'warn', message: n.message, remediation: advise(`Edit ${n.path} line ${n.line}: remove the whitespace`) });
    } else if (n.kind === 'shadowed') {
      out.push({ id: 'SOCK-023', severity: 'info', message: n.message, remediation: setEnv({ [n.variable]: null }, `Unset ${n.variable} in the environment if ${n.path} should apply`) });
    }
  }
  return dedupeFindings(out);
}

/** The host and the port NCCL_COMM_ID was written with (for advice text only). */
const commHost = (raw: string) => (raw.startsWith('[') ? raw.slice(1, Math.max(1, raw.indexOf(']'))) : raw.split(':')[0]!);
const commPort = (raw: string) => /:(\d+)$/.exec(raw)?.[1] ?? '<port>';

function parseListForStage(ctx: SocketContext, spec: string): ParsedList {
  // Stages other than the user list search with NCCL's own fixed lists.
  return parseList(spec, { parser: ctx.profile.listParser, maxEntries: MAX_IFS });
}

function listFindings(list: ParsedList, names: string[], raw: string, origin: string, selection: SocketSelection, suggest: (advice: string) => Remediation): Finding[] {
  const out: Finding[] = [];
  for (const n of groupNotes(list.notes)) {
    if (n.kind === 'empty-item' || n.kind === 'empty-port' || n.kind === 'non-numeric-field') continue;
    out.push({ id: 'SOCK-017', severity: n.kind === 'dropped' || n.kind === 'overlong' || n.kind === 'whitespace' ? 'warn' : 'info', message: `NCCL_SOCKET_IFNAME: ${n.message}`, remediation: advise('Rewrite NCCL_SOCKET_IFNAME without spaces, with at most 16 entries of at most 63 characters') });
  }
  for (const e of list.entries) {
    if (looksLikeIPAddress(e.prefix) || looksLikeIPAddress(e.text)) {
      out.push({
        id: 'SOCK-012',
        severity: 'error',
        message: `NCCL_SOCKET_IFNAME entry '${e.text}'${origin} is an IP address; NCCL matches interface names, so it matches nothing`,
        remediation: suggest('Use the interface that carries it'),
      });
    }
  }
  // A prefix that is also a full name on this node, but catches longer names too.
  if (!list.exact) {
    const traps = list.entries
      .map((e) => ({ e, hits: names.filter((n) => matchName(n, e, false)) }))
      .filter(({ e, hits }) => hits.includes(e.prefix) && hits.length > 1);
    for (const { e, hits } of traps) {
      const exactNames = list.entries.flatMap((x) => (names.includes(x.prefix) ? [x.prefix] : names.filter((n) => matchName(n, x, false))));
      const suggestion = `${list.not ? '^' : ''}=${[...new Set(exactNames)].join(',')}`;
      out.push({
        id: 'SOCK-004',
        severity: 'warn',
        message: `NCCL_SOCKET_IFNAME entry '${e.prefix}' is a prefix: it ${list.not ? 'excludes' : 'matches'} ${hits.join(', ')}, not only ${e.prefix}`,
        remediation: setEnv({ NCCL_SOCKET_IFNAME: suggestion }),
      });
    }
  }
  // Entries that match no interface at all.
  for (const e of list.entries) {
    if (!names.some((n) => matchName(n, e, list.exact)) && !looksLikeIPAddress(e.prefix)) {
      const close = names.filter((n) => n.toLowerCase().startsWith(e.prefix.toLowerCase().replace(/["']/g, '').slice(0, 2)));
      out.push({
        id: 'SOCK-011',
        severity: list.not ? 'info' : 'warn',
        message: `NCCL_SOCKET_IFNAME entry '${e.text}'${origin} matches no interface on this node${close.length ? ` (interfaces here: ${close.join(', ')})` : ''}`,
        remediation: list.not ? advise('Nothing to do unless you meant another name') : suggest('Use a name that exists here'),
      });
    }
  }
  // `^docker0` alone replaces the default exclusion, so lo becomes eligible.
  if (list.not) {
    const excludesLo = list.entries.some((e) => matchName('lo', e, list.exact));
    const chosen = selection.socket.selected.map((s) => s.name);
    if (!excludesLo && chosen.some((n) => n.startsWith('lo'))) {
      out.push({
        id: 'SOCK-013',
        severity: 'error',
        message: `NCCL_SOCKET_IFNAME='${raw}' replaces NCCL's default exclusion, so lo is no longer excluded and is selected`,
        remediation: setEnv({ NCCL_SOCKET_IFNAME: `^${list.exact ? '=' : ''}${[...list.entries.map((e) => e.text), 'lo'].join(',')}` }),
      });
    }
  }
  return out;
}

function consumerFindings(r: ConsumerResult, f: FindingContext, names: string[]): Finding[] {
  const out: Finding[] = [];
  const label = CONSUMER_LABEL[r.consumer]!;
  if (r.indeterminate) {
    out.push({ id: 'SOCK-020', severity: 'warn', consumer: r.consumer, message: `Cannot predict the ${label} interface: ${r.indeterminate}`, remediation: advise('Run ncclx on the node itself, or use an IP literal') });
    return out;
  }
  if (r.error) {
    const bootstrapCommId = r.consumer === 'bootstrap' && f.selection.inputs.commId.raw !== undefined;
    const id = bootstrapCommId ? 'SOCK-008' : 'SOCK-001';
    out.push({
      id,
      severity: 'error',
      consumer: r.consumer,
      message: `${label}: no interface — NCCL will print ${r.error.log.map((l) => `"NCCL WARN ${l}"`).join(' then ')}${r.consumer === 'ibOob' ? ' and the IB transport fails' : ''} (${r.error.why})`,
      remediation: bootstrapCommId ? advise('Point NCCL_COMM_ID at an address on a subnet this node has, or unset it') : withFilters(f, suggestion(f.ctx, commIdHintCause(r.error.why) ?? 'Select an interface that exists and is RUNNING')),
    });
    return out;
  }
  const first = r.selected[0];
  if (!first) return out;
  const rs = r.consumer === 'socket' ? r.selected : [first];
  // "uses …" findings are written without the consumer label; mergeByInterface adds it.
  for (const s of rs) {
    if (s.family === 'AF_INET6' && isLinkLocal6(s.address)) {
      out.push({
        id: 'SOCK-002',
        severity: 'warn',
        consumer: r.consumer,
        message: `uses ${s.name} ${s.display}, an IPv6 link-local address: it only reaches hosts on the same link, and ranks on other segments hang`,
        remediation: withFilters(f, suggestion(f.ctx, `Give ${s.name} a routable address, or choose another interface`, [s.name])),
      });
    }
    const kind = privateKind(s.name);
    if (kind) {
      const parse = f.selection.inputs.commId.parse;
      const assumed = r.consumer === 'bootstrap' && parse?.ok && parse.assumed ? ` (${parse.assumed})` : '';
      out.push({
        id: 'SOCK-003',
        severity: 'warn',
        consumer: r.consumer,
        message: `uses ${s.name} ${s.display}, ${kind}: fine on a single node, but other nodes cannot reach it${assumed}`,
        remediation: suggestion(f.ctx, 'For multi-node jobs select the data interface'),
      });
    }
    const link = f.ctx.links.find((l) => l.name === s.name || l.name === s.name.split(':')[0]);
    if (link && !link.flags.includes('RUNNING')) {
      out.push({
        id: 'SOCK-018',
        severity: 'error',
        consumer: r.consumer,
        message: `uses ${s.name}, which is not RUNNING (${link.flags.includes('UP') ? 'no carrier' : 'DOWN'}); NCCL ${versionString(f.ctx.profile.version)} does not check, and connections over it will fail`,
        remediation: setEnv({ NCCL_SOCKET_IFNAME: '^' + s.name + ',docker,lo' }, 'Bring the link up or exclude it'),
      });
    }
  }
  return out;
}

/**
 * When NCCL_COMM_ID's automatic hint is what leaves a consumer without an
 * interface, the cause comes first: naming interfaces only routes around it,
 * and bootstrap keeps failing until NCCL_COMM_ID is fixed (SOCK-007).
 */
export function commIdHintCause(why: string): string | null {
  return why.startsWith('NCCL_COMM_ID hint') ? 'The cause is NCCL_COMM_ID (SOCK-007): fix it first — bootstrap fails until it is. Naming the interfaces keeps this consumer off NCCL_COMM_ID\'s automatic hint' : null;
}

/**
 * A name alone does not help while another filter removes the right address:
 * a forced NCCL_SOCKET_FAMILY (link-local IPv6 only) or NCCLX's
 * NCCL_SOCKET_IPADDR_PREFIX. The remediation drops those too (ncclx env
 * decides whether they stay).
 */
function withFilters(f: FindingContext, r: Remediation): Remediation {
  if (!r.env) return r;
  const extra: Record<string, null> = {};
  if (f.selection.inputs.family.forced !== null) extra['NCCL_SOCKET_FAMILY'] = null;
  if (f.selection.inputs.ipaddrPrefix) extra['NCCL_SOCKET_IPADDR_PREFIX'] = null;
  return { ...r, env: { ...extra, ...r.env } };
}

/** One finding per interface problem, naming every consumer it affects ("bootstrap and socket transport use lo …"). */
function mergeByInterface(fs: Finding[]): Finding[] {
  const out: Finding[] = [];
  const groups = new Map<string, Finding[]>();
  for (const x of fs) {
    if (!x.message.startsWith('uses ')) {
      out.push(x);
      continue;
    }
    const key = `${x.id}|${x.message}`;
    groups.set(key, [...(groups.get(key) ?? []), x]);
  }
  for (const g of groups.values()) {
    const labels = g.map((x) => CONSUMER_LABEL[x.consumer!]!);
    const who = labels.length === 1 ? labels[0]! : `${labels.slice(0, -1).join(', ')} and ${labels[labels.length - 1]}`;
    const verb = labels.length === 1 ? 'uses' : 'use';
    const first = g[0]!;
    out.push({ ...first, consumer: g.map((x) => x.consumer).join(','), message: `${who.charAt(0).toUpperCase()}${who.slice(1)} ${verb}${first.message.slice('uses'.length)}` });
  }
  return out;
}

/** Drop repeated findings (same id and message). */
export function dedupeFindings(fs: Finding[]): Finding[] {
  const seen = new Set<string>();
  return fs.filter((x) => {
    const k = `${x.id}|${x.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
