// A running process as NCCL inside it sees the node: its environment
// (/proc/PID/environ), its files (/proc/PID/root, resolved as a chroot), the
// NCCL it has mapped (/proc/PID/maps; read through /proc/PID/map_files, the
// very inode mapped, or its root), its network namespace and its TCP sockets.
//
// The namespace's links and addresses are read with iproute2 run inside it
// (`nsenter --net=/proc/PID/ns/net ip -j -d addr show`: the same netlink
// dump getifaddrs() makes, so NCCL's order is kept), as root. When that is
// not possible (not root, no nsenter or no ip on the host), they come from
// /proc/PID/net and the process's own sysfs (src/probe/proc-net.ts), whose
// limits the report states. A process in ncclx's own namespace is read as
// the node is.
//
// Nothing here writes anything, signals a process or enters its mount
// namespace: nsenter enters the network namespace only, to run ip, tc, nft,
// iptables-save and getent as argument arrays.

import { readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { UserError } from '../model/errors.js';
import { isRelevantVar } from '../model/nccl/conf.js';
import type { MappedNccl, ProcessContainer, TcpSocket } from '../model/snapshot/process-types.js';
import type { AddressInfo, HostResolution, NetworkPart, ProbeWarning, ProcessView } from '../model/snapshot/types.js';
import { IP_ADDR_COMMAND, parseIpAddrJson, sysfsOfThisNamespace, withSysfsFacts } from './links.js';
import { findLibrary, readLdCache, type SearchContext } from './loader.js';
import { scanNcclVersion } from './nccl-binary.js';
import { networkFromProc, parseProcNetDev } from './proc-net.js';
import { parseProcTcp, socketInode } from './proc-tcp.js';
import { LIMITS } from './read-bounded.js';
import { Root } from './root.js';
import { liveRunner, which, type CommandResult, type CommandSpec, type Runner } from './runner.js';

const NCCL_LIB = /^libnccl\.so(?:\.\d+)*$/;

/** The variables `ncclx ps` shows: NCCL's, PyTorch's rendezvous and ranks, launchers', the loader's. */
export function psRelevantVar(name: string): boolean {
  return (
    isRelevantVar(name) ||
    /^(GLOO_|TORCHELASTIC_|OMPI_COMM_WORLD_|PMIX_RANK$|PMI_RANK$|SLURM_(PROCID|LOCALID|JOB_ID|NODEID|STEP_ID)$|FI_|UCX_)/.test(name) ||
    ['CUDA_VISIBLE_DEVICES', 'RANK', 'LOCAL_RANK', 'WORLD_SIZE', 'LOCAL_WORLD_SIZE', 'GROUP_RANK', 'NODE_RANK', 'LD_LIBRARY_PATH', 'LD_PRELOAD'].includes(name)
  );
}

const errno = (e: unknown) => (e as NodeJS.ErrnoException).code ?? String(e);

function link(p: string): string | null {
  try {
    return readlinkSync(p);
  } catch {
    return null;
  }
}

function text(p: string, limit = LIMITS.file): string | null {
  try {
    const buf = readFileSync(p);
    return buf.length > limit ? null : buf.toString('utf8');
  } catch {
    return null;
  }
}

/** ncclx's own namespaces and root, to tell a container from the host. */
export const SELF = {
  mnt: link('/proc/self/ns/mnt'),
  net: link('/proc/self/ns/net'),
};

/** /proc/PID/environ as a map; null with why when unreadable. */
export function readEnviron(pid: number): { env: Record<string, string>; error: string | null } {
  try {
    const buf = readFileSync(`/proc/${pid}/environ`);
    const env: Record<string, string> = {};
    for (const entry of buf.toString('utf8').split('\0')) {
      const eq = entry.indexOf('=');
      if (eq > 0) env[entry.slice(0, eq)] = entry.slice(eq + 1);
    }
    return { env, error: null };
  } catch (e) {
    return { env: {}, error: errno(e) };
  }
}

export function containerOf(pid: number): ProcessContainer {
  const mountNs = link(`/proc/${pid}/ns/mnt`);
  const netNs = link(`/proc/${pid}/ns/net`);
  const root = link(`/proc/${pid}/root`);
  const otherMountNs = mountNs !== null && SELF.mnt !== null && mountNs !== SELF.mnt;
  const otherNetNs = netNs !== null && SELF.net !== null && netNs !== SELF.net;
  const ownRoot = root !== null && root !== '/';
  const cg = text(`/proc/${pid}/cgroup`, 1 << 20)?.split('\n')[0]?.replace(/^[^:]*:[^:]*:/, '') ?? null;
  return { kind: otherMountNs || otherNetNs || ownRoot ? 'container' : 'host', mountNs, netNs, otherMountNs, otherNetNs, ownRoot, cgroup: cg || null };
}

interface MapsHit {
  start: string;
  end: string;
  path: string;
  deleted: boolean;
}

/** The NCCL libraries in a maps text: libnccl.so*, and libtorch_cuda.so (which may carry NCCL linked in). */
export function ncclMappings(maps: string): { nccl: MapsHit | null; ncclAll: MapsHit[]; torchCuda: MapsHit | null; netPlugin: MapsHit | null } {
  let nccl: MapsHit | null = null;
  let torchCuda: MapsHit | null = null;
  let netPlugin: MapsHit | null = null;
  const ncclAll: MapsHit[] = [];
  // A cheap test first: most processes map neither.
  if (!maps.includes('libnccl') && !maps.includes('libtorch_cuda')) return { nccl, ncclAll, torchCuda, netPlugin };
  for (const line of maps.split('\n')) {
    const slash = line.indexOf('/');
    if (slash < 0) continue;
    let path = line.slice(slash);
    const deleted = path.endsWith(' (deleted)');
    if (deleted) path = path.slice(0, -' (deleted)'.length);
    const base = path.slice(path.lastIndexOf('/') + 1);
    const range = line.slice(0, line.indexOf(' ')).split('-');
    const hit = { start: range[0]!, end: range[1]!, path, deleted };
    if (NCCL_LIB.test(base)) {
      nccl ??= hit;
      // One entry per file (a library maps several segments); at most 8 copies are told apart.
      if (!ncclAll.some((h) => h.path === path) && ncclAll.length < 8) ncclAll.push(hit);
    } else if (!torchCuda && base === 'libtorch_cuda.so') torchCuda = hit;
    else if (!netPlugin && /^libnccl-net.*\.so/.test(base)) netPlugin = hit;
  }
  return { nccl, ncclAll, torchCuda, netPlugin };
}

/**
 * Of several copies of libnccl mapped in one process, the one NCCL's callers
 * are bound to. The dynamic loader resolves symbols in load order, and an
 * LD_PRELOAD library comes right after the program: a copy named in the
 * process's LD_PRELOAD wins (a PyTorch job preloaded with the system's
 * libnccl runs that NCCL, though torch maps its wheel's too; seen on a real
 * node, test/device/h200-vm/README.md). Otherwise the first copy loaded wins,
 * which /proc/PID/maps (in address order) does not tell: the first mapped is
 * modelled, and the report says so. The maps hold each file's real path
 * (/usr/lib/x86_64-linux-gnu/libnccl.so.2.28.3 where LD_PRELOAD said
 * /lib/x86_64-linux-gnu/libnccl.so.2, on that node): `resolve` gives an
 * LD_PRELOAD entry's real path as the process sees it.
 */
export function boundCopy(hits: MapsHit[], env: Record<string, string> | null, resolve: (entry: string) => string | null = () => null): { hit: MapsHit; why: string | null } {
  if (hits.length < 2) return { hit: hits[0]!, why: null };
  const preload = (env?.['LD_PRELOAD'] ?? '').split(/[\s:]+/).filter(Boolean).slice(0, 16);
  const real = preload.flatMap((e) => [e, resolve(e)]).filter((p): p is string => p !== null);
  const named = hits.find((h) => real.includes(h.path));
  if (named) return { hit: named, why: `${hits.length} copies of libnccl mapped; this one is named in LD_PRELOAD, so the dynamic loader binds NCCL's symbols to it` };
  return { hit: hits[0]!, why: `${hits.length} copies of libnccl mapped and none named in LD_PRELOAD: the process runs the one it loaded first, which /proc/PID/maps does not show; modelled: the first in the maps` };
}

/** The version the mapped file states: through map_files (the inode mapped; root only), else the process's root. */
function readMapped(pid: number, hit: MapsHit, isStatic: boolean): MappedNccl {
  const tries = [`/proc/${pid}/map_files/${hit.start}-${hit.end}`, new Root(`/proc/${pid}/root`, { confined: true }).path(hit.path)];
  const errors: string[] = [];
  for (const p of tries) {
    const scan = scanNcclVersion(p);
    if (scan.found) return { path: hit.path, version: scan.found.version, versionText: scan.found.text, readThrough: p.includes('/map_files/') ? `/proc/${pid}/map_files` : `/proc/${pid}/root`, error: null, static: isStatic };
    errors.push(`${p.includes('/map_files/') ? 'map_files' : 'root'}: ${scan.why}`);
    if (/states no/.test(scan.why)) break;
  }
  return { path: hit.path, version: null, versionText: null, readThrough: null, error: errors.join('; '), static: isStatic };
}

/** The NCCL a process has mapped, or null when it maps none (a libtorch_cuda.so without NCCL in it is none). `env`: its environment, read only when several copies are mapped. */
export function mappedNccl(pid: number, maps: string, env: () => Record<string, string> | null = () => null): MappedNccl | null {
  const { nccl, ncclAll, torchCuda } = ncclMappings(maps);
  if (nccl && ncclAll.length > 1) {
    const e = env();
    const { hit, why } = boundCopy(ncclAll, e, preloadResolver(pid, e));
    const others = ncclAll.filter((h) => h !== hit).map((h) => ({ path: h.path, version: readMapped(pid, h, false).version }));
    return { ...readMapped(pid, hit, false), alsoMapped: others, ...(why ? { chosenBy: why } : {}) };
  }
  if (nccl) return readMapped(pid, nccl, false);
  if (torchCuda) {
    const m = readMapped(pid, torchCuda, true);
    return m.version ? m : null;
  }
  return null;
}

/** An LD_PRELOAD entry's real path as process PID sees it: a path through its root, a bare name as its ld.so finds it (its LD_LIBRARY_PATH, its ld.so.cache). */
function preloadResolver(pid: number, env: Record<string, string> | null): (entry: string) => string | null {
  const root = new Root(`/proc/${pid}/root`, { confined: true });
  let ctx: SearchContext | null = null;
  return (entry) => {
    if (entry.includes('/')) return root.realpath(entry);
    ctx ??= { root, ldLibraryPath: env?.['LD_LIBRARY_PATH'], cache: readLdCache(root) };
    const found = findLibrary(entry, ctx);
    return found ? root.realpath(found.path) : null;
  };
}

/** What a load note says of the other copies a process maps, and why this one. */
export function mappedNotes(m: MappedNccl): string[] {
  if (!m.alsoMapped?.length) return [];
  return [`${m.chosenBy ?? ''}; also mapped: ${m.alsoMapped.map((o) => `${o.path} (${o.version ?? 'version unknown'})`).join(', ')}`];
}

// ---------------------------------------------------------------------------
// The network namespace

/** A runner whose commands run in the process's network namespace (nsenter), for root. */
export function nsenterRunner(pid: number): Runner {
  const live = liveRunner();
  return {
    run(spec: CommandSpec): CommandResult {
      const r = live.run({ ...spec, argv: ['nsenter', `--net=/proc/${pid}/ns/net`, '--', ...spec.argv] });
      // nsenter itself present, the tool missing: say which.
      if (!r.ok && /exited 127|No such file or directory/.test(r.error) && !/nsenter: ENOENT/.test(r.error)) return { ok: false, error: `${spec.argv.join(' ')}: ENOENT (in the process's network namespace)`, missing: true, from: 'live' };
      return r;
    },
  };
}

export interface NamespaceReading {
  /** null: ncclx's own namespace, read as the node is. */
  network: NetworkPart | null;
  runner: Runner;
  /** How the links were read, for the report. */
  from: string;
  /** /proc/N/net of the namespace, for /proc fallbacks. */
  procNet: string;
  /** Sysctl values of that namespace (nsenter … grep), by path; null to read /proc/sys directly. */
  sysctls: Map<string, string> | null;
}

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

/** The process's namespace: its links and addresses, and a runner for its commands. */
export function readNamespace(pid: number, sameNetns: boolean, warnings: ProbeWarning[]): NamespaceReading {
  const procNet = `/proc/${pid}/net`;
  if (sameNetns) return { network: null, runner: liveRunner(), from: "ncclx's own network namespace", procNet: '/proc/net', sysctls: null };
  const canEnter = isRoot() && which('nsenter') !== null;
  if (canEnter) {
    const runner = nsenterRunner(pid);
    const r = runner.run(IP_ADDR_COMMAND);
    if (r.ok) {
      try {
        const part = withSysfsFacts(new Root(`/proc/${pid}/root`, { confined: true }), { ...parseIpAddrJson(r.stdout), source: 'iproute2' });
        return { network: part, runner, from: `nsenter --net=/proc/${pid}/ns/net ip -j -d addr show`, procNet, sysctls: namespaceSysctls(pid) };
      } catch (e) {
        warnings.push({ source: 'network', message: `cannot parse ip -j addr output in process ${pid}'s namespace: ${(e as Error).message}` });
      }
    } else {
      warnings.push({ source: 'network', message: r.error });
    }
  }
  const host = new Root('/');
  // The process's /sys shows its namespace's links when its runtime mounted one (as container runtimes do).
  const names = parseProcNetDev(host.readTrim(`${procNet}/dev`) ?? '');
  const procRoot = new Root(`/proc/${pid}/root`, { confined: true });
  const sysfsLinks = sysfsOfThisNamespace(procRoot, names);
  const net = networkFromProc({ root: host, procNet, sysfsLinks, ifaddrs: null });
  if (sysfsLinks) withSysfsFacts(procRoot, net.part);
  const why = canEnter ? 'iproute2 could not be run in its namespace' : isRoot() ? 'nsenter (util-linux) is not installed' : 'entering its network namespace needs root';
  warnings.push({ source: 'network', message: `process ${pid}: ${why}: links and addresses from ${procNet} and its /sys (${net.limits.join('; ')})` });
  return { network: net.part, runner: canEnter ? nsenterRunner(pid) : unavailableRunner(why), from: `${procNet} (${why})`, procNet, sysctls: canEnter ? namespaceSysctls(pid) : new Map() };
}

function unavailableRunner(why: string): Runner {
  return { run: (spec) => ({ ok: false, error: `${spec.argv.join(' ')}: not run (${why})`, missing: false, from: 'live' }) };
}

/** /proc/sys/net/ipv4 of the process's namespace (it is per reader's namespace): one `grep -r` inside it. */
function namespaceSysctls(pid: number): Map<string, string> {
  const r = nsenterRunner(pid).run({ argv: ['grep', '-r', '-H', '', '/proc/sys/net/ipv4/conf', '/proc/sys/net/ipv4/ip_local_port_range'], record: 'sysctls.txt' });
  const out = new Map<string, string>();
  if (!r.ok) return out;
  for (const line of r.stdout.split('\n')) {
    const i = line.indexOf(':');
    if (i > 0) out.set(line.slice(0, i), line.slice(i + 1));
  }
  return out;
}

// ---------------------------------------------------------------------------
// Sockets

/** The netns's TCP tables, read once per namespace. */
export class TcpTables {
  private readonly byNs = new Map<string, Map<number, TcpSocket>>();
  of(pid: number, netns: string | null): Map<number, TcpSocket> {
    const key = netns ?? `pid:${pid}`;
    let t = this.byNs.get(key);
    if (!t) {
      t = new Map([...parseProcTcp(text(`/proc/${pid}/net/tcp`) ?? '', false), ...parseProcTcp(text(`/proc/${pid}/net/tcp6`) ?? '', true)]);
      this.byNs.set(key, t);
    }
    return t;
  }
}

/** The TCP sockets the process holds (its fds), with the link of each local address. */
export function processSockets(pid: number, netns: string | null, tables: TcpTables, addresses: AddressInfo[]): { sockets: TcpSocket[]; error: string | null } {
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch (e) {
    return { sockets: [], error: `/proc/${pid}/fd: ${errno(e)}` };
  }
  const table = tables.of(pid, netns);
  const out: TcpSocket[] = [];
  for (const fd of fds) {
    const inode = socketInode(link(`/proc/${pid}/fd/${fd}`));
    const s = inode === null ? undefined : table.get(inode);
    if (s && !out.some((o) => o.inode === s.inode)) out.push({ ...s, interface: interfaceOf(s.local, addresses) });
  }
  return { sockets: out.sort((a, b) => a.inode - b.inode), error: null };
}

function interfaceOf(address: string, addresses: AddressInfo[]): string | null {
  if (address === '0.0.0.0' || address === '::') return '*';
  const plain = address.replace(/^::ffff:/, '');
  return addresses.find((a) => a.address === plain)?.link ?? null;
}

// ---------------------------------------------------------------------------
// --pid

export interface OpenedProcess {
  pid: number;
  env: Record<string, string>;
  uid: number | null;
  root: Root;
  container: ProcessContainer;
  mapped: MappedNccl | null;
  /** The net plugin library it has mapped (its path in its root), or null. */
  netPlugin: string | null;
  view: Omit<ProcessView, 'networkFrom'>;
}

/** Open a process for --pid, or a one-line UserError saying why not. */
export function openProcess(pid: number): OpenedProcess {
  try {
    statSync(`/proc/${pid}`);
  } catch {
    throw new UserError(`--pid ${pid}: no such process`);
  }
  const { env, error } = readEnviron(pid);
  if (error) {
    const how = error === 'EACCES' || error === 'EPERM' ? `permission denied: run ncclx as root, or as the process's owner` : error;
    throw new UserError(`--pid ${pid}: cannot read its environment (/proc/${pid}/environ: ${how})`);
  }
  const rootLink = link(`/proc/${pid}/root`);
  if (rootLink === null) throw new UserError(`--pid ${pid}: cannot read its root (/proc/${pid}/root: permission denied: run ncclx as root, or as the process's owner)`);
  const uid = Number(/^Uid:\s+\d+\s+(\d+)/m.exec(text(`/proc/${pid}/status`) ?? '')?.[1] ?? NaN);
  const container = containerOf(pid);
  const maps = text(`/proc/${pid}/maps`, 64 * 1024 * 1024) ?? '';
  const cmd = (text(`/proc/${pid}/cmdline`, 1 << 20) ?? '').split('\0').filter(Boolean).join(' ');
  return {
    pid,
    env,
    uid: Number.isFinite(uid) ? uid : null,
    root: new Root(`/proc/${pid}/root`, { confined: true }),
    container,
    mapped: mappedNccl(pid, maps, () => env),
    netPlugin: ncclMappings(maps).netPlugin?.path ?? null,
    view: { pid, command: cmd.length > 200 ? `${cmd.slice(0, 197)}...` : cmd || (text(`/proc/${pid}/comm`) ?? '').trim(), ownRoot: container.ownRoot, netns: container.netNs, sameNetns: !container.otherNetNs },
  };
}

/** Names resolved as the process would: getent in its mount and network namespaces (root), else here. */
export function resolveInProcess(pid: number, hosts: string[], sameView: boolean): Record<string, HostResolution> | null {
  if (sameView || !isRoot() || which('nsenter') === null) return null;
  const out: Record<string, HostResolution> = {};
  for (const h of hosts) {
    const r = liveRunner().run({ argv: ['nsenter', `--target=${pid}`, '--mount', '--net', '--', 'getent', 'ahosts', h], record: 'getent.txt' });
    if (!r.ok) {
      out[h] = { addresses: [], error: /exited 2/.test(r.error) ? 'Name or service not known' : r.error };
      continue;
    }
    // getent ahosts prints each address three times (STREAM, DGRAM, RAW): keep the STREAM lines, in order.
    const addrs = r.stdout.split('\n').filter((l) => /\sSTREAM\b/.test(l)).map((l) => l.split(/\s+/)[0]!);
    out[h] = { addresses: addrs.map((a) => ({ address: a, family: a.includes(':') ? 'AF_INET6' : 'AF_INET' })), error: null };
  }
  return out;
}
