// Without iproute2, tc, nft or iptables (a container image): ncclx reads /proc
// and /sys (issue #24 part 6). In a real namespace, the same ncclx run with
// and without the tools on PATH must see the same links and addresses in the
// same (getifaddrs) order, the same routes of the main table, and say what
// /proc cannot show; every "to know" names what was missing.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseFibTrieLocal, parseIfInet6, parseIpv6Route, parseProcNetDev, parseProcRoute, linkOfLocalV4 } from '../../src/probe/proc-net.js';
import { remedyForUnknown } from '../../src/model/linux/remedies.js';
import { buildScenario, cliPath, gate, removeCliCopy, sh, type Built } from '../netns/lib.js';

describe('/proc parsers', () => {
  it('if_inet6: address, ifindex, prefix, scope and flags', () => {
    expect(parseIfInet6('20010db8000100000000000000000002 02 40 00 82     eth0\nfe800000000000000000000000000001 03 40 20 c0 eth1\n')).toEqual([
      { address: '2001:db8:1::2', ifindex: 2, prefixlen: 64, scope: 'global', flags: ['nodad'], dev: 'eth0' },
      { address: 'fe80::1', ifindex: 3, prefixlen: 64, scope: 'link', flags: ['tentative'], dev: 'eth1' },
    ]);
  });
  it('route: the main table, little-endian words; a link\'s prefix route tells which link holds a local address', () => {
    const r = parseProcRoute('Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\neth0\t00000000\t0100010A\t0003\t0\t0\t100\t00000000\t0\t0\t0\neth0\t0000010A\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\neth1\t0000010A\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\neth2\t0000020A\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n');
    expect(r[0]).toEqual({ dev: 'eth0', dst: '0.0.0.0', prefixlen: 0, gateway: '10.1.0.1', metric: 100, flags: 3 });
    expect(linkOfLocalV4('10.2.0.7', r)).toEqual({ dev: 'eth2', prefixlen: 24 });
    // Two links on one subnet: which one holds the address cannot be told from /proc.
    expect(linkOfLocalV4('10.1.0.7', r)).toEqual({ ambiguous: ['eth0', 'eth1'] });
    expect(linkOfLocalV4('192.168.0.1', r)).toBeNull();
  });
  it('ipv6_route: the local table\'s entries and rejects are not routes', () => {
    const text = [
      '20010db8000100000000000000000000 40 00000000000000000000000000000000 00 00000000000000000000000000000000 00000100 00000001 00000000 00000001     eth0',
      '00000000000000000000000000000000 00 00000000000000000000000000000000 00 00000000000000000000000000000000 ffffffff 00000001 00000000 00200200       lo',
      '20010db8000100000000000000000002 80 00000000000000000000000000000000 00 00000000000000000000000000000000 00000000 00000002 00000000 80200001     eth0',
    ].join('\n');
    expect(parseIpv6Route(text)).toEqual([{ dev: 'eth0', dst: '2001:db8:1::', prefixlen: 64, gateway: null, metric: 256, flags: 1 }]);
  });
  it('fib_trie: the Local table\'s /32 host LOCAL leaves; net/dev: names in order', () => {
    const trie = ['Main:', '  +-- 0.0.0.0/0 3 0 5', '     |-- 10.1.0.0', '        /24 link UNICAST', 'Local:', '  +-- 0.0.0.0/0 3 0 5', '     |-- 10.1.0.2', '        /32 host LOCAL', '     |-- 10.1.0.255', '        /32 link BROADCAST', '     |-- 127.0.0.1', '        /32 host LOCAL'].join('\n');
    expect(parseFibTrieLocal(trie)).toEqual(['10.1.0.2', '127.0.0.1']);
    expect(parseProcNetDev('Inter-|   Receive\n face |bytes\n    lo: 0 0\n  eth0: 1 2\ne$x;(1: 3\n')).toEqual(['lo', 'eth0', 'e$x;(1']);
  });
});

describe('"to know" says what was missing, and never asks root on the node to run as root', () => {
  const root = { kind: 'live' as const, path: null, uid: 0, pid: null };
  it('a tool: its package and what /proc cannot show', () => {
    expect(remedyForUnknown('root qdiscs', '`tc` is not installed (tc -j qdisc show: ENOENT)', root).advice).toBe('Install tc (apt-get install iproute2) where ncclx runs: qdiscs are not in /proc or /sys');
    expect(remedyForUnknown('DSCP marking rules', 'none could be read (nft: not installed; iptables-save: not installed; ip6tables-save: not installed)', root).advice).toBe('Install nft, iptables-save, ip6tables-save (apt-get install nftables iptables) where ncclx runs: nftables rules are not in /proc; iptables rules are not in /proc; ip6tables rules are not in /proc');
  });
  it('the catch-all: root on the node is told what could not be read, a user to use sudo, a --root tree what it lacks', () => {
    const text = (w: Parameters<typeof remedyForUnknown>[2]) => remedyForUnknown('something', 'a reason', w).advice!;
    expect(text(root)).toBe('ncclx read this node as root and could not tell (a reason): nothing else on this node shows it');
    expect(text({ ...root, uid: 1000 })).toMatch(/^Run ncclx as root \(sudo\)/);
    expect(text({ kind: 'root', path: '/t', uid: null, pid: null })).toMatch(/^The tree under \/t lacks what this needs/);
    for (const w of [root, { ...root, pid: 7 }]) expect(text(w)).not.toMatch(/as root, with iproute2|Run ncclx doctor on the node itself/);
  });
  it('TOPO-002\'s unknowns', () => {
    expect(remedyForUnknown('NUMA nodes are not reported (numa_node is -1 or missing)', '', root).advice).toMatch(/^Nothing more can be read: the kernel gives these devices no NUMA node/);
    expect(remedyForUnknown('no PCI or RDMA data in this snapshot (/sys/bus/pci/devices not readable)', '', root).advice).toMatch(/not visible here \(a container without the host's sysfs\)/);
    expect(remedyForUnknown('no PCI or RDMA data in this snapshot (/sys/bus/pci/devices not readable)', '', { kind: 'root', path: '/t', uid: null, pid: null }).advice).toMatch(/^The tree under \/t has no sys\/bus\/pci\/devices/);
  });
  it('refused as root: the container lacks a capability', () => {
    expect(remedyForUnknown('x', 'EACCES', root).advice).toMatch(/^ncclx ran as root and was refused/);
  });
});

const g = gate();

describe.skipIf(!g.run)(`a namespace read without iproute2${g.reason ? ` (${g.reason})` : ''}`, () => {
  let built: Built;
  beforeAll(async () => {
    built = await buildScenario({
      links: [
        { name: 'lo', addrs: [] },
        { name: 'eth0', addrs: ['10.1.0.2/24', '10.1.0.3/24', '2001:db8:1::2/64', 'fe80::2/64'] },
        { name: 'data1', addrs: ['10.3.0.2/24', { cidr: '10.4.0.2/24', label: 'data1:x' }] },
        { name: 'eth2', state: 'nocarrier', addrs: ['10.2.0.2/24', '2001:db8:2::2/64'] },
        { name: 'eth3', state: 'down', addrs: ['2001:db8:3::3/64'] },
      ],
    });
    sh(['ip', '-n', built.ns, 'route', 'add', 'default', 'via', '10.1.0.1']);
  }, 60_000);
  afterAll(() => {
    built?.destroy();
    removeCliCopy();
  });

  // ip itself is found on this process's PATH; ncclx then runs with the PATH given.
  const IP = (process.env['PATH'] ?? '/usr/sbin:/usr/bin').split(':').map((d) => `${d}/ip`).find((p) => existsSync(p)) ?? '/usr/sbin/ip';
  const ncclx = (path: string, args: string[], env: Record<string, string> = {}) => {
    const r = spawnSync(IP, ['netns', 'exec', built.ns, process.execPath, cliPath(), ...args], { encoding: 'utf8', env: { PATH: path, HOME: built.dir, NCCL_CONF_FILE: built.emptyConf, ...env } });
    return JSON.parse(r.stdout);
  };
  const TOOLS = '/usr/sbin:/usr/bin:/sbin:/bin';
  const NONE = '/nonexistent';

  it('the same addresses in the same order as iproute2 shows them; links and flags alike', () => {
    const a = ncclx(TOOLS, ['snapshot']);
    const b = ncclx(NONE, ['snapshot']);
    expect(a.network.source).toBe('iproute2');
    expect(b.network.source).toBe('proc');
    const addr = (j: { network: { addresses: { name: string; address: string; prefixlen: number; family: string; scope: string; flags: string[] }[] } }) =>
      j.network.addresses.map((x) => [x.name, x.address, x.prefixlen, x.family, x.scope, x.flags.filter((f) => ['secondary', 'tentative', 'dadfailed'].includes(f)).join()]);
    expect(addr(b)).toEqual(addr(a));
    const links = (j: { network: { links: { name: string; ifindex: number; flags: string[]; speedMbps?: number | null }[] } }) => j.network.links.map((l) => [l.name, l.ifindex, ['UP', 'RUNNING', 'LOOPBACK'].filter((f) => l.flags.includes(f)).join(), l.speedMbps]);
    expect(links(b)).toEqual(links(a));
    expect(b.warnings.map((w: { message: string }) => w.message).join('\n')).toMatch(/iproute2 'ip' is not available .*links from \/sys\/class\/net, addresses from getifaddrs\(\) \(node:os\) and \/proc\/net .*qdiscs are not shown in \/proc/);
  });

  it('NCCL\'s choices are the same without the tools, in every modelled release', () => {
    for (const v of ['2.27.7', '2.28.3', '2.30.7']) {
      const a = ncclx(TOOLS, ['explain', '--json', '--nccl-version', v]);
      const b = ncclx(NONE, ['explain', '--json', '--nccl-version', v]);
      for (const c of ['bootstrap', 'socket', 'ibOob']) expect(b[c].selected).toEqual(a[c].selected);
    }
  });

  it('doctor: routes come from /proc (default route, MASTER_ADDR), qdiscs and firewall rules are unknown with the package to install', () => {
    const j = ncclx(NONE, ['doctor', '--json', '--nccl-version', '2.28.3'], { MASTER_ADDR: '10.9.9.9' });
    const r = (id: string) => j.results.filter((x: { id: string }) => x.id === id);
    expect(r('SOCK-031')[0].severity).not.toBe('unknown');
    expect(r('SOCK-030')[0]).toMatchObject({ summary: expect.stringMatching(/^MASTER_ADDR host 10\.9\.9\.9 is reached through eth0 via 10\.1\.0\.1/) });
    expect(JSON.stringify(r('SOCK-030')[0].evidence)).toMatch(/longest prefix match for 10\.9\.9\.9 in the main table.*policy-routing rules cannot be read without iproute2/);
    expect(r('QOS-001')[0]).toMatchObject({ severity: 'unknown', remediation: { advice: 'Install tc (apt-get install iproute2) where ncclx runs: qdiscs are not in /proc or /sys' } });
    const unknowns = j.results.filter((x: { severity: string }) => x.severity === 'unknown');
    expect(unknowns.length).toBeGreaterThan(0);
    for (const u of unknowns) expect(u.remediation.advice).not.toMatch(/as root/);
  });
});
