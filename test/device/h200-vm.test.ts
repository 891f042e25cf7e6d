// A real GPU node, read by ncclx and run by NCCL: one H200 VM (test/device/h200-vm/README.md).
// Every expected value here comes from what NCCL itself wrote on that node — its
// topology dump and its debug logs — never from running ncclx.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LogCollector } from '../../src/model/log/analyze.js';
import { comparePrediction } from '../../src/model/log/predict.js';
import { topoFile, topoReport } from '../../src/model/topo/report.js';
import { parseXml, type XmlNode } from '../../src/model/topo/xml-read.js';
import { loadSnapshot } from '../../src/probe/snapshot-file.js';

const DIR = join(__dirname, 'h200-vm');
const snap = (name: string) => loadSnapshot(join(DIR, `snapshot-${name}.json`));
const log = (name: string) => readFileSync(join(DIR, `job-${name}.txt`), 'utf8');

function analyze(text: string) {
  const c = new LogCollector();
  for (const l of text.split('\n')) c.addLine(l);
  return c.result();
}

/** NCCL's own search lines in the log: `Pattern P, crossNic C, nChannels N, bw I/E, type TI/TE` (graph/search.cc ncclTopoPrintGraph). */
function loggedGraphs(text: string) {
  return [...text.matchAll(/Pattern (\d+), crossNic (\d+), nChannels (\d+), bw ([\d.]+)\/([\d.]+), type (\w+)\/(\w+)/g)].map((m) => ({
    pattern: Number(m[1]),
    crossNic: Number(m[2]),
    nChannels: Number(m[3]),
    bwIntra: Number(m[4]),
    bwInter: Number(m[5]),
    typeIntra: m[6],
    typeInter: m[7],
  }));
}

describe('a real H200 VM: the topology NCCL 2.28.9 built there', () => {
  const host = snap('host');
  const hostLog = log('host');

  it('its GPU → NIC path is what NCCL logged: PHB at 1.25 GB/s to the socket NIC eth0, which is a virtio device NCCL hangs off the first CPU', () => {
    // NCCL: `GPU/0-60 :GPU/0-60 (0/5000.0/LOC) CPU/0-ffffffffffffff (1/48.0/PHB) NET/0-0 (3/1.2/PHB)` and `NET[1.2] - NET/0-0 (0/0/0/1.250000)`.
    expect(hostLog).toMatch(/GPU\/0-60 :.* NET\/0-0 \(3\/1\.2\/PHB\)/);
    const r = topoReport(host);
    expect(r.gpus.map((g) => g.bdf)).toEqual(['0000:00:06.0']);
    expect(r.nics.map((n) => [n.device, n.bdf, n.parents])).toEqual([['eth0', null, ['first CPU (no PCI path)']]]);
    // NCCL's path bandwidth is its NET link's, 1.25 GB/s (`NET[1.2] - NET/0-0 (0/0/0/1.250000)`); the report gives GB/s to 0.1.
    expect(hostLog).toContain('NET/0-0 (0/0/0/1.250000)');
    expect(r.matrix).toEqual([[{ path: 'PHB', bwGBs: Math.round(1.25 * 10) / 10 }]]);
    // A socket NIC off the PCI tree is where NCCL puts it, not a finding: IB-011 is about RDMA devices (the doctor says it does not apply).
    expect(r.findings.map((f) => f.id)).toEqual([]);
  });

  it('the graph search on the /sys it read gives the graphs and channels NCCL logged for the one-rank job', () => {
    const logged = loggedGraphs(hostLog);
    // ring (pattern 4) then tree (pattern 3), as NCCL searched them.
    expect(logged.map((g) => g.pattern)).toEqual([4, 3]);
    const r = topoReport(host);
    expect(r.graphsUnavailable).toBeNull();
    const one = r.graphs!.jobs.find((j) => j.nodes === 1)!;
    const mine = ['ring', 'tree'].map((name) => one.graphs.find((g) => g.name === name)!);
    expect(mine.map((g) => ({ crossNic: g.crossNic, nChannels: g.nChannels, bwIntra: g.bwIntra, bwInter: g.bwInter, typeIntra: g.typeIntra, typeInter: g.typeInter }))).toEqual(logged.map(({ pattern: _p, ...g }) => g));
    // `Channel 00/64 : 0` … `Channel 63/64 : 0`: the channels NCCL runs.
    const runs = Number(/Channel 00\/(\d+) :/.exec(hostLog)![1]);
    expect(one.channels?.nChannels).toBe(runs);
  });

  it('`topo --xml` writes the <system> NCCL dumped there (NCCL_TOPO_DUMP_FILE), apart from what only NVML and the transport know', () => {
    const mine = topoFile(host);
    if (!('xml' in mine)) throw new Error(mine.unavailable);
    // What NCCL adds that ncclx leaves for NCCL to fill when it loads the file (docs/topo-json.md, "topo --xml"):
    // the host hash, the PCI subsystem ids, and the NET's guid and maxconn.
    const LEFT = new Set(['host_hash', 'subsystem_vendor', 'subsystem_device', 'guid', 'maxconn']);
    const shape = (n: XmlNode): unknown => ({
      name: n.name,
      attrs: Object.fromEntries(Object.entries(n.attrs).filter(([k]) => !LEFT.has(k)).sort()),
      subs: n.subs.map(shape),
    });
    const nccl = parseXml(readFileSync(join(DIR, 'nccl-topo-dump.xml'), 'utf8'), 'dump');
    expect(shape(parseXml(mine.xml, 'ncclx'))).toEqual(shape(nccl));
  });
});

describe('a real H200 VM: NCCL 2.28.9 logs held against the prediction', () => {
  const cases: [job: string, snapshot: string][] = [
    ['host', 'job'],
    ['host', 'host'],
    ['container', 'container'],
    ['no-subnet', 'no-subnet'],
    ['syn-sent', 'syn-sent'],
  ];
  for (const [job, s] of cases) {
    it(`job '${job}' against ${s === 'host' ? 'the node' : `its own process (snapshot --pid)`}: every consumer the log states agrees`, () => {
      const p = comparePrediction(analyze(log(job)), snap(s));
      expect(p.consumers.filter((c) => c.status === 'differ')).toEqual([]);
      expect(p.agree).toBe(true);
    });
  }

  it("a job whose bootstrap found no interface (NCCL_COMM_ID off every subnet) agrees with its own process's prediction of none", () => {
    const p = comparePrediction(analyze(log('no-subnet')), snap('no-subnet'));
    expect(p.consumers.find((c) => c.consumer === 'bootstrap')).toMatchObject({ status: 'agree', log: 'no interface (bootstrap fails)', predicted: 'no interface (bootstrap fails)' });
  });

  it('the same log held against the node, whose shell has no NCCL_COMM_ID, disagrees on the bootstrap and names the environment', () => {
    const p = comparePrediction(analyze(log('no-subnet')), snap('host'));
    expect(p.agree).toBe(false);
    expect(p.consumers.find((c) => c.consumer === 'bootstrap')).toMatchObject({ status: 'differ', log: 'no interface (bootstrap fails)', predicted: 'eth0 192.0.2.2', likely: 'environment' });
  });

  it("the container job's lo held against the node, which has eth0, disagrees and names the container", () => {
    const p = comparePrediction(analyze(log('container')), snap('host'));
    expect(p.agree).toBe(false);
    const boot = p.consumers.find((c) => c.consumer === 'bootstrap')!;
    expect(boot).toMatchObject({ status: 'differ', log: 'lo 127.0.0.1', predicted: 'eth0 192.0.2.2', likely: 'container' });
  });
});
