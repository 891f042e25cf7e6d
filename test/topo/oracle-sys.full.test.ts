// Every case recorded on the XML ncclx builds from the /sys fixtures (record.mjs --sys), compared with the
// oracle field by field; test/topo/oracle-sys.test.ts runs the cases without a variable in `npm test`.

import { describe, expect, it } from 'vitest';
import { disagreements, sysSweep, sysTags } from './oracle-compare.js';

describe.each(sysTags())('NCCL %s on the <system> ncclx builds from /sys', (tag) => {
  it('agrees with the oracle on every field of every recorded case', () => {
    const { tally, cases } = sysSweep(tag, () => true);
    expect(disagreements(tally)).toEqual([]);
    expect(cases).toBe(70);
    expect(tally.get('final channels: rings and NICs')?.total).toBe(70);
  }, 600_000);
});
