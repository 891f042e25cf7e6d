// Address order and names as getifaddrs() gives them (docs/nccl/socket.md
// §2): IPv4 of every link before any IPv6, the kernel's per-link order,
// first address per name, alias labels, link-local IPv6, unusual names.

import { spawnSync } from 'node:child_process';
import { expect } from 'vitest';
import { scenario, suiteGate } from './scenario.js';

suiteGate('addresses.test.ts');

scenario('B01 an IPv6-only link ranks after every IPv4 one', {
  links: [
    { name: 'lo' },
    { name: 'eth0', addrs: ['fd00:b1::5/64'] },
    { name: 'eth1', addrs: ['10.11.1.5/24'] },
    { name: 'eth2', addrs: ['10.11.2.5/24'] },
  ],
  rows: [
    {
      name: 'no variables',
      expect: () => ({ socket: ['eth1 10.11.1.5', 'eth2 10.11.2.5', 'eth0 fd00:b1::5'], socketStage: 'exclude' }),
    },
  ],
});

scenario('B02 a link with only an IPv6 link-local address', {
  links: [{ name: 'lo' }, { name: 'eth0', addrs: ['fe80::b2:5/64'] }],
  rows: [
    {
      name: 'no variables: chosen, printed with %ifname',
      expect: () => ({
        socket: ['eth0 fe80::b2:5%eth0'],
        socketStage: 'exclude',
        socketLog: 'NET/Socket : Using [0]eth0:fe80::b2:5%eth0<0>',
        findings: ['SOCK-002'],
        check: (j) => {
          expect(j.socket.selected[0]).toMatchObject({ address: 'fe80::b2:5', family: 'AF_INET6', display: 'fe80::b2:5%eth0' });
        },
      }),
    },
  ],
});

scenario('B03 dual stack: IPv4 represents the link; IPv6 order is larger scope first, newest first', {
  links: [
    { name: 'lo' },
    // Added in this order; the kernel lists fd00:b3::6, fd00:b3::5, fe80::b3:5.
    { name: 'eth0', addrs: ['fd00:b3::5/64', 'fe80::b3:5/64', 'fd00:b3::6/64', '10.11.3.5/24'] },
  ],
  rows: [
    { name: 'no variables', expect: () => ({ socket: ['eth0 10.11.3.5'], socketStage: 'exclude' }) },
    {
      name: 'NCCL_SOCKET_FAMILY=AF_INET6: the newest global address',
      env: { NCCL_SOCKET_FAMILY: 'AF_INET6' },
      expect: () => ({ socket: ['eth0 fd00:b3::6'], socketStage: 'exclude' }),
    },
  ],
});

scenario('B04 several IPv4 addresses: primaries first, secondaries last, alias labels are names', {
  links: [
    { name: 'lo' },
    {
      name: 'eth0',
      addrs: [
        '10.11.4.5/24',
        '10.11.4.6/24', // secondary of 10.11.4.5
        { cidr: '10.11.4.7/24', label: 'eth0:2' }, // secondary, added before eth0:1
        { cidr: '10.11.5.5/24', label: 'eth0:1' }, // a primary of its own subnet
      ],
    },
    { name: 'eth1', addrs: ['10.11.6.5/24'] },
  ],
  rows: [
    {
      name: 'no variables',
      expect: () => ({
        socket: ['eth0 10.11.4.5', 'eth0:1 10.11.5.5', 'eth0:2 10.11.4.7', 'eth1 10.11.6.5'],
        socketStage: 'exclude',
      }),
    },
    {
      name: 'NCCL_SOCKET_IFNAME==eth0: the link name only, not its labels',
      env: { NCCL_SOCKET_IFNAME: '=eth0' },
      expect: () => ({ socket: ['eth0 10.11.4.5'], socketStage: 'ifname' }),
    },
    {
      name: 'NCCL_SOCKET_IFNAME=eth0:1 is prefix eth0 with port 1 (ignored)',
      env: { NCCL_SOCKET_IFNAME: 'eth0:1' },
      expect: () => ({ socket: ['eth0 10.11.4.5', 'eth0:1 10.11.5.5', 'eth0:2 10.11.4.7'], socketStage: 'ifname' }),
    },
    {
      name: 'NCCL_SOCKET_IFNAME==eth0:1 is exactly eth0 (an alias cannot be named exactly)',
      env: { NCCL_SOCKET_IFNAME: '=eth0:1' },
      expect: () => ({ socket: ['eth0 10.11.4.5'], socketStage: 'ifname' }),
    },
    {
      name: 'NCCL_SOCKET_IFNAME=^eth0 drops the labels too and re-admits lo',
      env: { NCCL_SOCKET_IFNAME: '^eth0' },
      expect: () => ({ socket: ['lo 127.0.0.1', 'eth1 10.11.6.5'], socketStage: 'ifname', findings: ['SOCK-013'] }),
    },
  ],
});

scenario('B05 IPv4 host- and link-scope addresses come before global ones', {
  links: [
    { name: 'lo' },
    { name: 'eth0', addrs: ['10.11.7.5/24', { cidr: '169.254.7.5/16', scope: 'link' }] },
    { name: 'eth1', addrs: ['10.11.8.5/24', { cidr: '10.11.9.5/24', scope: 'host' }] },
  ],
  rows: [
    {
      name: 'no variables: the later-added link/host-scope address represents the link',
      expect: () => ({ socket: ['eth0 169.254.7.5', 'eth1 10.11.9.5'], socketStage: 'exclude' }),
    },
  ],
});

scenario('B08 ifindex order, not creation order; a point-to-point address is its local end', {
  links: [
    { name: 'lo' },
    { name: 'ethB', index: 300, addrs: ['10.17.3.5/24'] },
    { name: 'ethA', index: 44, addrs: ['10.17.4.5/24'] },
    { name: 'ptp0', index: 7, addrs: [{ cidr: '10.17.0.1', peer: '10.17.0.2/32' }, { cidr: 'fd00:17::1', peer: 'fd00:17::2/128' }] },
  ],
  rows: [
    {
      name: 'no variables',
      expect: () => ({ socket: ['ptp0 10.17.0.1', 'ethA 10.17.4.5', 'ethB 10.17.3.5'], socketStage: 'exclude' }),
    },
    {
      name: 'NCCL_SOCKET_FAMILY=AF_INET6: the local end of the IPv6 pair',
      env: { NCCL_SOCKET_FAMILY: 'AF_INET6' },
      expect: () => ({ socket: ['ptp0 fd00:17::1'], socketStage: 'exclude' }),
    },
  ],
});

scenario('B06 15-character interface names', {
  links: [
    { name: 'lo' },
    { name: 'enp193s0f1np1ab', addrs: ['10.11.10.5/24'] },
    { name: 'ibp193s0f1np1xy', addrs: ['10.11.11.5/24'] },
    { name: 'enp193s0f1np1a', addrs: ['10.11.12.5/24'] },
  ],
  rows: [
    { name: 'no variables: the ib step', expect: () => ({ socket: ['ibp193s0f1np1xy 10.11.11.5'], socketStage: 'ib' }) },
    {
      name: 'NCCL_SOCKET_IFNAME==enp193s0f1np1ab',
      env: { NCCL_SOCKET_IFNAME: '=enp193s0f1np1ab' },
      expect: () => ({ socket: ['enp193s0f1np1ab 10.11.10.5'], socketStage: 'ifname' }),
    },
    {
      name: 'NCCL_SOCKET_IFNAME=enp193s0f1np1a is a prefix of the 15-character name',
      env: { NCCL_SOCKET_IFNAME: 'enp193s0f1np1a' },
      expect: () => ({ socket: ['enp193s0f1np1ab 10.11.10.5', 'enp193s0f1np1a 10.11.12.5'], socketStage: 'ifname', findings: ['SOCK-004'] }),
    },
    {
      name: 'NCCL_SOCKET_IFNAME=^ib replaces the default exclusion (lo eligible)',
      env: { NCCL_SOCKET_IFNAME: '^ib' },
      expect: () => ({ socket: ['lo 127.0.0.1', 'enp193s0f1np1ab 10.11.10.5', 'enp193s0f1np1a 10.11.12.5'], socketStage: 'ifname' }),
    },
  ],
});

const WEIRD = 'e$x;(1';
const QUOTED = `e'q"2`;
const IBWEIRD = 'ib;$(x)';

/**
 * Every `export NCCL_SOCKET_IFNAME=…` fix must survive a shell: bash runs it
 * (no PATH, so a broken quote cannot run anything) and every list item of the
 * resulting value must be a real name of this scenario or one of NCCL's own
 * prefixes — `$x` expanded to nothing or a split at `;` would show up here.
 */
function fixesAreShellSafe(fixes: string[], names: string[]) {
  for (const fix of fixes.filter((f) => f.startsWith('export NCCL_SOCKET_IFNAME='))) {
    const r = spawnSync('bash', ['--norc', '--noprofile', '-c', `${fix}\nprintf %s "$NCCL_SOCKET_IFNAME"`], { encoding: 'utf8', env: { PATH: '/nonexistent' } });
    expect(r.status, `${fix}: ${r.stderr}`).toBe(0);
    expect(r.stderr, fix).toBe('');
    const items = r.stdout.replace(/^\^/, '').replace(/^=/, '').split(',');
    for (const item of items) expect([...names, 'lo', 'docker', 'virbr', 'eth0'], `${fix} → ${r.stdout}`).toContain(item);
  }
}

scenario('B07 names containing $ ; ( and quotes', {
  links: [
    { name: 'lo' },
    { name: WEIRD, addrs: ['10.11.13.5/24'] },
    { name: QUOTED, addrs: ['10.11.14.5/24'] },
    { name: IBWEIRD, state: 'nocarrier', addrs: ['10.11.15.5/24'] },
  ],
  rows: [
    {
      name: 'no variables: the NO-CARRIER ib link wins only before 2.28.3',
      expect: (p) => ({
        ...(p.running
          ? { socket: [`${WEIRD} 10.11.13.5`, `${QUOTED} 10.11.14.5`], socketStage: 'exclude' as const }
          : { socket: [`${IBWEIRD} 10.11.15.5`], socketStage: 'ib' as const }),
        check: (j) => {
          expect(j.socket.log).toContain(p.running ? `[0]${WEIRD}:10.11.13.5<0>` : `[0]${IBWEIRD}:10.11.15.5<0>`);
          fixesAreShellSafe(j.findings.map((f) => f.fix), [WEIRD, QUOTED, IBWEIRD]);
        },
      }),
    },
    {
      name: `NCCL_SOCKET_IFNAME==${WEIRD}`,
      env: { NCCL_SOCKET_IFNAME: `=${WEIRD}` },
      expect: () => ({ socket: [`${WEIRD} 10.11.13.5`], socketStage: 'ifname' }),
    },
    {
      name: `NCCL_SOCKET_IFNAME==${QUOTED}`,
      env: { NCCL_SOCKET_IFNAME: `=${QUOTED}` },
      expect: () => ({ socket: [`${QUOTED} 10.11.14.5`], socketStage: 'ifname' }),
    },
    {
      name: 'NCCL_SOCKET_IFNAME=e$ (prefix with a dollar sign)',
      env: { NCCL_SOCKET_IFNAME: 'e$' },
      expect: () => ({ socket: [`${WEIRD} 10.11.13.5`], socketStage: 'ifname' }),
    },
    {
      name: 'NCCL_SOCKET_IFNAME=e (one character): ignored, fixes stay shell-safe',
      env: { NCCL_SOCKET_IFNAME: 'e' },
      expect: (p) => ({
        ...(p.running
          ? { socket: [`${WEIRD} 10.11.13.5`, `${QUOTED} 10.11.14.5`], socketStage: 'exclude' as const }
          : { socket: [`${IBWEIRD} 10.11.15.5`], socketStage: 'ib' as const }),
        findings: ['SOCK-005'],
        check: (j) => fixesAreShellSafe(j.findings.map((f) => f.fix), [WEIRD, QUOTED, IBWEIRD]),
      }),
    },
  ],
});
