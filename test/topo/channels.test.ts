// What NCCL does after the graph search (src/model/topo/channels.ts): which
// graphs init.cc computes, and the channels ncclTopoPostset ends with, each
// release boundary on both sides. The recorded oracle answers hold the same
// logic to NCCL's own code on published topologies (oracle.test.ts).
import { describe, expect, it } from 'vitest';
import { collnetEnabled, ctaBounds, finalChannels, graphsComputed, type ChannelGraph, type ChannelInput } from '../../src/model/topo/channels.js';
import { parseVersion, topoProfileFor } from '../../src/model/nccl/versions.js';
import { runEngine } from '../../src/model/topo/engine-run.js';
import { parseXml } from '../../src/model/topo/xml-read.js';
import { corpusText } from './oracle-compare.js';
import { join } from 'node:path';
import { probeNode } from '../../src/probe/index.js';
import { topoReport } from '../../src/model/topo/report.js';
import { renderTopo } from '../../src/report/topo-text.js';
import { makeStyle } from '../../src/report/style.js';

const tp = (v: string) => topoProfileFor(parseVersion(v));

/** A ring of `n` channels over 4 GPUs: channel c starts at GPU c mod 4 and uses NET c in, NET c + 10 out. */
function ring(n: number, bwIntra = 20): ChannelGraph {
  const intra: number[] = [];
  const inter: number[] = [];
  for (let c = 0; c < n; c++) {
    for (let i = 0; i < 4; i++) intra.push((c + i) % 4);
    inter.push(c, c + 10);
  }
  return { nChannels: n, bwIntra, bwInter: bwIntra, intra, inter };
}
const input = (over: Partial<ChannelInput>): ChannelInput => ({ profile: tp('2.30.7'), vars: {}, nodes: 2, ngpus: 4, ccMin: 80, ring: ring(4), tree: { nChannels: 4 }, chain: null, ...over });

describe('the channels NCCL runs after the search (connect.cc ncclTopoPostset)', () => {
  it('doubles the channels the ring and the tree both found; each channel runs its ring with its NICs', () => {
    const f = finalChannels(input({ tree: { nChannels: 3 } }));
    expect([f.searched, f.nChannels]).toEqual([3, 6]);
    expect(f.list.map((c) => c.ring)).toEqual([0, 1, 2, 0, 1, 2]);
    // NICs come from the graph's channel c mod 3 (the ring keeps 3), here the ring the channel runs.
    expect(f.list.map((c) => c.net)).toEqual([[0, 10], [1, 11], [2, 12], [0, 10], [1, 11], [2, 12]]);
    expect(f.list[1]!.ranks).toEqual([1, 2, 3, 0]);
  });
  it('NCCL_MAX_NCHANNELS then NCCL_MIN_NCHANNELS: the first channels, copied again; a copy asks the graph channel of its own index for NICs', () => {
    const f = finalChannels(input({ vars: { NCCL_MAX_NCHANNELS: '3', NCCL_MIN_NCHANNELS: '5' } }));
    expect(f.nChannels).toBe(5);
    expect(f.list.map((c) => c.ring)).toEqual([0, 1, 2, 0, 1]);
    // Channel 3 runs ring 0 (GPU 0 … 3) but reads graph channel 3, whose head is GPU 3: GPU 0 receives on
    // channel 3's second NET, and GPU 3, the head there, sends on its first.
    expect(f.list[3]!.net).toEqual([13, 3]);
    expect(f.list[4]!.net).toEqual([10, 0]);
    // Without the variables, no such mix.
    expect(finalChannels(input({})).list.every((c, i) => c.net![0] === ring(4).inter[(i % 4) * 2])).toBe(true);
  });
  it('NCCL_MIN/MAX_NRINGS are the old names, NCCL_M*_NCHANNELS win; bounds are MAXCHANNELS (32 before 2.25.1, 64 from) and 1', () => {
    expect(finalChannels(input({ vars: { NCCL_MAX_NRINGS: '2' } })).nChannels).toBe(2);
    expect(finalChannels(input({ vars: { NCCL_MAX_NRINGS: '2', NCCL_MAX_NCHANNELS: '5' } })).nChannels).toBe(5);
    expect(finalChannels(input({ vars: { NCCL_MAX_NCHANNELS: '0' } })).nChannels).toBe(1);
    expect(finalChannels(input({ vars: { NCCL_MIN_NCHANNELS: '100' } })).nChannels).toBe(64);
    expect(finalChannels(input({ profile: tp('2.24.3'), vars: { NCCL_MIN_NCHANNELS: '100' } })).nChannels).toBe(32);
  });
  it('NCCL_MIN/MAX_CTAS: a value ≤ 0 is ignored from 2.25.1, taken before (NCCL_MAX_CTAS=0: no channel)', () => {
    expect(ctaBounds({ NCCL_MAX_CTAS: '0' }, tp('2.25.1'))).toEqual({ minCTAs: 1, maxCTAs: 64 });
    expect(ctaBounds({ NCCL_MAX_CTAS: '0' }, tp('2.24.3'))).toEqual({ minCTAs: 0, maxCTAs: 0 });
    expect(finalChannels(input({ profile: tp('2.25.1'), vars: { NCCL_MAX_CTAS: '0' } })).nChannels).toBe(8);
    expect(finalChannels(input({ profile: tp('2.24.3'), vars: { NCCL_MAX_CTAS: '0' } })).nChannels).toBe(0);
    // A minimum above the maximum is the maximum; both at most MAXCHANNELS.
    expect(ctaBounds({ NCCL_MIN_CTAS: '12', NCCL_MAX_CTAS: '5' }, tp('2.30.7'))).toEqual({ minCTAs: 5, maxCTAs: 5 });
    expect(finalChannels(input({ vars: { NCCL_MIN_CTAS: '40', NCCL_MAX_NCHANNELS: '3' } })).list.map((c) => c.ring).slice(0, 7)).toEqual([0, 1, 2, 0, 1, 2, 0]);
  });
  it('sm ≥ 90 doubles a multi-node job\'s channels (ring above 45 GB/s, under 16) from 2.25.1; before, sm 90 only', () => {
    const fast = { nodes: 2, ccMin: 100, ring: ring(4, 48) };
    expect(finalChannels(input({ ...fast, profile: tp('2.25.1') })).nChannels).toBe(16);
    expect(finalChannels(input({ ...fast, profile: tp('2.24.3') })).nChannels).toBe(8);
    expect(finalChannels(input({ ...fast, ccMin: 90, profile: tp('2.24.3') })).nChannels).toBe(16);
    expect(finalChannels(input({ ...fast, nodes: 1, ccMin: 90 })).nChannels).toBe(8);
    expect(finalChannels(input({ ...fast, ring: ring(4, 45) })).nChannels).toBe(8);
  });
  it('that doubling needs fewer than 16 channels from 2.20.3; before, only that twice as many fit MAXCHANNELS (NCCL 2.18.5 doubles 16 to 32)', () => {
    const sixteen = { nodes: 2, ccMin: 90, ring: ring(8, 48), tree: { nChannels: 8 } };
    expect(finalChannels(input({ ...sixteen, profile: tp('2.20.3') })).nChannels).toBe(16);
    expect(finalChannels(input({ ...sixteen, profile: tp('2.19.4') })).nChannels).toBe(32);
    expect(finalChannels(input({ ...sixteen, profile: tp('2.18.5') })).nChannels).toBe(32);
    // Four found (8 after the first doubling): both rules double again.
    const four = { ...sixteen, ring: ring(4, 48), tree: { nChannels: 4 } };
    expect(finalChannels(input({ ...four, profile: tp('2.19.4') })).nChannels).toBe(16);
    expect(finalChannels(input({ ...four, profile: tp('2.20.3') })).nChannels).toBe(16);
  });
  it('CollNet adds half as many again when its chain is faster inside the node, from NCCL_COLLNET_NODE_THRESHOLD nodes', () => {
    const chain = { ...ring(4, 24), bwInter: 12 };
    expect(finalChannels(input({ chain })).nChannels).toBe(12);
    expect(finalChannels(input({ chain })).collnet).toBe(true);
    expect(finalChannels(input({ chain, nodes: 1 })).nChannels).toBe(8);
    expect(finalChannels(input({ chain, vars: { NCCL_COLLNET_NODE_THRESHOLD: '3' } })).collnet).toBe(false);
    expect(finalChannels(input({ chain: { ...chain, bwInter: 24 } })).nChannels).toBe(8);
  });
});

describe('the graphs init.cc computes', () => {
  it('NCCL_COLLNET_ENABLE: exactly "1" before 2.27.3, any non-zero integer from 2.27.3', () => {
    expect(collnetEnabled({ NCCL_COLLNET_ENABLE: '1' }, tp('2.26.6'))).toBe(true);
    expect(collnetEnabled({ NCCL_COLLNET_ENABLE: '2' }, tp('2.26.6'))).toBe(false);
    expect(collnetEnabled({ NCCL_COLLNET_ENABLE: '2' }, tp('2.27.3'))).toBe(true);
    expect(collnetEnabled({ NCCL_COLLNET_ENABLE: '0x1' }, tp('2.27.3'))).toBe(true);
    expect(collnetEnabled({ NCCL_COLLNET_ENABLE: '0' }, tp('2.27.3'))).toBe(false);
    expect(collnetEnabled({}, tp('2.30.7'))).toBe(false);
  });
  it('NVLS: not with NCCL_NVLS_ENABLE=0; two GPUs are enough from 2.28.7, three needed before', () => {
    expect(graphsComputed({}, tp('2.28.7'), 2).nvls).toBe(true);
    expect(graphsComputed({}, tp('2.28.3'), 2).nvls).toBe(false);
    expect(graphsComputed({}, tp('2.28.3'), 3).nvls).toBe(true);
    expect(graphsComputed({}, tp('2.30.7'), 1).nvls).toBe(false);
    const off = graphsComputed({ NCCL_NVLS_ENABLE: '0' }, tp('2.30.7'), 8);
    expect(off.nvls).toBe(false);
    expect(off.reasons.join()).toContain('NCCL_NVLS_ENABLE=0');
  });
  it('CollNet with a CollNet plugin, assumed when NCCL_COLLNET_ENABLE asks; NCCL_ALGO changes no graph', () => {
    expect(graphsComputed({ NCCL_COLLNET_ENABLE: '1' }, tp('2.30.7'), 8).collnet).toBe(true);
    expect(graphsComputed({ NCCL_COLLNET_ENABLE: '1' }, tp('2.30.7'), 8, false).collnet).toBe(false);
    expect(graphsComputed({ NCCL_ALGO: 'Ring' }, tp('2.30.7'), 8)).toEqual(graphsComputed({}, tp('2.30.7'), 8));
  });
  it('the engine on a published topology: CollNet chain and direct only when NCCL_COLLNET_ENABLE asks', () => {
    const system = parseXml(corpusText('azure-ndv2'), 'azure-ndv2');
    const run = (vars: Record<string, string>) => runEngine({ system, nodes: 2, vars, profile: tp('2.30.7') });
    const on = run({ NCCL_COLLNET_ENABLE: '1' });
    expect(on.graphs.filter((g) => g.id === 2 || g.id === 4).map((g) => g.nChannels)).toEqual([1, 1]);
    expect(on.channels!.collnet).toBe(true);
    const off = run({});
    expect(off.graphs.filter((g) => g.id === 2 || g.id === 4).map((g) => g.nChannels)).toEqual([0, 0]);
    expect(off.channels!.collnet).toBe(false);
  }, 30_000);
});

describe('ncclx topo shows the channels NCCL runs', () => {
  it('the job\'s NCCL_MAX_NCHANNELS / NCCL_MIN_NCHANNELS: JSON jobs[].channels and the text (the TUI\'s Topology view) agree', async () => {
    const snap = await probeNode({ root: join(import.meta.dirname, '../fixtures/topo-downtrained'), env: { NCCL_MAX_NCHANNELS: '1', NCCL_MIN_NCHANNELS: '3' } });
    snap.pci!.topology = { ...snap.pci!.topology!, gpus: [], functions: [] };
    const r = topoReport(snap, { ncclVersion: '2.30.7', topoFile: { path: 't.xml', text: corpusText('azure-nc48v4') } });
    const two = r.graphs!.jobs.find((j) => j.nodes === 2)!;
    expect(two.channels!.nChannels).toBe(3);
    expect(two.channels!.list.map((c) => c.ring)).toEqual([0, 0, 0]);
    expect(two.channels!.steps.join('; ')).toContain('NCCL_MAX_NCHANNELS / NCCL_MAX_CTAS: the first 1');
    const text = renderTopo(r, makeStyle(false), false);
    expect(text).toContain('2 nodes, collective channels NCCL runs: 3');
    // Without the variables: the doubling alone.
    const plain = topoReport(await probeNode({ root: join(import.meta.dirname, '../fixtures/topo-downtrained'), env: {} }), { ncclVersion: '2.30.7', topoFile: { path: 't.xml', text: corpusText('azure-nc48v4') } });
    const j2 = plain.graphs!.jobs.find((j) => j.nodes === 2)!;
    expect(j2.channels!.nChannels).toBe(2 * j2.channels!.searched);
  }, 30_000);
});
