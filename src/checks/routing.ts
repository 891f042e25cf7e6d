// Routing checks of the socket family (SOCK-030, SOCK-031). NCCL binds its
// listening sockets to the interface it picked, but its outgoing connect()
// calls are not bound (NVIDIA/nccl#1581): the kernel's routing decides which
// NIC a connection really leaves through. Pure: everything comes from
// snapshot.kernel.

import { isIPv6Loopback, maskBytes, parseIPv4, parseIPv6, sameUnderMask } from '../model/linux/ip.js';
import { isLocalhostName } from '../model/nccl/comm-id.js';
import { ibChoice } from '../model/advice/env-plan.js';
import { socketPolicy, unsoundReason } from '../model/advice/socket-policy.js';
import { suggestedInterfaces } from '../model/nccl/socket-findings.js';
import { rdmaCandidates } from '../model/linux/candidates.js';
import { rdmaNetdevs } from '../model/linux/rdma-netdevs.js';
import { mainTableLookup } from '../model/linux/route-lookup.js';
import { ibModel } from '../model/nccl/ib-report.js';
import { captureFailure, commandEvidence, mainDefaults, NO_KERNEL_PART } from '../model/linux/routes.js';
import type { Check, CheckContext } from '../model/doctor/types.js';
import { linkOfSelected } from '../model/nccl/socket-links.js';
import type { SelectedInterface } from '../model/nccl/socket.js';
import { advise, result, run, setEnv, unknownResult } from '../model/result/build.js';
import type { Evidence, Outcome, Remediation, Severity } from '../model/result/types.js';
import type { AddressInfo, Family } from '../model/snapshot/types.js';


const linkOf = (ctx: CheckContext, s: SelectedInterface) => linkOfSelected(ctx.snapshot, s);
const ipv4Of = (ctx: CheckContext, link: string): AddressInfo[] => ctx.snapshot.network.addresses.filter((a) => a.link === link && a.family === 'AF_INET');

// ---------------------------------------------------------------------------
// SOCK-030: the route to MASTER_ADDR / the NCCL_COMM_ID host

function originEvidence(ctx: CheckContext, name: string): Evidence {
  const o = ctx.reasoning.env.origins[name];
  const value = `${name}=${ctx.reasoning.env.vars[name] ?? ''}`;
  if (o?.source === 'conf') return { kind: 'file', source: `${o.path}:${o.line}`, value };
  if (o?.source === 'flag') return { kind: 'value', source: o.flag, value };
  return { kind: 'value', source: 'environment', value };
}

const UNREACHABLE = /unreachable|no route|invalid argument/i;

const WHY_COMM_ID =
  "Bootstrap listens on the interface in NCCL_COMM_ID's subnet, but outgoing connect() calls are not bound to it: the kernel routes them, so with overlapping or duplicate subnets ranks talk over another NIC than the one NCCL reports (NVIDIA/nccl#1581).";
const WHY_MASTER =
  "NCCL does not read MASTER_ADDR, but PyTorch passes NCCL's unique id through the store at that address; when it is reached through another interface than NCCL's bootstrap, the job depends on two networks, and both must reach every node.";

const routeTarget: Check = {
  id: 'SOCK-030',
  title: 'MASTER_ADDR / NCCL_COMM_ID are routed through the bootstrap interface',
  family: 'socket',
  run(ctx) {
    const vars = ctx.reasoning.env.vars;
    const wanted = (['NCCL_COMM_ID', 'MASTER_ADDR'] as const).filter((v) => vars[v] !== undefined && vars[v] !== '');
    if (wanted.length === 0) return result('na', 'neither NCCL_COMM_ID nor MASTER_ADDR is set: no route to compare', [], '');
    const kernel = ctx.snapshot.kernel;
    if (!kernel) return unknownResult('route to MASTER_ADDR / NCCL_COMM_ID', NO_KERNEL_PART);
    const boot = ctx.selection.bootstrap.selected[0];
    const out: Outcome[] = [];
    for (const variable of wanted) {
      const value = vars[variable]!;
      const why = variable === 'NCCL_COMM_ID' ? WHY_COMM_ID : WHY_MASTER;
      const ev: Evidence[] = [originEvidence(ctx, variable)];
      // This node's loopback (a localhost name or a loopback literal): no route to judge, and no other node gets there.
      const host = variable === 'NCCL_COMM_ID' ? commIdHost(value) : value;
      if (loopbackHost(host)) {
        out.push(loopbackOutcome(variable, value, host, ev));
        continue;
      }
      const target = kernel.routeTargets.find((t) => t.variable === variable && t.value === value);
      if (!target) {
        out.push(unknownResult(`route to ${variable}`, `the snapshot has no route lookup for ${variable}=${value} (the value came from a flag, or changed after the node was read)`, ev));
        continue;
      }
      if (target.address && loopbackHost(target.address)) {
        // A name that resolves to loopback here (Debian's 127.0.1.1 for the host's own name).
        out.push(loopbackOutcome(variable, value, target.address, ev));
        continue;
      }
      if (!target.address || !target.route) {
        out.push(unknownResult(`route to ${variable}`, target.unresolved ?? 'no address to look up', ev));
        continue;
      }
      const cmd = target.route;
      let r: { dev?: string; gateway?: string; type?: string } | undefined;
      if (!cmd.ok) {
        // iproute2 missing: the main table read from /proc answers, except for policy routing (said in the evidence).
        const main = cmd.missing && cmd.from === 'live' && kernel.routes.ok && kernel.routes.from === 'proc' ? mainTableLookup(kernel.routes.data, ctx.snapshot.network.addresses, target.address) : undefined;
        if (main === undefined) {
          ev.push(commandEvidence(cmd, cmd.error));
          if (!cmd.missing && UNREACHABLE.test(cmd.error)) {
            const sev: Severity = variable === 'NCCL_COMM_ID' ? 'error' : 'warn';
            out.push(result(sev, `no route to ${variable} host ${target.address}`, ev, variable === 'NCCL_COMM_ID' ? 'Every rank connects to the NCCL_COMM_ID address to bootstrap; without a route, initialisation fails.' : why, null));
          } else {
            out.push(unknownResult(`route to ${variable} host ${target.address}`, captureFailure(cmd), ev));
          }
          continue;
        }
        ev.push(commandEvidence(kernel.routes, `longest prefix match for ${target.address} in the main table: ${main ? JSON.stringify(main) : 'no route'} (policy-routing rules cannot be read without iproute2)`));
        if (!main) {
          out.push(result(variable === 'NCCL_COMM_ID' ? 'error' : 'warn', `no route to ${variable} host ${target.address} in the main table`, ev, variable === 'NCCL_COMM_ID' ? 'Every rank connects to the NCCL_COMM_ID address to bootstrap; without a route, initialisation fails.' : why, null));
          continue;
        }
        r = main;
      } else {
        r = cmd.data[0];
        ev.push(commandEvidence(cmd, JSON.stringify(cmd.data)));
      }
      if (!r || !r.dev) {
        out.push(unknownResult(`route to ${variable} host ${target.address}`, '`ip route get` printed no device', ev));
        continue;
      }
      // A local address routes through lo; what matters is the link that holds it.
      const holder = r.type === 'local' ? ctx.snapshot.network.addresses.find((a) => a.address === target.address)?.link : undefined;
      const routeLink = holder ?? r.dev;
      if (!boot) {
        out.push(unknownResult(`route to ${variable} leaves through ${routeLink}`, 'NCCL selects no bootstrap interface to compare it with (see SOCK-001)', ev));
        continue;
      }
      const bootLink = linkOf(ctx, boot);
      ev.push({ kind: 'value', source: `ncclx model of NCCL ${ctx.reasoning.choice.version.raw} (${ctx.reasoning.profile.id})`, value: `bootstrap: ${boot.name} ${boot.display}` });
      const where = holder ? `is a local address on ${holder}` : `is reached through ${r.dev}${r.gateway ? ` via ${r.gateway}` : ''}`;
      if (routeLink === bootLink) {
        out.push(result('ok', `${variable} host ${target.address} ${where}, NCCL's bootstrap interface`, ev, ''));
        continue;
      }
      // A host route through the bootstrap NIC pins the path, when that NIC is on the target's subnet.
      const onLink = ctx.snapshot.network.addresses.some((a) => a.link === bootLink && a.family === (target.address!.includes(':') ? 'AF_INET6' : 'AF_INET') && sameSubnet(a, target.address!));
      const bootAddr = boot.address;
      let remediation: Remediation | null = null;
      if (onLink && !holder) {
        const len = target.address.includes(':') ? 128 : 32;
        remediation = run([['ip', 'route', 'replace', `${target.address}/${len}`, 'dev', bootLink, 'src', bootAddr]]);
      } else if (variable === 'MASTER_ADDR' && !vars['NCCL_COMM_ID']) {
        // Without NCCL_COMM_ID, bootstrap follows NCCL_SOCKET_IFNAME: move it to the network MASTER_ADDR is on.
        remediation = setEnv({ NCCL_SOCKET_IFNAME: `=${routeLink}` });
      }
      out.push(
        result(
          variable === 'NCCL_COMM_ID' ? 'warn' : 'info',
          `${variable} host ${target.address} ${where}, but NCCL bootstraps on ${bootLink} (${boot.display})`,
          ev,
          why,
          remediation,
        ),
      );
    }
    return out;
  },
};

/** MASTER_ADDR or NCCL_COMM_ID on this node's loopback: MASTER_ADDR warns (SOCK-003 already does for NCCL_COMM_ID). */
function loopbackOutcome(variable: 'NCCL_COMM_ID' | 'MASTER_ADDR', value: string, shown: string, ev: Evidence[]): Outcome {
  if (variable === 'NCCL_COMM_ID') return result('na', `NCCL_COMM_ID host ${shown} is this node's loopback (SOCK-003 says what that does): no route to compare`, ev, '');
  return result(
    'warn',
    `MASTER_ADDR=${value}${shown === value ? '' : ` (${shown})`} is this node's loopback: ranks on other nodes cannot reach PyTorch's store there, nor NCCL's unique id with it`,
    ev,
    "PyTorch's rank 0 serves its TCPStore at MASTER_ADDR and every rank connects to it to exchange NCCL's unique id; a loopback address on another node is that node itself, so a multi-node job hangs at init. Fine for a single-node job.",
    advise("For a multi-node job set MASTER_ADDR to rank 0's address on the network every node reaches (the one NCCL bootstraps on); on one node it is fine as it is"),
  );
}

/** The host part of NCCL_COMM_ID ("[v6]:port" or "host:port"). */
function commIdHost(value: string): string {
  if (value.startsWith('[')) {
    const end = value.indexOf(']');
    return (end < 0 ? value.slice(1) : value.slice(1, end)).split('%')[0]!;
  }
  return value.split(/[:,]/)[0] ?? '';
}

/** A localhost name (RFC 6761) or a loopback literal (127.0.0.0/8, ::1). */
function loopbackHost(host: string): boolean {
  if (isLocalhostName(host)) return true;
  const v4 = parseIPv4(host);
  if (v4) return v4[0] === 127;
  const v6 = parseIPv6(host);
  return !!v6 && isIPv6Loopback(v6);
}

function sameSubnet(a: AddressInfo, address: string): boolean {
  const mine = a.family === 'AF_INET' ? parseIPv4(a.address) : parseIPv6(a.address);
  const other = a.family === 'AF_INET' ? parseIPv4(address) : parseIPv6(address);
  if (!mine || !other) return false;
  return sameUnderMask(mine, other, maskBytes(a.prefixlen, a.family === 'AF_INET' ? 4 : 16));
}

// ---------------------------------------------------------------------------
// SOCK-031: interfaces NCCL may choose that carry the default route

interface Chosen {
  link: string;
  family: Family;
  display: string;
  consumers: string[];
}

/** The interfaces NCCL really sends over: bootstrap, and the IB OOB or the socket transport, whichever carries the data. */
function chosenLinks(ctx: CheckContext, dataOnIb: boolean): Chosen[] {
  const out = new Map<string, Chosen>();
  const add = (label: string, list: SelectedInterface[]) => {
    for (const s of list) {
      const link = linkOf(ctx, s);
      const key = `${link}\0${s.family}`;
      const c = out.get(key) ?? { link, family: s.family, display: `${s.name} ${s.display}`, consumers: [] };
      if (!c.consumers.includes(label)) c.consumers.push(label);
      out.set(key, c);
    }
  };
  if (!dataOnIb) add('socket transport', ctx.selection.socket.selected);
  add('bootstrap', ctx.selection.bootstrap.selected);
  if (dataOnIb) add('IB OOB', ctx.selection.ibOob.selected);
  return [...out.values()];
}

const ibNow = (ctx: CheckContext) => (ctx.snapshot.rdma ? ctx.memo('ibModel', () => ibModel(ctx.snapshot, { ncclVersion: ctx.options.ncclVersion })) : null);

const defaultRouteCarriers: Check = {
  id: 'SOCK-031',
  title: "NCCL's sockets follow the socket policy: no default-route interface next to data, no unsound data rail",
  family: 'socket',
  run(ctx) {
    const kernel = ctx.snapshot.kernel;
    if (!kernel) return unknownResult('default routes on NCCL\'s interfaces', NO_KERNEL_PART);
    const routes = kernel.routes;
    if (!routes.ok) return unknownResult('default routes on NCCL\'s interfaces', captureFailure(routes));
    // With the IB transport up, sockets carry only bootstrap and its out-of-band connection; else the socket transport carries the data.
    const dataOnIb = !!ibNow(ctx)?.selection.transport.used;
    const chosen = chosenLinks(ctx, dataOnIb);
    if (chosen.length === 0) return result('na', 'NCCL selects no interface (see SOCK-001): no socket policy to judge', [], '');
    const defaults = mainDefaults(routes.data);
    const carries = (c: Chosen) => defaults.filter((d) => d.dev === c.link && (d.family === null || d.family === c.family));
    const withDefault = chosen.filter((c) => carries(c).length > 0);
    const routeEv = (list: Chosen[]): Evidence[] =>
      list.flatMap((c) => carries(c).map((d) => commandEvidence(routes, JSON.stringify(d.route))));
    const usedEv: Evidence = {
      kind: 'value',
      source: `ncclx model of NCCL ${ctx.reasoning.choice.version.raw} (${ctx.reasoning.profile.id})`,
      value: `${chosen.map((c) => `${c.display} (${c.consumers.join(', ')})`).join('; ')}; data: ${dataOnIb ? 'IB transport' : 'socket transport'}`,
    };
    // '=' applies to the whole list (NCCL reads it once, before the first name): '=a,=b' would look for an interface named '=b'.
    const pinTo = (links: string[]) => setEnv({ NCCL_SOCKET_IFNAME: `=${links.join(',')}` });
    const distinct = [...new Set(withDefault.map((c) => c.link))];
    // Two chosen NICs with a default route each: off-subnet peers are reached through one of them only.
    for (const fam of ['AF_INET', 'AF_INET6'] as const) {
      const links = [...new Set(withDefault.filter((c) => c.family === fam).map((c) => c.link))];
      if (links.length >= 2) {
        const others = chosen.filter((c) => !links.includes(c.link)).map((c) => c.link);
        return result(
          'warn',
          `${links.join(' and ')} are ${links.length === 2 ? 'both' : 'all'} chosen by NCCL and each carries a default route`,
          [usedEv, ...routeEv(withDefault)],
          'Each default route belongs to a different network; the kernel sends every off-subnet connection through the lowest-metric one, so traffic NCCL attributes to one NIC leaves through another, or not at all.',
          others.length ? pinTo([...new Set(others)]) : null,
        );
      }
    }
    if (dataOnIb) {
      // Bootstrap and the IB OOB use the first interface: it must reach every node and be sound.
      const first = ctx.selection.bootstrap.selected[0] ?? ctx.selection.ibOob.selected[0];
      const why = first ? unsoundReason(ctx, first.name, ibFrontEndBonds(ctx)) : null;
      if (first && why) {
        return result(
          'warn',
          `NCCL's bootstrap${ctx.selection.ibOob.selected[0]?.name === first.name ? ' and the IB OOB' : ''} use ${first.name} ${first.display}, ${why}`,
          [usedEv],
          "Bootstrap and the IB transport's out-of-band connection reach every rank from the first interface; on a data rail whose ARP or routing is broken, or on a front-end bond, ranks may not reach each other at all. The data itself goes over the IB transport, so sockets belong on the one network that reaches every node (docs/advice.md).",
          pinTo([first.name]),
        );
      }
      return result('ok', `bootstrap and the IB OOB use ${chosen.map((c) => c.link).join(', ')}${distinct.length ? ', the default-route network' : ''}; the data goes over the IB transport`, [usedEv, ...routeEv(withDefault)], '');
    }
    // The socket transport carries the data: not over a data rail whose ARP or routing is broken, nor a front-end bond.
    const policy = socketPolicy(ctx, { selection: ctx.selection, good: suggestedInterfaces(ctx.reasoning.socketCtx), dataOnIb: false, frontEndBonds: ibFrontEndBonds(ctx) });
    const unsound = policy.leftOut.filter((x) => x.kind === 'unsound');
    if (unsound.length && policy.names.length) {
      return result(
        'warn',
        `NCCL's socket transport spreads the data over ${[...new Set(unsound.map((x) => x.why))].map((why) => { const names = unsound.filter((x) => x.why === why).map((x) => x.name); return `${names.join(', ')} (${names.length > 1 ? 'each ' : ''}${why})`; }).join('; ')}`,
        [usedEv],
        'The socket transport sends part of every transfer over each selected interface: over a rail whose ARP or routing is broken those connections stall or leave through another NIC, and a front-end bond carries data it was not meant to.',
        pinTo(policy.names),
      );
    }
    if (withDefault.length === 0) {
      return result('ok', `no interface NCCL chooses (${[...new Set(chosen.map((c) => c.link))].join(', ')}) carries a default route`, [usedEv], '');
    }
    const socketLinks = [...new Set(ctx.selection.socket.selected.map((s) => linkOf(ctx, s)))];
    const mixed = socketLinks.filter((l) => !distinct.includes(l));
    if (socketLinks.some((l) => distinct.includes(l)) && mixed.length > 0) {
      return result(
        'warn',
        `NCCL's socket transport uses ${distinct.join(', ')} (which carries the default route, usually the management or uplink network) alongside ${mixed.join(', ')}`,
        [usedEv, ...routeEv(withDefault)],
        'The socket transport spreads traffic over every selected interface, so the default-route network — often a slower management NIC — carries part of the data.',
        pinTo(mixed),
      );
    }
    // The only chosen NIC carries the default route; say so when the data network is visibly elsewhere.
    const dataLinks = [...new Set(rdmaNetdevs(ctx.snapshot).map((r) => r.netdev))].filter((n) => !chosen.some((c) => c.link === n) && ipv4Of(ctx, n).length > 0);
    if (dataLinks.length > 0) {
      return result(
        'info',
        `NCCL's socket transport carries the data over ${distinct.join(', ')}, which carries the default route, while the RDMA netdevs ${dataLinks.join(', ')} are on other networks`,
        [usedEv, ...routeEv(withDefault)],
        'Without the IB transport the data goes over sockets, here over the default-route network; that works only if it reaches every node of the job.',
        advise(`Nothing to change if ${distinct.join(', ')} reaches every node of the job; otherwise name a data interface that does in NCCL_SOCKET_IFNAME (e.g. =${dataLinks[0]})`),
      );
    }
    return result('ok', `NCCL uses ${distinct.join(', ')}, which carries the default route; no other data network is visible`, [usedEv, ...routeEv(withDefault)], '');
  },
};

/** Bonded RDMA devices the plan leaves out next to ordinary HCAs (IB-003), as the socket policy sees them. */
function ibFrontEndBonds(ctx: CheckContext): string[] {
  return ctx.memo('advice.frontEndBonds', () => ibChoice(ctx, new Set(rdmaCandidates(ctx.snapshot, ctx.options).kept)).frontEndBonds);
}

export const routingChecks: Check[] = [routeTarget, defaultRouteCarriers];

