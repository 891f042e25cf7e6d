// ncclx's topology engine against NCCL's own code (docs/topo-oracle.md): every
// recorded topology and case, every field but the graph search, and the graph
// search on the small topologies (test/topo/oracle.full.test.ts runs it on all).

import { describe, expect, it } from 'vitest';
import { parseVersion, topoProfileFor } from '../../src/model/nccl/versions.js';
import { oracleFiles, sweep, tags } from './oracle-compare.js';

// gb10-pr2202 (one GPU) holds the ring to MAXCHANNELS/2 at 2.23.4 (16 channels) and after (32).
// nccl-issue2397 (2 GPUs, NICs with net/gin attributes) and the GB300 host (4 GPUs behind CX-8 bridges, C2C) too.
// The tags recorded by the oracle's knobs driver (the channels after the search, CollNet): docs/topo-oracle.md.
const KNOBS_TAGS = new Set(['2.18.5', '2.23.4', '2.27.7', '2.30.7']);
const SMALL = new Set(['azure-nc48v4', 'azure-ndv2', 'gb10-pr2202', 'nccl-issue2397', 'oci-gb300mp-host0']);

describe.each(tags())('NCCL %s', (tag) => {
  it('agrees on the GPUs, NICs, paths, GPUDirect RDMA, PXN and local NICs of every topology and case, and on the graphs of the small ones', () => {
    // The cases without a variable (1 and 2 nodes); oracle.full.test.ts runs them all, graph search included.
    const { tally, topologies } = sweep(tag, (_, c) => Object.keys(c.case.env).length === 0, (f) => SMALL.has(f.id));
    expect(topologies).toBeGreaterThanOrEqual(12);
    const wrong = [...tally].filter(([, v]) => v.agree !== v.total).map(([k, v]) => `${k}: ${v.agree}/${v.total}\n  ${v.diffs.join('\n  ')}`);
    expect(wrong).toEqual([]);
    // The graphs are compared where the search is modelled (TopoProfile.searchModelled, from 2.18.5), and only there.
    const graphs = tally.get('ring: channels (ranks, NICs)')?.total ?? 0;
    if (topoProfileFor(parseVersion(tag)).searchModelled) expect(graphs).toBeGreaterThan(0);
    else expect(graphs).toBe(0);
  }, 120_000);
  it('agrees on the channels NCCL runs after the search (NCCL_MIN/MAX_NCHANNELS, NCCL_MIN/MAX_CTAS, CollNet) and the CollNet graphs, on the small topologies', () => {
    // The cases recorded by the knobs driver (docs/topo-oracle.md, step 5); oracle.full.test.ts runs every topology.
    const knobs = (c: { case: { env: Record<string, string>; collnetPlugin?: boolean } }) => !!c.case.collnetPlugin || Object.keys(c.case.env).some((k) => /NCHANNELS|CTAS/.test(k));
    const { tally, cases } = sweep(tag, (f, c) => SMALL.has(f.id) && knobs(c));
    const wrong = [...tally].filter(([, v]) => v.agree !== v.total).map(([k, v]) => `${k}: ${v.agree}/${v.total}\n  ${v.diffs.join('\n  ')}`);
    expect(wrong).toEqual([]);
    // Only the tags the knobs driver recorded hold these cases (docs/topo-oracle.md, tags table); the others hold none.
    if (!KNOBS_TAGS.has(tag)) {
      expect(cases).toBe(0);
      return;
    }
    expect(cases).toBeGreaterThanOrEqual(9);
    // Every case but those where NCCL itself fails to load the file (the GB300 host before 2.26.2) has its channels.
    const failed = oracleFiles(tag).filter((f) => SMALL.has(f.id)).flatMap((f) => f.answers).filter((a) => knobs(a) && (a.out as { error?: string }).error).length;
    expect(tally.get('final channels: rings and NICs')?.total).toBe(cases - failed);
    // Some recorded CollNet case found a chain: the CollNet graphs compared are not all empty.
    const chains = oracleFiles(tag).filter((f) => SMALL.has(f.id)).flatMap((f) => f.answers).filter((a) => a.case.collnetPlugin && !(a.out as { error?: string }).error).map((a) => (a.out as unknown as { graphs: { id: number; nChannels: number }[] }).graphs.find((g) => g.id === 2)!.nChannels);
    expect(Math.max(...chains)).toBeGreaterThan(0);
  }, 120_000);
});
