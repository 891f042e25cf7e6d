// NCCL_COMM_ID (docs/nccl/socket.md §1, §5, §6): the subnet match
// that drives bootstrap (ignoring NCCL_SOCKET_IFNAME), its own filtering
// rules, IPv6 scope ids, the 2.29.2–2.29.7 inverted IPv4 test, parse and
// resolution failures, and an exported-but-empty value.

import { MAIN, scenario, suiteGate, type ProfileName, type Traits } from './scenario.js';

suiteGate('commid.test.ts');

/** Every profile, including both ends of the inverted-subnet window (2.29.7 still inverted, 2.30.3 fixed). */
const COMMID: ProfileName[] = ['2.27.7', '2.28.3', '2.29.3', '2.29.7', '2.30.3', '2.30.7', 'ncclx-2.29', 'ncclx-2.30'];
/** The reference does not say whether NCCLX v2_29 has the IPv4 bug: IPv4 subnet rows leave it out. */
const known = (p: Traits) => p.inverted !== null;

const NO_LISTEN = 'NET/Socket : No usable listening interface found';
const INVALID = 'Invalid NCCL_COMM_ID, please use format: <ipv4>:<port> or [<ipv6>]:<port> or <hostname>:<port>';

scenario('D01 bootstrap follows the NCCL_COMM_ID subnet and ignores NCCL_SOCKET_IFNAME', {
  links: [{ name: 'lo' }, { name: 'eth0', addrs: ['10.13.1.5/24'] }, { name: 'eth1', addrs: ['10.13.2.5/24'] }],
  rows: [
    {
      name: 'NCCL_COMM_ID on eth1, NCCL_SOCKET_IFNAME=eth0',
      env: { NCCL_COMM_ID: '10.13.2.1:5000', NCCL_SOCKET_IFNAME: 'eth0' },
      profiles: COMMID,
      only: known,
      expect: (p) => ({
        socket: ['eth0 10.13.1.5'],
        socketStage: 'ifname',
        // Inverted: the first IPv4 NOT in 10.13.2.0/24 under its own mask is lo 127.0.0.1/8.
        bootstrap: p.inverted ? ['lo 127.0.0.1'] : ['eth1 10.13.2.5'],
        bootstrapStage: 'bootstrap-commid',
        ...(p.inverted ? { findings: ['SOCK-014'] } : { noFindings: ['SOCK-014'] }),
      }),
    },
    {
      name: 'NCCL_COMM_ID alone: no ib, so the socket transport gets the one subnet interface',
      env: { NCCL_COMM_ID: '10.13.2.1:5000' },
      profiles: COMMID,
      only: known,
      expect: (p) => {
        const one = p.inverted ? ['lo 127.0.0.1'] : ['eth1 10.13.2.5'];
        return { socket: one, socketStage: 'commid', bootstrap: one, bootstrapStage: 'bootstrap-commid' };
      },
    },
    {
      name: 'NCCL_COMM_ID without a port (65535) matches the same way',
      env: { NCCL_COMM_ID: '10.13.2.1' },
      profiles: MAIN,
      only: known,
      expect: (p) => {
        const one = p.inverted ? ['lo 127.0.0.1'] : ['eth1 10.13.2.5'];
        return { socket: one, socketStage: 'commid', bootstrap: one, bootstrapStage: 'bootstrap-commid' };
      },
    },
    {
      name: 'the host stops at ",": 10.13.2.1,foo:5000',
      env: { NCCL_COMM_ID: '10.13.2.1,foo:5000' },
      profiles: MAIN,
      only: known,
      expect: (p) => {
        const one = p.inverted ? ['lo 127.0.0.1'] : ['eth1 10.13.2.5'];
        return { socket: one, socketStage: 'commid', bootstrap: one, bootstrapStage: 'bootstrap-commid' };
      },
    },
    {
      name: '--comm-id overrides the environment',
      env: { NCCL_COMM_ID: '10.13.1.1:5000' },
      args: ['--comm-id', '10.13.2.1:5000'],
      profiles: MAIN,
      only: known,
      expect: (p) => {
        const one = p.inverted ? ['lo 127.0.0.1'] : ['eth1 10.13.2.5'];
        return { socket: one, socketStage: 'commid', bootstrap: one, bootstrapStage: 'bootstrap-commid' };
      },
    },
    {
      name: 'NCCL_COMM_ID in no local subnet: bootstrap fails, the transport falls through to step 3',
      env: { NCCL_COMM_ID: '10.99.0.1:5000' },
      profiles: MAIN,
      only: known,
      expect: (p) =>
        p.inverted
          ? { socket: ['lo 127.0.0.1'], socketStage: 'commid', bootstrap: ['lo 127.0.0.1'], bootstrapStage: 'bootstrap-commid' }
          : {
              socket: ['eth0 10.13.1.5', 'eth1 10.13.2.5'],
              socketStage: 'exclude',
              bootstrap: [],
              bootstrapStage: null,
              bootstrapError: NO_LISTEN,
              findings: ['SOCK-008'],
            },
    },
    {
      name: 'NCCL_SOCKET_FAMILY=AF_INET6 does not apply to the subnet match',
      env: { NCCL_COMM_ID: '10.13.1.1:5000', NCCL_SOCKET_FAMILY: 'AF_INET6' },
      profiles: MAIN,
      only: known,
      expect: (p) => {
        const one = p.inverted ? ['lo 127.0.0.1'] : ['eth0 10.13.1.5'];
        return { socket: one, socketStage: 'commid', bootstrap: one, bootstrapStage: 'bootstrap-commid' };
      },
    },
  ],
});

scenario('D02 the subnet match ignores link state and loopback', {
  links: [
    { name: 'lo' },
    { name: 'eth0', addrs: ['10.13.3.5/24'] },
    { name: 'eth1', state: 'nocarrier', addrs: ['10.13.4.5/24'] },
    { name: 'eth2', state: 'down', addrs: ['10.13.5.5/24'] },
  ],
  rows: [
    {
      name: 'target on the NO-CARRIER eth1',
      env: { NCCL_COMM_ID: '10.13.4.1:5000' },
      profiles: MAIN,
      only: known,
      expect: (p) => {
        const one = p.inverted ? ['lo 127.0.0.1'] : ['eth1 10.13.4.5'];
        return { socket: one, socketStage: 'commid', bootstrap: one, bootstrapStage: 'bootstrap-commid' };
      },
    },
    {
      name: 'target on the admin-DOWN eth2',
      env: { NCCL_COMM_ID: '10.13.5.1:5000' },
      profiles: MAIN,
      only: known,
      expect: (p) => {
        const one = p.inverted ? ['lo 127.0.0.1'] : ['eth2 10.13.5.5'];
        return { socket: one, socketStage: 'commid', bootstrap: one, bootstrapStage: 'bootstrap-commid' };
      },
    },
    {
      name: 'target 127.0.0.1: lo (inverted: the first address outside 127/8, eth0)',
      env: { NCCL_COMM_ID: '127.0.0.1:5000' },
      profiles: COMMID,
      only: known,
      expect: (p) => {
        const one = p.inverted ? ['eth0 10.13.3.5'] : ['lo 127.0.0.1'];
        return { socket: one, socketStage: 'commid', bootstrap: one, bootstrapStage: 'bootstrap-commid' };
      },
    },
  ],
});

scenario('D03 ib0 present: bootstrap by subnet, socket transport and IB OOB on ib0', {
  links: [{ name: 'lo' }, { name: 'ib0', addrs: ['192.168.13.5/24'] }, { name: 'eth0', addrs: ['10.13.6.5/24'] }],
  rows: [
    {
      name: 'NCCL_COMM_ID on eth0',
      env: { NCCL_COMM_ID: '10.13.6.1:29600' },
      profiles: MAIN,
      only: known,
      expect: (p) => ({
        socket: ['ib0 192.168.13.5'],
        socketStage: 'ib',
        ibOob: ['ib0 192.168.13.5'],
        bootstrap: p.inverted ? ['lo 127.0.0.1'] : ['eth0 10.13.6.5'],
        bootstrapStage: 'bootstrap-commid',
        findings: ['SOCK-016'],
      }),
    },
    {
      name: 'NCCL_COMM_ID on eth0 and NCCL_SOCKET_IFNAME=eth0',
      env: { NCCL_COMM_ID: '10.13.6.1:29600', NCCL_SOCKET_IFNAME: 'eth0' },
      profiles: MAIN,
      only: known,
      expect: (p) => ({
        socket: ['eth0 10.13.6.5'],
        socketStage: 'ifname',
        bootstrap: p.inverted ? ['lo 127.0.0.1'] : ['eth0 10.13.6.5'],
        bootstrapStage: 'bootstrap-commid',
      }),
    },
    {
      name: 'an unparsable NCCL_COMM_ID does not matter to the transports when ib* is there',
      env: { NCCL_COMM_ID: '[fe80::1:29600' },
      profiles: MAIN,
      expect: () => ({ socket: ['ib0 192.168.13.5'], socketStage: 'ib', bootstrap: [], bootstrapStage: null, bootstrapError: INVALID }),
    },
  ],
});

const V6_ALL = ['eth0 fe80::d4:a%eth0', 'eth1 fe80::d4:b%eth1', 'eth2 fd00:d4::5'];

scenario('D04 IPv6 NCCL_COMM_ID: [addr%ifname]:port scope ids (the inverted bug is IPv4 only)', {
  links: [
    { name: 'lo' },
    { name: 'eth0', addrs: ['fe80::d4:a/64'] },
    { name: 'eth1', addrs: ['fe80::d4:b/64'] },
    { name: 'eth2', addrs: ['fd00:d4::5/64'] },
  ],
  rows: [
    {
      name: '[fe80::d4:99%eth1]:5000 matches eth1 only (eth0 has the same prefix, another scope)',
      env: { NCCL_COMM_ID: '[fe80::d4:99%eth1]:5000' },
      profiles: MAIN,
      expect: () => ({ socket: ['eth1 fe80::d4:b%eth1'], socketStage: 'commid', bootstrap: ['eth1 fe80::d4:b%eth1'], bootstrapStage: 'bootstrap-commid' }),
    },
    {
      name: '[fe80::d4:99%eth0]:5000 matches eth0',
      env: { NCCL_COMM_ID: '[fe80::d4:99%eth0]:5000' },
      profiles: MAIN,
      expect: () => ({ socket: ['eth0 fe80::d4:a%eth0'], socketStage: 'commid', bootstrap: ['eth0 fe80::d4:a%eth0'], bootstrapStage: 'bootstrap-commid' }),
    },
    {
      name: '[fe80::d4:99]:5000 without scope matches no link-local address',
      env: { NCCL_COMM_ID: '[fe80::d4:99]:5000' },
      profiles: MAIN,
      expect: () => ({ socket: V6_ALL, socketStage: 'exclude', bootstrap: [], bootstrapStage: null, bootstrapError: NO_LISTEN }),
    },
    {
      name: '[fe80::d4:99%nosuch]:5000: unknown interface, scope id 0',
      env: { NCCL_COMM_ID: '[fe80::d4:99%nosuch]:5000' },
      profiles: MAIN,
      expect: () => ({ socket: V6_ALL, socketStage: 'exclude', bootstrap: [], bootstrapStage: null, bootstrapError: NO_LISTEN }),
    },
    {
      name: '[fd00:d4::1]:5000 matches the global address',
      env: { NCCL_COMM_ID: '[fd00:d4::1]:5000' },
      profiles: MAIN,
      expect: () => ({ socket: ['eth2 fd00:d4::5'], socketStage: 'commid', bootstrap: ['eth2 fd00:d4::5'], bootstrapStage: 'bootstrap-commid' }),
    },
    {
      name: '[fd00:d4::1%eth2]:5000: a scope id never equals a global address\'s 0',
      env: { NCCL_COMM_ID: '[fd00:d4::1%eth2]:5000' },
      profiles: MAIN,
      expect: () => ({ socket: V6_ALL, socketStage: 'exclude', bootstrap: [], bootstrapStage: null, bootstrapError: NO_LISTEN }),
    },
    {
      name: '[ without ] with NCCL_SOCKET_IFNAME=eth2: the transports use the list, bootstrap fails',
      env: { NCCL_COMM_ID: '[fe80::d4:99%eth1:5000', NCCL_SOCKET_IFNAME: 'eth2' },
      profiles: MAIN,
      expect: () => ({ socket: ['eth2 fd00:d4::5'], socketStage: 'ifname', bootstrap: [], bootstrapStage: null, bootstrapError: INVALID }),
    },
    {
      name: '[ without ]: an error for every consumer, no fall-through',
      env: { NCCL_COMM_ID: '[fe80::d4:99%eth1:5000' },
      profiles: MAIN,
      expect: () => ({
        socket: [],
        socketStage: null,
        socketError: 'Net : No valid [IPv6]:port pair found',
        ibOobError: 'Net : No valid [IPv6]:port pair found',
        bootstrap: [],
        bootstrapStage: null,
        bootstrapError: INVALID,
        findings: ['SOCK-007'],
      }),
    },
  ],
});

scenario('D05 NCCL_COMM_ID exported but empty (or one character)', {
  links: [{ name: 'lo' }, { name: 'eth0', addrs: ['10.13.7.5/24'] }],
  rows: [
    {
      name: 'NCCL_COMM_ID= breaks bootstrap; the transports ignore it',
      env: { NCCL_COMM_ID: '' },
      profiles: MAIN,
      expect: () => ({
        socket: ['eth0 10.13.7.5'],
        socketStage: 'exclude',
        bootstrap: [],
        bootstrapStage: null,
        bootstrapError: INVALID,
        findings: ['SOCK-015'],
      }),
    },
    {
      name: 'NCCL_COMM_ID=x: same',
      env: { NCCL_COMM_ID: 'x' },
      profiles: MAIN,
      expect: () => ({ socket: ['eth0 10.13.7.5'], socketStage: 'exclude', bootstrap: [], bootstrapStage: null, bootstrapError: INVALID }),
    },
  ],
});

scenario('D06 host names: resolved through /etc/hosts; unresolvable or bare IPv6 is an error', {
  // Names resolved and names that fail, one after another in one process: each case also runs on its own.
  compareEvery: true,
  etc: {
    hosts: '127.0.0.1 localhost\n10.13.8.7 nodeb\n',
    // Nothing listens there: DNS fails at once instead of timing out.
    'resolv.conf': 'nameserver 127.0.0.1\noptions timeout:1 attempts:1\n',
  },
  links: [{ name: 'lo' }, { name: 'eth0', addrs: ['10.13.8.5/24'] }, { name: 'eth1', addrs: ['10.13.9.5/24'] }],
  rows: [
    {
      name: 'nodeb:5000 resolves to 10.13.8.7 → eth0',
      env: { NCCL_COMM_ID: 'nodeb:5000' },
      profiles: MAIN,
      only: known,
      expect: (p) => {
        const one = p.inverted ? ['lo 127.0.0.1'] : ['eth0 10.13.8.5'];
        return { socket: one, socketStage: 'commid', bootstrap: one, bootstrapStage: 'bootstrap-commid' };
      },
    },
    {
      name: 'an unresolvable host: ncclFindInterfaces fails, no fall-through',
      env: { NCCL_COMM_ID: 'nosuchhost.invalid:5000' },
      profiles: MAIN,
      expect: () => ({
        socket: [],
        socketStage: null,
        socketError: /^Net : error encountered when getting address info : /,
        bootstrap: [],
        bootstrapStage: null,
        bootstrapError: INVALID,
        findings: ['SOCK-007'],
      }),
    },
    {
      name: 'bare IPv6 fd00::1:5000 is cut at the first ":" and "fd00" does not resolve',
      env: { NCCL_COMM_ID: 'fd00::1:5000' },
      profiles: MAIN,
      expect: () => ({
        socket: [],
        socketStage: null,
        socketError: /^Net : error encountered when getting address info : /,
        bootstrap: [],
        bootstrapStage: null,
        bootstrapError: INVALID,
      }),
    },
  ],
});

// getaddrinfo() reads IPv4 literals the inet_aton way (glibc's
// __inet_aton_exact): a leading 0 means octal, 0x hex, and fewer than four
// parts are allowed. `getent ahosts 010.011.002.001` prints 8.9.2.1 on glibc.
scenario('D07 IPv4 literals as getaddrinfo reads them: octal, hex, short forms', {
  etc: { 'resolv.conf': 'nameserver 127.0.0.1\noptions timeout:1 attempts:1\n' },
  links: [{ name: 'lo' }, { name: 'eth0', addrs: ['10.11.2.5/24'] }, { name: 'eth1', addrs: ['8.9.2.5/24'] }],
  rows: [
    {
      name: '010.011.002.001 is octal: 8.9.2.1 → eth1',
      env: { NCCL_COMM_ID: '010.011.002.001:5000' },
      profiles: COMMID,
      only: known,
      expect: (p) => {
        const one = p.inverted ? ['lo 127.0.0.1'] : ['eth1 8.9.2.5'];
        return { socket: one, socketStage: 'commid', bootstrap: one, bootstrapStage: 'bootstrap-commid' };
      },
    },
    {
      name: '0x0a.11.2.1 is hex: 10.11.2.1 → eth0',
      env: { NCCL_COMM_ID: '0x0a.11.2.1:5000' },
      profiles: MAIN,
      only: known,
      expect: (p) => {
        const one = p.inverted ? ['lo 127.0.0.1'] : ['eth0 10.11.2.5'];
        return { socket: one, socketStage: 'commid', bootstrap: one, bootstrapStage: 'bootstrap-commid' };
      },
    },
    {
      name: '10.11.514 is a three-part form: 10.11.2.2 → eth0',
      env: { NCCL_COMM_ID: '10.11.514:5000' },
      profiles: MAIN,
      only: known,
      expect: (p) => {
        const one = p.inverted ? ['lo 127.0.0.1'] : ['eth0 10.11.2.5'];
        return { socket: one, socketStage: 'commid', bootstrap: one, bootstrapStage: 'bootstrap-commid' };
      },
    },
    {
      name: '10.11.2.08 is not a literal (8 is no octal digit) and does not resolve: an error',
      env: { NCCL_COMM_ID: '10.11.2.08:5000' },
      profiles: MAIN,
      expect: () => ({
        socket: [],
        socketStage: null,
        socketError: /^Net : error encountered when getting address info : /,
        bootstrap: [],
        bootstrapStage: null,
        bootstrapError: INVALID,
      }),
    },
  ],
});
