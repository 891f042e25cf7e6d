// Where values come from (docs/nccl/params.md §1: conf files, the environment
// wins) and NCCLX's NCCL_SOCKET_IPADDR_PREFIX (§8).

import { existsSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { MAIN, scenario, suiteGate, type Expect, type ProfileName, type Traits } from './scenario.js';

suiteGate('conf.test.ts');

const NONE = {
  socket: [],
  socketStage: null,
  socketError: 'NET/Socket : no interface found',
  ibOobError: 'NET/IB : No IP interface found.',
  bootstrapError: 'Bootstrap : no socket interface found',
} satisfies Expect;

const NVIDIA: ProfileName[] = ['2.27.7', '2.28.3', '2.29.3', '2.30.3', '2.30.7'];

// ≤ 2.30.2 reads ~/.nccl.conf from the passwd entry's home, not $HOME. Rows
// that rely on that file being absent are left out if this machine has one.
const passwdHome = (() => {
  try {
    return userInfo().homedir;
  } catch {
    return null;
  }
})();
const passwdConfAbsent = passwdHome !== null && !existsSync(join(passwdHome, '.nccl.conf'));
const homeKnown = (p: Traits) => p.homeFromEnv !== null && (p.homeFromEnv || passwdConfAbsent);

const BOTH = ['eth0 10.14.1.5', 'eth1 10.14.2.5'];

scenario('E01 conf files: literal quotes, environment wins, CRLF, comments, ~/.nccl.conf', {
  links: [{ name: 'lo' }, { name: 'eth0', addrs: ['10.14.1.5/24'] }, { name: 'eth1', addrs: ['10.14.2.5/24'] }],
  files: {
    'quoted.conf': 'NCCL_SOCKET_IFNAME="eth0"\n',
    'eq.conf': 'NCCL_SOCKET_IFNAME==eth1\n',
    'crlf.conf': 'NCCL_SOCKET_IFNAME==eth1\r\n',
    'comment.conf': '# data network\nNCCL_SOCKET_IFNAME==eth1\n',
    'commid.conf': 'NCCL_COMM_ID=10.14.2.1:5000\n',
    'spaced.conf': 'NCCL_SOCKET_IFNAME ==eth1\n',
    'home/.nccl.conf': 'NCCL_SOCKET_IFNAME==eth1\n',
  },
  rows: [
    {
      name: 'NCCL_CONF_FILE with NCCL_SOCKET_IFNAME="eth0": the quotes stay and match nothing',
      env: (b) => ({ NCCL_CONF_FILE: join(b.dir, 'quoted.conf') }),
      expect: (_p, b) => ({
        ...NONE,
        findings: ['SOCK-010'],
        check: (j) => {
          expect(j.inputs['NCCL_SOCKET_IFNAME']?.value).toBe('"eth0"');
          expect(j.inputs['NCCL_SOCKET_IFNAME']?.source).toBe(`${join(b.dir, 'quoted.conf')}:1`);
        },
      }),
    },
    {
      name: 'NCCL_SOCKET_IFNAME==eth1 in the conf file: split at the first "="',
      env: (b) => ({ NCCL_CONF_FILE: join(b.dir, 'eq.conf') }),
      expect: () => ({ socket: ['eth1 10.14.2.5'], socketStage: 'ifname' }),
    },
    {
      name: 'the environment beats the conf file',
      env: (b) => ({ NCCL_CONF_FILE: join(b.dir, 'eq.conf'), NCCL_SOCKET_IFNAME: 'eth0' }),
      expect: () => ({
        socket: ['eth0 10.14.1.5'],
        socketStage: 'ifname',
        check: (j) => expect(j.inputs['NCCL_SOCKET_IFNAME']).toEqual({ value: 'eth0', source: 'environment' }),
      }),
    },
    {
      name: 'an exported but empty NCCL_SOCKET_IFNAME still beats the conf file (and is then ignored)',
      env: (b) => ({ NCCL_CONF_FILE: join(b.dir, 'eq.conf'), NCCL_SOCKET_IFNAME: '' }),
      expect: () => ({ socket: BOTH, socketStage: 'exclude', findings: ['SOCK-005'] }),
    },
    {
      name: '"NCCL_SOCKET_IFNAME ==eth1" sets a variable whose name ends in a space: no effect',
      env: (b) => ({ NCCL_CONF_FILE: join(b.dir, 'spaced.conf') }),
      expect: () => ({ socket: BOTH, socketStage: 'exclude' }),
    },
    {
      name: 'a CRLF conf line: tolerated from 2.30.3, before the value keeps its CR and matches nothing',
      env: (b) => ({ NCCL_CONF_FILE: join(b.dir, 'crlf.conf') }),
      profiles: NVIDIA,
      expect: (p) => (p.crlf ? { socket: ['eth1 10.14.2.5'], socketStage: 'ifname' } : { ...NONE, findings: ['SOCK-010'] }),
    },
    {
      name: 'a # comment line is skipped',
      env: (b) => ({ NCCL_CONF_FILE: join(b.dir, 'comment.conf') }),
      expect: () => ({ socket: ['eth1 10.14.2.5'], socketStage: 'ifname' }),
    },
    {
      name: 'NCCL_CONF_FILE unset: ~/.nccl.conf is $HOME from 2.30.3, the passwd home before',
      env: { NCCL_CONF_FILE: null },
      profiles: NVIDIA,
      only: homeKnown,
      expect: (p) => (p.homeFromEnv ? { socket: ['eth1 10.14.2.5'], socketStage: 'ifname' } : { socket: BOTH, socketStage: 'exclude' }),
    },
    {
      name: 'NCCL_CONF_FILE empty: same as unset',
      env: { NCCL_CONF_FILE: '' },
      profiles: NVIDIA,
      only: homeKnown,
      expect: (p) => (p.homeFromEnv ? { socket: ['eth1 10.14.2.5'], socketStage: 'ifname' } : { socket: BOTH, socketStage: 'exclude' }),
    },
    {
      name: 'NCCL_CONF_FILE naming a missing file: no fallback to ~/.nccl.conf',
      env: { NCCL_CONF_FILE: '/nonexistent/nccl.conf' },
      profiles: [...MAIN, '2.30.3'],
      expect: () => ({ socket: BOTH, socketStage: 'exclude' }),
    },
    {
      name: 'before 2.23.4 NCCL_CONF_FILE is not read at all',
      env: (b) => ({ NCCL_CONF_FILE: join(b.dir, 'eq.conf') }),
      profiles: ['2.22.3'],
      only: () => passwdConfAbsent,
      expect: () => ({ socket: BOTH, socketStage: 'exclude' }),
    },
    {
      name: 'NCCL_COMM_ID from the conf file drives bootstrap',
      env: (b) => ({ NCCL_CONF_FILE: join(b.dir, 'commid.conf'), NCCL_SOCKET_IFNAME: 'eth0' }),
      only: (p) => p.inverted !== null,
      expect: (p) => ({
        socket: ['eth0 10.14.1.5'],
        socketStage: 'ifname',
        bootstrap: p.inverted ? ['lo 127.0.0.1'] : ['eth1 10.14.2.5'],
        bootstrapStage: 'bootstrap-commid',
      }),
    },
  ],
});

const ALL3 = ['eth0 10.14.3.5', 'eth1 10.15.3.5', 'eth2 fe80::e2:5%eth2'];

scenario('E02 NCCLX NCCL_SOCKET_IPADDR_PREFIX (ignored by NVIDIA NCCL)', {
  links: [
    { name: 'lo' },
    { name: 'eth0', addrs: ['10.14.3.5/24'] },
    { name: 'eth1', addrs: ['10.15.3.5/24'] },
    { name: 'eth2', addrs: ['fe80::e2:5/64'] },
  ],
  rows: [
    {
      name: 'prefix 10.15',
      env: { NCCL_SOCKET_IPADDR_PREFIX: '10.15' },
      expect: (p) => ({ socket: p.ncclx ? ['eth1 10.15.3.5'] : ALL3, socketStage: 'exclude' }),
    },
    {
      name: 'prefix fe80::e2:5%eth: compared with the numeric text, scope included',
      env: { NCCL_SOCKET_IPADDR_PREFIX: 'fe80::e2:5%eth' },
      expect: (p) => ({ socket: p.ncclx ? ['eth2 fe80::e2:5%eth2'] : ALL3, socketStage: 'exclude' }),
    },
    {
      name: 'prefix 10.1 after NCCL_SOCKET_IFNAME=eth',
      env: { NCCL_SOCKET_IPADDR_PREFIX: '10.1', NCCL_SOCKET_IFNAME: 'eth' },
      expect: (p) => ({ socket: p.ncclx ? ['eth0 10.14.3.5', 'eth1 10.15.3.5'] : ALL3, socketStage: 'ifname' }),
    },
    {
      name: 'prefix 192.168. keeps nothing: every consumer fails under NCCLX',
      env: { NCCL_SOCKET_IPADDR_PREFIX: '192.168.' },
      expect: (p) => (p.ncclx ? { ...NONE } : { socket: ALL3, socketStage: 'exclude' }),
    },
    {
      name: 'the prefix is not applied to the NCCL_COMM_ID subnet match',
      env: { NCCL_SOCKET_IPADDR_PREFIX: '10.15', NCCL_COMM_ID: '10.14.3.1:5000' },
      only: (p) => p.inverted === false,
      expect: () => ({ socket: ['eth0 10.14.3.5'], socketStage: 'commid', bootstrap: ['eth0 10.14.3.5'], bootstrapStage: 'bootstrap-commid' }),
    },
  ],
});
