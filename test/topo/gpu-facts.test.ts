// The GPUs' NVML facts ncclx puts in the <system> it builds from /sys
// (src/model/topo/gpu-facts.ts): sm from the PCI device id, NVLinks from
// nvidia-smi — to NVSwitches or to peer GPUs — and the <gpu>/<nvlink>/<net>
// elements `ncclx topo --xml` writes.

import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gpuFacts, maxNvLinks, nvmlBusId, smOfDevice } from '../../src/model/topo/gpu-facts.js';
import { topoFile, topoReport } from '../../src/model/topo/report.js';
import { parseComputeCaps } from '../../src/model/topo/nvsmi.js';
import { probeNode } from '../../src/probe/index.js';
import type { TopoPart } from '../../src/model/snapshot/topo-types.js';

const FIX = join(import.meta.dirname, '../fixtures');
const fn = (bdf: string, device: string) => ({ bdf, path: [bdf], class: '0x030200', vendor: '0x10de', device, numaNode: 0, maxLinkSpeed: null, maxLinkWidth: null, currentLinkSpeed: null, currentLinkWidth: null });
const part = (n: number, links: number[][] | null, active?: number[]): TopoPart => {
  const gpus = Array.from({ length: n }, (_, i) => `0000:${(0x10 + i).toString(16)}:00.0`);
  return {
    functions: gpus.map((b) => fn(b, '0x2330')),
    gpus,
    numaNodes: [],
    cpu: { arch: null, vendor: null, family: null, model: null },
    nvlink: links && { links, source: 't' },
    nvlinkStatus: active && { source: 't', gpus: active.map((a, index) => ({ index, name: 'H100', links: Array.from({ length: 18 }, (_, link) => ({ link, gbps: link < a ? 26.562 : null })) })) },
  };
};
const full = (n: number, c: number) => Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (i === j ? 0 : c)));

describe('gpuFacts', () => {
  it('the compute capability from the device id, unknown ids null; the links NCCL asks NVML about per sm', () => {
    expect([smOfDevice('0x2330'), smOfDevice('0x20B5'), smOfDevice('0x1db5'), smOfDevice('0x2230'), smOfDevice('0xffff'), smOfDevice(null)]).toEqual([90, 80, 70, 86, null, null]);
    expect([59, 60, 69, 70, 79, 80, 89, 90].map(maxNvLinks)).toEqual([0, 4, 4, 6, 6, 12, 12, 18]);
    expect(nvmlBusId('0009:01:00.0')).toBe('00000009:01:00.0');
  });
  it('NV18 to seven peers is more than a GPU has: 18 links to the NVSwitches (NCCL\'s hidden target), fewer when nvlink -s says some are down', () => {
    expect(gpuFacts(part(8, full(8, 18)))[0]!.nvlinks).toEqual([{ target: 'fffffff:ffff:ff', count: 18, tclass: '0x068000' }]);
    const down = gpuFacts(part(8, full(8, 18), [18, 16, 18, 18, 18, 18, 18, 0]));
    expect(down.map((g) => g.nvlinks.map((l) => l.count))).toEqual([[18], [16], [18], [18], [18], [18], [18], []]);
  });
  it('NV# that fit in the GPU\'s links are direct links to the peer, one <nvlink> per peer; none without nvidia-smi or without a known sm', () => {
    expect(gpuFacts(part(2, [[0, 12], [12, 0]]))[1]!.nvlinks).toEqual([{ target: '00000000:10:00.0', count: 12, tclass: '0x030200' }]);
    // 18 links to one peer is every link of an sm 90 GPU: direct (the boundary of the NVSwitch rule), 19 would not be.
    expect(gpuFacts(part(2, [[0, 18], [18, 0]]))[0]!.nvlinks[0]!.tclass).toBe('0x030200');
    expect(gpuFacts(part(3, [[0, 10, 9], [10, 0, 9], [9, 9, 0]]))[0]!.nvlinks[0]!.tclass).toBe('0x068000');
    expect(gpuFacts(part(2, null))[0]!.nvlinks).toEqual([]);
    const p = part(2, [[0, 12], [12, 0]]);
    p.functions[0]!.device = '0xffff';
    // An id outside the table: neither sm nor the GPU's own GPUDirect RDMA support is known without CUDA.
    expect(gpuFacts(p)[0]).toEqual({ bdf: '0000:10:00.0', dev: 0, sm: null, gdr: null, nvlinks: [] });
    expect(gpuFacts(p)[1]).toMatchObject({ sm: 90, gdr: true });
  });
  it('`topo --xml` on a /sys node writes each GPU\'s <gpu dev sm rank gdr> and <nvlink>, and each NET\'s properties', async () => {
    const x = topoFile(await probeNode({ root: join(FIX, 'topo-dgx-h100'), env: {} }));
    if (!('xml' in x)) throw new Error(x.unavailable);
    expect(x.xml.match(/<gpu [^>]*>/g)).toHaveLength(8);
    expect(x.xml).toContain('<gpu dev="0" sm="90" rank="0" gdr="1">\n');
    expect(x.xml.match(/<nvlink target="fffffff:ffff:ff" count="18" tclass="0x068000"\/>/g)).toHaveLength(8);
    expect(x.xml).toMatch(/<net name="mlx5_0" dev="0" latency="0" speed="400000" port="1" gdr="1"\/>/);
  });
  it('`topo --xml` on a node whose NETs are the socket transport\'s writes their gdr="0", as the report\'s own search takes it (host memory only); the GPUs keep their own gdr="1"', async () => {
    const snap = await probeNode({ root: join(FIX, 'efa'), env: {} });
    const x = topoFile(snap);
    if (!('xml' in x)) throw new Error(x.unavailable);
    // ens5's speed cannot be read: NCCL's socket transport reports 10000 Mb/s (ncclSocketGetSpeed's default), and so does the file.
    expect(x.xml).toMatch(/<net name="ens5" dev="0" latency="0" speed="10000" port="0" gdr="0"\/>/);
    // A GPU's gdr is its own (CUDA's answer, as NCCL dumps it on a real node with no RDMA NIC); NCCL needs the NET's too.
    expect(x.xml.match(/<gpu [^>]*gdr="1"/g)).toHaveLength(8);
    expect(x.xml.match(/<net [^>]*gdr="1"/g)).toBeNull();
  });
});

describe('compute capability from nvidia-smi, for a device id the table lacks', () => {
  it('parses nvidia-smi --query-gpu=pci.bus_id,compute_cap: NVML bus ids to sysfs bdfs, major.minor to sm; other lines skipped; bounded', () => {
    expect(parseComputeCaps('00000000:00:06.0, 9.0\n00000001:1B:00.0, 10.0\nNo devices were found\n')).toEqual([
      { bdf: '0000:00:06.0', sm: 90 },
      { bdf: '0001:1b:00.0', sm: 100 },
    ]);
    expect(parseComputeCaps('NVIDIA-SMI has failed\n')).toBeNull();
    const two = '00000000:19:00.0, 9.0\n00000000:3b:00.0, 8.0\n';
    expect(parseComputeCaps(two, 2)).toHaveLength(2);
    expect(parseComputeCaps(two, 1)).toBeNull();
  });

  const node = (device: string, caps: string | null) => {
    const dir = mkdtempSync(join(tmpdir(), 'ncclx-caps-'));
    cpSync(join(FIX, 'topo-pcie-nvbridge'), dir, { recursive: true, verbatimSymlinks: true });
    // GPU 1 (an A100, 0x20f1 in the fixture) under another device id.
    const file = join(dir, 'sys/devices/pci0000:3a/0000:3a:01.0/0000:3b:00.0/device');
    writeFileSync(file, `${device}\n`);
    if (caps !== null) writeFileSync(join(dir, 'commands/nvidia-smi-compute-cap.txt'), caps);
    return dir;
  };
  const CAPS = '00000000:19:00.0, 9.0\n00000000:3B:00.0, 8.0\n';

  it('an id the table lacks: without nvidia-smi the graphs are unavailable; with it the <system> is the known id\'s, graphs and all', async () => {
    const dirs = [node('0x2b85', null), node('0x2b85', CAPS)];
    try {
      const [without, withCaps] = await Promise.all(dirs.map((root) => probeNode({ root, env: {} })));
      expect(topoReport(without!).graphsUnavailable).toMatch(/compute capability of GPU 1 \(0000:3b:00\.0, device 0x2b85\) is not known/);
      expect(withCaps!.pci?.topology?.computeCaps).toEqual({ gpus: [{ bdf: '0000:19:00.0', sm: 90 }, { bdf: '0000:3b:00.0', sm: 80 }], source: 'commands/nvidia-smi-compute-cap.txt' });
      const known = await probeNode({ root: join(FIX, 'topo-pcie-nvbridge'), env: {} });
      const r = topoReport(withCaps!);
      expect(r.graphsUnavailable).toBeNull();
      expect(r.graphs).toEqual(topoReport(known).graphs);
      const x = topoFile(withCaps!);
      if (!('xml' in x)) throw new Error(x.unavailable);
      expect(x.xml).toMatch(/<gpu dev="1" sm="80"/);
    } finally {
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    }
  });

  it('ids the table knows: nvidia-smi is not asked (slow on a GPU node), and a recorded answer is not read', async () => {
    const dir = node('0x20f1', '00000000:19:00.0, 9.0\n00000000:3B:00.0, 7.0\n');
    try {
      const snap = await probeNode({ root: dir, env: {} });
      expect(snap.pci?.topology?.computeCaps).toBeUndefined();
      expect(gpuFacts(snap.pci!.topology!).map((g) => g.sm)).toEqual([90, 80]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
