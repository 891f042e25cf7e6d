// NCCL_SOCKET_IFNAME grammar and matching (docs/nccl/socket.md §1
// step 1, §3) and NCCL_SOCKET_FAMILY (§4), on real links.

import { scenario, suiteGate, type Expect, type ProfileName } from './scenario.js';

suiteGate('ifname.test.ts');

/**
 * Grammar rows do not depend on the link-state or exclusion rules, only on
 * the list parser (scanner ≤ 2.30.4, tokenizer ≥ 2.30.7, §1.3) and the fork.
 */
const GRAMMAR: ProfileName[] = ['2.27.7', '2.29.3', '2.30.7', 'ncclx-2.30'];

const ETH = ['eth1 10.12.1.5', 'eth10 10.12.10.5', 'eth1.100 10.12.100.5', 'eth2 10.12.2.5'];
const NONE = { socket: [], socketStage: null, socketError: 'NET/Socket : no interface found', ibOobError: 'NET/IB : No IP interface found.' } satisfies Expect;

scenario('C01 NCCL_SOCKET_IFNAME: prefix, =exact, ^exclude, ^=, short values', {
  links: [
    { name: 'lo' },
    { name: 'eth1', addrs: ['10.12.1.5/24'] },
    { name: 'eth10', addrs: ['10.12.10.5/24'] },
    { name: 'eth1.100', addrs: ['10.12.100.5/24'] },
    { name: 'eth2', addrs: ['10.12.2.5/24'] },
  ],
  rows: [
    {
      name: 'eth1 is a prefix: eth1, eth10, eth1.100',
      profiles: GRAMMAR,
      env: { NCCL_SOCKET_IFNAME: 'eth1' },
      expect: () => ({ socket: ETH.slice(0, 3), socketStage: 'ifname', findings: ['SOCK-004'] }),
    },
    {
      name: '=eth1 is exact',
      profiles: GRAMMAR,
      env: { NCCL_SOCKET_IFNAME: '=eth1' },
      expect: () => ({ socket: ['eth1 10.12.1.5'], socketStage: 'ifname', noFindings: ['SOCK-004'] }),
    },
    {
      name: '^eth1 excludes every eth1* and re-admits lo',
      profiles: GRAMMAR,
      env: { NCCL_SOCKET_IFNAME: '^eth1' },
      expect: () => ({ socket: ['lo 127.0.0.1', 'eth2 10.12.2.5'], socketStage: 'ifname', findings: ['SOCK-013'] }),
    },
    {
      name: '^=eth1 excludes eth1 only',
      profiles: GRAMMAR,
      env: { NCCL_SOCKET_IFNAME: '^=eth1' },
      expect: () => ({ socket: ['lo 127.0.0.1', ...ETH.slice(1)], socketStage: 'ifname' }),
    },
    {
      name: '^= alone (length 2) excludes everything; no fallback',
      profiles: GRAMMAR,
      env: { NCCL_SOCKET_IFNAME: '^=' },
      expect: () => ({ ...NONE, bootstrapError: 'Bootstrap : no socket interface found', findings: ['SOCK-001'] }),
    },
    {
      name: '=^eth1 means the exact name "^eth1": nothing',
      profiles: GRAMMAR,
      env: { NCCL_SOCKET_IFNAME: '=^eth1' },
      expect: () => ({ ...NONE }),
    },
    {
      name: 'one-character value "=" is ignored: automatic selection',
      profiles: GRAMMAR,
      env: { NCCL_SOCKET_IFNAME: '=' },
      expect: () => ({ socket: ETH, socketStage: 'exclude', findings: ['SOCK-005'] }),
    },
    {
      name: 'one-character value "e" is ignored',
      profiles: GRAMMAR,
      env: { NCCL_SOCKET_IFNAME: 'e' },
      expect: () => ({ socket: ETH, socketStage: 'exclude', findings: ['SOCK-005'] }),
    },
    {
      name: 'one-character value "^" is ignored',
      profiles: GRAMMAR,
      env: { NCCL_SOCKET_IFNAME: '^' },
      expect: () => ({ socket: ETH, socketStage: 'exclude', findings: ['SOCK-005'] }),
    },
    {
      name: 'one character but two bytes ("é"): strlen is 2, so it is used and matches nothing',
      profiles: GRAMMAR,
      env: { NCCL_SOCKET_IFNAME: 'é' },
      expect: () => ({ ...NONE }),
    },
    {
      name: 'no whitespace trimming: " eth1" matches nothing',
      profiles: GRAMMAR,
      env: { NCCL_SOCKET_IFNAME: ' eth1' },
      expect: () => ({ ...NONE }),
    },
    {
      name: 'an entry with an empty name is dropped: ",:1,eth2"',
      profiles: GRAMMAR,
      env: { NCCL_SOCKET_IFNAME: ',:1,eth2' },
      expect: () => ({ socket: ['eth2 10.12.2.5'], socketStage: 'ifname' }),
    },
    {
      name: 'ports never restrict socket interfaces: "=eth10:,eth2:abc"',
      profiles: GRAMMAR,
      env: { NCCL_SOCKET_IFNAME: '=eth10:,eth2:abc' },
      expect: () => ({ socket: ['eth10 10.12.10.5', 'eth2 10.12.2.5'], socketStage: 'ifname' }),
    },
    {
      name: 'empty but set is ignored',
      profiles: GRAMMAR,
      env: { NCCL_SOCKET_IFNAME: '' },
      expect: () => ({ socket: ETH, socketStage: 'exclude', findings: ['SOCK-005'] }),
    },
    {
      name: 'eth2:1,eth10: port ignored, result in getifaddrs order',
      profiles: GRAMMAR,
      env: { NCCL_SOCKET_IFNAME: 'eth2:1,eth10' },
      expect: () => ({ socket: ['eth10 10.12.10.5', 'eth2 10.12.2.5'], socketStage: 'ifname' }),
    },
    {
      name: 'case-sensitive: ETH matches nothing',
      profiles: GRAMMAR,
      env: { NCCL_SOCKET_IFNAME: 'ETH' },
      expect: () => ({ ...NONE }),
    },
    {
      name: '--ifname overrides the environment',
      profiles: GRAMMAR,
      env: { NCCL_SOCKET_IFNAME: 'eth2' },
      args: ['--ifname', '=eth10'],
      expect: () => ({ socket: ['eth10 10.12.10.5'], socketStage: 'ifname' }),
    },
  ],
});

scenario('C02 NCCL_SOCKET_FAMILY', {
  links: [
    { name: 'lo' },
    { name: 'eth0', addrs: ['10.12.20.5/24', 'fd00:c2::5/64'] },
    { name: 'eth1', addrs: ['fd00:c2:1::5/64'] },
  ],
  rows: [
    {
      name: 'unset: both families, IPv4 first',
      expect: () => ({ socket: ['eth0 10.12.20.5', 'eth1 fd00:c2:1::5'], socketStage: 'exclude' }),
    },
    {
      name: 'AF_INET6',
      env: { NCCL_SOCKET_FAMILY: 'AF_INET6' },
      expect: () => ({ socket: ['eth0 fd00:c2::5', 'eth1 fd00:c2:1::5'], socketStage: 'exclude' }),
    },
    {
      name: 'AF_INET',
      env: { NCCL_SOCKET_FAMILY: 'AF_INET' },
      expect: () => ({ socket: ['eth0 10.12.20.5'], socketStage: 'exclude' }),
    },
    {
      name: 'ipv4 is silently ignored',
      env: { NCCL_SOCKET_FAMILY: 'ipv4' },
      expect: () => ({ socket: ['eth0 10.12.20.5', 'eth1 fd00:c2:1::5'], socketStage: 'exclude', findings: ['SOCK-006'] }),
    },
    {
      name: 'af_inet6 (wrong case) is silently ignored',
      env: { NCCL_SOCKET_FAMILY: 'af_inet6' },
      expect: () => ({ socket: ['eth0 10.12.20.5', 'eth1 fd00:c2:1::5'], socketStage: 'exclude', findings: ['SOCK-006'] }),
    },
    {
      name: '--family AF_INET6 overrides NCCL_SOCKET_FAMILY=AF_INET',
      env: { NCCL_SOCKET_FAMILY: 'AF_INET' },
      args: ['--family', 'AF_INET6'],
      expect: () => ({ socket: ['eth0 fd00:c2::5', 'eth1 fd00:c2:1::5'], socketStage: 'exclude' }),
    },
    {
      name: 'AF_INET6 with NCCL_SOCKET_IFNAME=eth1',
      env: { NCCL_SOCKET_FAMILY: 'AF_INET6', NCCL_SOCKET_IFNAME: 'eth1' },
      expect: () => ({ socket: ['eth1 fd00:c2:1::5'], socketStage: 'ifname' }),
    },
  ],
});
