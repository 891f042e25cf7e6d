// A process on the node as `ncclx ps` shows it (src/probe/process.ts reads
// it; src/model/nccl/process.ts judges it). JSON schema: docs/ps-json.md.

import type { NodeSnapshot } from './types.js';

export type TcpState = 'ESTABLISHED' | 'SYN_SENT' | 'SYN_RECV' | 'FIN_WAIT1' | 'FIN_WAIT2' | 'TIME_WAIT' | 'CLOSE' | 'CLOSE_WAIT' | 'LAST_ACK' | 'LISTEN' | 'CLOSING';

export interface TcpSocket {
  family: 'AF_INET' | 'AF_INET6';
  local: string;
  localPort: number;
  remote: string;
  remotePort: number;
  state: TcpState;
  inode: number;
  /** The link holding the local address in the process's namespace; '*' for a wildcard listener; null when unknown. */
  interface: string | null;
}

export interface ProcessContainer {
  /** `host`: ncclx's own mount and network namespaces and root; `container` otherwise. */
  kind: 'host' | 'container';
  mountNs: string | null;
  netNs: string | null;
  otherMountNs: boolean;
  otherNetNs: boolean;
  /** /proc/PID/root is not ncclx's root. */
  ownRoot: boolean;
  /** The first cgroup path (/proc/PID/cgroup), where container runtimes name the container. */
  cgroup: string | null;
}

export interface MappedNccl {
  /** The path as the process sees it (in its own mount namespace). */
  path: string;
  version: string | null;
  /** NCCL's own version string, e.g. "NCCL version 2.28.9+cuda12.9". */
  versionText: string | null;
  /** How the file was read: /proc/PID/map_files (the very inode mapped) or /proc/PID/root + path. */
  readThrough: string | null;
  /** Why the version is unknown. */
  error: string | null;
  /** NCCL linked into this library (libtorch_cuda.so) rather than a libnccl.so. */
  static: boolean;
  /** Other copies of libnccl the process has mapped (a second NCCL loaded by path or preloaded): their calls do not reach them. */
  alsoMapped?: { path: string; version: string | null }[];
  /** Why this copy, of several mapped, is the one NCCL's callers are bound to. */
  chosenBy?: string;
}

export interface PsEntry {
  pid: number;
  command: string;
  comm: string;
  uid: number | null;
  user: string | null;
  container: ProcessContainer;
  ncclLibrary: MappedNccl;
  env: Record<string, string>;
  envError: string | null;
  netns: string | null;
  sockets: TcpSocket[];
  socketsError: string | null;
  /** The process's view, for the prediction (src/model/nccl/process.ts). */
  snapshot: NodeSnapshot;
}

export interface PsScan {
  processes: PsEntry[];
  /** Processes looked at, and those whose maps could not be read (another user's, as non-root). */
  scanned: number;
  unreadable: number;
  /** ncclx ran as root (then an unreadable process is one even root may not read). */
  asRoot: boolean;
  warnings: string[];
}

