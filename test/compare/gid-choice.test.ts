// The remembered GID choice is selectGid's answer: on every fixture port, for
// every modelled behaviour of the walk, and on random tables.
import { describe, expect, it } from 'vitest';
import { chooseGid, tableShape } from '../../src/model/compare/gid-choice.js';
import { readGidParams, selectGid } from '../../src/model/nccl/gid.js';
import { parseVersion, profileFor } from '../../src/model/nccl/versions.js';
import type { GidEntry } from '../../src/model/snapshot/rdma-types.js';
import { template } from './helpers.js';

const VERSIONS = ['2.20.3', '2.21.5', '2.22.3', '2.25.1', '2.26.2', '2.28.3', '2.30.7'];
const VARS: Record<string, string>[] = [
  {},
  { NCCL_IB_ADDR_FAMILY: 'AF_INET6' },
  { NCCL_IB_ROCE_VERSION_NUM: '1' },
  { NCCL_IB_ADDR_RANGE: '10.0.0.0/16' },
  { NCCL_IB_ADDR_RANGE: '192.168.1.0/24' },
  { NCCL_IB_GID_INDEX: '3' },
  { NCCL_IB_ROUTABLE_FLID_GID_INDEX: '0' },
];

const sameOutcome = (entries: GidEntry[], ll: 'InfiniBand' | 'Ethernet', version: string, vars: Record<string, string>, dev: string, port: number) => {
  const profile = profileFor(parseVersion(version));
  const params = readGidParams(vars, profile);
  const direct = selectGid({ linkLayer: ll, entries }, params, profile, dev, port);
  // Twice: the second answer comes from the cache.
  for (let k = 0; k < 2; k++) {
    const c = chooseGid(entries, ll, params, profile, dev, port);
    expect(c.outcome).toEqual(direct.outcome);
    expect(c.mode).toBe(direct.mode);
  }
};

describe('chooseGid = selectGid', () => {
  for (const fixture of ['roce-healthy', 'roce-rail-subnets', 'ib8-storage', 'sandbox', 'roce-bond', 'mesh-direct']) {
    it(`every port of ${fixture}, ${VERSIONS.length} versions × ${VARS.length} settings`, async () => {
      const { snapshot } = await template(fixture);
      for (const d of snapshot.rdma!.devices) {
        for (const p of d.ports) {
          const ll = p.linkLayer === 'InfiniBand' ? 'InfiniBand' : 'Ethernet';
          for (const v of VERSIONS) for (const vars of VARS) sameOutcome(p.gids, ll, v, vars, d.name, p.port);
        }
      }
    });
  }

  it('random tables (families, validity, versions, unreadable types, gaps)', () => {
    let seed = 42;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const GIDS = ['0000:0000:0000:0000:0000:0000:0000:0000', 'fe80:0000:0000:0000:0e42:a1ff:fe5e:174a', '0000:0000:0000:0000:0000:ffff:0a00:0005', '0000:0000:0000:0000:0000:ffff:c0a8:0105', '2001:0db8:0000:0000:0000:0000:0000:0005', 'fe80:0000:0000:0000:0000:0000:0000:0000', 'fe80:0000:0000:0000:00ab:0001:0000:0001'];
    const TYPES: GidEntry['type'][] = ['IB/RoCE v1', 'RoCE v2', { error: 'EINVAL' }, { error: 'EIO' }, { error: 'ENOENT' }, 'weird'];
    for (let t = 0; t < 400; t++) {
      const len = 2 + Math.floor(rnd() * 12);
      const entries: GidEntry[] = [];
      for (let i = 0; i < len; i++) {
        if (rnd() < 0.05) continue; // a gap: an entry missing from the snapshot
        entries.push({ index: i, gid: rnd() < 0.05 ? { error: 'EIO' } : GIDS[Math.floor(rnd() * GIDS.length)]!, type: TYPES[Math.floor(rnd() * TYPES.length)]!, ndev: { error: 'EINVAL' } });
      }
      const vars = VARS[Math.floor(rnd() * VARS.length)]!;
      const v = VERSIONS[Math.floor(rnd() * VERSIONS.length)]!;
      sameOutcome(entries, rnd() < 0.2 ? 'InfiniBand' : 'Ethernet', v, vars, 'mlx5_0', 1);
    }
  });

  it('tables that differ only in addresses share a shape; a different type does not', () => {
    const params = readGidParams({}, profileFor(parseVersion('2.28.3')));
    const t = (ip: string, type: string): GidEntry[] => [
      { index: 0, gid: 'fe80:0000:0000:0000:0e42:a1ff:fe5e:174a', type: 'IB/RoCE v1', ndev: 'e' },
      { index: 1, gid: `0000:0000:0000:0000:0000:ffff:${ip}`, type, ndev: 'e' },
      ...Array.from({ length: 250 }, (_, i) => ({ index: i + 2, gid: '0000:0000:0000:0000:0000:0000:0000:0000', type: { error: 'EINVAL' }, ndev: { error: 'EINVAL' } })),
    ];
    expect(tableShape(t('0a00:0005', 'RoCE v2'), params)).toBe(tableShape(t('0a07:1234', 'RoCE v2'), params));
    expect(tableShape(t('0a00:0005', 'RoCE v2'), params)).not.toBe(tableShape(t('0a00:0005', 'IB/RoCE v1'), params));
    expect(tableShape(t('0a00:0005', 'RoCE v2'), params)).toMatch(/^252\|.*2-251:z$/);
  });
});
