// What makes an `unknown` known (src/model/linux/remedies.ts): every unknown
// names what was missing — a tool and its Debian package, a privilege, a
// snapshot part, a file under --root — and where to act, depending on who read
// the node (live, --root, a snapshot, a process's view).

import { describe, expect, it } from 'vitest';
import { remedyForUnknown, whereOf, type ReadWhere } from '../../src/model/linux/remedies.js';

const LIVE_USER: ReadWhere = { kind: 'live', path: null, uid: 1000, pid: null };
const LIVE_ROOT: ReadWhere = { kind: 'live', path: null, uid: 0, pid: null };
const LIVE_NOBODY_KNOWS: ReadWhere = { kind: 'live', path: null, uid: null, pid: null };
const ROOT_TREE: ReadWhere = { kind: 'root', path: '/srv/node7', uid: null, pid: null };
const SNAPSHOT: ReadWhere = { kind: 'snapshot', path: '/tmp/node7.json', uid: 0, pid: null };
const PROCESS: ReadWhere = { kind: 'live', path: null, uid: 0, pid: 4242 };

const advice = (summary: string, reason: string, w?: ReadWhere) => remedyForUnknown(summary, reason, w).advice;

describe('whereOf: who read the node', () => {
  it('a snapshot file first, then a --root tree, else the live node; the reader uid and --pid carried', () => {
    expect(whereOf({ root: '/', loadedFrom: '/tmp/a.json', reader: { uid: 0 } } as never)).toEqual({ kind: 'snapshot', path: '/tmp/a.json', uid: 0, pid: null });
    expect(whereOf({ root: '/srv/x', loadedFrom: '/tmp/a.json' } as never)).toEqual({ kind: 'snapshot', path: '/tmp/a.json', uid: null, pid: null });
    expect(whereOf({ root: '/srv/x', reader: { uid: 0 } } as never)).toEqual({ kind: 'root', path: '/srv/x', uid: null, pid: null });
    expect(whereOf({ root: '/', reader: { uid: 1000 }, process: { pid: 7 } } as never)).toEqual({ kind: 'live', path: null, uid: 1000, pid: 7 });
    expect(whereOf({ root: '/' } as never)).toEqual({ kind: 'live', path: null, uid: null, pid: null });
  });
});

describe('remedyForUnknown', () => {
  it('a check that threw is a bug to report, whatever else the text says', () => {
    expect(advice('the check itself failed', 'tc: not installed')).toMatch(/^This is a bug in ncclx: please report it/);
    expect(advice('x', 'the check itself failed (TypeError)')).toMatch(/^This is a bug in ncclx/);
  });

  it('missing tools: each once, with its Debian package, and what /proc cannot give instead', () => {
    expect(advice('qdiscs unknown', 'tc: not installed', LIVE_ROOT)).toBe('Install tc (apt-get install iproute2) where ncclx runs: qdiscs are not in /proc or /sys');
    expect(advice('rules unknown', 'nft: not installed; iptables-save: not installed; ip6tables-save: not installed; nft: not installed', LIVE_ROOT)).toBe(
      'Install nft, iptables-save, ip6tables-save (apt-get install nftables iptables) where ncclx runs: nftables rules are not in /proc; iptables rules are not in /proc; ip6tables rules are not in /proc',
    );
    // A tool /proc and /sys can stand in for adds no "cannot" clause; an unknown tool is its own package name.
    expect(advice('x', 'ethtool: not installed', LIVE_ROOT)).toBe('Install ethtool (apt-get install ethtool) where ncclx runs');
    expect(advice('x', 'foo-tool: not installed', LIVE_ROOT)).toBe('Install foo-tool (apt-get install foo-tool) where ncclx runs');
    expect(advice('x', 'nvidia-smi: not installed', LIVE_ROOT)).toBe('Install nvidia-smi (apt-get install the NVIDIA driver utilities (nvidia-utils)) where ncclx runs');
  });

  it('the "`ip` is not installed" phrasing of a failed capture names the tool too', () => {
    expect(advice('routes unknown', '`ip` is not installed (spawn ip ENOENT)', LIVE_ROOT)).toBe(
      'Install ip (apt-get install iproute2) where ncclx runs: policy-routing rules and tables other than main are not in /proc',
    );
    expect(advice('x', 'lspci not installed', LIVE_ROOT)).toBe('Install lspci (apt-get install pciutils) where ncclx runs');
    // A word that merely ends in a tool's name is not that tool.
    expect(advice('x', 'strip is not installed', LIVE_USER)).not.toMatch(/^Install/);
  });

  it('where to install: on the snapshot\'s node and take it again; on the host for a process\'s view; else where ncclx runs', () => {
    expect(advice('x', 'tc: not installed', SNAPSHOT)).toBe('Install tc (apt-get install iproute2) on the node the snapshot was taken on, and take it again: qdiscs are not in /proc or /sys');
    expect(advice('x', 'tc: not installed', PROCESS)).toBe("Install tc (apt-get install iproute2) on the host (ncclx runs them in the process's network namespace): qdiscs are not in /proc or /sys");
    expect(advice('x', 'tc: not installed', ROOT_TREE)).toBe('Install tc (apt-get install iproute2) where ncclx runs: qdiscs are not in /proc or /sys');
  });

  it('refused reads: root in a container lacks a capability; a live user runs as root; others re-read as root', () => {
    for (const reason of ['EACCES', 'EPERM', 'Permission denied', 'Operation not permitted', 'not root', 'must run as root']) {
      expect(advice('x', reason, LIVE_ROOT)).toMatch(/^ncclx ran as root and was refused: the container lacks the capability/);
      expect(advice('x', reason, LIVE_USER)).toBe('Run ncclx as root (sudo): reading this needs privileges');
      expect(advice('x', reason, SNAPSHOT)).toBe('Read the node again as root (`sudo ncclx snapshot`): reading this needs privileges');
    }
    // A live reader of unknown uid is not known to be root.
    expect(advice('x', 'EACCES', LIVE_NOBODY_KNOWS)).toBe('Run ncclx as root (sudo): reading this needs privileges');
    // Only whole words: "EPERMS" or "rootless" is no privilege problem.
    expect(advice('x', 'EPERMS', LIVE_USER)).not.toMatch(/as root \(sudo\): reading this/);
  });

  it('a snapshot without the part: take it again with this ncclx', () => {
    const want = 'Take the snapshot again with this ncclx (`ncclx snapshot` on the node): it records the missing part';
    expect(advice('x', 'this snapshot has no kernel part', SNAPSHOT)).toBe(want);
    expect(advice('x', 'taken by an older ncclx', SNAPSHOT)).toBe(want);
    expect(advice('x', 'taken by an ncclx without the probe', SNAPSHOT)).toBe(want);
    expect(advice('x', 'Re-take it', SNAPSHOT)).toBe(want);
  });

  it('NUMA, IB-011 and PCI data say what the kernel or the container hides', () => {
    expect(advice('x', 'numa_node is -1', LIVE_ROOT)).toMatch(/^Nothing more can be read: the kernel gives these devices no NUMA node/);
    expect(advice('x', 'NUMA nodes are not reported', LIVE_ROOT)).toMatch(/^Nothing more can be read/);
    expect(advice('x', 'which NIC sits on the PCI tree', LIVE_ROOT)).toMatch(/^See IB-011/);
    expect(advice('IB-011', 'y', LIVE_ROOT)).toMatch(/^See IB-011/);
    expect(advice('x', 'no PCI or RDMA data', ROOT_TREE)).toBe('The tree under /srv/node7 has no sys/bus/pci/devices and sys/class/infiniband: copy them from the node (docs/fixtures.md)');
    expect(advice('x', '/sys/bus/pci/devices not readable', SNAPSHOT)).toBe('The snapshot has no PCI or RDMA part: take it again on the node with this ncclx');
    expect(advice('x', 'no PCI or RDMA data', LIVE_ROOT)).toMatch(/^\/sys\/bus\/pci and \/sys\/class\/infiniband are not visible here/);
  });

  it('names and routes only the live node resolves: export the value there, or run on the node', () => {
    for (const reason of ['not resolved when the node was read', 'no route lookup', 'changed after the node was read', 'came from a flag']) {
      expect(advice('x', reason, LIVE_ROOT)).toMatch(/^ncclx looks routes up for the values of the environment/);
      expect(advice('x', reason, ROOT_TREE)).toBe("Run ncclx on the node itself, with the job's environment: names are resolved and routes looked up there");
    }
  });

  it('a --root tree without a recorded command: record it under commands/', () => {
    const want = 'Record the missing command output under commands/ in the --root tree (docs/snapshot.md), or run ncclx on the node itself';
    expect(advice('x', 'commands/ip-rule.json: not recorded', ROOT_TREE)).toBe(want);
    expect(advice('x', 'nothing under --root', ROOT_TREE)).toBe(want);
    expect(advice('x', 'fixture lacks it', ROOT_TREE)).toBe(want);
  });

  it('anything else: by who read the node', () => {
    expect(advice('x', 'y', ROOT_TREE)).toBe('The tree under /srv/node7 lacks what this needs (docs/snapshot.md lists the files and recorded commands ncclx reads)');
    expect(advice('x', 'y', SNAPSHOT)).toBe('Run ncclx on the node /tmp/node7.json was taken on: the snapshot does not hold what this needs');
    expect(advice('link unknown', 'odd value', LIVE_ROOT)).toBe('ncclx read this node as root and could not tell (odd value): nothing else on this node shows it');
    expect(advice('link unknown', '', LIVE_ROOT)).toBe('ncclx read this node as root and could not tell (link unknown): nothing else on this node shows it');
    expect(advice('x', 'y', LIVE_USER)).toBe('Run ncclx as root (sudo): files and commands it could not read may need privileges');
    // Without a reader given: the live node, uid unknown.
    expect(advice('x', 'y')).toBe('Run ncclx as root (sudo): files and commands it could not read may need privileges');
  });
});
