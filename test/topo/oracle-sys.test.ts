// The graphs ncclx computes on a node read from /sys, held to NCCL's own code
// (docs/topo-oracle.md, "Generated from /sys fixtures"): for every fixture with
// GPUs, the <system> ncclx builds (the PCI tree, the GPUs' NVML facts from
// their PCI ids and nvidia-smi, the NETs' properties) is the XML the oracle was
// run on, the engine on it agrees with the oracle field by field, and
// `ncclx topo` shows those graphs on the snapshot itself.

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { topoFile, topoReport } from '../../src/model/topo/report.js';
import { probeNode } from '../../src/probe/index.js';
import { disagreements, ROOT, sysOracleFiles as filesOf, sysSweep, sysTags } from './oracle-compare.js';

const TAGS = sysTags();
const probed = new Map<string, ReturnType<typeof probeNode>>();
/** Each fixture probed once for every tag (the report is built per tag and options). */
const snapshotOf = (id: string) => probed.get(id) ?? probed.set(id, probeNode({ root: join(ROOT, 'test/fixtures', id), env: {} })).get(id)!;

it('records the four tags the knobs driver covers, each on every /sys fixture with GPUs', () => {
  expect(TAGS).toEqual(['2.18.5', '2.23.4', '2.27.7', '2.30.7']);
  for (const tag of TAGS) expect(filesOf(tag).map((f) => f.id)).toEqual(['topo-cloud-flat', 'topo-dgx-h100', 'topo-downtrained', 'topo-gh200', 'topo-no-device-link', 'topo-pcie-nvbridge', 'topo-two-socket']);
});

// Every fixture at the newest tag; at the older tags (the search of an
// 8-GPU node costs seconds there) only topo-pcie-nvbridge, whose PXN relay over
// a direct NVLink is found from the path's first hop before 2.30.3
// (TopoProfile.devNodes) — both sides of that boundary stay in `npm test`.
// oracle-sys.full.test.ts runs every recorded case at every tag.
const NEWEST = TAGS.at(-1);
const fixturesAt = (tag: string) => (tag === NEWEST ? filesOf(tag).map((f) => f.id) : ['topo-pcie-nvbridge']);

describe.each(TAGS)('NCCL %s on the <system> ncclx builds from /sys', (tag) => {
  it('writes the XML the oracle ran on, and agrees with the oracle on every field of the cases without a variable (1 and 2 nodes)', async () => {
    const ids = fixturesAt(tag);
    for (const f of filesOf(tag).filter((x) => ids.includes(x.id))) {
      const built = topoFile(await snapshotOf(f.id));
      expect('xml' in built && built.xml, f.id).toBe(f.xml);
    }
    const { tally, cases } = sysSweep(tag, (c) => Object.keys(c.case.env).length === 0 && !c.case.collnetPlugin, ids);
    expect(disagreements(tally)).toEqual([]);
    expect(cases).toBe(2 * ids.length);
    expect(tally.get('ring: channels (ranks, NICs)')?.total).toBe(2 * ids.length);
    expect(tally.get('final channels: rings and NICs')?.total).toBe(2 * ids.length);
  }, 120_000);

  // The report runs the same engine on the same XML (report.ts sysGraphs): checked at the newest tag only, to keep `npm test` short.
  it.runIf(tag === NEWEST)('shows those graphs in `ncclx topo` on the snapshot (1 and 2 nodes, no variable)', async () => {
    for (const f of filesOf(tag)) {
      const r = topoReport(await snapshotOf(f.id), { ncclVersion: tag });
      expect(r.graphsUnavailable, f.id).toBeNull();
      for (const job of r.graphs!.jobs) {
        const rec = f.answers.find((a) => a.case.nodes === job.nodes && Object.keys(a.case.env).length === 0 && !a.case.collnetPlugin)!;
        const ring = (rec.out as unknown as { graphs: { id: number; channels: { net: number[]; ranks: number[] }[] }[] }).graphs.find((g) => g.id === 0)!;
        expect(job.graphs.find((g) => g.name === 'ring')!.channels.map((c) => c.gpus), `${f.id} N=${job.nodes}`).toEqual(ring.channels.map((c) => c.ranks));
        const ch = (rec.out as { channels: { nChannels: number } }).channels;
        expect(job.channels?.nChannels, `${f.id} N=${job.nodes}`).toBe(ch.nChannels);
      }
    }
  }, 120_000);
});
