// The whole sweep (docs/topo-oracle.md): every recorded case of every tag,
// graph search included, field by field: 100 % or the fields that differ.

import { describe, expect, it } from 'vitest';
import { sweep, tags } from './oracle-compare.js';

describe.each(tags())('NCCL %s, every case', (tag) => {
  it('agrees with NCCL on every field, the graph search and its dump included', () => {
    const { tally, cases } = sweep(tag);
    const lines = [...tally].map(([k, v]) => `${v.agree === v.total ? 'ok' : 'DIFF'} ${k}: ${v.agree}/${v.total}`);
    console.log(`NCCL ${tag}: ${cases} cases\n${lines.join('\n')}`);
    const wrong = [...tally].filter(([, v]) => v.agree !== v.total).map(([k, v]) => `${k}: ${v.agree}/${v.total}\n  ${v.diffs.join('\n  ')}`);
    expect(wrong).toEqual([]);
  }, 3_600_000);
});
