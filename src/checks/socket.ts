// Socket checks: everything `ncclx explain` finds, one check per finding id,
// so --only/--skip and the Prometheus gauges address them individually.

import { socketFindings, type Finding } from '../model/nccl/socket-findings.js';
import type { ConsumerResult } from '../model/nccl/socket.js';
import type { Check, CheckContext } from '../model/doctor/types.js';
import { findingResults } from '../model/result/build.js';
import type { Evidence } from '../model/result/types.js';

interface SocketCheckSpec {
  id: string;
  title: string;
  ok: string;
  why: string;
}

const SPECS: SocketCheckSpec[] = [
  { id: 'SOCK-001', title: 'Every NCCL consumer gets an interface', ok: 'bootstrap, socket transport and IB OOB each get an interface', why: 'Without an interface NCCL cannot initialise: bootstrap fails, or the IB transport fails and NCCL falls back to sockets that also fail.' },
  { id: 'SOCK-002', title: 'No IPv6 link-local choice', ok: 'no consumer uses an IPv6 link-local address', why: 'A link-local address reaches only the local segment; ranks on other segments hang in bootstrap.' },
  { id: 'SOCK-003', title: 'No loopback/docker/virbr/veth choice', ok: 'no consumer uses lo, docker, virbr or veth', why: 'These interfaces are private to the node; other nodes cannot connect to them.' },
  { id: 'SOCK-004', title: 'NCCL_SOCKET_IFNAME prefixes match only what was meant', ok: 'no NCCL_SOCKET_IFNAME prefix catches longer names', why: 'Entries are prefixes: eth1 also selects eth10, which may be on another network.' },
  { id: 'SOCK-005', title: 'NCCL_SOCKET_IFNAME is not a one-character value', ok: 'NCCL_SOCKET_IFNAME is unset or usable', why: 'NCCL ignores values of length ≤ 1 and selects automatically, which is rarely what the setting meant.' },
  { id: 'SOCK-006', title: 'NCCL_SOCKET_FAMILY is a value NCCL reads', ok: 'NCCL_SOCKET_FAMILY is unset, AF_INET or AF_INET6', why: 'Any other value is silently ignored and both families stay eligible.' },
  { id: 'SOCK-007', title: 'NCCL_COMM_ID parses', ok: 'NCCL_COMM_ID is unset or parses', why: 'An unparsable NCCL_COMM_ID stops bootstrap and, as an automatic hint, leaves the socket transport without interfaces.' },
  { id: 'SOCK-008', title: 'NCCL_COMM_ID is on a local subnet', ok: 'bootstrap finds an interface in NCCL_COMM_ID\'s subnet (or NCCL_COMM_ID is unset)', why: 'With NCCL_COMM_ID set, bootstrap listens only on an interface in the same subnet; none means "No usable listening interface found".' },
  { id: 'SOCK-009', title: 'At most 16 socket interfaces qualify', ok: 'no more than 16 interfaces qualify', why: 'NCCL keeps the first 16 in getifaddrs() order and silently drops the rest.' },
  { id: 'SOCK-010', title: 'Conf-file values are clean', ok: 'no quoted, CRLF or padded NCCL values in conf files', why: 'NCCL does not strip quotes or whitespace in nccl.conf; a quoted interface name matches nothing.' },
  { id: 'SOCK-011', title: 'NCCL_SOCKET_IFNAME entries exist here', ok: 'every NCCL_SOCKET_IFNAME entry matches an interface', why: 'An entry that matches nothing is usually a name from another node image.' },
  { id: 'SOCK-012', title: 'NCCL_SOCKET_IFNAME holds names, not addresses', ok: 'NCCL_SOCKET_IFNAME holds no IP address', why: 'NCCL matches interface names; an IP address matches nothing.' },
  { id: 'SOCK-013', title: 'Exclusion lists keep lo out', ok: 'no exclusion list re-admits lo', why: 'Any NCCL_SOCKET_IFNAME replaces the default ^docker,lo; ^docker0 alone makes lo eligible.' },
  { id: 'SOCK-014', title: 'No inverted NCCL_COMM_ID subnet match', ok: 'this NCCL version matches NCCL_COMM_ID subnets correctly (or NCCL_COMM_ID is unset)', why: 'NCCL 2.29.2–2.29.7 pick the first IPv4 address NOT in the target subnet, usually lo.' },
  { id: 'SOCK-015', title: 'NCCL_COMM_ID is not set-but-empty', ok: 'NCCL_COMM_ID is not exported empty', why: 'Bootstrap only checks that NCCL_COMM_ID is set; an empty value fails to parse and initialization stops.' },
  { id: 'SOCK-016', title: 'Bootstrap and data interfaces', ok: 'bootstrap and socket transport use the same interface', why: 'Different interfaces are legal, but both networks must reach every node.' },
  { id: 'SOCK-017', title: 'NCCL_SOCKET_IFNAME parses as written', ok: 'NCCL_SOCKET_IFNAME has no dropped, padded or over-long entries', why: 'NCCL drops entries past 16, does not trim spaces and has a 63-character field.' },
  { id: 'SOCK-018', title: 'Chosen interfaces are RUNNING', ok: 'every chosen interface is RUNNING', why: 'NCCL before 2.28.3 selects DOWN or NO-CARRIER interfaces that still have an address; connections over them fail.' },
  { id: 'SOCK-019', title: 'NCCL_COMM_ID is explicit', ok: 'NCCL_COMM_ID has an explicit port and one address (or is unset)', why: 'A missing port becomes 65535; a bare IPv6 address is cut at the first colon.' },
  { id: 'SOCK-020', title: 'Selection is predictable', ok: 'every consumer\'s selection could be predicted', why: 'An unresolved host name or an invalid IPv6 literal leaves NCCL\'s choice to the resolver or to uninitialised memory.' },
  { id: 'SOCK-021', title: 'NCCL version known', ok: 'the NCCL version was found or given', why: 'NCCL\'s rules differ by version; without it ncclx assumes the newest release.' },
  { id: 'SOCK-023', title: 'Conf-file values not shadowed', ok: 'no conf-file NCCL value is shadowed by the environment', why: 'The environment wins over nccl.conf; an edit to the file has no effect while the variable is exported.' },
];

function evidenceFor(ctx: CheckContext): Evidence[] {
  const ev: Evidence[] = [];
  const vars = ctx.reasoning.env;
  for (const name of ['NCCL_SOCKET_IFNAME', 'NCCL_SOCKET_FAMILY', 'NCCL_COMM_ID']) {
    const v = vars.vars[name];
    if (v === undefined) continue;
    const o = vars.origins[name];
    const source = !o ? 'environment' : o.source === 'conf' ? `${o.path}:${o.line}` : o.source === 'flag' ? o.flag : 'environment';
    ev.push({ kind: o?.source === 'conf' ? 'file' : 'value', source, value: `${name}=${v}` });
  }
  const sel = (r: ConsumerResult) =>
    r.selected.length ? r.selected.map((s) => `${s.name} ${s.display}`).join(', ') : r.error ? `none (${r.error.log.join('; ')})` : `unknown (${r.indeterminate})`;
  ev.push({ kind: 'value', source: `ncclx model of NCCL ${ctx.reasoning.choice.version.raw} (${ctx.reasoning.profile.id})`, value: `bootstrap: ${sel(ctx.selection.bootstrap)}; socket: ${sel(ctx.selection.socket)}; IB OOB: ${sel(ctx.selection.ibOob)}` });
  return ev;
}

export function socketFindingsOf(ctx: CheckContext): Finding[] {
  return ctx.memo('socketFindings', () =>
    socketFindings({ ctx: ctx.reasoning.socketCtx, selection: ctx.selection, env: ctx.reasoning.env, versionAssumed: ctx.reasoning.choice.assumed }),
  );
}

export const socketChecks: Check[] = SPECS.map((spec) => ({
  id: spec.id,
  title: spec.title,
  family: 'socket',
  run(ctx) {
    return findingResults(socketFindingsOf(ctx).filter((f) => f.id === spec.id), spec, evidenceFor(ctx));
  },
}));
