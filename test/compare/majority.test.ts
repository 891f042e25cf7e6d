// The symmetric set's majority offer (src/model/compare/symmetric.ts): a
// larger set for the nodes that share it, offered only when those nodes are
// more than half of the cluster, so a tie offers nothing.
import { describe, expect, it } from 'vitest';
import { cluster, compare } from './helpers.js';

describe('majority', () => {
  it('3 of 4 nodes have every rail: offered without the fourth', async () => {
    const r = compare(await cluster(4, { 1: 'missing-rail' }));
    expect(r.symmetric.majority).toMatchObject({ nodes: 3, excluded: ['gpu00002'] });
  });
  it('2 of 4 (exactly half): no majority', async () => {
    const r = compare(await cluster(4, { 1: 'missing-rail', 3: 'missing-rail' }));
    expect(r.symmetric.netdevs).toHaveLength(7);
    expect(r.symmetric.majority).toBeNull();
  });
  it('3 of 5: a majority again', async () => {
    const r = compare(await cluster(5, { 1: 'missing-rail', 3: 'missing-rail' }));
    expect(r.symmetric.majority).toMatchObject({ nodes: 3, excluded: ['gpu00002', 'gpu00004'] });
  });
  it('every node the same: nothing larger to offer', async () => {
    expect(compare(await cluster(3)).symmetric.majority).toBeNull();
  });
});
