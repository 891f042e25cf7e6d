// Flags several commands share, parsed in one place: where the node's data
// comes from (--snapshot, --root), the NCCL version, and the RDMA candidate
// rule (--uplink-regex, --include). A bad value is a UserError (exit 2).

import type { Command } from '../vendor/commander.js';
import { UserError } from '../model/errors.js';
import type { CandidateOptions } from '../model/linux/candidates.js';
import type { NodeSnapshot } from '../model/snapshot/types.js';
import { hostsToResolve, probeNode } from '../probe/index.js';

export interface SourceOptions {
  snapshot?: string;
  root?: string;
  /** --python PATH: the job's interpreter, whose torch and NCCL are modelled. */
  python?: string;
  /** --pid PID: reason about that process (its environment, NCCL, conf files and network namespace). */
  pid?: string;
}

export interface CandidateFlags {
  uplinkRegex: string;
  include?: string;
}

export const DEFAULT_UPLINK_REGEX = '^eth[0-9]+$';

export function addSourceOptions(cmd: Command): Command {
  return cmd
    .option('--snapshot <file>', "reason about another node's snapshot (from `ncclx snapshot`)")
    .option('--root <dir>', 'read files under DIR instead of / (a fixture or a container view)');
}

/** --python and --pid: model the job (its Python's NCCL, or a running process) rather than the node. */
export function addJobOptions(cmd: Command): Command {
  return cmd
    .option('--python <path>', "the job's Python interpreter: its torch's NCCL is modelled (default: python3 on PATH, VIRTUAL_ENV, CONDA_PREFIX)")
    .option('--pid <pid>', "reason about a running process: its environment, mapped NCCL, conf files (through /proc/PID/root) and network namespace");
}

export function addVersionOption(cmd: Command): Command {
  return cmd.option('--nccl-version <version>', 'NCCL version to model: X.Y[.Z] or ncclx-X.Y (default: detected on the node)');
}

export function addCandidateOptions(cmd: Command, what = 'the RDMA candidate set'): Command {
  return cmd
    .option('--uplink-regex <regex>', `netdevs that look like uplinks, left out of ${what}`, DEFAULT_UPLINK_REGEX)
    .option('--include <netdevs>', `netdevs always in ${what} (comma list)`);
}

/** A comma list, trimmed, empty items dropped; undefined stays undefined. */
export const list = (v?: string): string[] | undefined => v?.split(',').map((x) => x.trim()).filter(Boolean);

export function candidateOptions(o: CandidateFlags): CandidateOptions {
  let uplinkRegex: RegExp;
  try {
    uplinkRegex = new RegExp(o.uplinkRegex);
  } catch (e) {
    throw new UserError(`--uplink-regex: ${(e as Error).message}`);
  }
  return { uplinkRegex, include: list(o.include) ?? [] };
}

/** An integer flag within [lo, hi]; undefined when the flag was not given. */
export function intOption(name: string, v: string | undefined, lo: number, hi: number): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v.trim()) || Number(v) < lo || Number(v) > hi) throw new UserError(`${name}: expected an integer ${lo}-${hi}, got '${v}'`);
  return Number(v);
}

export interface ReadOptions {
  /** Values that may need name resolution (e.g. --comm-id). */
  extraHosts?: (string | undefined)[];
  /** Sysctls, routes, qdiscs and firewall rules: the doctor needs them, explain does not (it must stay fast). */
  kernel?: boolean;
  /** The RDMA devices and GID tables. */
  /** 'ports': devices and ports without GID tables (cheap). */
  rdma?: boolean | 'ports';
  /** With rdma true: the PCI topology and NVLinks (`nvidia-smi topo -m`), for the commands that judge or show it. */
  topology?: boolean;
  onStep?: (what: string) => void;
}

/** The node's data: a snapshot file, a tree under --root, or the live node. */
export async function readNode(opts: SourceOptions, r: ReadOptions = {}): Promise<NodeSnapshot> {
  if (opts.snapshot && opts.root) throw new UserError('--snapshot and --root cannot be used together');
  if (opts.snapshot && (opts.python !== undefined || opts.pid !== undefined)) throw new UserError(`--snapshot reasons about a node read earlier: --${opts.pid !== undefined ? 'pid' : 'python'} applies only to a node read now`);
  if (opts.pid !== undefined && opts.root) throw new UserError('--pid reads the process through /proc/PID/root: it cannot be combined with --root');
  if (opts.snapshot) {
    // zod is loaded only for snapshot files.
    const { loadSnapshot } = await import('../probe/snapshot-file.js');
    return loadSnapshot(opts.snapshot);
  }
  const pid = opts.pid === undefined ? undefined : pidOption(opts.pid);
  return probeNode({ root: opts.root, python: opts.python, pid, extraHosts: hostsToResolve(r.extraHosts ?? []), kernel: r.kernel ?? false, rdma: r.rdma ?? false, topology: r.topology ?? false, onStep: r.onStep });
}

/** A process id as the kernel allows one (1 … 2^22, PID_MAX_LIMIT). */
export function pidOption(v: string): number {
  if (!/^\d{1,7}$/.test(v.trim()) || Number(v) < 1 || Number(v) > 4_194_304) throw new UserError(`--pid: expected a process id (1-4194304), got '${v}'`);
  return Number(v);
}

/** Where the data came from, for the TUI and fix plans. */
export function sourceOf(opts: SourceOptions): { kind: 'live' } | { kind: 'snapshot'; path: string } | { kind: 'root'; path: string } {
  // A process's view is not the node fixes apply to: like a snapshot, nothing is applied to it.
  if (opts.pid !== undefined) return { kind: 'snapshot', path: `process ${opts.pid}` };
  return opts.snapshot ? { kind: 'snapshot', path: opts.snapshot } : opts.root ? { kind: 'root', path: opts.root } : { kind: 'live' };
}
