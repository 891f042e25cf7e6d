// NCCL's GID index choice (docs/nccl/gid.md), rule by rule.
import { describe, expect, it } from 'vitest';
import {
  classifyType,
  gidConfigured,
  gidFamily,
  gidFlid,
  gidInRange,
  gidIPv4,
  gidLinkLocal,
  gidValid,
  parseGid,
  readAddrRange,
  readGidParams,
  selectGid,
  strtol10,
  tableLength,
  type GidSelection,
} from '../../src/model/nccl/gid.js';
import { parseVersion, profileFor } from '../../src/model/nccl/versions.js';
import type { GidEntry } from '../../src/model/snapshot/rdma-types.js';
import { EINVAL, ENOENT, gids, ll, v4gid, v6gid, workedTable, Z } from '../rdma/helpers.js';

const P = (v: string) => profileFor(parseVersion(v));
const g = (text: string) => parseGid(text)!;

function pick(entries: GidEntry[], env: Record<string, string> = {}, version = '2.28.3', linkLayer: 'Ethernet' | 'InfiniBand' = 'Ethernet'): GidSelection {
  const profile = P(version);
  return selectGid({ linkLayer, entries }, readGidParams(env, profile), profile, 'mlx5_0', 1);
}
const idx = (s: GidSelection) => (s.outcome.kind === 'index' ? s.outcome.index : s.outcome.kind);

describe('GID arithmetic (§3.2)', () => {
  it('family: IPv4-mapped and the ff0e::ffff:a.b.c.d form are AF_INET; zero and link-local are AF_INET6', () => {
    expect(gidFamily(g(v4gid('10.0.0.5')))).toBe('AF_INET');
    expect(gidFamily(g('ff0e:0000:0000:0000:0000:ffff:0a00:0005'))).toBe('AF_INET');
    expect(gidFamily(g(Z))).toBe('AF_INET6');
    expect(gidFamily(g(ll()))).toBe('AF_INET6');
    expect(gidFamily(g('0000:0000:0000:0000:0000:fffe:0a00:0005'))).toBe('AF_INET6');
  });
  it('configured: all-zero and exactly fe80:: are not; everything else is', () => {
    expect(gidConfigured(g(Z))).toBe(false);
    expect(gidConfigured(g('fe80:0000:0000:0000:0000:0000:0000:0000'))).toBe(false);
    expect(gidConfigured(g('fe80:0000:0000:0000:0000:0000:0000:0001'))).toBe(true);
    expect(gidConfigured(g(v4gid('0.0.0.1')))).toBe(true);
  });
  it('link-local means fe80::/64 only, not all of fe80::/10', () => {
    expect(gidLinkLocal(g(ll()))).toBe(true);
    expect(gidLinkLocal(g('fe80:0000:0000:0001:0000:0000:0000:0001'))).toBe(false);
    expect(gidLinkLocal(g('febf:0000:0000:0000:0000:0000:0000:0001'))).toBe(false);
    expect(gidValid(g('fe80:0000:0000:0001:0000:0000:0000:0001'))).toBe(true);
    expect(gidValid(g(ll()))).toBe(false);
    expect(gidValid(g(v6gid('2001:db8::5')))).toBe(true);
  });
  it('FLID is bytes 4–5, IPv4 of a mapped GID', () => {
    expect(gidFlid(g('fec0:0000:0a1b:0001:0000:0000:0000:0001'))).toBe(0x0a1b);
    expect(gidFlid(g(ll()))).toBe(0);
    expect(gidIPv4(g(v4gid('172.16.0.11')))).toBe('172.16.0.11');
    expect(gidIPv4(g(ll()))).toBeNull();
  });
  it('reads the types file like ncclIbRoceGetVersionNum: first 15 bytes, prefix compare', () => {
    expect(classifyType('IB/RoCE v1')).toMatchObject({ kind: 'version', version: 1 });
    expect(classifyType('RoCE v1')).toMatchObject({ kind: 'version', version: 1 });
    expect(classifyType('RoCE v2')).toMatchObject({ kind: 'version', version: 2 });
    expect(classifyType('RoCE v2 (extra text past 15 bytes)')).toMatchObject({ kind: 'version', version: 2 });
    expect(classifyType('roce v2')).toMatchObject({ kind: 'unrecognised' });
    expect(classifyType('')).toMatchObject({ kind: 'unrecognised' });
    expect(classifyType(EINVAL)).toEqual({ kind: 'read-failed', errno: 'EINVAL' });
    expect(classifyType(ENOENT)).toEqual({ kind: 'open-failed', errno: 'ENOENT' });
  });
  it('table length counts the listing, a missing index stays unknown', () => {
    expect(tableLength(gids([], 255))).toBe(255);
    expect(tableLength([{ index: 4, gid: Z, type: EINVAL, ndev: EINVAL }])).toBe(5);
  });
});

describe('NCCL_IB_ADDR_RANGE, read in NCCL_IB_ADDR_FAMILY (§3.2)', () => {
  it('no slash is ignored silently; a bad address or a too-long mask is ignored with NCCL\'s INFO line', () => {
    expect(readAddrRange('10.0.0.0', 'AF_INET')).toMatchObject({ effect: 'all', log: null });
    expect(readAddrRange('10.0.0/24', 'AF_INET')).toMatchObject({ effect: 'all', log: "NET/IB: Ip address '10.0.0' is invalid for family AF_INET, ignoring address" });
    expect(readAddrRange('10.0.0.0/33', 'AF_INET')).toMatchObject({ effect: 'all', log: "NET/IB: Ip address mask '33' is invalid for family AF_INET, ignoring mask" });
    expect(readAddrRange('fd00::/129', 'AF_INET6')).toMatchObject({ effect: 'all', log: "NET/IB: Ip address mask '129' is invalid for family AF_INET6, ignoring mask" });
  });
  it('an IPv4 range under AF_INET6 is an invalid address (the family decides how it is read)', () => {
    expect(readAddrRange('10.0.0.0/8', 'AF_INET6')).toMatchObject({ effect: 'all', log: "NET/IB: Ip address '10.0.0.0' is invalid for family AF_INET6, ignoring address" });
  });
  it('length 0 matches everything, a negative length nothing; strtol reads the length', () => {
    expect(readAddrRange('10.0.0.0/0', 'AF_INET')!.effect).toBe('all');
    expect(readAddrRange('10.0.0.0/-1', 'AF_INET')!.effect).toBe('none-match');
    expect(readAddrRange('10.0.0.0/24abc', 'AF_INET')).toMatchObject({ effect: 'prefix', prefixlen: 24 });
    expect(strtol10(' 24')).toBe(24);
    expect(strtol10('x')).toBe(0);
  });
  it('AF_INET compares the last 32 bits; AF_INET6 word by word', () => {
    const r = readAddrRange('192.168.1.0/24', 'AF_INET')!;
    expect(gidInRange(r, g(v4gid('192.168.1.5')))).toBe(true);
    expect(gidInRange(r, g(v4gid('192.168.2.5')))).toBe(false);
    const r6 = readAddrRange('2001:db8::/33', 'AF_INET6')!;
    expect(gidInRange(r6, g(v6gid('2001:db8:7fff::1')))).toBe(true);
    expect(gidInRange(r6, g(v6gid('2001:db8:8000::1')))).toBe(false);
    expect(gidInRange(null, g(Z))).toBe(true);
  });
});

describe('the §3.5 worked example, every row', () => {
  const rows: [string, Record<string, string>, number][] = [
    ['defaults (INET, v2)', {}, 3],
    ['NCCL_IB_ADDR_RANGE=192.168.1.0/24', { NCCL_IB_ADDR_RANGE: '192.168.1.0/24' }, 5],
    ['NCCL_IB_ROCE_VERSION_NUM=1', { NCCL_IB_ROCE_VERSION_NUM: '1' }, 2],
    ['NCCL_IB_ROCE_VERSION_NUM=3 (only the family switch fires: a RoCE v1 GID)', { NCCL_IB_ROCE_VERSION_NUM: '3' }, 2],
    ['NCCL_IB_ADDR_FAMILY=AF_INET6', { NCCL_IB_ADDR_FAMILY: 'AF_INET6' }, 7],
  ];
  for (const [name, env, want] of rows) {
    it(name, () => expect(idx(pick(workedTable(), env))).toBe(want));
  }
  it('only link-local GIDs (no IP on the netdev): 0', () => {
    expect(idx(pick(gids([[ll(), 'v1'], [ll(), 'v2']], 255)))).toBe(0);
  });
  it('NCCL_IB_ADDR_FAMILY=AF_INET6 without a global IPv6: 0', () => {
    const t = gids([[ll(), 'v1'], [ll(), 'v2'], [v4gid('10.0.0.5'), 'v1'], [v4gid('10.0.0.5'), 'v2']], 255);
    expect(idx(pick(t, { NCCL_IB_ADDR_FAMILY: 'AF_INET6' }))).toBe(0);
  });
  it('the default walk is traced entry by entry with NCCL\'s reasons', () => {
    const s = pick(workedTable());
    const v = s.trace.map((t) => `${t.index}:${t.verdict}`);
    expect(v).toEqual(['0:start', '1:skipped', '2:switch-family', '3:switch-version', '4:kept', '5:kept', '6:skipped', '7:skipped', '3:chosen']);
    expect(s.trace[1]!.reason).toMatch(/family AF_INET6, NCCL_IB_ADDR_FAMILY wants AF_INET/);
    expect(s.trace[2]!.reason).toMatch(/without checking validity or version/);
    expect(s.trace[4]!.reason).toMatch(/GID 3 is v2, GID 4 is v1/);
  });
  it('a value other than exactly AF_INET6 is AF_INET', () => {
    expect(idx(pick(workedTable(), { NCCL_IB_ADDR_FAMILY: 'af_inet6' }))).toBe(3);
    expect(readGidParams({ NCCL_IB_ADDR_FAMILY: 'ipv6' }, P('2.28.3')).family).toEqual({ raw: 'ipv6', value: 'AF_INET', recognised: false });
  });
  it('a negative range length makes every candidate fail: GID 0', () => {
    expect(idx(pick(workedTable(), { NCCL_IB_ADDR_RANGE: '10.0.0.0/-4' }))).toBe(0);
  });
  it('NCCL_IB_ROCE_VERSION_NUM is parsed C-style: "2abc" is 2, "true" is 0 (no version wins)', () => {
    expect(idx(pick(workedTable(), { NCCL_IB_ROCE_VERSION_NUM: '2abc' }))).toBe(3);
    expect(idx(pick(workedTable(), { NCCL_IB_ROCE_VERSION_NUM: 'true' }))).toBe(2);
  });
});

describe('explicit NCCL_IB_GID_INDEX and the pre-2.21.5 default', () => {
  it('≥ 2.21.5: any value ≥ 0 is used as is, even an unset entry', () => {
    expect(idx(pick(workedTable(), { NCCL_IB_GID_INDEX: '1' }))).toBe(1);
    expect(pick(workedTable(), { NCCL_IB_GID_INDEX: '1' }).mode).toBe('explicit');
    expect(idx(pick(gids([[ll(), 'v1']], 255), { NCCL_IB_GID_INDEX: '9' }))).toBe(9);
  });
  it('C parsing: 010 is 8, true is 0, -1 means automatic', () => {
    const t = gids([], 255);
    expect(idx(pick(t, { NCCL_IB_GID_INDEX: '010' }))).toBe(8);
    expect(idx(pick(workedTable(), { NCCL_IB_GID_INDEX: 'true' }))).toBe(0);
    expect(pick(workedTable(), { NCCL_IB_GID_INDEX: 'true' }).mode).toBe('explicit');
    expect(pick(workedTable(), { NCCL_IB_GID_INDEX: '-1' }).mode).toBe('auto');
  });
  it('out of range: ibv_query_gid fails and the connection with it', () => {
    const s = pick(workedTable(), { NCCL_IB_GID_INDEX: '8' });
    expect(s.outcome).toMatchObject({ kind: 'failure', log: ['Call to ibv_query_gid failed'] });
  });
  it('< 2.21.5: default 0 with no detection; the address variables are not read', () => {
    const s = pick(workedTable(), { NCCL_IB_ADDR_FAMILY: 'AF_INET6' }, '2.20.5');
    expect(s.mode).toBe('fixed-default');
    expect(idx(s)).toBe(0);
    expect(idx(pick(workedTable(), { NCCL_IB_GID_INDEX: '3' }, '2.19.3'))).toBe(3);
    expect(idx(pick(workedTable(), {}, '2.21.5'))).toBe(3);
  });
});

describe('InfiniBand ports', () => {
  const ibTable = (flid: string | null) =>
    gids([[ll('a088:c203:0040:5e10'), 'IB/RoCE v1'], ...(flid ? ([[flid, 'IB/RoCE v1']] as [string, string][]) : [])], 128, null);
  it('≥ 2.22.3: GID 1 when its FLID is non-zero, else 0; NCCL_IB_GID_INDEX is ignored', () => {
    expect(idx(pick(ibTable('fec0:0000:0a1b:0001:a088:c203:0040:5e10'), {}, '2.22.3', 'InfiniBand'))).toBe(1);
    expect(idx(pick(ibTable(null), { NCCL_IB_GID_INDEX: '3' }, '2.28.3', 'InfiniBand'))).toBe(0);
    expect(pick(ibTable(null), {}, '2.28.3', 'InfiniBand').mode).toBe('ib-flid');
  });
  it('NCCL_IB_ROUTABLE_FLID_GID_INDEX beyond the table gives 0; negative fails the query', () => {
    expect(idx(pick(ibTable('fec0:0000:0a1b:0001:a088:c203:0040:5e10'), { NCCL_IB_ROUTABLE_FLID_GID_INDEX: '200' }, '2.28.3', 'InfiniBand'))).toBe(0);
    expect(idx(pick(ibTable(null), { NCCL_IB_ROUTABLE_FLID_GID_INDEX: '-1' }, '2.28.3', 'InfiniBand'))).toBe('failure');
  });
  it('an index equal to the table length is outside it (GID 0); the last entry, with a FLID, is used', () => {
    // 4 entries: 0 link-local, 3 routable (FLID 0x0a1b); NCCL tests r < gid_tbl_len.
    const four = gids([[ll('a088:c203:0040:5e10'), 'IB/RoCE v1'], null, null, ['fec0:0000:0a1b:0001:a088:c203:0040:5e10', 'IB/RoCE v1']], 4, null);
    expect(idx(pick(four, { NCCL_IB_ROUTABLE_FLID_GID_INDEX: '4' }, '2.28.3', 'InfiniBand'))).toBe(0);
    expect(idx(pick(four, { NCCL_IB_ROUTABLE_FLID_GID_INDEX: '3' }, '2.28.3', 'InfiniBand'))).toBe(3);
    // Index 0 itself is a valid choice of the variable.
    expect(pick(four, { NCCL_IB_ROUTABLE_FLID_GID_INDEX: '0' }, '2.28.3', 'InfiniBand').trace[0]).toMatchObject({ index: 0 });
  });
  it('before 2.22.3 InfiniBand is addressed by LID: no GID index', () => {
    expect(pick(ibTable(null), {}, '2.21.5', 'InfiniBand').outcome).toMatchObject({ kind: 'not-used' });
  });
});

describe('unreadable types files: EINVAL tolerance from 2.26.2', () => {
  // Own entries first, then another namespace's IPv4 entries whose types read EINVAL.
  const table = gids(
    [
      [ll(), 'v1'],
      [ll(), 'v2'],
      [v4gid('10.156.129.132'), 'v1'],
      [v4gid('10.156.129.132'), 'v2'],
      [ll('c025:a1ff:fe31:7f02'), EINVAL, EINVAL],
      [ll('c025:a1ff:fe31:7f02'), EINVAL, EINVAL],
      [v4gid('10.156.130.10'), EINVAL, EINVAL],
      [v4gid('10.156.130.10'), EINVAL, EINVAL],
    ],
    255,
  );
  it('≥ 2.26.2: the candidate reads as version unknown (-1) and loses: still 3', () => {
    const s = pick(table, {}, '2.26.2');
    expect(idx(s)).toBe(3);
    expect(s.einval).toEqual([6, 7]);
  });
  it('2.23.4–2.25: the same read fails the connection, with the WARN text', () => {
    expect(pick(table, {}, '2.23.4').outcome).toEqual({ kind: 'failure', log: ['NET/IB: read failed in ncclIbRoceGetVersionNum: Invalid argument'], why: expect.stringContaining('EINVAL') });
  });
  it('2.21.5–2.22.x: fails silently (no WARN before 2.23.4)', () => {
    expect(pick(table, {}, '2.22.3').outcome).toMatchObject({ kind: 'failure', log: [] });
  });
  it('an unset entry never gets its types read (it is not a candidate), so a plain table is fine on every version', () => {
    expect(idx(pick(gids([[ll(), 'v1'], [ll(), 'v2'], [v4gid('10.0.0.5'), 'v1'], [v4gid('10.0.0.5'), 'v2']], 255), {}, '2.21.5'))).toBe(3);
  });
  it('when the current entry is unreadable NCCL compares an uninitialised value: indeterminate, with every possible index', () => {
    // Another namespace's entries first (cf. NVIDIA/nccl#1538): the family switch lands on GID 2, whose type is unreadable.
    const t = gids(
      [
        [ll('58f6:6bff:fe9a:1103'), EINVAL, EINVAL],
        [ll('58f6:6bff:fe9a:1103'), EINVAL, EINVAL],
        [v4gid('10.156.133.4'), EINVAL, EINVAL],
        [v4gid('10.156.133.4'), EINVAL, EINVAL],
        [ll(), 'v1'],
        [ll(), 'v2'],
        [v4gid('10.156.133.132'), 'v1'],
        [v4gid('10.156.133.132'), 'v2'],
      ],
      255,
    );
    const s = pick(t, {}, '2.28.3');
    expect(s.outcome).toMatchObject({ kind: 'indeterminate', candidates: [2, 7], failurePossible: false });
    expect(s.trace.find((x) => x.index === 7)!.verdict).toBe('uncertain');
    expect(pick(t, {}, '2.25.1').outcome.kind).toBe('failure');
  });
  it('an unknown that cannot change the result is not reported as indeterminate', () => {
    // AF_INET6: cur = 0 (link-local, same family, not valid) — !valid(cur) decides, cur's unread version does not matter.
    const t = gids([[ll(), EINVAL, EINVAL], [v6gid('2001:db8::5'), 'v2']], 255);
    const s = pick(t, { NCCL_IB_ADDR_FAMILY: 'AF_INET6' }, '2.28.3');
    expect(idx(s)).toBe(1);
    expect(s.einval).toEqual([0]);
    expect(pick(t, { NCCL_IB_ADDR_FAMILY: 'AF_INET6' }, '2.25.1').outcome.kind).toBe('failure');
  });
  it('NCCL_IB_ROCE_VERSION_NUM=-1 matches a candidate NCCL could not read (its variable starts at -1)', () => {
    const t = gids([[ll(), 'v1'], [v4gid('10.0.0.5'), 'v2'], [v4gid('10.0.0.6'), EINVAL, EINVAL]], 255);
    expect(idx(pick(t, { NCCL_IB_ROCE_VERSION_NUM: '-1' }, '2.28.3'))).toBe(2);
  });
  it('a types file that cannot be opened fails the connection on every version', () => {
    const t = gids([[ll(), 'v1'], [ll(), 'v2'], [v4gid('10.0.0.5'), ENOENT, 'eth1'], [v4gid('10.0.0.5'), 'v2']], 8);
    expect(pick(t, {}, '2.28.3').outcome).toMatchObject({ kind: 'failure', log: ['NET/IB: open failed in ncclIbRoceGetVersionNum: No such file or directory'] });
    expect(pick(t, {}, '2.21.5').outcome).toMatchObject({ kind: 'failure', log: [] });
  });
  it('an unrecognised types text leaves the candidate at -1 (≥ 2.26.2): no switch', () => {
    const t = gids([[ll(), 'v1'], [v4gid('10.0.0.5'), 'v2'], [v4gid('10.0.0.6'), 'RoCE v9']], 8);
    expect(idx(pick(t, {}, '2.28.3'))).toBe(1);
    expect(pick(t, {}, '2.25.1').outcome.kind).toBe('indeterminate');
  });
  it('missing entries in a transcribed table are unknown GIDs: the choice lists every possibility', () => {
    const sparse: GidEntry[] = [
      { index: 4, gid: v4gid('172.20.1.1'), type: 'IB/RoCE v1', ndev: 'net1' },
      { index: 5, gid: v4gid('172.20.1.1'), type: 'RoCE v2', ndev: 'net1' },
    ];
    const s = pick(sparse);
    expect(s.outcome.kind).toBe('indeterminate');
    if (s.outcome.kind === 'indeterminate') expect(s.outcome.candidates).toContain(5);
  });
});
