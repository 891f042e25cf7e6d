// The GPU → NIC matrix of a published HGX topology file against NCCL's own
// answers (slow: the report runs the graph search on 8 H100; graphs.test.ts has the fast part).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { probeNode } from '../../src/probe/index.js';
import { topoReport } from '../../src/model/topo/report.js';
import { corpusText, oracleFiles } from './oracle-compare.js';

const FIX = join(import.meta.dirname, '../fixtures');

describe('the GPU → NIC matrix of a topology file with NVSwitch links', () => {
  it('is NCCL\'s: PXN through a peer over the NVSwitch, at the file\'s NIC speed (the IBM Cloud H100 file; before, SYS at 0.2 GB/s)', async () => {
    // A node whose RDMA devices carry the file's NIC names (mlx5_0…7), its own PCI devices left out.
    const snap = await probeNode({ root: join(FIX, 'topo-dgx-h100'), env: {} });
    snap.pci!.topology = { ...snap.pci!.topology!, gpus: [], functions: [], nvlink: null, nvlinkStatus: null };
    for (const id of ['ibm-h100']) {
      const r = topoReport(snap, { ncclVersion: '2.30.7', topoFile: { path: `${id}.xml`, text: corpusText(id) } });
      const o = oracleFiles('2.30.7').find((f) => f.id === id)!.answers.find((a) => a.case.nodes === 2 && !Object.keys(a.case.env).length)!.out as unknown as { gpus: { rank: number }[]; nets: { name: string }[]; gpuNet: { type: string; bw: number }[][] };
      const byRank = [...o.gpus.keys()].sort((a, b) => o.gpus[a]!.rank - o.gpus[b]!.rank);
      // The NICs the file places (the node's others are not in NCCL's view of the file).
      const cols = r.nics.map((nic, i) => [i, o.nets.findIndex((x) => x.name === nic.device)] as const).filter(([, n]) => n >= 0);
      expect(cols.length).toBeGreaterThanOrEqual(7);
      const expected = r.gpus.map((g) => cols.map(([, n]) => {
        const e = o.gpuNet[byRank[g.index]!]![n]!;
        return `${e.type} ${Math.round(e.bw * 10) / 10}`;
      }));
      expect(r.matrix.map((row) => cols.map(([i]) => `${row[i]!.path} ${row[i]!.bwGBs}`))).toEqual(expected);
      expect(r.matrix.flat().some((c) => c.path === 'PXN')).toBe(true);
    }
  }, 60_000);
});
