// Automatic selection (docs/nccl/socket.md §1, §2, §10): IFF_RUNNING,
// the exclusion cascade, docker0/virbr0 bridges, lo, ib*, the 16-interface
// limit — on real links in network namespaces.

import { expect } from 'vitest';
import { MAIN, scenario, suiteGate, type Expect, type Traits } from './scenario.js';

suiteGate('auto.test.ts');

const NO_IF = {
  socketError: 'NET/Socket : no interface found',
  ibOobError: 'NET/IB : No IP interface found.',
  bootstrapError: 'Bootstrap : no socket interface found',
} satisfies Expect;

scenario('A01 one RUNNING veth next to lo', {
  links: [{ name: 'lo' }, { name: 'eth0', addrs: ['10.10.0.5/24'] }],
  rows: [
    {
      name: 'no variables',
      profiles: [...MAIN, '2.22.3'],
      expect: (p) => ({
        socket: ['eth0 10.10.0.5'],
        socketStage: 'exclude',
        socketLog: 'NET/Socket : Using [0]eth0:10.10.0.5<0>',
        bootstrapLog: `${p.bootstrapLog} eth0:10.10.0.5<0>`,
      }),
    },
  ],
});

scenario('A02 veth whose peer is down (UP, NO-CARRIER)', {
  links: [
    { name: 'lo' },
    { name: 'eth0', state: 'nocarrier', addrs: ['10.10.1.5/24'] },
    { name: 'eth1', addrs: ['10.10.2.5/24'] },
  ],
  rows: [
    {
      name: 'no variables: NO-CARRIER eligible only before 2.28.3',
      expect: (p) => ({
        socket: p.running ? ['eth1 10.10.2.5'] : ['eth0 10.10.1.5', 'eth1 10.10.2.5'],
        socketStage: 'exclude',
      }),
    },
    {
      name: 'NCCL_SOCKET_IFNAME==eth0 names only the NO-CARRIER link',
      env: { NCCL_SOCKET_IFNAME: '=eth0' },
      expect: (p) =>
        p.running
          ? { socket: [], socketStage: null, ...NO_IF }
          : { socket: ['eth0 10.10.1.5'], socketStage: 'ifname' },
    },
  ],
});

scenario('A03 admin-DOWN link that still has IPv4 and IPv6 addresses', {
  links: [
    { name: 'lo' },
    { name: 'eth0', state: 'down', addrs: ['10.10.3.5/24', 'fd00:a3::5/64'] },
    { name: 'eth1', addrs: ['10.10.4.5/24'] },
  ],
  rows: [
    {
      name: 'no variables: DOWN link eligible only before 2.28.3',
      expect: (p) => ({
        socket: p.running ? ['eth1 10.10.4.5'] : ['eth0 10.10.3.5', 'eth1 10.10.4.5'],
        socketStage: 'exclude',
      }),
    },
    {
      name: 'NCCL_SOCKET_FAMILY=AF_INET6: only the DOWN link has a non-loopback IPv6',
      env: { NCCL_SOCKET_FAMILY: 'AF_INET6' },
      // ≥ 2.28.3: eth0 is not RUNNING, eth1 has no IPv6, lo's ::1 is always skipped → nothing at any step.
      expect: (p) => (p.running ? { socket: [], socketStage: null, ...NO_IF } : { socket: ['eth0 fd00:a3::5'], socketStage: 'exclude' }),
    },
  ],
});

scenario('A04 only a NO-CARRIER candidate: lo fallback from 2.28.3', {
  links: [{ name: 'lo' }, { name: 'eth0', state: 'nocarrier', addrs: ['10.10.5.5/24'] }],
  rows: [
    {
      name: 'no variables',
      expect: (p) => (p.running ? { socket: ['lo 127.0.0.1'], socketStage: 'lo' } : { socket: ['eth0 10.10.5.5'], socketStage: 'exclude' }),
    },
  ],
});

scenario('A05 lo only', {
  links: [{ name: 'lo' }],
  rows: [
    {
      name: 'no variables: the lo step picks 127.0.0.1 (::1 is always skipped)',
      expect: () => ({ socket: ['lo 127.0.0.1'], socketStage: 'lo', findings: ['SOCK-003'] }),
    },
    {
      name: 'NCCL_SOCKET_IFNAME=lo: 127.0.0.1 is not filtered by address',
      env: { NCCL_SOCKET_IFNAME: 'lo' },
      expect: () => ({ socket: ['lo 127.0.0.1'], socketStage: 'ifname' }),
    },
    {
      name: 'NCCL_SOCKET_FAMILY=AF_INET6: ::1 is skipped, nothing is left',
      env: { NCCL_SOCKET_FAMILY: 'AF_INET6' },
      expect: () => ({ socket: [], socketStage: null, ...NO_IF, findings: ['SOCK-001'] }),
    },
  ],
});

scenario('A06 lo brought up then down: keeps 127.0.0.1, not RUNNING', {
  links: [{ name: 'lo', state: 'down' }, { name: 'eth0', state: 'nocarrier', addrs: ['10.10.6.5/24'] }],
  rows: [
    {
      name: 'no variables',
      expect: (p) => (p.running ? { socket: [], socketStage: null, ...NO_IF, findings: ['SOCK-001'] } : { socket: ['eth0 10.10.6.5'], socketStage: 'exclude' }),
    },
    {
      name: 'NCCL_SOCKET_IFNAME=lo',
      env: { NCCL_SOCKET_IFNAME: 'lo' },
      expect: (p) => (p.running ? { socket: [], socketStage: null, ...NO_IF } : { socket: ['lo 127.0.0.1'], socketStage: 'ifname' }),
    },
  ],
});

scenario('A07 no addresses anywhere (lo never brought up)', {
  links: [{ name: 'eth0' }],
  rows: [{ name: 'no variables', expect: () => ({ socket: [], socketStage: null, ...NO_IF, findings: ['SOCK-001'] }) }],
});

scenario('A08 docker0 RUNNING next to eth0', {
  links: [{ name: 'lo' }, { name: 'docker0', kind: 'bridge', addrs: ['172.17.0.1/16'] }, { name: 'eth0', addrs: ['10.10.8.5/24'] }],
  rows: [
    { name: 'no variables: docker0 excluded', expect: () => ({ socket: ['eth0 10.10.8.5'], socketStage: 'exclude' }) },
    {
      name: 'NCCL_SOCKET_IFNAME=^=docker0: everything but docker0, lo included',
      env: { NCCL_SOCKET_IFNAME: '^=docker0' },
      expect: () => ({ socket: ['lo 127.0.0.1', 'eth0 10.10.8.5'], socketStage: 'ifname' }),
    },
  ],
});

scenario('A09 docker0 RUNNING, no other candidate', {
  links: [{ name: 'lo' }, { name: 'docker0', kind: 'bridge', addrs: ['172.17.0.1/16'] }],
  rows: [{ name: 'no variables: the docker step', expect: () => ({ socket: ['docker0 172.17.0.1'], socketStage: 'docker', findings: ['SOCK-003'] }) }],
});

scenario('A10 docker0 without carrier (no containers)', {
  links: [{ name: 'lo' }, { name: 'docker0', kind: 'bridge', state: 'nocarrier', addrs: ['172.17.0.1/16'] }],
  rows: [
    {
      name: 'no variables',
      expect: (p) => (p.running ? { socket: ['lo 127.0.0.1'], socketStage: 'lo' } : { socket: ['docker0 172.17.0.1'], socketStage: 'docker' }),
    },
  ],
});

const virbrOrExclude = (p: Traits, other: string[], otherStep: 'lo' | 'docker' | 'virbr' | null) =>
  p.virbr ? { socket: other, socketStage: otherStep } : { socket: ['virbr0 192.168.122.1'], socketStage: 'exclude' as const };

scenario('A11 virbr0 RUNNING next to lo', {
  links: [{ name: 'lo' }, { name: 'virbr0', kind: 'bridge', addrs: ['192.168.122.1/24'] }],
  rows: [
    {
      name: 'no variables: ≥ 2.28.3 excludes virbr and lo wins before the virbr step; ^docker,lo keeps virbr0',
      expect: (p) => virbrOrExclude(p, ['lo 127.0.0.1'], 'lo'),
    },
  ],
});

scenario('A12 virbr0 RUNNING, lo down without addresses', {
  links: [{ name: 'virbr0', kind: 'bridge', addrs: ['192.168.122.1/24'] }],
  rows: [
    {
      name: 'no variables: the virbr step (≥ 2.28.3) or the exclusion step',
      expect: (p) => virbrOrExclude(p, ['virbr0 192.168.122.1'], 'virbr'),
    },
  ],
});

scenario('A13 docker0 and virbr0 both RUNNING', {
  links: [
    { name: 'lo' },
    { name: 'docker0', kind: 'bridge', addrs: ['172.17.0.1/16'] },
    { name: 'virbr0', kind: 'bridge', addrs: ['192.168.122.1/24'] },
  ],
  rows: [
    {
      name: 'no variables: docker step (≥ 2.28.3) vs virbr0 through ^docker,lo',
      expect: (p) => virbrOrExclude(p, ['docker0 172.17.0.1'], 'docker'),
    },
  ],
});

scenario('A14 virbr0 without carrier, nothing else', {
  links: [{ name: 'virbr0', kind: 'bridge', state: 'nocarrier', addrs: ['192.168.122.1/24'] }],
  rows: [
    {
      name: 'no variables',
      expect: (p) => (p.running ? { socket: [], socketStage: null, ...NO_IF } : { socket: ['virbr0 192.168.122.1'], socketStage: 'exclude' }),
    },
  ],
});

scenario('A15 exclusion rules are prefixes: local0, docker_gwbridge, virbr0-nic out; veth, cni0, flannel.1, macvlan in', {
  links: [
    { name: 'lo' },
    { name: 'vethab12', addrs: ['10.10.15.5/24'] },
    { name: 'flannel.1', kind: 'vxlan', addrs: ['10.244.0.0/32'] },
    { name: 'cni0', kind: 'bridge', addrs: ['10.244.0.1/24'] },
    { name: 'docker_gwbridge', kind: 'bridge', addrs: ['172.18.0.1/16'] },
    { name: 'virbr0-nic', addrs: ['192.168.123.5/24'] },
    { name: 'local0', addrs: ['10.10.16.5/24'] },
    { name: 'mv0', kind: 'macvlan', parent: 'vethab12', addrs: ['10.10.17.5/24'] },
  ],
  rows: [
    {
      name: 'no variables',
      expect: (p) => ({
        socket: [
          'vethab12 10.10.15.5',
          'flannel.1 10.244.0.0',
          'cni0 10.244.0.1',
          ...(p.virbr ? [] : ['virbr0-nic 192.168.123.5']),
          'mv0 10.10.17.5',
        ],
        socketStage: 'exclude',
        findings: ['SOCK-003'], // the first one is a container veth
      }),
    },
  ],
});

// The worked example of docs/nccl/socket.md §10, row by row.
scenario('A16 worked example §1.10: ib* wins auto mode', {
  links: [
    { name: 'lo' },
    { name: 'eth0', addrs: ['10.0.0.5/24', 'fe80::a/64'] },
    { name: 'docker0', kind: 'bridge', state: 'nocarrier', addrs: ['172.17.0.1/16'] },
    { name: 'ib0', addrs: ['192.168.1.5/24', 'fe80::b/64'] },
    { name: 'ib1', state: 'down', addrs: ['192.168.2.5/24'] },
  ],
  rows: [
    {
      name: 'nothing',
      expect: (p) => ({ socket: p.running ? ['ib0 192.168.1.5'] : ['ib0 192.168.1.5', 'ib1 192.168.2.5'], socketStage: 'ib' }),
    },
    { name: 'NCCL_SOCKET_IFNAME=eth', env: { NCCL_SOCKET_IFNAME: 'eth' }, expect: () => ({ socket: ['eth0 10.0.0.5'], socketStage: 'ifname' }) },
    {
      name: 'NCCL_SOCKET_IFNAME=^ib,lo',
      env: { NCCL_SOCKET_IFNAME: '^ib,lo' },
      expect: (p) => ({ socket: p.running ? ['eth0 10.0.0.5'] : ['eth0 10.0.0.5', 'docker0 172.17.0.1'], socketStage: 'ifname' }),
    },
    {
      name: 'NCCL_SOCKET_IFNAME=eth0 NCCL_SOCKET_FAMILY=AF_INET6',
      env: { NCCL_SOCKET_IFNAME: 'eth0', NCCL_SOCKET_FAMILY: 'AF_INET6' },
      expect: () => ({
        socket: ['eth0 fe80::a%eth0'],
        socketStage: 'ifname',
        socketLog: 'NET/Socket : Using [0]eth0:fe80::a%eth0<0>',
        findings: ['SOCK-002'],
      }),
    },
    {
      name: 'NCCL_SOCKET_FAMILY=ipv6 is ignored',
      env: { NCCL_SOCKET_FAMILY: 'ipv6' },
      expect: (p) => ({ socket: p.running ? ['ib0 192.168.1.5'] : ['ib0 192.168.1.5', 'ib1 192.168.2.5'], socketStage: 'ib', findings: ['SOCK-006'] }),
    },
    {
      name: 'NCCL_COMM_ID=10.0.0.1:5000: ib step first for the transports, subnet for bootstrap',
      env: { NCCL_COMM_ID: '10.0.0.1:5000' },
      only: (p) => p.inverted !== null,
      expect: (p) => ({
        socket: p.running ? ['ib0 192.168.1.5'] : ['ib0 192.168.1.5', 'ib1 192.168.2.5'],
        socketStage: 'ib',
        // 2.29.2–2.29.7: the first IPv4 NOT in 10.0.0.0/24 under its own mask is lo's 127.0.0.1/8.
        bootstrap: p.inverted ? ['lo 127.0.0.1'] : ['eth0 10.0.0.5'],
        bootstrapStage: 'bootstrap-commid',
      }),
    },
    {
      name: 'NCCL_COMM_ID=10.0.0.1:5000 NCCL_SOCKET_IFNAME=ib1: IFNAME applies to the transports only',
      env: { NCCL_COMM_ID: '10.0.0.1:5000', NCCL_SOCKET_IFNAME: 'ib1' },
      only: (p) => p.inverted !== null,
      expect: (p) => ({
        ...(p.running
          ? { socket: [], socketStage: null, socketError: 'NET/Socket : no interface found', ibOobError: 'NET/IB : No IP interface found.' }
          : { socket: ['ib1 192.168.2.5'], socketStage: 'ifname' as const }),
        bootstrap: p.inverted ? ['lo 127.0.0.1'] : ['eth0 10.0.0.5'],
        bootstrapStage: 'bootstrap-commid',
      }),
    },
  ],
});

scenario('A17 a DOWN ib link and a RUNNING eth0', {
  links: [{ name: 'lo' }, { name: 'ib0', state: 'down', addrs: ['192.168.18.5/24'] }, { name: 'eth0', addrs: ['10.10.18.5/24'] }],
  rows: [
    {
      name: 'no variables: the ib step finds nothing from 2.28.3',
      expect: (p) => (p.running ? { socket: ['eth0 10.10.18.5'], socketStage: 'exclude' } : { socket: ['ib0 192.168.18.5'], socketStage: 'ib', findings: ['SOCK-018'] }),
    },
  ],
});

scenario('A18 ib prefix covers ib0.8001 and ibp12s0, even IPv6-only', {
  links: [
    { name: 'lo' },
    { name: 'eth0', addrs: ['10.10.19.5/24'] },
    { name: 'ibp12s0', addrs: ['fd00:19::5/64'] },
    { name: 'ib0.8001', addrs: ['10.10.20.5/24'] },
  ],
  rows: [
    {
      name: 'no variables: IPv4 first, then the IPv6-only ib link',
      expect: () => ({ socket: ['ib0.8001 10.10.20.5', 'ibp12s0 fd00:19::5'], socketStage: 'ib' }),
    },
    {
      name: 'NCCL_SOCKET_IFNAME=eth0 beats the ib step',
      env: { NCCL_SOCKET_IFNAME: 'eth0' },
      expect: () => ({ socket: ['eth0 10.10.19.5'], socketStage: 'ifname' }),
    },
  ],
});

const MANY = Array.from({ length: 18 }, (_, i) => `n${String(i).padStart(2, '0')}`);

scenario('A19 eighteen RUNNING candidates: only 16 kept', {
  links: [{ name: 'lo' }, ...MANY.map((name, i) => ({ name, addrs: [`10.20.${i}.5/24`] }))],
  rows: [
    {
      name: 'no variables: the first 16 in ifindex order; SOCK-009 names the dropped ones',
      expect: () => ({
        socket: MANY.slice(0, 16).map((n, i) => `${n} 10.20.${i}.5`),
        socketStage: 'exclude',
        findings: ['SOCK-009'],
        check: (j) => {
          const f = j.findings.find((x) => x.id === 'SOCK-009')!;
          expect(f.message).toMatch(/\bn16\b/);
          expect(f.message).toMatch(/\bn17\b/);
          expect(f.message).not.toMatch(/\bn15\b/);
        },
      }),
    },
    {
      name: 'a 17-entry NCCL_SOCKET_IFNAME: the 17th entry (n01) is dropped; order is getifaddrs order, not list order',
      env: { NCCL_SOCKET_IFNAME: '=' + [...MANY].reverse().slice(0, 17).join(',') },
      expect: () => ({
        socket: MANY.slice(2).map((n) => `${n} 10.20.${Number(n.slice(1))}.5`),
        socketStage: 'ifname',
        noFindings: ['SOCK-009'],
      }),
    },
  ],
});

scenario('A20 the lo step is a prefix too: lo and local0', {
  links: [{ name: 'lo' }, { name: 'local0', addrs: ['10.10.21.5/24'] }, { name: 'virbr0-nic', state: 'nocarrier', addrs: ['192.168.124.5/24'] }],
  rows: [
    {
      name: 'no variables: step 3 excludes local0, the lo step takes both',
      expect: (p) =>
        p.running
          ? { socket: ['lo 127.0.0.1', 'local0 10.10.21.5'], socketStage: 'lo' }
          : // before 2.28.3 the NO-CARRIER virbr0-nic passes ^docker,lo
            { socket: ['virbr0-nic 192.168.124.5'], socketStage: 'exclude' },
    },
  ],
});
