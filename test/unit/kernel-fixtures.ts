// Builders for the kernel and RDMA parts of unit-test snapshots (ARP, QoS and
// routing checks). Values follow what the real tools print: iproute2 JSON as
// `ip -j` emits it, iptables-save text, nft JSON.

import { checkById } from '../../src/checks/registry.js';
import { tempDir } from '../helpers/tmp.js';
import { makeContext } from '../../src/model/doctor/context.js';
import { runCheck } from '../../src/checks/run.js';
import type { CheckContext } from '../../src/model/doctor/types.js';
import type { CheckResult } from '../../src/model/result/types.js';
import { formatIPv4, maskBytes, parseIPv4 } from '../../src/model/linux/ip.js';
import {
  CONF_KEYS,
  type Captured,
  type ConfKey,
  type ConfValues,
  type IpRouteJson,
  type IpRuleJson,
  type KernelPart,
  type NftDscpRule,
  type NftSummary,
  type ProcRead,
  type RouteTarget,
  type TcQdiscJson,
} from '../../src/model/snapshot/kernel-types.js';
import type { RdmaPart } from '../../src/model/snapshot/rdma-types.js';
import { probeRdma } from '../../src/probe/rdma.js';
import { Root } from '../../src/probe/root.js';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { NodeSnapshot } from '../../src/model/snapshot/types.js';

export const ok = <T>(argv: string[], record: string, data: T): Captured<T> => ({ argv, record, from: 'live', ok: true, data });
export const failed = <T>(argv: string[], record: string, error: string, missing = false): Captured<T> => ({ argv, record, from: 'live', ok: false, error, missing });

export const DEFAULT_RULES: IpRuleJson[] = [
  { priority: 0, src: 'all', table: 'local' },
  { priority: 32766, src: 'all', table: 'main' },
  { priority: 32767, src: 'all', table: 'default' },
];

function network(addr: string, len: number): string {
  const b = parseIPv4(addr)!;
  const m = maskBytes(len, 4);
  return `${formatIPv4(b.map((x, i) => x & m[i]!))}/${len}`;
}

/** The connected routes the kernel creates for every IPv4 address, in address order (main table). */
export function connectedRoutes(snap: NodeSnapshot): IpRouteJson[] {
  return snap.network.addresses
    .filter((a) => a.family === 'AF_INET' && !a.address.startsWith('127.'))
    .map((a) => ({ dst: network(a.address, a.prefixlen), dev: a.link, protocol: 'kernel', scope: 'link', prefsrc: a.address, flags: [] }));
}

export interface KernelSpec {
  /** Per name (all, default, links): values; unlisted names and keys read 0. */
  conf?: Record<string, Partial<Record<ConfKey, number | { error: string }>>>;
  rules?: IpRuleJson[] | Captured<IpRuleJson[]>;
  /** Extra routes appended to the connected ones. */
  routes?: IpRouteJson[] | Captured<IpRouteJson[]>;
  routeTargets?: RouteTarget[];
  qdiscs?: TcQdiscJson[] | Captured<TcQdiscJson[]>;
  nftRules?: NftDscpRule[];
  nft?: Captured<NftSummary>;
  xtRules?: number;
  iptables?: string | Captured<string>;
  ip6tables?: string | Captured<string>;
  localPortRange?: ProcRead;
}

const isCaptured = <T>(v: unknown): v is Captured<T> => !!v && typeof v === 'object' && 'ok' in (v as object) && 'argv' in (v as object);

export function kernelPart(snap: NodeSnapshot, spec: KernelSpec = {}): KernelPart {
  const conf: Record<string, ConfValues> = {};
  for (const name of ['all', 'default', ...snap.network.links.map((l) => l.name), ...Object.keys(spec.conf ?? {})]) {
    const given = spec.conf?.[name] ?? {};
    const values = {} as ConfValues;
    for (const k of CONF_KEYS) {
      const v = given[k];
      values[k] = v === undefined ? '0' : typeof v === 'number' ? String(v) : v;
    }
    conf[name] = values;
  }
  const routes = isCaptured<IpRouteJson[]>(spec.routes) ? spec.routes : ok(['ip', '-j', 'route', 'show', 'table', 'all'], 'ip-route-all.json', [...connectedRoutes(snap), ...((spec.routes as IpRouteJson[] | undefined) ?? [])]);
  const wrap = <T>(v: T | Captured<T> | undefined, argv: string[], record: string, dflt: T): Captured<T> => (isCaptured<T>(v) ? v : ok(argv, record, v ?? dflt));
  return {
    conf,
    localPortRange: spec.localPortRange ?? '32768\t60999',
    rules: wrap(spec.rules, ['ip', '-j', 'rule', 'show'], 'ip-rule.json', DEFAULT_RULES),
    routes,
    routeTargets: spec.routeTargets ?? [],
    qdiscs: wrap(spec.qdiscs, ['tc', '-j', 'qdisc', 'show'], 'tc-qdisc.json', snap.network.links.map((l) => ({ kind: 'noqueue', handle: '0:', dev: l.name, root: true, options: {} }))),
    nft: spec.nft ?? ok(['nft', '-j', 'list', 'ruleset'], 'nft-ruleset.json', { tables: 0, chains: 0, rules: spec.nftRules?.length ?? 0, dscpRules: spec.nftRules ?? [], xtRules: spec.xtRules ?? 0 }),
    iptablesMangle: wrap(spec.iptables, ['iptables-save', '-t', 'mangle'], 'iptables-save-mangle.txt', ''),
    ip6tablesMangle: wrap(spec.ip6tables, ['ip6tables-save', '-t', 'mangle'], 'ip6tables-save-mangle.txt', ''),
  };
}

export interface PortSpec {
  dev: string;
  port?: number;
  /** The netdev named by the port's GID entries (RoCE); omit for a port without GIDs. */
  netdev?: string;
  linkLayer?: string;
}


function put(root: string, p: string, text: string): void {
  mkdirSync(dirname(join(root, p)), { recursive: true });
  writeFileSync(join(root, p), text);
}

/**
 * An RDMA part read by the real RDMA probe from a small sysfs tree, so these
 * tests follow that part's shape as it evolves: each port's GID entries name
 * the given netdev (the kernel's port → netdev mapping); `pciNetdevs` go under
 * <dev>/device/net; `netdevFacts` write /sys/class/net/<name>/dev_port, dev_id.
 */
export function rdmaPart(ports: PortSpec[], netdevFacts: Record<string, { devPort?: string; devId?: string }> = {}, pciNetdevs: Record<string, string[]> = {}): RdmaPart {
  // Removed after the test file (a process 'exit' hook never runs in vitest's workers).
  const root = tempDir('ncclx-rdma-fixture-');
  mkdirSync(join(root, 'sys/class/infiniband'), { recursive: true });
  for (const p of ports) {
    const base = `sys/class/infiniband/${p.dev}/ports/${p.port ?? 1}`;
    put(root, `${base}/state`, '4: ACTIVE\n');
    put(root, `${base}/phys_state`, '5: LinkUp\n');
    put(root, `${base}/link_layer`, `${p.linkLayer ?? 'Ethernet'}\n`);
    put(root, `${base}/rate`, '400 Gb/sec (4X NDR)\n');
    put(root, `${base}/lid`, '0x0\n');
    mkdirSync(join(root, base, 'gids'), { recursive: true });
    if (!p.netdev) continue;
    for (const [i, type] of [['0', 'IB/RoCE v1'], ['1', 'RoCE v2']] as const) {
      put(root, `${base}/gids/${i}`, 'fe80:0000:0000:0000:0000:0000:0000:0001\n');
      put(root, `${base}/gid_attrs/types/${i}`, `${type}\n`);
      put(root, `${base}/gid_attrs/ndevs/${i}`, `${p.netdev}\n`);
    }
  }
  for (const [dev, names] of Object.entries(pciNetdevs)) for (const n of names) mkdirSync(join(root, `sys/class/infiniband/${dev}/device/net/${n}`), { recursive: true });
  for (const [name, f] of Object.entries(netdevFacts)) {
    mkdirSync(join(root, `sys/class/net/${name}`), { recursive: true });
    if (f.devPort !== undefined) put(root, `sys/class/net/${name}/dev_port`, `${f.devPort}\n`);
    if (f.devId !== undefined) put(root, `sys/class/net/${name}/dev_id`, `${f.devId}\n`);
  }
  return probeRdma(new Root(root));
}

export const NO_RDMA: RdmaPart = rdmaPart([]);

export function withParts(snap: NodeSnapshot, parts: { rdma?: RdmaPart | null; kernel?: KernelSpec | null }): NodeSnapshot {
  const out: NodeSnapshot = { ...snap };
  if (parts.rdma !== null) out.rdma = parts.rdma ?? NO_RDMA;
  if (parts.kernel !== null) out.kernel = kernelPart(snap, parts.kernel ?? {});
  return out;
}

const OPTS = { uplinkRegex: /^eth[0-9]+$/, include: [] as string[] };

export function ctxFor(snap: NodeSnapshot, version = '2.28.3'): CheckContext {
  return makeContext(snap, { ncclVersion: version }, { ...OPTS, ncclVersion: version });
}

export function check(ctx: CheckContext, id: string): CheckResult[] {
  const c = checkById(id);
  if (!c) throw new Error(`no check ${id}`);
  return runCheck(c, ctx);
}

/** severity + summary pairs, for compact expectations. */
export const brief = (rs: CheckResult[]) => rs.map((r) => [r.severity, r.summary] as const);
export const severities = (rs: CheckResult[]) => rs.map((r) => r.severity);
