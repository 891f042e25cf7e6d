// What would make an `unknown` result known: every unknown says so (issue
// #16), and says what was actually missing (issue #24): a tool (with its
// Debian package, and what ncclx read instead), a privilege the reader did not
// have, a part of the snapshot, a file under --root, a name only the live
// node resolves. It never asks a root user on the node to run as root on the
// node: `where` says who read the node and how.

import { advise } from '../result/build.js';
import type { Remediation } from '../result/types.js';
import type { NodeSnapshot } from '../snapshot/types.js';

/** Debian packages of the tools ncclx runs. */
const PACKAGE: Record<string, string> = {
  ip: 'iproute2',
  tc: 'iproute2',
  nft: 'nftables',
  'iptables-save': 'iptables',
  'ip6tables-save': 'iptables',
  iptables: 'iptables',
  ethtool: 'ethtool',
  lspci: 'pciutils',
  nsenter: 'util-linux',
  'nvidia-smi': 'the NVIDIA driver utilities (nvidia-utils)',
};

/** What /proc and /sys cannot replace, per tool. */
const NO_PROC: Record<string, string> = {
  ip: 'policy-routing rules and tables other than main are not in /proc',
  tc: 'qdiscs are not in /proc or /sys',
  nft: 'nftables rules are not in /proc',
  'iptables-save': 'iptables rules are not in /proc',
  'ip6tables-save': 'ip6tables rules are not in /proc',
};

/** Who read the node: the node itself (live), a tree under --root, a snapshot file, or a process's view (--pid). */
export interface ReadWhere {
  kind: 'live' | 'root' | 'snapshot';
  /** The --root directory or the snapshot file. */
  path: string | null;
  /** The reader's uid when it was read live (0: root), null when unknown. */
  uid: number | null;
  /** --pid: the process whose view it is. */
  pid: number | null;
}

export function whereOf(s: Pick<NodeSnapshot, 'root' | 'loadedFrom' | 'reader' | 'process'>): ReadWhere {
  const pid = s.process?.pid ?? null;
  if (s.loadedFrom) return { kind: 'snapshot', path: s.loadedFrom, uid: s.reader?.uid ?? null, pid };
  if (s.root !== '/') return { kind: 'root', path: s.root, uid: null, pid };
  return { kind: 'live', path: null, uid: s.reader?.uid ?? null, pid };
}

const ON_LIVE: ReadWhere = { kind: 'live', path: null, uid: null, pid: null };

function installAdvice(tools: string[], w: ReadWhere): Remediation {
  const pkgs = [...new Set(tools.map((t) => PACKAGE[t] ?? t))];
  const lacks = tools.map((t) => NO_PROC[t]).filter(Boolean);
  const place = w.kind === 'snapshot' ? ' on the node the snapshot was taken on, and take it again' : w.pid !== null ? ' on the host (ncclx runs them in the process\'s network namespace)' : ' where ncclx runs';
  return advise(`Install ${tools.join(', ')} (apt-get install ${pkgs.join(' ')})${place}${lacks.length ? `: ${lacks.join('; ')}` : ''}`);
}

export function remedyForUnknown(summary: string, reason: string, w: ReadWhere = ON_LIVE): Remediation {
  const text = `${summary} ${reason}`;
  if (/the check itself failed/.test(text)) return advise('This is a bug in ncclx: please report it with the output of `ncclx doctor --json` and the snapshot (`ncclx snapshot`)');
  const missing = [...text.matchAll(/\b([a-z0-9-]+): not installed/g)].map((m) => m[1]!);
  const single = /\b(nft|iptables-save|ip6tables-save|ip|tc|ethtool|lspci|nsenter)`? (?:is )?not installed/.exec(text)?.[1];
  const tools = [...new Set([...missing, ...(single ? [single] : [])])];
  if (tools.length) return installAdvice(tools, w);
  if (/\b(EACCES|EPERM|permission denied|Operation not permitted|not root|as root)\b/i.test(text)) {
    if (w.kind === 'live' && w.uid === 0) return advise('ncclx ran as root and was refused: the container lacks the capability (CAP_NET_ADMIN for netfilter, CAP_SYS_ADMIN for namespaces) or mounts /sys or /proc read-only; run ncclx on the host, or in a privileged container');
    if (w.kind === 'live') return advise('Run ncclx as root (sudo): reading this needs privileges');
    return advise('Read the node again as root (`sudo ncclx snapshot`): reading this needs privileges');
  }
  if (/snapshot has no .* part|taken by an (older )?ncclx|re-take/i.test(text)) return advise('Take the snapshot again with this ncclx (`ncclx snapshot` on the node): it records the missing part');
  if (/numa_node is -1|NUMA nodes are not reported/.test(text)) return advise('Nothing more can be read: the kernel gives these devices no NUMA node (a single-socket machine, or a VM that hides NUMA); NCCL then places them under one CPU');
  if (/sits on the PCI tree|IB-011/.test(text)) return advise('See IB-011: the RDMA devices\' `device` links do not lead to PCI functions (a VM or a container\'s sysfs); read the node where /sys shows the PCI tree');
  if (/no PCI or RDMA data|\/sys\/bus\/pci\/devices not readable/.test(text)) {
    if (w.kind === 'root') return advise(`The tree under ${w.path} has no sys/bus/pci/devices and sys/class/infiniband: copy them from the node (docs/fixtures.md)`);
    if (w.kind === 'snapshot') return advise('The snapshot has no PCI or RDMA part: take it again on the node with this ncclx');
    return advise('/sys/bus/pci and /sys/class/infiniband are not visible here (a container without the host\'s sysfs): run ncclx on the host, or mount /sys into the container');
  }
  if (/not resolved when the node was read|no route lookup|changed after the node was read|came from a flag/i.test(text)) {
    if (w.kind === 'live') return advise('ncclx looks routes up for the values of the environment and conf files: export the value and run ncclx again (a flag or a remediation being checked has no lookup)');
    return advise("Run ncclx on the node itself, with the job's environment: names are resolved and routes looked up there");
  }
  if (/commands\/|--root|fixture|recorded/i.test(text)) return advise('Record the missing command output under commands/ in the --root tree (docs/snapshot.md), or run ncclx on the node itself');
  if (w.kind === 'root') return advise(`The tree under ${w.path} lacks what this needs (docs/snapshot.md lists the files and recorded commands ncclx reads)`);
  if (w.kind === 'snapshot') return advise(`Run ncclx on the node ${w.path} was taken on: the snapshot does not hold what this needs`);
  if (w.uid === 0) return advise(`ncclx read this node as root and could not tell (${reason || summary}): nothing else on this node shows it`);
  return advise('Run ncclx as root (sudo): files and commands it could not read may need privileges');
}
