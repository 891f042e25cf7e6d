// `ncclx topo` with a topology file: NCCL's refusal of any <system> version
// but 1 (TOPO-015), and the graph search's rings, trees and GPU ↔ GPU paths
// in the report, which must be NCCL's own (the oracle's recorded answers,
// docs/topo-oracle.md), plus every release boundary of the topology profile.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { probeNode } from '../../src/probe/index.js';
import { topoReport } from '../../src/model/topo/report.js';
import { topoProfileFor, type TopoProfile } from '../../src/model/nccl/versions.js';
import { parseVersion } from '../../src/model/nccl/versions.js';
import { corpusText, oracleFiles } from './oracle-compare.js';

const FIX = join(import.meta.dirname, '../fixtures');
const node = () => probeNode({ root: join(FIX, 'topo-downtrained'), env: {} });
/** The fixture node with its own PCI devices left out, so the report holds the file's alone (a container without /sys). */
async function snapshot() {
  const snap = await node();
  snap.pci!.topology = { ...snap.pci!.topology!, gpus: [], functions: [] };
  return snap;
}

describe('a topology file NCCL refuses', () => {
  it.each([
    ['version 2', '<system version="2">', 'XML Topology has wrong version 2, 1 needed', 'ncclInvalidUsage'],
    ['version 0', '<system version="0">', 'XML Topology has wrong version 0, 1 needed', 'ncclInvalidUsage'],
    ['no version', '<system>', 'Attribute version of node system not found', 'ncclInternalError'],
  ])('%s: TOPO-015, an error, and nothing modelled (NCCL does not initialise)', async (_, head, warn, result) => {
    const text = corpusText('azure-nc48v4').replace('<system version="1">', head);
    const r = topoReport(await snapshot(), { ncclVersion: '2.30.7', topoFile: { path: 't.xml', text } });
    expect(r.findings.map((f) => [f.id, f.severity])).toEqual([['TOPO-015', 'error']]);
    expect(r.findings[0]!.message).toContain(`"${warn}"`);
    expect(r.findings[0]!.message).toContain(result);
    expect(r.gpus).toEqual([]);
    expect(r.graphs).toBeNull();
  });
  it('version 1 (and "01", which strtol reads as 1): accepted', async () => {
    for (const head of ['<system version="1">', '<system version="01">']) {
      const text = corpusText('azure-nc48v4').replace('<system version="1">', head);
      const r = topoReport(await snapshot(), { ncclVersion: '2.30.7', topoFile: { path: 't.xml', text } });
      expect(r.findings.map((f) => f.id)).not.toContain('TOPO-015');
      expect(r.gpus.length).toBe(2);
    }
  });
});

describe('the graph search in the report', () => {
  it('rings, trees and GPU ↔ GPU paths of a published topology are NCCL 2.30.7\'s own', async () => {
    const rec = oracleFiles('2.30.7').find((f) => f.id === 'azure-ndv2')!;
    const r = topoReport(await snapshot(), { ncclVersion: '2.30.7', topoFile: { path: 'ndv2.xml', text: corpusText('azure-ndv2') } });
    expect(r.graphsUnavailable).toBeNull();
    expect(r.graphs!.jobs.map((j) => j.nodes)).toEqual([1, 2]);
    for (const job of r.graphs!.jobs) {
      const o = rec.answers.find((a) => a.case.nodes === job.nodes && Object.keys(a.case.env).length === 0)!.out as unknown as { gpus: { rank: number }[]; gpuGpu: { type: string }[][]; graphs: { id: number; nChannels: number; channels: { net: number[]; ranks: number[] }[] }[] };
      for (const g of job.graphs) {
        const e = o.graphs.find((x) => x.id === g.id)!;
        expect(g.nChannels).toBe(e.nChannels);
        expect(g.channels.map((c) => c.gpus)).toEqual(e.channels.map((c) => c.ranks));
        expect(g.channels.map((c) => c.nics)).toEqual(e.channels.map((c) => (job.nodes > 1 ? c.net : null)));
      }
      // The report's GPUs are in PCI (= rank) order; the oracle lists the file's order with each rank.
      const byRank = [...o.gpus.keys()].sort((a, b) => o.gpus[a]!.rank - o.gpus[b]!.rank);
      expect(r.gpuPaths.map((row) => row.map((p) => p.path))).toEqual(byRank.map((i) => byRank.map((j) => o.gpuGpu[i]![j]!.type)));
    }
    expect(r.gpuPaths[0]![1]).toEqual({ path: 'PHB', bwGBs: 24 });
    expect(r.graphs!.jobs[1]!.graphs[0]!.channels[0]!.nics).toEqual([0, 0]);
  }, 60_000);
  it('before 2.18.5 (the graph search is not modelled there): no graphs, saying why; the GPU ↔ GPU paths are still the file\'s', async () => {
    const text = corpusText('azure-ndv5');
    const old = topoReport(await snapshot(), { ncclVersion: '2.18.3', topoFile: { path: 'ndv5.xml', text } });
    expect(old.graphs).toBeNull();
    expect(old.graphsUnavailable).toMatch(/^ncclx models NCCL's graph search from 2\.18\.5 .*NCCL 2\.18\.3's is older/);
    // 18 NVLinks to NVSwitch at SM90_NVLINK_BW: 20.0 GB/s each before 2.20.3 (the 2.18.5 oracle), 20.6 after.
    expect(old.gpuPaths[0]![1]).toEqual({ path: 'NVL', bwGBs: 360 });
    const at2234 = topoReport(await snapshot(), { ncclVersion: '2.23.4', topoFile: { path: 'ndv5.xml', text } });
    expect(at2234.graphs).not.toBeNull();
    expect(at2234.gpuPaths[0]![1]).toEqual({ path: 'NVL', bwGBs: 370.8 });
  }, 60_000);
  it('at 2.18.5 the rings, trees and NVLS heads are NCCL 2.18.5\'s own (its search differs from 2.23.4\'s on this file)', async () => {
    const text = corpusText('azure-ndv5');
    const rec = oracleFiles('2.18.5').find((f) => f.id === 'azure-ndv5')!;
    const r = topoReport(await snapshot(), { ncclVersion: '2.18.5', topoFile: { path: 'ndv5.xml', text } });
    expect(r.graphsUnavailable).toBeNull();
    const newer = topoReport(await snapshot(), { ncclVersion: '2.23.4', topoFile: { path: 'ndv5.xml', text } });
    for (const job of r.graphs!.jobs) {
      const o = rec.answers.find((a) => a.case.nodes === job.nodes && Object.keys(a.case.env).length === 0)!.out as unknown as { graphs: { id: number; nChannels: number; channels: { net: number[]; ranks: number[] }[] }[] };
      for (const g of job.graphs) {
        const e = o.graphs.find((x) => x.id === g.id)!;
        expect([g.id, g.nChannels]).toEqual([e.id, e.nChannels]);
        // The report shows an NVLS channel's head only.
        expect(g.channels.map((c) => c.gpus)).toEqual(e.channels.map((c) => (g.id === 3 ? c.ranks.slice(0, 1) : c.ranks)));
        expect(g.channels.map((c) => c.nics)).toEqual(e.channels.map((c) => (job.nodes > 1 ? c.net : null)));
      }
    }
    // The two-node ring: 2.18.5 and 2.23.4 differ (NET rotation, NVSwitch neighbours, where channels are doubled).
    expect(r.graphs!.jobs[1]!.graphs[0]).not.toEqual(newer.graphs!.jobs[1]!.graphs[0]);
  }, 60_000);
  it('a file that leaves the GPUs to NVML: no graph search, and why', async () => {
    const text = corpusText('azure-ndv4').replace(/<gpu[^>]*>[\s\S]*?<\/gpu>/g, '');
    const r = topoReport(await snapshot(), { ncclVersion: '2.30.7', topoFile: { path: 'ndv4.xml', text } });
    expect(r.graphs).toBeNull();
    expect(r.graphsUnavailable).toMatch(/NVML/);
  });
  it('without a topology file the search runs on the <system> NCCL builds from /sys (test/topo/oracle-sys.test.ts holds it to NCCL)', async () => {
    const r = topoReport(await node(), { ncclVersion: '2.30.7' });
    expect(r.graphsUnavailable).toBeNull();
    expect(r.graphs!.source).toMatch(/^the topology NCCL builds on this node \(\/sys/);
    expect(r.gpuPaths.map((row) => row.map((p) => p.path))).toEqual([['LOC', 'PIX'], ['PIX', 'LOC']]);
  });
  it('the doctor\'s report (graphs: false) skips the search and nothing else: the same findings, notes, paths and NICs as `ncclx topo`\'s', async () => {
    for (const fx of ['topo-dgx-h100', 'topo-pcie-nvbridge', 'topo-gh200']) {
      const snap = await probeNode({ root: join(FIX, fx), env: {} });
      const full = topoReport(snap, { ncclVersion: '2.30.7' });
      const doctor = topoReport(snap, { ncclVersion: '2.30.7', graphs: false });
      expect(full.graphs, fx).not.toBeNull();
      expect(doctor.graphs, fx).toBeNull();
      expect(doctor.graphsUnavailable, fx).toMatch(/not run for the doctor's checks/);
      const { graphs: _a, graphsUnavailable: _b, gpuPaths: _c, ...rest } = full;
      const { graphs: _d, graphsUnavailable: _e, gpuPaths: _f, ...restDoctor } = doctor;
      expect(restDoctor, fx).toEqual(rest);
    }
  });
  it('a GPU whose compute capability ncclx does not know (its PCI device id): no graph search, and which GPU', async () => {
    const snap = await node();
    const t = snap.pci!.topology!;
    snap.pci!.topology = { ...t, functions: t.functions.map((f) => (f.bdf === t.gpus[1] ? { ...f, device: '0xffff' } : f)) };
    const r = topoReport(snap, { ncclVersion: '2.30.7' });
    expect(r.graphs).toBeNull();
    expect(r.graphsUnavailable).toBe(`the compute capability of GPU 1 (${t.gpus[1]}, device 0xffff) is not known to ncclx (it reads it from the PCI device id, else from nvidia-smi --query-gpu=compute_cap, which gave none here), so the <system> NCCL builds from NVML cannot be rebuilt; an NCCL topology file with <gpu sm=…> (--topo-file, NCCL_TOPO_FILE) gives it`);
    expect(r.gpuPaths.map((row) => row.map((p) => p.path))).toEqual([['LOC', 'PIX'], ['PIX', 'LOC']]);
  });
});

describe('the topology profile: every release boundary, both sides', () => {
  const at = (v: string) => topoProfileFor(parseVersion(v));
  /** A TopoProfile flag, or `search.x` for one of TopoProfile.search's. */
  type FlagName = keyof TopoProfile | `search.${keyof TopoProfile['search']}`;
  const flag = (k: FlagName, v: string): unknown => (k.startsWith('search.') ? at(v).search[k.slice(7) as keyof TopoProfile['search']] : at(v)[k as keyof TopoProfile]);
  it.each([
    ['nvb', '2.8.2', '2.8.3'],
    ['bcmGen4', '2.9.5', '2.9.6'],
    ['bcmGen5', '2.20.2', '2.20.3'],
    ['c2cLinks', '2.19.0', '2.19.1'],
    ['p2cPaths', '2.27.2', '2.27.3'],
    ['netDevsPolicy', '2.28.2', '2.28.3'],
    ['guidStrtoull', '2.28.6', '2.28.7'],
    ['keepNetsIntra', '2.28.6', '2.28.7'],
    ['p2cLocalNetsOnly', '2.29.1', '2.29.2'],
    ['ampereInterSys', '2.29.1', '2.29.2'],
    ['fallbackSelectNets', '2.29.1', '2.29.2'],
    ['devNodes', '2.30.2', '2.30.3'],
    ['pxnRelayGdr', '2.30.2', '2.30.3'],
    ['sm100SpeedsV2', '2.30.2', '2.30.3'],
    ['pathTypeFirst', '2.30.6', '2.30.7'],
    ['localCpuByBw', '2.30.6', '2.30.7'],
    ['localNetModGpus', '2.30.6', '2.30.7'],
    ['intelSrpErp', '2.26.1', '2.26.2'],
    ['searchTypeRanges', '2.25.0', '2.25.1'],
    ['searchArity', '2.25.0', '2.25.1'],
    ['sm100Speeds', '2.25.0', '2.25.1'],
    ['splitNvLink', '2.26.1', '2.26.2'],
    ['netLocalGpuStart', '2.27.4', '2.27.5'],
    ['nvbDisableParam', '2.9.8', '2.9.9'],
    ['p2pPxnC2c', '2.27.5', '2.27.6'],
    ['pxnC2cParam', '2.27.2', '2.27.3'],
    ['gdrC2cParam', '2.26.1', '2.26.2'],
    ['amdInterCpuBw', '2.19.0', '2.19.1'],
    ['gdrReadNvlinkPreAmpereOnly', '2.19.0', '2.19.1'],
    ['singleGpuBw', '2.21.4', '2.21.5'],
    ['netAttr', '2.29.6', '2.29.7'],
    // The graph search: modelled from 2.18.5, the earliest release held to NCCL's own search; search.cc's changes up to 2.23.4 (TopoProfile.search; docs/nccl/topology.md §4).
    ['searchModelled', '2.18.4', '2.18.5'],
    ['search.revLinkTyped', '2.19.0', '2.19.1'],
    ['search.nvlsCompareBw', '2.19.0', '2.19.1'],
    ['search.netRotation', '2.19.0', '2.19.1'],
    ['search.amdSameChannels', '2.19.0', '2.19.1'],
    ['search.nvlsMaxGpus', '2.19.0', '2.19.1'],
    ['search.sm90Intra50', '2.19.0', '2.19.1'],
    ['search.localGpuFromLocals', '2.19.0', '2.19.1'],
    ['search.sm90Inter22', '2.19.2', '2.19.3'],
    ['search.pciRefSkipsNvs', '2.19.2', '2.19.3'],
    ['search.dupAfterPass1', '2.19.2', '2.19.3'],
    ['search.selectNetsCap', '2.21.4', '2.21.5'],
    ['search.sm90Intra11', '2.21.4', '2.21.5'],
    ['search.nvlsDumpHead', '2.21.4', '2.21.5'],
    ['search.collnetDirect', '2.22.2', '2.22.3'],
    ['search.minHopsReachable', '2.23.3', '2.23.4'],
  ] as [FlagName, string, string][])('%s: off at %s, on at %s', (k, before, from) => {
    expect(flag(k, before)).toBe(false);
    expect(flag(k, from)).toBe(true);
  });
  it.each([
    ['c2cLinkType', '2.26.1', 'NVL', '2.26.2', 'C2C'],
    ['localCpuWalk', '2.22.2', 'any-pci', '2.22.3', 'switches'],
    ['localCpuWalk', '2.26.1', 'switches', '2.26.2', 'switches-from'],
    ['pxnAvoid', '2.27.5', 'PXB', '2.27.6', 'PXN'],
    ['pxnC2cDefault', '2.28.2', 0, '2.28.3', 1],
    ['gdrC2cDefault', '2.27.2', 0, '2.27.3', 1],
    ['gdrC2cRule', '2.27.2', 'none', '2.27.3', 'c2c-distance'],
    ['gdrC2cRule', '2.29.1', 'c2c-distance', '2.29.2', 'p2c-level'],
    ['pxnMode', '2.12.6', 'none', '2.12.7', 'first-peer'],
    ['pxnMode', '2.18.0', 'first-peer', '2.18.1', 'local-gpu'],
    ['localNetSpread', '2.18.0', 'modulo', '2.18.1', 'mask'],
    ['localNetSpread', '2.18.4', 'mask', '2.18.5', 'mirror'],
    ['gdrLogWhere', '2.27.2', 'INFO NET', '2.27.3', 'INFO GRAPH|NET'],
    ['gdrLogWhere', '2.30.2', 'INFO GRAPH|NET', '2.30.3', 'TRACE (not printed by release builds)'],
    ['pathTypes', '2.26.1', [0, 1, 2, 4, 5, 7, 8, 9], '2.26.2', [0, 1, 2, 3, 4, 5, 7, 8, 9]],
    ['pathTypes', '2.27.2', [0, 1, 2, 3, 4, 5, 7, 8, 9], '2.27.3', [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]],
    ['logPathOrder', '2.27.4', ['LOC', 'NVL', 'NVB', 'C2C', 'PIX', 'PXB', 'PXN', 'P2C', 'PHB', 'SYS', 'NET'], '2.27.5', ['LOC', 'NVL', 'NVB', 'C2C', 'PIX', 'PXB', 'P2C', 'PXN', 'PHB', 'SYS', 'NET']],
    ['search.followEmptyPath', '2.21.4', true, '2.21.5', false],
    ['search.globalTimeout', '2.19.0', 5 << 16, '2.19.1', 1 << 19],
    ['search.nvlsHeads', '2.19.0', 'every-net', '2.19.1', 'first-net'],
    ['search.nvlsHeads', '2.22.2', 'first-net', '2.22.3', 'found'],
    ['search.nvlsHeads', '2.23.3', 'found', '2.23.4', 'found-break'],
    ['search.crossNic', '2.19.0', 'flag', '2.19.1', 'param'],
    ['search.crossNic', '2.20.2', 'param', '2.20.3', 'alternate'],
    ['search.crossNic', '2.23.3', 'alternate', '2.23.4', 'ring-alternate'],
    ['search.pass2', '2.19.0', 'trees', '2.19.1', 'trees-then-nvls'],
    ['search.pass2', '2.19.2', 'trees-then-nvls', '2.19.3', 'merged'],
    ['search.nvsNeighbours', '2.19.2', 'none', '2.19.3', 'first'],
    ['search.nvsNeighbours', '2.21.4', 'first', '2.21.5', 'only'],
  ] as [FlagName, string, unknown, string, unknown][])('%s: %s at %s, %s at %s', (k, before, a, from, b) => {
    expect(flag(k, before)).toEqual(a);
    expect(flag(k, from)).toEqual(b);
  });
  // ncclTopoNVLinkBw (NCCL src/graph/topo.h SM100_NVLINK_BW): none before 2.25.1 (sm 100 shares sm 90's value), 40.0 from 2.25.1, 40.1 from 2.27.5.
  it.each([
    ['2.20.2', 20, '2.20.3', 20.6],
    ['2.24.3', 20.6, '2.25.1', 40.0],
    ['2.27.4', 40.0, '2.27.5', 40.1],
  ])('GB/s per sm 100 NVLink: %s → %s, %s → %s', (before, a, from, b) => {
    expect(at(before).nvlBw.sm100).toBe(a);
    expect(at(from).nvlBw.sm100).toBe(b);
  });
  // SM90_NVLINK_BW: 20.0 until 2.19.x, 20.6 from 2.20.3 (the 2.18.5 oracle's 8 × H100 files: 18 links × 20 = 360 GB/s).
  it('GB/s per sm 90 NVLink: 20 at 2.20.2, 20.6 at 2.20.3', () => {
    expect(at('2.20.2').nvlBw.sm90).toBe(20);
    expect(at('2.20.3').nvlBw.sm90).toBe(20.6);
  });
  // MAXCHANNELS (NCCL src/include/device.h): 32 until 2.24.3, 64 from 2.25.1; the ring graph's limit is half (init.cc).
  it('MAXCHANNELS: 32 at 2.24.3, 64 at 2.25.1', () => {
    expect(at('2.24.3').maxChannels).toBe(32);
    expect(at('2.25.1').maxChannels).toBe(64);
  });
});
