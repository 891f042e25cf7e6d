// Read a node into a NodeSnapshot. The only place (with src/fix) that
// touches the system; everything downstream is pure.

import { lookup } from 'node:dns/promises';
import { toolVersion } from './tool-version.js';
import { isCanonicalIPv4 } from '../model/linux/ip.js';
import type { MappedNccl } from '../model/snapshot/process-types.js';
import { SNAPSHOT_SCHEMA_VERSION, type HostResolution, type LibraryCandidate, type NcclLibraryPart, type NodeSnapshot, type ProbeWarning, type ReaderPart } from '../model/snapshot/types.js';
import { probeEnv } from './env.js';
import { fullHost, quickHost } from './host.js';
import { probeNetwork } from './links.js';
import { probeNcclLibrary } from './nccl-lib.js';
import { SNAPSHOT_LIMITS } from '../model/snapshot/limits.js';
import { probeNetPlugins } from './net-plugin.js';
import { Root } from './root.js';
import { runnerFor, which, type Runner } from './runner.js';

export interface ProbeOptions {
  root?: string;
  /** --python: the job's interpreter (src/probe/python.ts). */
  python?: string;
  /** --pid: read that process's view (src/probe/process.ts). */
  pid?: number;
  env?: NodeJS.ProcessEnv;
  /** Use systeminformation for host facts (slower; `ncclx snapshot`). */
  fullHost?: boolean;
  runner?: Runner;
  /** Extra values that may need name resolution (e.g. --comm-id). */
  extraHosts?: string[];
  /**
   * Read the kernel part (sysctls, ip rule/route, tc, nft, iptables; about
   * eight commands). Default true; `explain` does not need it and can pass
   * false to stay fast.
   */
  kernel?: boolean;
  /** Read /sys/class/infiniband (every GID table). Default true; commands that do not look at RDMA can pass false. */
  rdma?: boolean | 'ports';
  /**
   * With the PCI part (rdma true): also read the PCI topology (switch chains,
   * link widths, NUMA, NCCL_TOPO_FILE) and run `nvidia-smi topo -m` for the
   * NVLinks. Default true; commands that show no topology pass false, so they
   * do not pay for nvidia-smi (slow on a GPU node).
   */
  topology?: boolean;
  /**
   * Called before each part is read, with what is being read (for a progress
   * display). When given, the probe also yields to the event loop after each
   * call so the display can draw; without it nothing changes.
   */
  onStep?: (what: string) => void;
}

/** The host part of NCCL_COMM_ID / MASTER_ADDR-like values that getaddrinfo would resolve. */
export function hostsToResolve(values: (string | undefined)[]): string[] {
  const hosts = new Set<string>();
  for (const v of values) {
    if (!v || v.startsWith('[')) continue;
    const host = v.split(/[:,]/)[0]!;
    // Anything but plain dotted decimal goes to the resolver, exactly as NCCL's getaddrinfo call would.
    if (host && !isCanonicalIPv4(host)) hosts.add(host);
  }
  // As many names as a snapshot holds (src/model/snapshot/limits.ts): conf files can repeat the variable.
  return [...hosts].slice(0, SNAPSHOT_LIMITS.resolutions);
}

export async function resolveHosts(hosts: string[]): Promise<Record<string, HostResolution>> {
  const out: Record<string, HostResolution> = {};
  await Promise.all(
    hosts.map(async (h) => {
      try {
        const r = await lookup(h, { all: true, verbatim: true });
        out[h] = { addresses: r.map((a) => ({ address: a.address, family: a.family === 6 ? 'AF_INET6' : 'AF_INET' })), error: null };
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code ?? 'EAI_FAIL';
        const text = code === 'ENOTFOUND' ? 'Name or service not known' : code === 'EAI_AGAIN' ? 'Temporary failure in name resolution' : code;
        out[h] = { addresses: [], error: text };
      }
    }),
  );
  return out;
}

export async function probeNode(opts: ProbeOptions = {}): Promise<NodeSnapshot> {
  // --pid: the process's view. Its files (conf, Python, libraries) are read through its root; /sys, RDMA
  // and PCI are the node's (a container sees the host's devices); its network namespace is read inside it.
  const procMod = opts.pid !== undefined ? await import('./process.js') : null;
  const opened = procMod ? procMod.openProcess(opts.pid!) : null;
  const root = new Root(opts.root ?? '/');
  const jobRoot = opened ? opened.root : root;
  const env = opened ? opened.env : (opts.env ?? process.env);
  let runner = opts.runner ?? runnerFor(root);
  const warnings: ProbeWarning[] = [];
  const onStep = opts.onStep;
  const step = onStep
    ? async (what: string) => {
        onStep(what);
        await new Promise<void>((r) => setImmediate(r));
      }
    : async () => {};
  await step('links and addresses');
  let network;
  let nsFacts: { procNet?: string; sysctls?: Map<string, string> | null; from: string } | null = null;
  if (opened && procMod) {
    const ns = procMod.readNamespace(opened.pid, opened.view.sameNetns, warnings);
    runner = ns.runner;
    nsFacts = { procNet: ns.procNet, sysctls: ns.sysctls, from: ns.from };
    network = ns.network ?? probeNetwork(root, runner, warnings);
  } else {
    network = probeNetwork(root, runner, warnings);
  }
  await step('NCCL environment and conf files');
  const envPart = probeEnv(jobRoot, env, opened ? { uid: opened.uid, warnings } : { warnings });
  await step('NCCL library');
  const ncclLibrary = probeNcclLibrary(jobRoot, runner, env, { python: opts.python });
  if (opened?.mapped) addMapped(ncclLibrary, opened.pid, opened.mapped, procMod!.mappedNotes(opened.mapped));
  const netPlugins = probeNetPlugins(jobRoot, env, confValues(envPart.confFiles, 'NCCL_NET_PLUGIN'), ncclLibrary, opened?.netPlugin ?? null);
  const host = opts.fullHost ? await fullHost(root, warnings) : quickHost(root, warnings);
  // The job's host name is its UTS namespace's; its runtime writes it to the container's /etc/hostname.
  if (opened?.view.ownRoot) host.hostname = jobRoot.readTrim('/etc/hostname') ?? host.hostname;
  const hosts = hostsToResolve([envPart.process['NCCL_COMM_ID'], envPart.process['MASTER_ADDR'], ...(opts.extraHosts ?? []), ...confValues(envPart.confFiles, 'NCCL_COMM_ID')]);
  // Resolution is meaningful only on the node itself (and, for a containerised process, with its resolver).
  if (root.isLive && hosts.length) await step(`resolving ${hosts.join(', ')}`);
  const inProcess = opened && procMod && hosts.length ? procMod.resolveInProcess(opened.pid, hosts, !opened.view.ownRoot && opened.view.sameNetns) : null;
  const resolutions = inProcess ?? (root.isLive && hosts.length ? await resolveHosts(hosts) : {});
  // Loaded on demand: explain needs neither the RDMA nor the kernel part, and must start fast.
  if (opts.rdma !== false) await step('RDMA devices, ports and GID tables');
  const rdma = opts.rdma === false ? undefined : (await import('./rdma.js')).probeRdma(root, { gids: opts.rdma !== 'ports', warnings });
  if (rdma && opened) {
    // What the process itself gets: its /dev, its locked-memory limit, its container.
    rdma.devInfiniband = { known: jobRoot.isDir('/dev'), present: jobRoot.isDir('/dev/infiniband'), entries: jobRoot.list('/dev/infiniband') };
    const limits = root.readTrim(`/proc/${opened.pid}/limits`);
    const m = limits ? /^Max locked memory\s+(\S+)\s+(\S+)/m.exec(limits) : null;
    rdma.memlock = m ? { soft: m[1]!, hard: m[2]!, error: null } : { soft: null, hard: null, error: `/proc/${opened.pid}/limits unreadable` };
    rdma.container = { detected: opened.container.kind === 'container', evidence: opened.container.kind === 'container' ? [`process ${opened.pid}: ${[opened.container.otherMountNs && 'another mount namespace', opened.container.otherNetNs && 'another network namespace', opened.container.ownRoot && 'its own root'].filter(Boolean).join(', ')}`] : [] };
  }
  if (opts.rdma === true || opts.rdma === undefined) await step('PCI devices');
  const pci = opts.rdma === true || opts.rdma === undefined ? (await import('./pci.js')).probePci(root, warnings) : undefined;
  if (pci && opts.topology !== false) {
    const topoFilePaths = [envPart.process['NCCL_TOPO_FILE'], ...confValues(envPart.confFiles, 'NCCL_TOPO_FILE')].filter((p): p is string => !!p);
    pci.topology = (await import('./topology.js')).probeTopology(root, pci.gpus.map((g) => g.bdf), rdma, opened ? runnerFor(root) : runner, topoFilePaths, network.links.map((l) => l.device).filter((d): d is string => !!d), warnings);
  }
  if (opts.kernel !== false) await step('sysctls, routes, qdiscs and firewall rules');
  const kernel = opts.kernel === false ? undefined : (await import('./kernel.js')).probeKernel(root, runner, { network, env: envPart, resolutions, ...(nsFacts ? { procNet: nsFacts.procNet, sysctls: nsFacts.sysctls } : {}) });
  return {
    schemaVersion: SNAPSHOT_SCHEMA_VERSION,
    tool: { name: 'ncclx', version: toolVersion() },
    capturedAt: new Date().toISOString(),
    root: root.dir,
    host,
    network,
    env: envPart,
    resolutions,
    ncclLibrary,
    warnings: warnings.slice(0, SNAPSHOT_LIMITS.warnings),
    netPlugins,
    ...(root.isLive ? { reader: readerOf() } : {}),
    ...(opened && nsFacts ? { process: { ...opened.view, networkFrom: nsFacts.from } } : {}),
    ...(rdma ? { rdma } : {}),
    ...(kernel ? { kernel } : {}),
    // PCI functions matter with RDMA (topology checks), so they ride on the same switch.
    ...(pci ? { pci } : {}),
  };
}

/** The library the process has mapped goes first: it is the one running. */
function addMapped(part: NcclLibraryPart, pid: number, m: MappedNccl, notes: string[]): void {
  const note = [`/proc/${pid}/maps${m.readThrough ? `; read through ${m.readThrough}` : ''}`, ...notes].join('; ');
  const same = part.candidates.find((c) => c.path === m.path);
  if (same) {
    same.loadedBy = ['process', ...(same.loadedBy ?? [])];
    same.loadNotes = [note, ...(same.loadNotes ?? [])];
    part.candidates.splice(part.candidates.indexOf(same), 1);
  }
  const c: LibraryCandidate = same ?? { path: m.path, version: null, via: `mapped by process ${pid}`, loadedBy: ['process'], loadNotes: [note], ...(m.static ? { static: true } : {}) };
  if (m.version) Object.assign(c, { version: m.version, versionFrom: 'binary', versionText: m.versionText });
  else if (!same) part.notes = [...(part.notes ?? []), `the version of ${m.path}, mapped by process ${pid}, could not be read (${m.error})`];
  part.candidates.unshift(c);
}

/** Who reads the node and which tools it has (for what an unknown result asks). */
function readerOf(): ReaderPart {
  const tools: Record<string, boolean> = {};
  for (const t of ['ip', 'tc', 'nft', 'iptables-save', 'ip6tables-save', 'nsenter']) tools[t] = which(t) !== null;
  return { uid: typeof process.getuid === 'function' ? process.getuid() : null, tools };
}

function confValues(files: { content: string | null }[], name: string): string[] {
  const out: string[] = [];
  for (const f of files) {
    for (const line of (f.content ?? '').split('\n')) {
      if (line.startsWith(`${name}=`)) out.push(line.slice(name.length + 1).replace(/\r$/, ''));
    }
  }
  return out;
}
