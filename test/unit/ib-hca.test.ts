// NCCL_IB_HCA (docs/nccl/ib.md §2) on the shared list parser.
import { describe, expect, it } from 'vitest';
import { entryHits, matchHca, readHcaFilter } from '../../src/model/nccl/ib-hca.js';
import { parseVersion, profileFor } from '../../src/model/nccl/versions.js';

const P = (v: string) => profileFor(parseVersion(v));
const DEVS = ['mlx5_0', 'mlx5_1', 'mlx5_2', 'mlx5_10', 'mlx5_11', 'mlx5_bond_0', 'rocep1s0f0'];

/** dev:port pairs the filter keeps among DEVS × ports 1..2. */
function kept(spec: string | undefined, version = '2.28.3'): string[] {
  const f = readHcaFilter(spec, P(version));
  const out: string[] = [];
  for (const d of DEVS) for (const p of [1, 2]) if (matchHca(f, d, p).accepted) out.push(`${d}:${p}`);
  return out;
}
const all = DEVS.flatMap((d) => [`${d}:1`, `${d}:2`]);

describe('NCCL_IB_HCA', () => {
  it('unset and empty mean no filter; `=` alone too', () => {
    expect(kept(undefined)).toEqual(all);
    expect(kept('')).toEqual(all);
    expect(kept('=')).toEqual(all);
    expect(matchHca(readHcaFilter('', P('2.28.3')), 'mlx5_0', 1).reason).toMatch(/no entries: no filter/);
  });
  it('`^` alone excludes every HCA (an empty exclusion list)', () => {
    expect(kept('^')).toEqual([]);
    expect(matchHca(readHcaFilter('^', P('2.28.3')), 'mlx5_0', 1).reason).toMatch(/excludes every HCA/);
  });
  it('no length rule: one character is a real filter', () => {
    expect(kept('m')).toEqual(all.filter((x) => x.startsWith('m')));
    expect(kept('r')).toEqual(['rocep1s0f0:1', 'rocep1s0f0:2']);
  });
  it('prefix trap: mlx5_1 also takes mlx5_10 and mlx5_11; `=` makes it exact', () => {
    expect(kept('mlx5_1')).toEqual(['mlx5_1:1', 'mlx5_1:2', 'mlx5_10:1', 'mlx5_10:2', 'mlx5_11:1', 'mlx5_11:2']);
    expect(kept('=mlx5_1')).toEqual(['mlx5_1:1', 'mlx5_1:2']);
    expect(entryHits(readHcaFilter('mlx5_1,mlx5_2', P('2.28.3')), DEVS).map((h) => h.hits)).toEqual([['mlx5_1', 'mlx5_10', 'mlx5_11'], ['mlx5_2']]);
  });
  it('dev:port keeps only that port; a name is a verbs name, never a netdev', () => {
    expect(kept('mlx5_0:1')).toEqual(['mlx5_0:1']);
    expect(kept('mlx5_0:2,rocep1s0f0:1')).toEqual(['mlx5_0:2', 'rocep1s0f0:1']);
    expect(kept('ens1f0np0')).toEqual([]);
    expect(matchHca(readHcaFilter('mlx5_0:2', P('2.28.3')), 'mlx5_0', 1).reason).toMatch(/names port 2 only/);
  });
  it('`^` excludes, `^=` excludes exact names only', () => {
    expect(kept('^mlx5_1')).toEqual(all.filter((x) => !/^mlx5_1/.test(x)));
    expect(kept('^=mlx5_1')).toEqual(all.filter((x) => !/^mlx5_1:/.test(x)));
    expect(kept('^mlx5_0:1')).toEqual(all.filter((x) => x !== 'mlx5_0:1'));
  });
  it('`mlx5_0:` (empty port): ≤ 2.30.4 port 0, which never matches; ≥ 2.30.7 all ports', () => {
    expect(kept('mlx5_0:', '2.30.4')).toEqual([]);
    expect(matchHca(readHcaFilter('mlx5_0:', P('2.28.3')), 'mlx5_0', 1).reason).toMatch(/reads as port 0 in this NCCL, which never matches/);
    expect(kept('mlx5_0:', '2.30.7')).toEqual(['mlx5_0:1', 'mlx5_0:2']);
    expect(readHcaFilter('mlx5_0:', P('2.28.3')).list!.notes.map((n) => n.kind)).toContain('empty-port');
  });
  it('rail and plane fields exist only in the ≥ 2.30.7 tokenizer', () => {
    const f = readHcaFilter('mlx5_0::0:1', P('2.30.7'));
    expect(f.list!.entries[0]).toMatchObject({ prefix: 'mlx5_0', port: -1, rail: 0, plane: 1 });
    expect(matchHca(f, 'mlx5_0', 2).accepted).toBe(true);
    // The scanner reads ":0:1" with atoi: port 0, never matches.
    expect(kept('mlx5_0::0:1', '2.28.3')).toEqual([]);
  });
  it('MAX_IB_DEVS entries: 32 from 2.18.5, 16 before; the rest is dropped silently', () => {
    const spec = Array.from({ length: 40 }, (_, i) => `dev${i}`).join(',');
    expect(readHcaFilter(spec, P('2.18.5')).list!.entries).toHaveLength(32);
    expect(readHcaFilter(spec, P('2.18.3')).list!.entries).toHaveLength(16);
    expect(readHcaFilter(spec, P('2.30.7')).list!.entries).toHaveLength(32);
    expect(readHcaFilter(spec, P('2.28.3')).list!.dropped[0]).toBe('dev32');
  });
  it('no trimming, case-sensitive', () => {
    expect(kept(' mlx5_0')).toEqual([]);
    expect(kept('MLX5_0')).toEqual([]);
  });
});
