import { fixText } from '../helpers/remediation.js';
import { describe, expect, it } from 'vitest';
import { ids, link, names, pairs, run, snapshotOf, workedExample } from './helpers.js';

describe('worked example (docs/nccl/socket.md §10)', () => {
  it('nothing set: ib0 only (ib1 DOWN is skipped from 2.28.3)', () => {
    const r = run(workedExample(), '2.28.3');
    expect(pairs(r.socket.selected)).toEqual(['ib0:192.168.1.5']);
    expect(r.socket.stage).toBe('auto: ib');
    expect(names(r.bootstrap.selected)).toEqual(['ib0']);
    expect(names(r.ibOob.selected)).toEqual(['ib0']);
  });
  it('nothing set, NCCL < 2.28.3: the DOWN ib1 is eligible', () => {
    const r = run(workedExample(), '2.27.7');
    expect(names(r.socket.selected)).toEqual(['ib0', 'ib1']);
    expect(names(r.bootstrap.selected)).toEqual(['ib0']);
    expect(ids(r)).toContain('SOCK-018');
  });
  it('NCCL_SOCKET_IFNAME=eth', () => {
    const r = run(workedExample({ NCCL_SOCKET_IFNAME: 'eth' }), '2.28.3');
    expect(pairs(r.socket.selected)).toEqual(['eth0:10.0.0.5']);
    expect(names(r.bootstrap.selected)).toEqual(['eth0']);
    expect(r.socket.stage).toBe('NCCL_SOCKET_IFNAME');
  });
  it('NCCL_SOCKET_IFNAME=^ib,lo: eth0 (before 2.28.3 also the NO-CARRIER docker0)', () => {
    expect(names(run(workedExample({ NCCL_SOCKET_IFNAME: '^ib,lo' }), '2.28.3').socket.selected)).toEqual(['eth0']);
    expect(names(run(workedExample({ NCCL_SOCKET_IFNAME: '^ib,lo' }), '2.27.7').socket.selected)).toEqual(['eth0', 'docker0']);
  });
  it('NCCL_SOCKET_IFNAME=eth0 NCCL_SOCKET_FAMILY=AF_INET6: eth0 link-local with %eth0', () => {
    const r = run(workedExample({ NCCL_SOCKET_IFNAME: 'eth0', NCCL_SOCKET_FAMILY: 'AF_INET6' }), '2.28.3');
    expect(r.socket.selected).toEqual([{ name: 'eth0', address: 'fe80::a', family: 'AF_INET6', display: 'fe80::a%eth0' }]);
    expect(r.bootstrap.log).toBe('Bootstrap: Using eth0:fe80::a%eth0<0>');
    expect(ids(r)).toContain('SOCK-002');
  });
  it('NCCL_SOCKET_FAMILY=ipv6 is ignored: same as nothing', () => {
    const r = run(workedExample({ NCCL_SOCKET_FAMILY: 'ipv6' }), '2.28.3');
    expect(pairs(r.socket.selected)).toEqual(['ib0:192.168.1.5']);
    expect(ids(r)).toContain('SOCK-006');
  });
  it('NCCL_COMM_ID=10.0.0.1:5000: socket uses ib0 (ib step first), bootstrap eth0 (subnet)', () => {
    const r = run(workedExample({ NCCL_COMM_ID: '10.0.0.1:5000' }), '2.28.3');
    expect(names(r.socket.selected)).toEqual(['ib0']);
    expect(pairs(r.bootstrap.selected)).toEqual(['eth0:10.0.0.5']);
    expect(ids(r)).toContain('SOCK-016');
  });
  it('NCCL_COMM_ID + NCCL_SOCKET_IFNAME=ib1: socket has none, bootstrap still eth0', () => {
    const r = run(workedExample({ NCCL_COMM_ID: '10.0.0.1:5000', NCCL_SOCKET_IFNAME: 'ib1' }), '2.28.3');
    expect(r.socket.selected).toEqual([]);
    expect(r.socket.error?.log).toEqual(['NET/Socket : no interface found']);
    expect(r.ibOob.error?.log).toEqual(['NET/IB : No IP interface found.']);
    expect(names(r.bootstrap.selected)).toEqual(['eth0']);
    expect(ids(r)).toContain('SOCK-001');
  });
});

describe('ordering and de-duplication', () => {
  it('IPv4 of every link before any IPv6: a dual-stack link is represented by its IPv4', () => {
    const snap = snapshotOf([link('lo', ['127.0.0.1/8', '::1/128']), link('eth0', ['fd00::5/64']), link('eth1', ['10.0.0.6/24', 'fd01::6/64'])]);
    const r = run(snap, '2.28.3');
    expect(pairs(r.socket.selected)).toEqual(['eth1:10.0.0.6', 'eth0:fd00::5']);
  });
  it('first address of a name wins; the rest are duplicates with a reason', () => {
    const snap = snapshotOf([link('eth0', ['10.0.0.5/24', '10.0.0.6/24', 'fe80::1/64'])]);
    const r = run(snap, '2.28.3');
    expect(pairs(r.socket.selected)).toEqual(['eth0:10.0.0.5']);
    const dup = r.socket.trace.filter((t) => t.stage === 'auto: ^docker,lo,virbr' && t.verdict === 'duplicate');
    expect(dup.map((d) => d.address)).toEqual(['10.0.0.6', 'fe80::1']);
    expect(dup[0]!.reason).toMatch(/already have eth0 10.0.0.5 \(first address wins\)/);
  });
  it('an IPv4 alias label is its own name', () => {
    const snap = snapshotOf([link('eth0', ['10.0.0.5/24', ['10.0.1.5/24', 'eth0:1']])]);
    expect(pairs(run(snap, '2.28.3').socket.selected)).toEqual(['eth0:10.0.0.5', 'eth0:1:10.0.1.5']);
  });
  it('IPv6 loopback is skipped; IPv4 127.0.0.1 is only kept out by the name lo', () => {
    const snap = snapshotOf([link('lo', ['127.0.0.1/8', '::1/128'])]);
    const r = run(snap, '2.28.3', { ifname: 'lo' });
    expect(pairs(r.socket.selected)).toEqual(['lo:127.0.0.1']);
    const r6 = run(snap, '2.28.3', { ifname: 'lo', family: 'AF_INET6' });
    expect(r6.socket.selected).toEqual([]);
  });
  it('a link-local-only interface can be chosen', () => {
    const snap = snapshotOf([link('lo', ['127.0.0.1/8']), link('eth0', ['fe80::5/64'])]);
    const r = run(snap, '2.28.3');
    expect(r.socket.selected[0]).toMatchObject({ name: 'eth0', display: 'fe80::5%eth0' });
    expect(ids(r)).toContain('SOCK-002');
  });
  it('only 16 interfaces; the 17th is named in SOCK-009', () => {
    const links = Array.from({ length: 18 }, (_, i) => link(`eth${i}`, [`10.0.${i}.1/24`]));
    const r = run(snapshotOf(links), '2.28.3');
    expect(r.socket.selected).toHaveLength(16);
    expect(names(r.bootstrap.selected)).toEqual(['eth0']);
    const f = r.findings.find((x) => x.id === 'SOCK-009');
    expect(f?.message).toMatch(/dropped: eth16, eth17/);
    expect(r.socket.trace.filter((t) => t.verdict === 'not-examined').map((t) => t.name)).toContain('eth17');
  });
});

describe('automatic cascade', () => {
  const base = [link('lo', ['127.0.0.1/8']), link('docker0', ['172.17.0.1/16']), link('virbr0', ['192.168.122.1/24'])];
  it('virbr is excluded from 2.28.3, so docker0 wins over virbr0', () => {
    const r = run(snapshotOf(base), '2.28.3');
    expect(names(r.socket.selected)).toEqual(['docker0']);
    expect(r.socket.stage).toBe('auto: docker');
    expect(ids(r)).toContain('SOCK-003');
  });
  it('before 2.28.3 virbr0 passes ^docker,lo', () => {
    const r = run(snapshotOf(base), '2.27.7');
    expect(names(r.socket.selected)).toEqual(['virbr0']);
    expect(r.socket.stage).toBe('auto: ^docker,lo');
  });
  it('NCCLX v2_29/v2_30 have no virbr exclusion', () => {
    expect(names(run(snapshotOf(base), 'ncclx-2.30').socket.selected)).toEqual(['virbr0']);
    expect(names(run(snapshotOf(base), 'ncclx-2.29').socket.selected)).toEqual(['virbr0']);
  });
  it('lo fallback, then virbr last (≥ 2.28.3)', () => {
    expect(run(snapshotOf([link('lo', ['127.0.0.1/8']), link('virbr0', ['192.168.122.1/24'])]), '2.28.3').socket.stage).toBe('auto: lo');
    const r = run(snapshotOf([link('lo', ['127.0.0.1/8'], 'down'), link('virbr0', ['192.168.122.1/24'])]), '2.28.3');
    expect(r.socket.stage).toBe('auto: virbr');
  });
  it('prefix rules: ^docker,lo also excludes local0 and docker_gwbridge but not veth/cni0/br-', () => {
    const snap = snapshotOf([link('local0', ['10.9.0.1/24']), link('docker_gwbridge', ['172.18.0.1/16']), link('veth1a', ['10.1.0.1/24']), link('cni0', ['10.2.0.1/24']), link('br-ab', ['10.3.0.1/24'])]);
    expect(names(run(snap, '2.28.3').socket.selected)).toEqual(['veth1a', 'cni0', 'br-ab']);
  });
  it('ib prefix includes ibp12s0 and ib0.8001', () => {
    const snap = snapshotOf([link('eth0', ['10.0.0.1/24']), link('ibp12s0', ['10.1.0.1/24']), link('ib0.8001', ['10.2.0.1/24'])]);
    expect(names(run(snap, '2.28.3').socket.selected)).toEqual(['ibp12s0', 'ib0.8001']);
  });
  it('nothing at all: every consumer fails with its own WARN', () => {
    const r = run(snapshotOf([link('lo', ['127.0.0.1/8'], 'down')]), '2.28.3');
    expect(r.bootstrap.error?.log).toEqual(['Bootstrap : no socket interface found']);
    expect(r.socket.error?.log).toEqual(['NET/Socket : no interface found']);
    expect(r.ibOob.error?.log).toEqual(['NET/IB : No IP interface found.']);
  });
});

describe('NCCL_SOCKET_IFNAME', () => {
  const snap = snapshotOf([link('lo', ['127.0.0.1/8']), link('eth1', ['10.0.1.1/24']), link('eth10', ['10.0.10.1/24']), link('eth2', ['10.0.2.1/24'])]);
  it('eth1 also matches eth10; =eth1 does not; SOCK-004 suggests =', () => {
    const r = run(snap, '2.28.3', { ifname: 'eth1' });
    expect(names(r.socket.selected)).toEqual(['eth1', 'eth10']);
    const f = r.findings.find((x) => x.id === 'SOCK-004');
    expect(fixText(f)).toBe("export NCCL_SOCKET_IFNAME='=eth1'");
    expect(names(run(snap, '2.28.3', { ifname: '=eth1' }).socket.selected)).toEqual(['eth1']);
  });
  it('1-character values are ignored (auto mode) with SOCK-005', () => {
    for (const v of ['e', '^', '=', '']) {
      const r = run(snap, '2.28.3', { ifname: v });
      expect(r.socket.stage).toBe('auto: ^docker,lo,virbr');
      expect(ids(r)).toContain('SOCK-005');
    }
  });
  it('^= alone excludes everything (length 2)', () => {
    expect(run(snap, '2.28.3', { ifname: '^=' }).socket.selected).toEqual([]);
  });
  it('no fallback when the user list matches nothing', () => {
    const r = run(snap, '2.28.3', { ifname: 'ens' });
    expect(r.socket.selected).toEqual([]);
    expect(ids(r)).toEqual(expect.arrayContaining(['SOCK-001', 'SOCK-011']));
  });
  it('^docker0 re-admits lo (SOCK-013)', () => {
    const r = run(snapshotOf([link('lo', ['127.0.0.1/8']), link('docker0', ['172.17.0.1/16'])]), '2.28.3', { ifname: '^docker0' });
    expect(names(r.socket.selected)).toEqual(['lo']);
    expect(fixText(r.findings.find((f) => f.id === 'SOCK-013'))).toBe("export NCCL_SOCKET_IFNAME='^docker0,lo'");
  });
  it('an IP address is not an interface name (SOCK-012)', () => {
    const r = run(snap, '2.28.3', { ifname: '10.0.1.1' });
    expect(r.socket.selected).toEqual([]);
    expect(ids(r)).toContain('SOCK-012');
  });
  it('NCCL_COMM_ID does not affect the user list', () => {
    const r = run(snap, '2.28.3', { ifname: 'eth2', commId: '10.0.1.9:1' });
    expect(names(r.socket.selected)).toEqual(['eth2']);
    expect(names(r.bootstrap.selected)).toEqual(['eth1']);
  });
});

describe('NCCL_COMM_ID subnet match', () => {
  const snap = snapshotOf([link('lo', ['127.0.0.1/8', '::1/128']), link('eth0', ['10.0.0.5/24', 'fe80::5/64']), link('eth1', ['10.1.0.5/16', 'fe80::6/64'])]);
  it('without ib*, the socket transport gets ONE interface from the hint', () => {
    const r = run(snap, '2.28.3', { commId: '10.1.200.1:29500' });
    expect(pairs(r.socket.selected)).toEqual(['eth1:10.1.0.5']);
    expect(r.socket.stage).toBe('auto: NCCL_COMM_ID subnet');
    expect(pairs(r.bootstrap.selected)).toEqual(['eth1:10.1.0.5']);
  });
  it('uses the LOCAL netmask', () => {
    // 10.0.1.1 is outside eth0's /24 → no hint match; falls through to the exclusion list.
    const r = run(snap, '2.28.3', { commId: '10.0.1.1:1' });
    expect(r.socket.stage).toBe('auto: ^docker,lo,virbr');
    expect(r.bootstrap.error?.log).toEqual(['NET/Socket : No usable listening interface found']);
    expect(ids(r)).toContain('SOCK-008');
  });
  it('no RUNNING filter in the subnet match', () => {
    const s2 = snapshotOf([link('eth0', ['10.0.0.5/24'], 'down'), link('eth1', ['10.1.0.5/24'])]);
    const r = run(s2, '2.28.3', { commId: '10.0.0.1:1' });
    expect(names(r.bootstrap.selected)).toEqual(['eth0']);
    expect(names(r.socket.selected)).toEqual(['eth0']);
  });
  it('[fe80::…%eth1]: scope ids must be equal, so only eth1 matches', () => {
    const r = run(snap, '2.28.3', { commId: '[fe80::99%eth1]:1' });
    expect(r.bootstrap.selected[0]).toMatchObject({ name: 'eth1', address: 'fe80::6', display: 'fe80::6%eth1' });
    const none = run(snap, '2.28.3', { commId: '[fe80::99]:1' });
    expect(none.bootstrap.selected).toEqual([]);
  });
  it('2.29.2–2.29.7 invert the IPv4 test: lo 127.0.0.1 is picked (and NCCLX v2_29)', () => {
    for (const v of ['2.29.2', '2.29.7', 'ncclx-2.29']) {
      const r = run(snap, v, { commId: '10.0.0.1:1' });
      expect(pairs(r.bootstrap.selected)).toEqual(['lo:127.0.0.1']);
      expect(ids(r)).toContain('SOCK-014');
    }
    expect(pairs(run(snap, '2.30.3', { commId: '10.0.0.1:1' }).bootstrap.selected)).toEqual(['eth0:10.0.0.5']);
    // IPv6 is unaffected by the bug.
    expect(names(run(snap, '2.29.3', { commId: '[fe80::1%eth0]:1' }).bootstrap.selected)).toEqual(['eth0']);
  });
  it('bootstrap ignores NCCL_SOCKET_IFNAME when NCCL_COMM_ID is set', () => {
    const r = run(snap, '2.28.3', { commId: '10.0.0.1:1', ifname: '=eth1' });
    expect(names(r.bootstrap.selected)).toEqual(['eth0']);
    expect(names(r.socket.selected)).toEqual(['eth1']);
  });
  it('empty-but-set NCCL_COMM_ID breaks bootstrap only', () => {
    const r = run(snap, '2.28.3', { commId: '' });
    expect(r.bootstrap.error?.log).toEqual(['Net : string is null', 'Invalid NCCL_COMM_ID, please use format: <ipv4>:<port> or [<ipv6>]:<port> or <hostname>:<port>']);
    expect(r.socket.selected.length).toBeGreaterThan(0);
    expect(ids(r)).toContain('SOCK-015');
  });
  it('an unparsable hint makes ncclFindInterfaces fail: no fall-through', () => {
    const r = run(snap, '2.28.3', { commId: '[fe80::1:5000' });
    expect(r.socket.selected).toEqual([]);
    expect(r.socket.error?.log).toEqual(['Net : No valid [IPv6]:port pair found']);
    expect(ids(r)).toContain('SOCK-007');
  });
  it('ib* beats the hint for the socket transport', () => {
    const s2 = snapshotOf([link('eth0', ['10.0.0.5/24']), link('ib0', ['10.9.0.5/24'])]);
    const r = run(s2, '2.28.3', { commId: '10.0.0.1:1' });
    expect(names(r.socket.selected)).toEqual(['ib0']);
    expect(names(r.bootstrap.selected)).toEqual(['eth0']);
  });
});

describe('NCCLX NCCL_SOCKET_IPADDR_PREFIX', () => {
  const snap = snapshotOf([link('eth0', ['10.0.0.5/24', '2401:db00::5/64', 'fe80::5/64']), link('eth1', ['172.16.0.5/24'])], { env: { NCCL_SOCKET_IPADDR_PREFIX: '2401:' } });
  it('keeps only addresses whose text starts with the prefix, before de-duplication', () => {
    const r = run(snap, 'ncclx-2.30');
    expect(pairs(r.socket.selected)).toEqual(['eth0:2401:db00::5']);
  });
  it('is ignored by NVIDIA NCCL', () => {
    expect(names(run(snap, '2.30.7').socket.selected)).toEqual(['eth0', 'eth1']);
  });
  it('link-local text includes %ifname', () => {
    const s2 = snapshotOf([link('eth0', ['fe80::5/64'])], { env: { NCCL_SOCKET_IPADDR_PREFIX: 'fe80::5%eth0' } });
    expect(names(run(s2, 'ncclx-2.29').socket.selected)).toEqual(['eth0']);
  });
  it('is not applied to the NCCL_COMM_ID subnet match', () => {
    const r = run(snap, 'ncclx-2.30', { commId: '172.16.0.1:1' });
    expect(names(r.bootstrap.selected)).toEqual(['eth1']);
  });
});

describe('conf files feed the selection', () => {
  it('a quoted value from /etc/nccl.conf matches nothing (SOCK-010)', () => {
    const snap = snapshotOf([link('eth0', ['10.0.0.5/24'])], { confFiles: [{ path: '/etc/nccl.conf', role: 'etc', content: 'NCCL_SOCKET_IFNAME="eth0"\n', error: null }] });
    const r = run(snap, '2.28.3');
    expect(r.inputs['NCCL_SOCKET_IFNAME']).toEqual({ value: '"eth0"', source: '/etc/nccl.conf:1' });
    expect(r.socket.selected).toEqual([]);
    expect(ids(r)).toEqual(expect.arrayContaining(['SOCK-010', 'SOCK-001']));
  });
  it('flags beat the environment', () => {
    const snap = snapshotOf([link('eth0', ['10.0.0.5/24']), link('eth1', ['10.0.1.5/24'])], { env: { NCCL_SOCKET_IFNAME: 'eth0' } });
    const r = run(snap, '2.28.3', { ifname: 'eth1' });
    expect(names(r.socket.selected)).toEqual(['eth1']);
    expect(r.inputs['NCCL_SOCKET_IFNAME']!.source).toBe('--ifname');
  });
});

describe('NCCL_SOCKET_FAMILY', () => {
  const snap = snapshotOf([link('eth0', ['10.0.0.5/24', 'fd00::5/64'])]);
  it('ipv4, 4, inet6, af_inet are silent no-ops (both families)', () => {
    for (const v of ['ipv4', '4', 'inet6', 'af_inet', '']) {
      const r = run(snap, '2.28.3', { family: v });
      expect(pairs(r.socket.selected)).toEqual(['eth0:10.0.0.5']);
      expect(ids(r)).toContain('SOCK-006');
    }
  });
  it('AF_INET6 keeps only IPv6', () => {
    expect(pairs(run(snap, '2.28.3', { family: 'AF_INET6' }).socket.selected)).toEqual(['eth0:fd00::5']);
  });
});

describe('finding presentation', () => {
  it('one finding per interface problem, naming every consumer; fixes suggest a RUNNING routable interface', () => {
    const snap = snapshotOf([link('lo', ['127.0.0.1/8']), link('ifb0', [], 'down'), link('eth9', ['fe80::9/64']), link('ens5', ['10.0.0.5/24'])]);
    const r = run(snap, '2.28.3', { ifname: 'lo' });
    const f = r.findings.filter((x) => x.id === 'SOCK-003');
    expect(f).toHaveLength(1);
    expect(f[0]!.message).toMatch(/^Bootstrap, socket transport and IB transport OOB use lo 127\.0\.0\.1, loopback/);
    expect(fixText(f[0])).toMatch(/export NCCL_SOCKET_IFNAME='=ens5'$/);
  });
});
