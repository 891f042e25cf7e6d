// topo.cc findLocalCpu, the walk up from a GPU to its CPU that <c2c> and NVLinks to a CPU take
// (TopoProfile.localCpuWalk): before 2.26.2 it has no memory of where it came from, so on a tree where
// a switch's widest PCI link leads down (OCI's GB300 dump: a 16 GT/s x1 bridge above a 64 GT/s x16 one)
// it recurses without end and NCCL dies of a stack overflow. The oracle crashed the same way at 2.23.4
// and loaded the tree at 2.27.7 and 2.30.7 (test/topo/oracle/*/oci-gb300mp-host0.json).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runEngine } from '../../src/model/topo/engine-run.js';
import { loadCrash, NcclInitError } from '../../src/model/topo/engine.js';
import { parseXml } from '../../src/model/topo/xml-read.js';
import { topoReport } from '../../src/model/topo/report.js';
import { parseVersion, topoProfileFor } from '../../src/model/nccl/versions.js';
import { probeNode } from '../../src/probe/index.js';
import { corpusText } from './oracle-compare.js';

const engineAt = (text: string, v: string) => runEngine({ system: parseXml(text, 't.xml'), nodes: 1, vars: {}, profile: topoProfileFor(parseVersion(v)), search: false });
const crashAt = (text: string, v: string) => loadCrash(parseXml(text, 't.xml'), topoProfileFor(parseVersion(v)));

describe('findLocalCpu on a C2C GPU behind a bridge whose widest link leads down (GB300)', () => {
  const gb300 = corpusText('oci-gb300mp-host0');
  it('2.25.1: the walk comes back to the bridge and NCCL crashes (SIGSEGV)', () => {
    const e = crashAt(gb300, '2.25.1');
    expect(e).toBeInstanceOf(NcclInitError);
    expect(e!.result).toBe('SIGSEGV');
    expect(e!.message).toMatch(/comes back to PCI\/\w+ on its way up from GPU\/806000/);
    expect(() => engineAt(gb300, '2.25.1')).toThrow(/stack overflow/);
  });
  it('2.26.2: the walk never turns back, and each GPU gets its C2C link to its CPU', () => {
    expect(crashAt(gb300, '2.26.2')).toBeNull();
    const r = engineAt(gb300, '2.26.2');
    expect(r.gpus).toHaveLength(4);
  });
});

// A GPU wider than its bridge's uplink, with NVLinks to its CPU (tclass 0x068001): before 2.22.3 the
// walk follows every PCI link, so the bridge's widest link (the GPU's) leads back to the GPU.
const NVL_TO_CPU = `<system version="1">
  <cpu numaid="0" affinity="ff" arch="ppc64" vendor="IBM" familyid="0" modelid="0">
    <pci busid="0000:01:00.0" class="0x060400" vendor="0x1000" device="0x0001" subsystem_vendor="0x1000" subsystem_device="0x0001" link_speed="8.0 GT/s PCIe" link_width="4">
      <pci busid="0000:02:00.0" class="0x030200" vendor="0x10de" device="0x1db1" subsystem_vendor="0x10de" subsystem_device="0x1212" link_speed="8.0 GT/s PCIe" link_width="16">
        <gpu dev="0" sm="70" gdr="1"><nvlink target="0000:00:00.0" count="3" tclass="0x068001"/></gpu>
      </pci>
    </pci>
  </cpu>
</system>
`;

describe('findLocalCpu for NVLinks to a CPU, before and from 2.22.3 (PCI switches and CPUs only)', () => {
  it('2.22.2: every PCI link is followed, the bridge leads back to the GPU: NCCL crashes', () => {
    expect(crashAt(NVL_TO_CPU, '2.22.2')?.message).toMatch(/comes back to GPU\/2000 on its way up from GPU\/2000/);
  });
  it('2.22.3: the GPU is not followed; the walk reaches the CPU and the NVLinks join it', () => {
    expect(crashAt(NVL_TO_CPU, '2.22.3')).toBeNull();
    const r = engineAt(NVL_TO_CPU, '2.22.3');
    expect(r.gpus).toHaveLength(1);
  });
  it('the bridge wider than the GPU: its first link is the CPU at every release, no crash', () => {
    const wide = NVL_TO_CPU.replace('link_speed="8.0 GT/s PCIe" link_width="4"', 'link_speed="16.0 GT/s PCIe" link_width="16"');
    for (const v of ['2.18.5', '2.22.2', '2.23.4', '2.26.2']) expect(crashAt(wide, v)).toBeNull();
  });
});

describe('ncclx topo with a topology file NCCL crashes on', () => {
  const snapshot = async () => {
    const snap = await probeNode({ root: join(import.meta.dirname, '../fixtures/topo-downtrained'), env: {} });
    snap.pci!.topology = { ...snap.pci!.topology!, gpus: [], functions: [] };
    return snap;
  };
  const text = corpusText('oci-gb300mp-host0');
  it('2.23.4: TOPO-015, an error that says NCCL crashes and which release does not, and nothing modelled', async () => {
    const r = topoReport(await snapshot(), { ncclVersion: '2.23.4', topoFile: { path: 'gb300.xml', text } });
    expect(r.findings.map((f) => [f.id, f.severity])).toEqual([['TOPO-015', 'error']]);
    expect(r.findings[0]!.message).toContain('NCCL 2.23.4 crashes loading this topology file');
    expect(r.findings[0]!.remediation?.advice).toContain('2.26.2 or later');
    expect(r.gpus).toEqual([]);
    expect(r.graphs).toBeNull();
  });
  it('2.27.7: the same file loads: no TOPO-015, the four GPUs are modelled', async () => {
    const r = topoReport(await snapshot(), { ncclVersion: '2.27.7', topoFile: { path: 'gb300.xml', text } });
    expect(r.findings.map((f) => f.id)).not.toContain('TOPO-015');
    expect(r.graphs).not.toBeNull();
  });
});
