// Routing checks of the socket family (SOCK-030, SOCK-031) and the route/rule
// helpers the ARP and QoS checks share. NCCL binds its listening sockets to
// the interface it picked, but its outgoing connect() calls are not bound
// (NVIDIA/nccl#1581): the kernel's routing decides which NIC a connection
// really leaves through. Pure: everything comes from snapshot.kernel.

import { formatIPv4, maskBytes, parseIPv4, parseIPv6, sameUnderMask } from '../nccl/ip.js';
import type { SelectedInterface } from '../nccl/socket.js';
import { shExport, shJoin } from '../report/quote.js';
import type { Captured, IpRouteJson } from '../snapshot/kernel-types.js';
import type { AddressInfo, Family } from '../snapshot/types.js';
import { rdmaNetdevs } from './rdma-netdevs.js';
import { result, unknownResult } from './result.js';
import type { Check, CheckContext, CheckResult, Evidence, Severity } from './types.js';

// ---------------------------------------------------------------------------
// Shared helpers (arp.ts and qos.ts use them too)

export const NO_KERNEL_PART =
  'this snapshot has no kernel part (it was taken by an ncclx without the kernel probe): re-take it with `ncclx snapshot` or run doctor on the node';

/** The command line as a user would type it. */
export function commandLine(c: { argv: string[] }): string {
  return shJoin(c.argv);
}

/** Why a command gave no data, in one phrase. */
export function captureFailure(c: Captured<unknown>): string {
  if (c.ok) return '';
  if (c.from === 'recorded') return `\`${commandLine(c)}\`: ${c.error}`;
  return c.missing ? `\`${c.argv[0]}\` is not installed (${c.error})` : `\`${commandLine(c)}\` failed: ${c.error}`;
}

export function commandEvidence(c: { argv: string[] }, value: string): Evidence {
  return { kind: 'command', source: commandLine(c), value };
}

/** The link an address NCCL selected belongs to (alias labels such as eth0:1 map to eth0). */
export function linkOfSelected(ctx: CheckContext, s: SelectedInterface): string {
  return ctx.snapshot.network.addresses.find((a) => a.name === s.name && a.address === s.address)?.link ?? s.name;
}

export function ipv4Of(ctx: CheckContext, link: string): AddressInfo[] {
  return ctx.snapshot.network.addresses.filter((a) => a.link === link && a.family === 'AF_INET');
}

/** An IPv4 prefix, from "a.b.c.d/len", "a.b.c.d" (host) or "default". */
export interface V4Prefix {
  bytes: Uint8Array;
  len: number;
}

export function parseV4Prefix(text: string | undefined): V4Prefix | null {
  if (text === undefined) return null;
  if (text === 'default' || text === '0.0.0.0/0') return { bytes: new Uint8Array(4), len: 0 };
  const [addr, len] = text.split('/');
  const bytes = parseIPv4(addr ?? '');
  if (!bytes) return null;
  const n = len === undefined ? 32 : Number(len);
  return Number.isInteger(n) && n >= 0 && n <= 32 ? { bytes, len: n } : null;
}

/** Whether prefix `outer` contains prefix `inner` (every address of inner is in outer). */
export function prefixContains(outer: V4Prefix, inner: V4Prefix): boolean {
  return outer.len <= inner.len && sameUnderMask(outer.bytes, inner.bytes, maskBytes(outer.len, 4));
}

export function prefixText(p: V4Prefix): string {
  const net = new Uint8Array(4);
  const m = maskBytes(p.len, 4);
  for (let i = 0; i < 4; i++) net[i] = p.bytes[i]! & m[i]!;
  return `${formatIPv4(net)}/${p.len}`;
}

export const isMainTable = (r: { table?: string }): boolean => r.table === undefined || r.table === 'main';

/** Every device a route sends through (a multipath route has several). */
export function routeDevs(r: IpRouteJson): string[] {
  const devs = [r.dev, ...(r.nexthops ?? []).map((n) => n.dev)].filter((d): d is string => typeof d === 'string');
  return [...new Set(devs)];
}

/** A route's address family, from any address it prints; null when it prints none (a device-only default). */
export function routeFamily(r: IpRouteJson): Family | null {
  const texts = [r.dst, r.gateway, r.prefsrc, ...(r.nexthops ?? []).map((n) => n.gateway)].filter((t): t is string => typeof t === 'string' && t !== 'default');
  if (texts.some((t) => t.includes(':'))) return 'AF_INET6';
  if (texts.some((t) => /^\d+\.\d+\.\d+\.\d+/.test(t))) return 'AF_INET';
  return null;
}

export function isDefaultRoute(r: IpRouteJson): boolean {
  return (r.dst === 'default' || r.dst === '0.0.0.0/0' || r.dst === '::/0') && (r.type === undefined || r.type === 'unicast');
}

/** Main-table default routes per device (each with its family, null = unknown). */
export function mainDefaults(routes: IpRouteJson[]): { dev: string; family: Family | null; route: IpRouteJson }[] {
  const out: { dev: string; family: Family | null; route: IpRouteJson }[] = [];
  for (const r of routes) {
    if (!isMainTable(r) || !isDefaultRoute(r)) continue;
    for (const dev of routeDevs(r)) out.push({ dev, family: routeFamily(r), route: r });
  }
  return out;
}

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
    if (wanted.length === 0) return result('ok', 'neither NCCL_COMM_ID nor MASTER_ADDR is set: no route to compare', [], '');
    const kernel = ctx.snapshot.kernel;
    if (!kernel) return unknownResult('route to MASTER_ADDR / NCCL_COMM_ID', NO_KERNEL_PART);
    const boot = ctx.selection.bootstrap.selected[0];
    const out: CheckResult[] = [];
    for (const variable of wanted) {
      const value = vars[variable]!;
      const why = variable === 'NCCL_COMM_ID' ? WHY_COMM_ID : WHY_MASTER;
      const ev: Evidence[] = [originEvidence(ctx, variable)];
      const target = kernel.routeTargets.find((t) => t.variable === variable && t.value === value);
      if (!target) {
        out.push(unknownResult(`route to ${variable}`, `the snapshot has no route lookup for ${variable}=${value} (the value came from a flag, or changed after the node was read)`, ev));
        continue;
      }
      if (!target.address || !target.route) {
        out.push(unknownResult(`route to ${variable}`, target.unresolved ?? 'no address to look up', ev));
        continue;
      }
      const cmd = target.route;
      if (!cmd.ok) {
        ev.push(commandEvidence(cmd, cmd.error));
        if (!cmd.missing && UNREACHABLE.test(cmd.error)) {
          const sev: Severity = variable === 'NCCL_COMM_ID' ? 'error' : 'warn';
          out.push(result(sev, `no route to ${variable} host ${target.address}`, ev, variable === 'NCCL_COMM_ID' ? 'Every rank connects to the NCCL_COMM_ID address to bootstrap; without a route, initialisation fails.' : why, null));
        } else {
          out.push(unknownResult(`route to ${variable} host ${target.address}`, captureFailure(cmd), ev));
        }
        continue;
      }
      const r = cmd.data[0];
      ev.push(commandEvidence(cmd, JSON.stringify(cmd.data)));
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
      const bootLink = linkOfSelected(ctx, boot);
      ev.push({ kind: 'value', source: `ncclx model of NCCL ${ctx.reasoning.choice.version.raw} (${ctx.reasoning.profile.id})`, value: `bootstrap: ${boot.name} ${boot.display}` });
      const where = holder ? `is a local address on ${holder}` : `is reached through ${r.dev}${r.gateway ? ` via ${r.gateway}` : ''}`;
      if (routeLink === bootLink) {
        out.push(result('ok', `${variable} host ${target.address} ${where}, NCCL's bootstrap interface`, ev, ''));
        continue;
      }
      // A host route through the bootstrap NIC pins the path, when that NIC is on the target's subnet.
      const onLink = ctx.snapshot.network.addresses.some((a) => a.link === bootLink && a.family === (target.address!.includes(':') ? 'AF_INET6' : 'AF_INET') && sameSubnet(a, target.address!));
      const bootAddr = boot.address;
      let remediation: string | null = null;
      if (onLink && !holder) {
        const len = target.address.includes(':') ? 128 : 32;
        remediation = shJoin(['ip', 'route', 'replace', `${target.address}/${len}`, 'dev', bootLink, 'src', bootAddr]);
      } else if (variable === 'MASTER_ADDR' && !vars['NCCL_COMM_ID']) {
        // Without NCCL_COMM_ID, bootstrap follows NCCL_SOCKET_IFNAME: move it to the network MASTER_ADDR is on.
        remediation = shExport('NCCL_SOCKET_IFNAME', `=${routeLink}`);
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

function chosenLinks(ctx: CheckContext): Chosen[] {
  const out = new Map<string, Chosen>();
  const add = (label: string, list: SelectedInterface[]) => {
    for (const s of list) {
      const link = linkOfSelected(ctx, s);
      const key = `${link}\0${s.family}`;
      const c = out.get(key) ?? { link, family: s.family, display: `${s.name} ${s.display}`, consumers: [] };
      if (!c.consumers.includes(label)) c.consumers.push(label);
      out.set(key, c);
    }
  };
  add('socket transport', ctx.selection.socket.selected);
  add('bootstrap', ctx.selection.bootstrap.selected);
  add('IB OOB', ctx.selection.ibOob.selected);
  return [...out.values()];
}

const defaultRouteCarriers: Check = {
  id: 'SOCK-031',
  title: 'Interfaces NCCL may choose do not carry another network\'s default route',
  family: 'socket',
  run(ctx) {
    const kernel = ctx.snapshot.kernel;
    if (!kernel) return unknownResult('default routes on NCCL\'s interfaces', NO_KERNEL_PART);
    const routes = kernel.routes;
    if (!routes.ok) return unknownResult('default routes on NCCL\'s interfaces', captureFailure(routes));
    const chosen = chosenLinks(ctx);
    if (chosen.length === 0) return result('ok', 'NCCL selects no interface (see SOCK-001): no default route to compare', [], '');
    const defaults = mainDefaults(routes.data);
    const carries = (c: Chosen) => defaults.filter((d) => d.dev === c.link && (d.family === null || d.family === c.family));
    const withDefault = chosen.filter((c) => carries(c).length > 0);
    const routeEv = (list: Chosen[]): Evidence[] =>
      list.flatMap((c) => carries(c).map((d) => commandEvidence(routes, JSON.stringify(d.route))));
    const usedEv: Evidence = {
      kind: 'value',
      source: `ncclx model of NCCL ${ctx.reasoning.choice.version.raw} (${ctx.reasoning.profile.id})`,
      value: chosen.map((c) => `${c.display} (${c.consumers.join(', ')})`).join('; '),
    };
    if (withDefault.length === 0) {
      return result('ok', `no interface NCCL chooses (${[...new Set(chosen.map((c) => c.link))].join(', ')}) carries a default route`, [usedEv], '');
    }
    // '=' applies to the whole list (NCCL reads it once, before the first name): '=a,=b' would look for an interface named '=b'.
    const pinTo = (links: string[]) => shExport('NCCL_SOCKET_IFNAME', `=${links.join(',')}`);
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
    const socketLinks = [...new Set(ctx.selection.socket.selected.map((s) => linkOfSelected(ctx, s)))];
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
        `NCCL uses ${distinct.join(', ')}, which carries the default route, while the RDMA netdevs ${dataLinks.join(', ')} are on other networks`,
        [usedEv, ...routeEv(withDefault)],
        'Bootstrap and the IB out-of-band socket then run over the default-route network; that works only if it reaches every node of the job.',
        pinTo(dataLinks),
      );
    }
    return result('ok', `NCCL uses ${distinct.join(', ')}, which carries the default route; no other data network is visible`, [usedEv, ...routeEv(withDefault)], '');
  },
};

export const routingChecks: Check[] = [routeTarget, defaultRouteCarriers];

