// Read what the kernel does with NCCL's IP traffic: per-interface ARP and
// reverse-path sysctls, policy routing, the route to MASTER_ADDR and the
// NCCL_COMM_ID host, root qdiscs, and DSCP marking in nftables / iptables.
//
// Files go through the Root and commands through the Runner (argument arrays,
// recorded output under --root), like every probe. Nothing here throws: a
// missing tool, a permission error or unparsable output is kept in the
// snapshot so the checks can say "unknown" and why.

import { parseIPv4, parseIPv6 } from '../model/linux/ip.js';
import {
  CONF_KEYS,
  type Captured,
  type ConfValues,
  type IpRouteJson,
  type IpRuleJson,
  type KernelPart,
  type NftDscpRule,
  type NftSummary,
  type ProcRead,
  type RouteTarget,
  type TcQdiscJson,
} from '../model/snapshot/kernel-types.js';
import type { EnvPart, HostResolution, NetworkPart } from '../model/snapshot/types.js';
import { BOUNDS, clip } from './bound.js';
import { bool, checkedArray, depthOf, ifname, int, shapeProblem, str, u32, type Shape } from './records.js';
import type { Root } from './root.js';
import { parseIpv6Route, parseProcRoute, routesAsIproute } from './proc-net.js';
import type { CommandSpec, Runner } from './runner.js';

export const CONF_DIR = '/proc/sys/net/ipv4/conf';

export const KERNEL_COMMANDS = {
  rules: { argv: ['ip', '-j', 'rule', 'show'], record: 'ip-rule.json' },
  routes: { argv: ['ip', '-j', 'route', 'show', 'table', 'all'], record: 'ip-route-all.json' },
  qdiscs: { argv: ['tc', '-j', 'qdisc', 'show'], record: 'tc-qdisc.json' },
  // A Kubernetes node's ruleset can be large; give nft more time than the default.
  nft: { argv: ['nft', '-j', 'list', 'ruleset'], record: 'nft-ruleset.json', timeoutMs: 15_000 },
  iptablesMangle: { argv: ['iptables-save', '-t', 'mangle'], record: 'iptables-save-mangle.txt' },
  ip6tablesMangle: { argv: ['ip6tables-save', '-t', 'mangle'], record: 'ip6tables-save-mangle.txt' },
} as const satisfies Record<string, CommandSpec>;

/** `ip -j route get ADDR`; the record name keeps only file-name-safe characters. */
export function routeGetCommand(address: string): CommandSpec {
  return { argv: ['ip', '-j', 'route', 'get', address], record: `ip-route-get-${address.replace(/[^A-Za-z0-9.-]/g, '_')}.json` };
}

export interface KernelProbeInput {
  network: NetworkPart;
  env: EnvPart;
  resolutions: Record<string, HostResolution>;
  /** /proc/net of the network namespace reasoned about (/proc/PID/net for --pid). */
  procNet?: string;
  /** --pid in another network namespace: its /proc/sys/net values, read inside it (they are per reader's namespace). */
  sysctls?: Map<string, string> | null;
}

/**
 * `ip route show table all` when iproute2 runs; when it is not installed, the
 * main table from /proc/net/route and /proc/net/ipv6_route (other tables are
 * not in /proc: checks that need them stay unknown and say so).
 */
function routesOrProc(root: Root, c: Captured<IpRouteJson[]>, procNet: string): Captured<IpRouteJson[]> {
  if (c.ok || !c.missing || (!root.isLive && !root.exists(`${procNet}/route`))) return c;
  const v4 = root.readTrim(`${procNet}/route`);
  const v6 = root.readTrim(`${procNet}/ipv6_route`);
  if (v4 === null && v6 === null) return c;
  const data = routesAsIproute(parseProcRoute(v4 ?? ''), parseIpv6Route(v6 ?? ''));
  const record = `${procNet}/route and ${procNet}/ipv6_route (main table only)`;
  // The same bound as iproute2's output (BOUNDS.routes, docs/snapshot.md "Limits").
  if (data.length > BOUNDS.routes) return { argv: c.argv, record, from: 'proc', ok: false, error: `more than ${BOUNDS.routes} routes`, missing: false };
  return { argv: c.argv, record, from: 'proc', ok: true, data };
}

function proc(root: Root, p: string): ProcRead {
  const r = root.read(p);
  return r.ok ? r.value.replace(/\n$/, '') : { error: r.error };
}

function readConf(read: (p: string) => ProcRead, name: string): ConfValues {
  const out = {} as ConfValues;
  for (const k of CONF_KEYS) out[k] = read(`${CONF_DIR}/${name}/${k}`);
  return out;
}

/** Run a command and turn its stdout into data; every failure is kept, never thrown. */
function capture<T>(runner: Runner, spec: CommandSpec, parse: (stdout: string) => T): Captured<T> {
  const base = { argv: [...spec.argv], record: spec.record };
  const r = runner.run(spec);
  if (!r.ok) return { ...base, from: r.from, ok: false, error: r.error, missing: r.missing };
  try {
    return { ...base, from: r.from, ok: true, data: parse(r.stdout) };
  } catch (e) {
    return { ...base, from: r.from, ok: false, error: clip(`cannot parse the output of ${spec.argv.join(' ')}: ${(e as Error).message}`, BOUNDS.sysfsValue), missing: false };
  }
}

/** The fields of iproute2's objects that ncclx reads, with the bounds a snapshot holds them to (src/model/snapshot/schema.ts). */
const ROUTE: Shape = {
  optional: {
    dst: str(128),
    table: str(64),
    type: str(64),
    dev: ifname,
    gateway: str(64),
    prefsrc: str(64),
    metric: u32,
    nexthops: (v) => Array.isArray(v) && v.length <= 1024 && v.every((n) => shapeProblem(n, { optional: { gateway: str(64), dev: ifname } }) === null),
  },
};
const RULE: Shape = { optional: { priority: u32, src: str(64), srclen: int(0, 128), table: str(64), action: str(64), not: bool } };
const QDISC: Shape = { required: { kind: str(64), dev: ifname }, optional: { handle: str(64), root: bool, parent: str(64) } };

function jsonArray<T>(stdout: string, max: number, what: string, shape: Shape): T[] {
  // iproute2 prints nothing at all (not "[]") for some empty dumps.
  if (stdout.trim() === '') return [];
  return checkedArray<T>(JSON.parse(stdout) as unknown, max, what, shape);
}

/** Keep the rules that set DSCP; count the rest (see NftSummary). */
export function summariseNft(stdout: string): NftSummary {
  const doc = JSON.parse(stdout) as { nftables?: unknown };
  if (!doc || !Array.isArray(doc.nftables)) throw new Error('expected {"nftables": [...]}');
  const hooks = new Map<string, string>();
  const summary: NftSummary = { tables: 0, chains: 0, rules: 0, dscpRules: [], xtRules: 0 };
  const items = doc.nftables as Record<string, Record<string, unknown>>[];
  for (const item of items) {
    if (item['table']) summary.tables++;
    const chain = item['chain'];
    if (chain) {
      summary.chains++;
      if (typeof chain['hook'] === 'string' && chain['hook'].length <= 64) hooks.set(`${chain['family']} ${chain['table']} ${chain['name']}`, chain['hook']);
    }
  }
  for (const item of items) {
    const rule = item['rule'];
    if (!rule) continue;
    summary.rules++;
    const expr = Array.isArray(rule['expr']) ? (rule['expr'] as Record<string, unknown>[]) : [];
    if (expr.some((e) => e && typeof e === 'object' && 'xt' in e)) summary.xtRules++;
    if (!expr.some(isDscpMangle)) continue;
    const family = String(rule['family']).slice(0, 64);
    const table = String(rule['table']).slice(0, 256);
    const chainName = String(rule['chain']).slice(0, 256);
    const dscp: NftDscpRule = {
      family,
      table,
      chain: chainName,
      handle: typeof rule['handle'] === 'number' && Number.isSafeInteger(rule['handle']) && rule['handle'] >= 0 ? rule['handle'] : null,
      hook: hooks.get(`${family} ${table} ${chainName}`) ?? null,
      expr,
    };
    if (summary.dscpRules.length >= BOUNDS.rules) throw new Error(`more than ${BOUNDS.rules} DSCP marking rules, more than a snapshot holds (docs/snapshot.md "Limits")`);
    if (expr.length > BOUNDS.nftExprs || depthOf(expr) > BOUNDS.depth / 2) throw new Error(`rule ${dscp.handle ?? '?'} in ${family} ${table} ${chainName}: more than ${BOUNDS.nftExprs} expressions (NFT_RULE_MAXEXPRS) or nested too deep`);
    summary.dscpRules.push(dscp);
  }
  return summary;
}

function isDscpMangle(e: unknown): boolean {
  if (!e || typeof e !== 'object') return false;
  const m = (e as { mangle?: { key?: { payload?: { field?: unknown } } } }).mangle;
  return m?.key?.payload?.field === 'dscp';
}

/** Every MASTER_ADDR / NCCL_COMM_ID value the node carries: environment first, then conf files. */
function targetValues(env: EnvPart): { variable: RouteTarget['variable']; value: string; source: string }[] {
  const out: { variable: RouteTarget['variable']; value: string; source: string }[] = [];
  for (const variable of ['NCCL_COMM_ID', 'MASTER_ADDR'] as const) {
    const v = env.process[variable];
    if (v !== undefined && v !== '') out.push({ variable, value: v, source: 'environment' });
    for (const f of env.confFiles) {
      for (const line of (f.content ?? '').split('\n')) {
        if (!line.startsWith(`${variable}=`)) continue;
        const value = line.slice(variable.length + 1).replace(/\r$/, '');
        if (value !== '') out.push({ variable, value, source: f.path });
      }
    }
  }
  // NCCL reads one value of each; a conf file with thousands of such lines still asks the kernel a bounded number of times.
  return out.slice(0, BOUNDS.resolutions);
}

/**
 * The host part as NCCL (NCCL_COMM_ID: `[v6%if]:port` or text before the
 * first ':' or ',') or PyTorch (MASTER_ADDR: the whole value) reads it.
 */
export function targetHost(variable: RouteTarget['variable'], value: string): string {
  if (value.startsWith('[')) {
    const end = value.indexOf(']');
    return (end < 0 ? value.slice(1) : value.slice(1, end)).split('%')[0]!;
  }
  if (variable === 'MASTER_ADDR') return value.trim();
  return value.split(/[:,]/)[0]!;
}

function resolveTarget(host: string, resolutions: Record<string, HostResolution>): { address: string | null; unresolved: string | null } {
  if (host === '') return { address: null, unresolved: 'no host in the value' };
  if (parseIPv4(host) || parseIPv6(host)) return { address: host, unresolved: null };
  const r = resolutions[host];
  if (!r) return { address: null, unresolved: `host name '${host}' was not resolved when the node was read` };
  if (r.error || r.addresses.length === 0) return { address: null, unresolved: `host name '${host}' does not resolve (${r.error ?? 'no addresses'})` };
  // NCCL and PyTorch both connect to the resolver's first answer.
  return { address: r.addresses[0]!.address.split('%')[0]!, unresolved: null };
}

export function probeKernel(root: Root, runner: Runner, input: KernelProbeInput): KernelPart {
  const sysctls = input.sysctls;
  const read = sysctls ? (p: string): ProcRead => sysctls.get(p)?.replace(/\n$/, '') ?? { error: sysctls.size ? 'ENOENT' : 'not read (its network namespace could not be entered)' } : (p: string) => proc(root, p);
  const conf: Record<string, ConfValues> = {};
  for (const name of ['all', 'default', ...input.network.links.map((l) => l.name)]) {
    if (!conf[name]) conf[name] = readConf(read, name);
  }
  const asked = new Map<string, Captured<IpRouteJson[]>>();
  const routeTargets: RouteTarget[] = targetValues(input.env).map((t) => {
    const host = targetHost(t.variable, t.value);
    const { address, unresolved } = resolveTarget(host, input.resolutions);
    let route: Captured<IpRouteJson[]> | null = null;
    if (address) {
      // The same address asked twice (env and conf file) is one command.
      route = asked.get(address) ?? capture(runner, routeGetCommand(address), (s) => jsonArray<IpRouteJson>(s, 64, 'routes', ROUTE));
      asked.set(address, route);
    }
    return { ...t, host, address, unresolved, route };
  });
  return {
    conf,
    localPortRange: read('/proc/sys/net/ipv4/ip_local_port_range'),
    rules: capture(runner, KERNEL_COMMANDS.rules, (s) => jsonArray<IpRuleJson>(s, BOUNDS.rules, 'rules', RULE)),
    routes: routesOrProc(root, capture(runner, KERNEL_COMMANDS.routes, (s) => jsonArray<IpRouteJson>(s, BOUNDS.routes, 'routes', ROUTE)), input.procNet ?? '/proc/net'),
    routeTargets,
    qdiscs: capture(runner, KERNEL_COMMANDS.qdiscs, (s) => jsonArray<TcQdiscJson>(s, BOUNDS.qdiscs, 'qdiscs', QDISC)),
    nft: capture(runner, KERNEL_COMMANDS.nft, summariseNft),
    iptablesMangle: capture(runner, KERNEL_COMMANDS.iptablesMangle, (s) => s),
    ip6tablesMangle: capture(runner, KERNEL_COMMANDS.ip6tablesMangle, (s) => s),
  };
}
