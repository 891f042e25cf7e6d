// Flags several commands share, parsed in one place: where the node's data
// comes from (--snapshot, --root), the NCCL version, and the RDMA candidate
// rule (--uplink-regex, --include). A bad value is a UserError (exit 2).

import type { Command } from 'commander';
import { UserError } from '../model/errors.js';
import type { CandidateOptions } from '../model/linux/candidates.js';
import type { NodeSnapshot } from '../model/snapshot/types.js';
import { hostsToResolve, probeNode } from '../probe/index.js';

export interface SourceOptions {
  snapshot?: string;
  root?: string;
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
  if (opts.snapshot) {
    // zod is loaded only for snapshot files.
    const { loadSnapshot } = await import('../probe/snapshot-file.js');
    return loadSnapshot(opts.snapshot);
  }
  return probeNode({ root: opts.root, extraHosts: hostsToResolve(r.extraHosts ?? []), kernel: r.kernel ?? false, rdma: r.rdma ?? false, topology: r.topology ?? false, onStep: r.onStep });
}

/** Where the data came from, for the TUI and fix plans. */
export function sourceOf(opts: SourceOptions): { kind: 'live' } | { kind: 'snapshot'; path: string } | { kind: 'root'; path: string } {
  return opts.snapshot ? { kind: 'snapshot', path: opts.snapshot } : opts.root ? { kind: 'root', path: opts.root } : { kind: 'live' };
}
