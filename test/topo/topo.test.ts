// `ncclx topo` on the topology fixtures, with expectations written from
// NCCL's rules (graph/xml.cc parent walk, paths.cc path types, topo.cc
// ncclTopoGetLocalNet, paths.cc ncclTopoCheckGdr) by hand — not computed by
// ncclx — and unit tests of each rule.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { profileFor, parseVersion } from '../../src/model/nccl/versions.js';
import { gdrLevel, localNetRule, netDevsPolicy, netGdrC2c, nvbRule, topoReport, topoRules } from '../../src/model/topo/report.js';
import { probeNode } from '../../src/probe/index.js';
import { applyPxn, buildSystem, fuseNets, localNetFor, mirrorBits, pathMatrix, pathsTo, pciGen, PATH, PATH_NAMES } from '../../src/model/topo/system.js';
import { mergeDevices, readIbInputs } from '../../src/model/nccl/ib.js';
import { netFusion } from '../../src/model/topo/report.js';
import { topoXml } from '../../src/model/topo/xml.js';
import { cpumapOf } from '../../src/model/topo/xml.js';
import { parseXml, topoFromXml } from '../../src/model/topo/xml-read.js';
import { UserError } from '../../src/model/errors.js';
import fc from 'fast-check';
import { parseNvlinkStatus, parseTopoMatrix } from '../../src/model/topo/nvsmi.js';
import type { TopoFunction, TopoPart } from '../../src/model/snapshot/topo-types.js';
import type { NcclIbDevice } from '../../src/model/nccl/ib.js';
import { cliServer, sameAsOwnProcess } from '../helpers/cli-server.js';

// Every CLI call in one ncclx process (test/helpers/cli-server.ts), one checked against its own process.
const server = cliServer({ faults: false });
const FIX = join(__dirname, '../fixtures');

function topo(fixture: string, ...args: string[]) {
  const r = server.spawnSync(['topo', '--root', join(FIX, fixture), '--nccl-version', '2.28.3', '--json', ...args], { encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '', HOME: '/nonexistent' } });
  expect(r.stderr).toBe('');
  return { status: r.status, d: JSON.parse(r.stdout) };
}
const matrix = (d: { matrix: { path: string }[][] }) => d.matrix.map((row) => row.map((c) => c.path).join(' '));
const nicOf = (d: { pairs: { nic: number | null }[]; nics: { device: string }[] }) => d.pairs.map((p) => (p.nic === null ? null : d.nics[p.nic]!.device));
const ids = (d: { findings: { id: string }[] }) => d.findings.map((f) => f.id);

describe('fixtures', () => {
  it('DGX H100-like: 4 switches of 2 GPUs + 2 NICs, all GPUs on NVSwitch; PIX on the switch, every other NIC through the NVLink peer on its switch (PXN); rail-aligned; GPUDirect on', () => {
    const { d, status } = topo('topo-dgx-h100');
    expect(status).toBe(0);
    expect(matrix(d)).toEqual([
      'PIX PIX PXN PXN PXN PXN PXN PXN',
      'PIX PIX PXN PXN PXN PXN PXN PXN',
      'PXN PXN PIX PIX PXN PXN PXN PXN',
      'PXN PXN PIX PIX PXN PXN PXN PXN',
      'PXN PXN PXN PXN PIX PIX PXN PXN',
      'PXN PXN PXN PXN PIX PIX PXN PXN',
      'PXN PXN PXN PXN PXN PXN PIX PIX',
      'PXN PXN PXN PXN PXN PXN PIX PIX',
    ]);
    // Without NVLink (NCCL_PXN_DISABLE=1): the PCIe paths, PHB across switches of a socket, SYS across sockets.
    expect(matrix(topo('topo-dgx-h100', '--pxn-disable').d)).toEqual([
      'PIX PIX PHB PHB SYS SYS SYS SYS',
      'PIX PIX PHB PHB SYS SYS SYS SYS',
      'PHB PHB PIX PIX SYS SYS SYS SYS',
      'PHB PHB PIX PIX SYS SYS SYS SYS',
      'SYS SYS SYS SYS PIX PIX PHB PHB',
      'SYS SYS SYS SYS PIX PIX PHB PHB',
      'SYS SYS SYS SYS PHB PHB PIX PIX',
      'SYS SYS SYS SYS PHB PHB PIX PIX',
    ]);
    // Two local NICs per GPU (a power of two): dev 0 → mirrorBits(0,2)=0, dev 1 → 1, dev 2 → 0 … of its own pair.
    expect(nicOf(d)).toEqual(['mlx5_0', 'mlx5_1', 'mlx5_2', 'mlx5_3', 'mlx5_4', 'mlx5_5', 'mlx5_6', 'mlx5_7']);
    expect(d.pairs.every((p: { gdr: { enabled: boolean } }) => p.gdr.enabled === true)).toBe(true);
    // Gen5 x16 = 16 × 240 / 80 = 48 GB/s, below the 400G NET (50 GB/s).
    expect(d.pairs.map((p: { bwGBs: number }) => p.bwGBs)).toEqual([48, 48, 48, 48, 48, 48, 48, 48]);
    expect(d.nics[0].parents).toEqual(['0000:16:00.0', 'CPU 0']);
    expect(d.nics[4].parents).toEqual(['0000:98:00.0', 'CPU 1']);
    expect(ids(d)).toEqual([]);
  });
  it('an NVLink bridge: the GPU without a NIC of its own reaches it through its bridged peer (PXN) with GPUDirect RDMA; with PXN off it is PHB and GPUDirect is off', () => {
    const { d } = topo('topo-pcie-nvbridge');
    expect(matrix(d)).toEqual(['PIX', 'PXN']);
    expect(d.pairs[1]).toMatchObject({ relay: 0, path: 'PXN', gdr: { enabled: true, distance: 'PIX' } });
    expect(ids(d)).toEqual([]);
    const off = topo('topo-pcie-nvbridge', '--pxn-disable').d;
    expect(matrix(off)).toEqual(['PIX', 'PHB']);
    expect(off.pairs[1]).toMatchObject({ relay: null, gdr: { enabled: false, distance: 'PHB' } });
    expect(ids(off)).toEqual(['TOPO-010']);
    // Before 2.12.7 NCCL had no PXN; 2.11.4 also does not look for the nvidia_peermem module (only memory_peers), so
    // GPUDirect RDMA is off on the NIC side and both GPUs are routed through the CPU.
    const old = JSON.parse(server.spawnSync(['topo', '--root', join(FIX, 'topo-pcie-nvbridge'), '--nccl-version', '2.11.4', '--json'], { encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '', HOME: '/nonexistent' } }).stdout);
    expect(matrix(old)).toEqual(['PHB', 'PHB']);
    expect(old.pairs[1].relay).toBeNull();
  });
  it('Grace Hopper: the NIC behind the Grace CPU is P2C from 2.27.3 and GPUDirect RDMA counts it as C2C; PHB with GPUDirect off in 2.26 (NCCL_NET_GDR_C2C=0) and before (C2C as an NVL link)', () => {
    const at = (v: string) => JSON.parse(server.spawnSync(['topo', '--root', join(FIX, 'topo-gh200'), '--nccl-version', v, '--json'], { encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '', HOME: '/nonexistent' } }).stdout);
    const now = at('2.28.3');
    expect(matrix(now)).toEqual(['P2C']);
    expect(now.pairs[0].gdr).toMatchObject({ enabled: true, distance: 'C2C' });
    expect(ids(now)).toEqual([]);
    for (const v of ['2.26.2', '2.24.3']) {
      const d = at(v);
      expect(matrix(d)).toEqual(['PHB']);
      expect(d.pairs[0].gdr).toMatchObject({ enabled: false, distance: 'PHB' });
      expect(ids(d)).toEqual(['TOPO-010']);
    }
    // paths.cc ncclTopoCheckGdr: 2.27.3–2.28.x count the P2C NIC as C2C against PXB; from 2.29.2 the default level is
    // P2C (NCCL_NET_GDR_C2C) and the distance stays P2C, so an explicit NCCL_NET_GDR_LEVEL=PXB turns GPUDirect RDMA off.
    const gdrAt = (v: string, env: { [name: string]: string }) =>
      JSON.parse(server.spawnSync(['topo', '--root', join(FIX, 'topo-gh200'), '--nccl-version', v, '--json'], { encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '', HOME: '/nonexistent', ...env } }).stdout).pairs[0].gdr;
    expect(gdrAt('2.30.7', {})).toMatchObject({ enabled: true, distance: 'P2C', level: 'P2C', levelSource: 'default with NCCL_NET_GDR_C2C' });
    expect(gdrAt('2.30.7', { NCCL_NET_GDR_LEVEL: 'PXB' })).toMatchObject({ enabled: false, distance: 'P2C', level: 'PXB' });
    expect(gdrAt('2.28.3', { NCCL_NET_GDR_LEVEL: 'PXB' })).toMatchObject({ enabled: true, distance: 'C2C', level: 'PXB' });
    for (const v of ['2.28.3', '2.30.7']) expect(gdrAt(v, { NCCL_NET_GDR_C2C: '0' })).toMatchObject({ enabled: false, distance: 'P2C', level: 'PXB' });
  });
  it('cloud VM, flat PCI: every function on the root bus, numa -1; the VFs fold onto 00:00.0 and NCCL fuses them into one vNIC (spread by mirrorBits over 4 NICs with NCCL_NET_MERGE_LEVEL=LOC); PHB everywhere; GPUDirect off (info)', () => {
    const { d } = topo('topo-cloud-flat');
    // The four VFs share one <nic> (distance PORT): from 2.27.3 NCCL fuses them (four, NCCL_NET_MAX_DEVS_PER_NIC) into NET 4.
    expect(matrix(d)).toEqual(Array(8).fill('PHB'));
    expect(d.nics).toMatchObject([{ index: 4, device: 'mlx5_0+mlx5_1+mlx5_2+mlx5_3', bdf: '0000:00:00.0', members: [0, 1, 2, 3].map((i) => ({ index: i, device: `mlx5_${i}` })) }]);
    expect(new Set(nicOf(d))).toEqual(new Set(['mlx5_0+mlx5_1+mlx5_2+mlx5_3']));
    // NCCL_NET_MERGE_LEVEL=LOC: the four NETs as they are, the GPUs spread over them by mirrorBits.
    const loc = JSON.parse(server.spawnSync(['topo', '--root', join(FIX, 'topo-cloud-flat'), '--nccl-version', '2.28.3', '--json'], { encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '', HOME: '/nonexistent', NCCL_NET_MERGE_LEVEL: 'LOC' } }).stdout);
    expect(new Set(matrix(loc))).toEqual(new Set(['PHB PHB PHB PHB']));
    expect(loc.nics.map((n: { bdf: string }) => n.bdf)).toEqual(['0000:00:00.0', '0000:00:00.0', '0000:00:00.0', '0000:00:00.0']);
    expect(nicOf(loc)).toEqual(['mlx5_0', 'mlx5_2', 'mlx5_1', 'mlx5_3', 'mlx5_0', 'mlx5_2', 'mlx5_1', 'mlx5_3']);
    // The host bridge has no link attributes: width 0 → 16, speed unknown → 60: 12 GB/s.
    expect(d.pairs[0].bwGBs).toBe(12);
    expect(d.pairs.every((p: { gdr: { enabled: boolean; distance: string } }) => p.gdr.enabled === false && p.gdr.distance === 'PHB')).toBe(true);
    // GPUDirect RDMA off for all eight GPUs: one warning listing them (topo/gdr-verdict.ts, the doctor's verdict too).
    expect(d.findings.filter((f: { id: string; severity: string; message: string }) => f.id === 'TOPO-010' && f.severity === 'warn').map((f: { message: string }) => f.message)).toEqual([expect.stringMatching(/^GPUDirect RDMA is off for every GPU \(8\): each one's path to its NIC is PHB, beyond PXB/)]);
  });
  it('the NIC choice by release: ≥ 2.18.5 mirrors the CUDA index over 4 NICs, 2.12.7–2.18.0 takes it modulo, 2.18.1–2.18.3 hands the mask out in turn', () => {
    const at = (v: string) => {
      const r = server.spawnSync(['topo', '--root', join(FIX, 'topo-cloud-flat'), '--nccl-version', v, '--json'], { encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '', HOME: '/nonexistent' } });
      return nicOf(JSON.parse(r.stdout));
    };
    expect(at('2.18.5')).toEqual(['mlx5_0', 'mlx5_2', 'mlx5_1', 'mlx5_3', 'mlx5_0', 'mlx5_2', 'mlx5_1', 'mlx5_3']);
    expect(at('2.17.1')).toEqual(['mlx5_0', 'mlx5_1', 'mlx5_2', 'mlx5_3', 'mlx5_0', 'mlx5_1', 'mlx5_2', 'mlx5_3']);
    expect(at('2.18.3')).toEqual(['mlx5_0', 'mlx5_1', 'mlx5_2', 'mlx5_3', 'mlx5_0', 'mlx5_1', 'mlx5_2', 'mlx5_3']);
  });
  it('two sockets, GPUs on one and NICs on the other: SYS, the inter-socket bandwidth (Ice Lake: 10 GB/s), TOPO-013 and GPUDirect off', () => {
    const { d } = topo('topo-two-socket');
    expect(new Set(matrix(d))).toEqual(new Set(['SYS SYS']));
    expect(d.pairs.map((p: { bwGBs: number }) => p.bwGBs)).toEqual([10, 10, 10, 10]);
    expect(nicOf(d)).toEqual(['mlx5_0', 'mlx5_1', 'mlx5_0', 'mlx5_1']);
    // One finding per kind, listing the GPUs.
    expect(d.findings.filter((f: { id: string }) => f.id === 'TOPO-013').map((f: { message: string }) => f.message)).toEqual([expect.stringMatching(/^The nearest NICs of GPUs 0–3 are across the CPU interconnect \(SYS\)/)]);
    expect(d.findings.filter((f: { id: string; severity: string }) => f.id === 'TOPO-010' && f.severity === 'warn').map((f: { message: string }) => f.message)).toEqual([expect.stringMatching(/^GPUDirect RDMA is off for every GPU \(4\): .* SYS, beyond PXB/)]);
  });
  it('a NIC trained down to x8 of x16: TOPO-012 names it; NCCL (max_link_*) still computes 48 GB/s', () => {
    const { d } = topo('topo-downtrained');
    expect(ids(d)).toEqual(['TOPO-012']);
    expect(d.findings[0].message).toMatch(/mlx5_1 \(0000:1a:00\.0\) runs at 32\.0 GT\/s PCIe x8 but supports 32\.0 GT\/s PCIe x16/);
    expect(d.pairs[1].bwGBs).toBe(48);
  });
  it('a NIC without its device link: NCCL hangs it off the first CPU (PHB), both GPUs take the other NIC (TOPO-011), IB-011 said once', () => {
    const { d } = topo('topo-no-device-link');
    expect(matrix(d)).toEqual(['PIX PHB', 'PIX PHB']);
    expect(nicOf(d)).toEqual(['mlx5_0', 'mlx5_0']);
    expect(ids(d).sort()).toEqual(['IB-011', 'TOPO-011']);
  });
  it('NCCL_IB_HCA leaves a NIC out: both GPUs of that switch move to the remaining one (no NIC idle, so no TOPO-011)', () => {
    const { d } = topo('topo-dgx-h100', '--hca', '=mlx5_0:1,mlx5_2:1,mlx5_3:1,mlx5_4:1,mlx5_5:1,mlx5_6:1,mlx5_7:1');
    expect(nicOf(d)).toEqual(['mlx5_0', 'mlx5_0', 'mlx5_2', 'mlx5_3', 'mlx5_4', 'mlx5_5', 'mlx5_6', 'mlx5_7']);
    expect(ids(d)).toEqual([]);
  });
  it('without GPUDirect RDMA (NCCL_NET_GDR_LEVEL=LOC) NCCL routes through the GPU\'s CPU: PIX becomes PHB and the GPUs spread over the socket\'s four NICs', () => {
    const { d } = topo('topo-dgx-h100', '--gdr-level', 'LOC');
    expect(matrix(d).slice(0, 1)).toEqual(['PHB PHB PHB PHB SYS SYS SYS SYS']);
    expect(nicOf(d)).toEqual(['mlx5_0', 'mlx5_2', 'mlx5_1', 'mlx5_3', 'mlx5_4', 'mlx5_6', 'mlx5_5', 'mlx5_7']);
    expect(d.pairs[0].gdr).toMatchObject({ enabled: false, distance: 'PIX', level: 'LOC' });
    expect(d.notes.join(' ')).toMatch(/routes them through the GPU's CPU/);
  });
  it('NCCL_NET_GDR_LEVEL=SYS enables GPUDirect RDMA across sockets; a lower-case name is ignored', () => {
    expect(topo('topo-two-socket', '--gdr-level', 'SYS').d.pairs[0].gdr.enabled).toBe(true);
    const lower = topo('topo-two-socket', '--gdr-level', 'sys').d.pairs[0].gdr;
    expect(lower).toMatchObject({ enabled: false, level: 'PXB' });
    expect(lower.levelSource).toMatch(/ignored/);
  });
  it('text: the matrix, per GPU and the NICs', () => {
    const r = server.spawnSync(['topo', '--root', join(FIX, 'topo-dgx-h100'), '--nccl-version', '2.28.3', '--no-color'], { encoding: 'utf8' });
    expect(r.stdout).toMatch(/^ {2}GPU0 {2}PIX\* +PIX +PXN +PXN +PXN/m);
    expect(r.stdout).toMatch(/^ {2}0 +0000:19:00\.0 +0 +mlx5_0 +PIX +48 +on/m);
  });
  it('the doctor says the same findings', () => {
    const r = server.spawnSync(['doctor', '--root', join(FIX, 'topo-downtrained'), '--nccl-version', '2.28.3', '--json', '--no-tui'], { encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '', HOME: '/nonexistent' } });
    const j = JSON.parse(r.stdout);
    expect(j.results.filter((x: { id: string; severity: string }) => x.id === 'TOPO-012' && x.severity === 'warn')).toHaveLength(1);
  });
});

describe('--xml: an NCCL_TOPO_FILE', () => {
  const xml = (fixture: string) => server.spawnSync(['topo', '--xml', '--root', join(FIX, fixture), '--nccl-version', '2.28.3'], { encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '', HOME: '/nonexistent' } });
  it('the PCI tree NCCL builds: CPUs by NUMA node with their cpumap, each switch upstream port with its GPUs and NICs, the GPUs\' and NETs\' attributes', () => {
    const r = xml('topo-downtrained');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(
      [
        '<system version="1">',
        '  <cpu numaid="0" affinity="00000000,00000000,00ffffff,ffffffff" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="143">',
        '    <pci busid="0000:16:00.0" class="0x060400" vendor="0x8086" link_speed="32.0 GT/s PCIe" link_width="16">',
        '      <pci busid="0000:18:00.0" class="0x020000" vendor="0x15b3" device="0x1021" link_speed="32.0 GT/s PCIe" link_width="16">',
        '        <nic>',
        '          <net name="mlx5_0" dev="0" latency="0" speed="400000" port="1" gdr="1"/>',
        '        </nic>',
        '      </pci>',
        '      <pci busid="0000:19:00.0" class="0x030200" vendor="0x10de" device="0x2330" link_speed="32.0 GT/s PCIe" link_width="16">',
        '        <gpu dev="0" sm="90" rank="0" gdr="1"/>',
        '      </pci>',
        '      <pci busid="0000:1a:00.0" class="0x020000" vendor="0x15b3" device="0x1021" link_speed="32.0 GT/s PCIe" link_width="16">',
        '        <nic>',
        '          <net name="mlx5_1" dev="1" latency="0" speed="400000" port="1" gdr="1"/>',
        '        </nic>',
        '      </pci>',
        '      <pci busid="0000:1b:00.0" class="0x030200" vendor="0x10de" device="0x2330" link_speed="32.0 GT/s PCIe" link_width="16">',
        '        <gpu dev="1" sm="90" rank="1" gdr="1"/>',
        '      </pci>',
        '    </pci>',
        '  </cpu>',
        '</system>',
        '',
      ].join('\n'),
    );
  });
  it('two sockets: one <cpu> each; a NIC off the PCI tree goes directly under the first <cpu>, as NCCL attaches it, and is said on stderr', () => {
    const two = xml('topo-dgx-h100').stdout;
    expect(two.match(/<cpu numaid="(\d)"/g)).toEqual(['<cpu numaid="0"', '<cpu numaid="1"']);
    // node0 = 0-55,112-167 over nr_cpu_ids = 224 bits (7 words, most significant first).
    expect(two).toContain('affinity="00000000,000000ff,ffffffff,ffff0000,00000000,00ffffff,ffffffff"');
    expect(two).toContain('affinity="ffffffff,ffffff00,00000000,0000ffff,ffffffff,ff000000,00000000"');
    const r = xml('topo-no-device-link');
    // mlx5_1 has no device link: NCCL's IB transport gives it no PCI path, and xml.cc ncclTopoFillNet hangs its <nic> off the first <cpu>.
    const firstCpu = r.stdout.slice(0, r.stdout.indexOf('</cpu>'));
    expect(firstCpu).toMatch(/\n    <nic>\n      <net name="mlx5_1"[^>]*\/>\n    <\/nic>\n  $/);
    expect(r.stdout.match(/name="mlx5_1"/g)).toHaveLength(1);
    expect(r.stderr).toMatch(/mlx5_1: not on the PCI tree: written under CPU \d+/);
  });
  it('--json with --xml is a usage error', () => {
    const r = server.spawnSync(['topo', '--xml', '--json', '--root', join(FIX, 'topo-dgx-h100')], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/give one/);
  });
});

describe('a topology file (NCCL_TOPO_FILE, --topo-file)', () => {
  const FILES = join(__dirname, 'files');
  const run = (...args: string[]) => server.spawnSync(['topo', '--root', join(FIX, 'topo-downtrained'), '--nccl-version', '2.28.3', ...args], { encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '', HOME: '/nonexistent' } });
  it('the file\'s tree first, /sys for the rest: the file\'s GPU and NIC sit on sibling Broadcom Gen4 sub-switches, which NCCL folds into their parent (PIX, not PXB); the NIC it does not hold stays where /sys has it', () => {
    const r = run('--topo-file', join(FILES, 'dgx-a100-excerpt.xml'), '--json');
    expect(r.stderr).toBe('');
    const d = JSON.parse(r.stdout);
    const g = d.gpus.find((x: { bdf: string }) => x.bdf === '0000:07:00.0');
    expect(g.parents).toEqual(['0000:01:00.0', 'CPU 0']);
    const row = d.matrix[g.index].map((c: { path: string }) => c.path);
    expect(row).toEqual(['PIX', 'PHB']);
    expect(d.notes.join(' ')).toMatch(/PCI switch 0000:03:00\.0 folded into 0000:01:00\.0 \(Broadcom PEX Gen4/);
    expect(d.nics.map((n: { device: string; bdf: string }) => `${n.device}@${n.bdf}`)).toEqual(['mlx5_0@0000:0c:00.0', 'mlx5_1@0000:1a:00.0']);
    expect(d.notes[0]).toMatch(/the PCI tree of the file \(1 GPU\(s\), 1 NIC\(s\)\); 0000:19:00\.0, 0000:1b:00\.0 from \/sys/);
  });
  it('round trip: --xml written on a node and read back gives the same paths and choices', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ncclx-topo-xml-'));
    try {
      const xml = server.spawnSync(['topo', '--xml', '--root', join(FIX, 'topo-dgx-h100'), '--nccl-version', '2.28.3'], { encoding: 'utf8' }).stdout;
      writeFileSync(join(dir, 't.xml'), xml);
      const a = topo('topo-dgx-h100', '--pxn-disable').d;
      const b = topo('topo-dgx-h100', '--pxn-disable', '--topo-file', join(dir, 't.xml')).d;
      expect(matrix(b)).toEqual(matrix(a));
      expect(nicOf(b)).toEqual(nicOf(a));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it('NCCL_TOPO_FILE in the job\'s environment is read with the snapshot; one NCCL cannot open leaves /sys detection, and says so', async () => {
    const snap = await probeNode({ root: join(FIX, 'topo-downtrained'), env: { NCCL_TOPO_FILE: '/etc/nccl-topo.xml' } });
    expect(snap.pci?.topology?.topoFiles).toEqual([{ path: '/etc/nccl-topo.xml', text: null, error: expect.stringMatching(/ENOENT/) }]);
    const r = topoReport(snap, { ncclVersion: '2.28.3' });
    expect(r.notes[0]).toMatch(/^NCCL_TOPO_FILE=\/etc\/nccl-topo\.xml: ENOENT.*Could not open XML topology file/);
    expect(r.pairs.map((p) => p.path)).toEqual(['PIX', 'PIX']);
  });
  it('the topology and nvidia-smi topo -m / nvlink -s are read for the commands that show them, not for ib, env or log', async () => {
    const root = join(FIX, 'topo-dgx-h100');
    const { runnerFor } = await import('../../src/probe/runner.js');
    const { Root } = await import('../../src/probe/root.js');
    const ran = (topology: boolean | undefined) => {
      const argvs: string[] = [];
      const inner = runnerFor(new Root(root));
      const runner = { run: (spec: Parameters<typeof inner.run>[0]) => (argvs.push(spec.argv.join(' ')), inner.run(spec)) };
      return probeNode({ root, kernel: false, runner, ...(topology === undefined ? {} : { topology }) }).then((snap) => ({ argvs, snap }));
    };
    const skipped = await ran(false);
    expect(skipped.argvs).not.toContain('nvidia-smi topo -m');
    expect(skipped.argvs).not.toContain('nvidia-smi nvlink -s');
    expect(skipped.snap.pci?.gpus.length).toBe(8);
    expect(skipped.snap.pci?.topology).toBeUndefined();
    for (const topology of [undefined, true]) {
      const read = await ran(topology);
      expect(read.argvs).toContain('nvidia-smi topo -m');
      expect(read.snap.pci?.topology?.nvlink?.source).toBe('commands/nvidia-smi-topo-m.txt');
      expect(read.argvs).toContain('nvidia-smi nvlink -s');
      expect(read.snap.pci?.topology?.nvlinkStatus?.source).toBe('commands/nvidia-smi-nvlink-s.txt');
      expect(read.snap.pci?.topology?.nvlinkStatus?.gpus).toHaveLength(8);
    }
    // The commands' own choice, through readNode.
    const { readNode } = await import('../../src/commands/options.js');
    expect((await readNode({ root }, { rdma: true })).pci?.topology).toBeUndefined();
    expect((await readNode({ root }, { rdma: true, topology: true })).pci?.topology?.gpus).toHaveLength(8);
  });
  it('a file that is not NCCL XML: exit 2 naming it; a missing one: exit 2', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ncclx-topo-bad-'));
    try {
      writeFileSync(join(dir, 'bad.xml'), '<system version="1"><cpu numaid="0"><pci busid="0000:01:00.0">');
      let r = run('--topo-file', join(dir, 'bad.xml'));
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/bad\.xml: not an NCCL topology XML \(<pci> is not closed/);
      r = run('--topo-file', join(dir, 'none.xml'));
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/none\.xml: ENOENT/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the topology XML reader on hostile input', () => {
  it('anything: a UserError or a tree, never another exception', () => {
    const tags = fc.constantFrom('<system version="1">', '</system>', '<cpu numaid="0">', '</cpu>', '<pci busid="0000:01:00.0" class="0x060400">', '</pci>', '<gpu dev="0"/>', '<nic>', '</nic>', '<net name="mlx5_0"/>', '<!-- x -->', '<?xml version="1.0"?>', '<', '>', '"', '=', ' ');
    fc.assert(
      fc.property(fc.oneof(fc.array(tags, { maxLength: 30 }).map((t) => t.join('')), fc.string({ maxLength: 200 }), fc.string({ unit: 'binary', maxLength: 200 })), (text) => {
        try {
          topoFromXml(parseXml(text, 'fuzz'), 'fuzz');
        } catch (e) {
          expect(e).toBeInstanceOf(UserError);
        }
      }),
      { numRuns: 400, seed: 20261126 },
    );
  });
});

describe('the rules', () => {
  it('nvidia-smi topo -m: NV# counts from the tab-separated matrix of current drivers and the space-aligned one of older ones', () => {
    const tabs = '\tGPU0\tGPU1\tGPU2\tNIC0\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\nGPU0\t X \tNV18\tSYS\tPIX\t0-79\t0\t\tN/A\nGPU1\tNV18\t X \tNV4\tNODE\t0-79\t0\t\tN/A\nGPU2\tSYS\tNV4\t X \tSYS\t80-159\t1\t\tN/A\n\nLegend:\n\n  X    = Self\n';
    expect(parseTopoMatrix(tabs)).toEqual([[0, 18, 0], [18, 0, 4], [0, 4, 0]]);
    const spaces = '        GPU0    GPU1    mlx5_0  CPU Affinity\nGPU0     X      NV6     PIX     0-23,48-71\nGPU1    NV6      X      PXB     0-23,48-71\n';
    expect(parseTopoMatrix(spaces)).toEqual([[0, 6], [6, 0]]);
    expect(parseTopoMatrix('No devices were found')).toBeNull();
  });
  it('cpumap from a cpulist, as the kernel prints it', () => {
    expect(cpumapOf('0-3')).toBe('0000000f');
    expect(cpumapOf('0-31,64-95')).toBe('ffffffff,00000000,ffffffff');
    expect(cpumapOf('0-3', 2)).toBe('00000000,0000000f');
    expect(cpumapOf('x')).toBeNull();
  });
  it('mirrorBits (topo.cc)', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7].map((v) => mirrorBits(v, 4))).toEqual([0, 2, 1, 3, 0, 2, 1, 3]);
    expect([0, 1, 2, 3, 4, 5, 6, 7].map((v) => mirrorBits(v, 8))).toEqual([0, 4, 2, 6, 1, 5, 3, 7]);
  });
  it('PCI generation by prefix, fallback 60', () => {
    expect(pciGen('16.0 GT/s PCIe')).toBe(120);
    expect(pciGen('8 GT/s')).toBe(60);
    expect(pciGen('32.0 GT/s PCIe')).toBe(240);
    expect(pciGen('Unknown')).toBe(60);
  });
  it('NCCL_NET_GDR_LEVEL: case-sensitive names by version, legacy integers', () => {
    const p = (v: string) => profileFor(parseVersion(v));
    expect(gdrLevel(undefined, p('2.28.3')).level).toBe('PXB');
    expect(gdrLevel('PHB', p('2.28.3')).level).toBe('PHB');
    expect(gdrLevel('2', p('2.28.3')).level).toBe('PXB');
    expect(gdrLevel('3', p('2.28.3')).level).toBe('PHB');
    expect(gdrLevel('7', p('2.28.3')).level).toBe('SYS');
    expect(gdrLevel('phb', p('2.28.3')).level).toBe('PXB');
    expect(gdrLevel('C2C', p('2.21.5')).level).toBe('PXB');
    expect(gdrLevel('C2C', p('2.26.2')).level).toBe('C2C');
    // The default: PXB, and from 2.29.2 P2C when NCCL_NET_GDR_C2C is on.
    expect([gdrLevel(undefined, p('2.28.3'), true).level, gdrLevel(undefined, p('2.29.2'), true).level, gdrLevel(undefined, p('2.29.2'), false).level]).toEqual(['PXB', 'P2C', 'PXB']);
  });
  it('the parent walk: a device two BDF levels below a root complex hangs off the switch upstream port; on a root port or the root bus, off the CPU', () => {
    const f = (bdf: string, path: string[], numa = 0): TopoFunction => ({ bdf, path, class: '0x060400', vendor: null, device: null, numaNode: numa, maxLinkSpeed: '16.0 GT/s PCIe', maxLinkWidth: 16, currentLinkSpeed: null, currentLinkWidth: null });
    const t: TopoPart = {
      functions: [
        f('0000:00:01.0', ['pci0000:00', '0000:00:01.0']),
        f('0000:01:00.0', ['pci0000:00', '0000:00:01.0', '0000:01:00.0']),
        f('0000:02:00.0', ['pci0000:00', '0000:00:01.0', '0000:01:00.0', '0000:02:00.0']),
        f('0000:03:00.0', ['pci0000:00', '0000:00:01.0', '0000:01:00.0', '0000:02:00.0', '0000:03:00.0']),
        f('0000:05:00.0', ['pci0000:00', '0000:00:02.0', '0000:05:00.0']),
      ],
      gpus: ['0000:03:00.0', '0000:05:00.0'],
      numaNodes: [{ id: 0, cpulist: '0-7' }],
      cpu: { arch: 'x86_64', vendor: 'GenuineIntel', family: 6, model: 143 },
    };
    const sys = buildSystem(t, [] as NcclIbDevice[]);
    expect(sys.parents.get('GPU:0000:03:00.0')).toBe('0000:01:00.0');
    expect(sys.parents.get('PCI:0000:01:00.0')).toBe('CPU 0');
    expect(sys.parents.get('GPU:0000:05:00.0')).toBe('CPU 0');
    expect(pathMatrix(sys)).toEqual([[], []]);
  });
  it('the mask rule (2.18.1–2.18.3): channel c of the GPU in place p takes the mask\'s (p + c × GPUs)-th NET, cycling', () => {
    const row = (types: number[]) => types.map((type) => ({ type, bw: 24, hops: 2, via: [] }));
    // Two GPUs share 4 NICs: GPU 1 (place 1) takes NETs 1, 3, 1, … on channels 0, 1, 2.
    const m = [row([PATH.PIX, PATH.PIX, PATH.PIX, PATH.PIX]), row([PATH.PIX, PATH.PIX, PATH.PIX, PATH.PIX])];
    expect([0, 1, 2].map((c) => localNetFor(m, 1, 1, c, 'mask'))).toEqual([1, 3, 1]);
    expect([0, 1].map((c) => localNetFor(m, 1, 1, c, 'modulo'))).toEqual([1, 1]);
  });
  it('the mirror rule\'s later forms: NCCL_NETDEVS_POLICY (≥ 2.28.3: AUTO, ALL, MAX:n) and 2.30.7\'s CUDA index modulo the GPUs sharing the NICs', () => {
    const row = (types: number[]) => types.map((type) => ({ type, bw: 24, hops: 2, via: [] }));
    // Each GPU has two NICs of its own (PIX), the other GPU's at PHB: one GPU local to each NET.
    const m = [row([PATH.PIX, PATH.PIX, PATH.PHB, PATH.PHB]), row([PATH.PHB, PATH.PHB, PATH.PIX, PATH.PIX])];
    const chans = (g: number, rule: Parameters<typeof localNetFor>[4]) => [0, 1, 2].map((c) => localNetFor(m, g, g, c, rule));
    // ≤ 2.30.4, AUTO: dev 1 mirrored over 2 NETs is 1, ⌈2 / 1⌉ = 2 NETs per GPU: 3, 2, 3.
    expect(chans(1, 'mirror')).toEqual([3, 2, 3]);
    // 2.30.7: 1 % 1 GPU = 0 first: 2, 3, 2.
    expect(chans(1, { modGpus: true, netsPerGpu: 'AUTO' })).toEqual([2, 3, 2]);
    // MAX:1 keeps one NET per GPU; ALL uses every local NET.
    expect(chans(1, { modGpus: false, netsPerGpu: 1 })).toEqual([3, 3, 3]);
    expect(chans(0, { modGpus: false, netsPerGpu: 'ALL' })).toEqual([0, 1, 0]);
    // topo.cc getNetDevsPolicyOnce: case-insensitive names, MAX:n with atoi(n) > 0, anything else AUTO; before 2.28.3 no policy.
    expect(['all', 'ALL', 'max:2', 'MAX:0', 'MAX:x', 'auto', 'bogus', undefined].map((v) => netDevsPolicy(v))).toEqual(['ALL', 'ALL', 2, 'AUTO', 'AUTO', 'AUTO', 'AUTO', 'AUTO']);
    const p = (v: string) => profileFor(parseVersion(v));
    expect([localNetRule(p('2.27.7'), 'ALL'), localNetRule(p('2.28.3'), 'ALL'), localNetRule(p('2.30.4')), localNetRule(p('2.30.7'))]).toEqual(['mirror', { modGpus: false, netsPerGpu: 'ALL' }, { modGpus: false, netsPerGpu: 'AUTO' }, { modGpus: true, netsPerGpu: 'AUTO' }]);
  });
  it('Broadcom PEX flattening by release: Gen4 (1000:c010, subsystem 1000:axxx) from 2.9.6, Gen5 (1000:c030, 1000:0xxx over 1000:1xxx) from 2.20.3', () => {
    const sw = (bdf: string, path: string[], device: string, sd: string): TopoFunction => ({ bdf, path, class: '0x060400', vendor: '0x1000', device, subsystemVendor: '0x1000', subsystemDevice: sd, numaNode: 0, maxLinkSpeed: '16.0 GT/s PCIe', maxLinkWidth: 16, currentLinkSpeed: null, currentLinkWidth: null });
    const t = (device: string, top: string, sub: string): TopoPart => {
      const rc = ['pci0000:00', '0000:00:01.0'];
      const up = [...rc, '0000:01:00.0'];
      const dn = (b: string) => [...up, `0000:02:${b}.0`, `0000:0${b === '00' ? 3 : 4}:00.0`];
      return {
        functions: [sw('0000:01:00.0', up, device, top), sw('0000:03:00.0', dn('00'), device, sub), sw('0000:04:00.0', dn('01'), device, sub), { ...sw('0000:05:00.0', [...dn('00'), '0000:06:00.0', '0000:05:00.0'], '0x2330', '0x0000'), class: '0x030200', vendor: '0x10de' }],
        gpus: ['0000:05:00.0'],
        numaNodes: [{ id: 0, cpulist: '0-7' }],
        cpu: { arch: 'x86_64', vendor: 'GenuineIntel', family: 6, model: 143 },
      };
    };
    const parentOfGpu = (topo: TopoPart, rule: 'none' | 'gen4' | 'gen4+gen5') => buildSystem(topo, [] as NcclIbDevice[], { bcm: rule }).parents.get('GPU:0000:05:00.0');
    const gen4 = t('0xc010', '0xa064', '0xa064');
    expect(parentOfGpu(gen4, 'none')).toBe('0000:03:00.0');
    expect(parentOfGpu(gen4, 'gen4')).toBe('0000:01:00.0');
    const gen5 = t('0xc030', '0x0064', '0x1064');
    expect(parentOfGpu(gen5, 'gen4')).toBe('0000:03:00.0');
    expect(parentOfGpu(gen5, 'gen4+gen5')).toBe('0000:01:00.0');
  });
  it('local NIC choice: ties by bandwidth then path type; channels spread when a NIC serves fewer GPUs', () => {
    const row = (types: number[], bw = 24) => types.map((type) => ({ type, bw, hops: 2, via: [] }));
    // One GPU, two PIX NICs: netsPerGpu = 2 → channel 1 uses the second.
    const m = [row([PATH.PIX, PATH.PIX])];
    expect(localNetFor(m, 0, 0, 0)).toBe(0);
    expect(localNetFor(m, 0, 0, 1)).toBe(1);
    // A faster path beats a closer one.
    expect(localNetFor([[{ type: PATH.PIX, bw: 12, hops: 2, via: [] }, { type: PATH.PHB, bw: 24, hops: 3, via: [] }]], 0, 0)).toBe(1);
  });
  it('PXN after NCCL_P2P_LEVEL / NCCL_P2P_DISABLE (ncclTopoCheckP2p sends the pairs beyond the level through the CPU) and, from 2.30.3, only through a relay with GPUDirect RDMA reads', () => {
    const row0 = (v: string, env: { [name: string]: string }) => {
      const r = server.spawnSync(['topo', '--root', join(FIX, 'topo-dgx-h100'), '--nccl-version', v, '--json'], { encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '', HOME: '/nonexistent', ...env } });
      const d = JSON.parse(r.stdout);
      return { row: d.matrix[0].map((c: { path: string }) => c.path).join(' '), notes: d.notes.join('\n') };
    };
    const pxn = 'PIX PIX PXN PXN PXN PXN PXN PXN';
    const pcie = 'PIX PIX PHB PHB SYS SYS SYS SYS';
    // A level below NVL (LOC: NCCL_P2P_DISABLE=1, NCCL_P2P_LEVEL=LOC or the old integer 0) leaves no NVLink pair: no PXN.
    for (const env of [{ NCCL_P2P_DISABLE: '1' }, { NCCL_P2P_DISABLE: '0x1' }, { NCCL_P2P_LEVEL: 'LOC' }, { NCCL_P2P_LEVEL: '0' }] as { [name: string]: string }[]) expect(row0('2.28.3', env).row, JSON.stringify(env)).toBe(pcie);
    expect(row0('2.28.3', { NCCL_P2P_DISABLE: '1' }).notes).toMatch(/NCCL_P2P_DISABLE=1 sends every GPU pair through the CPU/);
    // NVL and above keep NVLink pairs; 0 and other values of NCCL_P2P_DISABLE disable nothing; a name NCCL does not know (loc) is ignored.
    for (const env of [{ NCCL_P2P_LEVEL: 'NVL' }, { NCCL_P2P_LEVEL: 'PXB' }, { NCCL_P2P_LEVEL: '4' }, { NCCL_P2P_DISABLE: '0' }, { NCCL_P2P_DISABLE: '2' }, { NCCL_P2P_LEVEL: 'loc' }] as { [name: string]: string }[]) expect(row0('2.28.3', env).row, JSON.stringify(env)).toBe(pxn);
    // NCCL_NET_GDR_READ=0 forbids the relay's reads from 2.30.3 (ncclTopoCheckGdr read = 1); before, PXN does not ask.
    expect(row0('2.30.7', { NCCL_NET_GDR_READ: '0' }).row).toBe(pcie);
    expect(row0('2.30.7', { NCCL_NET_GDR_READ: '0' }).notes).toMatch(/NCCL_NET_GDR_READ=0: a PXN relay/);
    expect(row0('2.29.2', { NCCL_NET_GDR_READ: '0' }).row).toBe(pxn);
    expect(row0('2.30.7', { NCCL_NET_GDR_READ: '1' }).row).toBe(pxn);
  });

  it('PXN\'s last condition by release: the GPU\'s own path worse than PXB, from 2.27.6 worse than PXN (paths.cc)', () => {
    // GPU 0 reaches NET 0 at P2C (a Grace C2C GPU, its NIC on the CPU's root port); GPU 1, its NVLink peer, reaches it at PIX with the same bandwidth.
    const sys = { gpus: [{ kind: 'GPU', links: [] as unknown[] }, { kind: 'GPU', links: [] as unknown[] }], nets: [{ kind: 'NET' }] } as unknown as Parameters<typeof applyPxn>[0];
    const g0 = sys.gpus[0]!;
    const g1 = sys.gpus[1]!;
    g0.links.push({ type: 'NVL', bw: 40, rem: g1 });
    g1.links.push({ type: 'NVL', bw: 40, rem: g0 });
    const p = (type: number) => ({ type, bw: 24, hops: 2, via: [] });
    const m = [[p(PATH.P2C)], [p(PATH.PIX)]];
    const via = (avoid: number) => applyPxn(sys, m, 'local-gpu', 'mirror', { pxnType: PATH.PXB, pxnAvoid: avoid }).relay.get('0,0');
    expect(via(PATH.PXB)).toBe(1);
    expect(via(PATH.PXN)).toBeUndefined();
    const rules = (v: string) => topoRules(profileFor(parseVersion(v)), {}, { functions: [], gpus: [] } as unknown as TopoPart).pxnAvoid;
    expect([rules('2.27.5'), rules('2.27.6'), rules('2.30.7')]).toEqual([PATH.PXB, PATH.PXN, PATH.PXN]);
  });

  it('NCCL_PXN_DISABLE, NCCL_PXN_C2C and NCCL_NET_GDR_C2C are NCCL_PARAM integers: strtoll base 0, no digits is 0, trailing text ignored', () => {
    const at = (vars: Record<string, string>) => topoRules(profileFor(parseVersion('2.30.7')), vars, { functions: [], gpus: [] } as unknown as TopoPart);
    expect(at({ NCCL_PXN_DISABLE: '0x1' }).pxn).toBe('none');
    expect(at({ NCCL_PXN_DISABLE: '1x' }).pxn).toBe('none');
    expect(at({ NCCL_PXN_DISABLE: '01' }).pxn).toBe('none');
    expect(at({ NCCL_PXN_DISABLE: '0x10' }).pxn).toBe('local-gpu');
    expect(at({}).pxnType).toBe(PATH.P2C);
    expect(at({ NCCL_PXN_C2C: 'off' }).pxnType).toBe(PATH.PXB);
    expect(at({ NCCL_PXN_C2C: '' }).pxnType).toBe(PATH.P2C);
    const v = profileFor(parseVersion('2.30.7'));
    expect([netGdrC2c(v, {}), netGdrC2c(v, { NCCL_NET_GDR_C2C: 'no' }), netGdrC2c(v, { NCCL_NET_GDR_C2C: '0x0' }), netGdrC2c(v, { NCCL_NET_GDR_C2C: '0x2' })]).toEqual([true, false, false, true]);
  });

  it('NVLink states from nvidia-smi nvlink -s: every link of the DGX active; inactive links are TOPO-014, in topo and in the doctor', () => {
    expect(topo('topo-dgx-h100').d.gpus.map((g: { nvlinks: unknown }) => g.nvlinks)).toEqual(Array(8).fill({ active: 18, gbps: 478.116, inactive: [] }));
    expect(ids(topo('topo-dgx-h100').d)).not.toContain('TOPO-014');
    // The same node with GPU 3's links 3 and 5 down and every link of GPU 6 down (the shape of Azure/azhpc-diagnostics#73).
    const dir = mkdtempSync(join(tmpdir(), 'ncclx-nvlink-'));
    try {
      cpSync(join(FIX, 'topo-dgx-h100'), dir, { recursive: true });
      const text = readFileSync(join(dir, 'commands/nvidia-smi-nvlink-s.txt'), 'utf8').split('\n');
      let gpu = -1;
      const edited = text.map((l) => {
        const g = /^GPU (\d+):/.exec(l);
        if (g) gpu = Number(g[1]);
        const k = /Link (\d+):/.exec(l);
        return k && ((gpu === 3 && (k[1] === '3' || k[1] === '5')) || gpu === 6) ? l.replace('26.562 GB/s', '<inactive>') : l;
      });
      writeFileSync(join(dir, 'commands/nvidia-smi-nvlink-s.txt'), edited.join('\n'));
      const r = server.spawnSync(['topo', '--root', dir, '--nccl-version', '2.28.3', '--json'], { encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '', HOME: '/nonexistent' } });
      const d = JSON.parse(r.stdout);
      expect(d.gpus[3].nvlinks).toEqual({ active: 16, gbps: 424.992, inactive: [3, 5] });
      expect(d.gpus[6].nvlinks).toEqual({ active: 0, gbps: 0, inactive: Array.from({ length: 18 }, (_, i) => i) });
      const f = d.findings.filter((x: { id: string }) => x.id === 'TOPO-014');
      expect(f.map((x: { message: string }) => x.message)).toEqual([
        'GPU 3 (0000:3d:00.0): 2 of its 18 NVLinks are inactive (link 3, 5): NCCL counts the 16 active ones only, so its NVLink bandwidth is 16/18 of what it should be',
        `GPU 6 (0000:bb:00.0): 18 of its 18 NVLinks are inactive (link ${Array.from({ length: 18 }, (_, i) => i).join(', ')}): NCCL sees no NVLink on it, so its peers reach it over PCIe and no PXN goes through it`,
      ]);
      const doc = JSON.parse(server.spawnSync(['doctor', '--root', dir, '--nccl-version', '2.28.3', '--json', '--only', 'TOPO-014'], { encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '', HOME: '/nonexistent' } }).stdout);
      expect(doc.results.map((x: { id: string; severity: string }) => `${x.id} ${x.severity}`)).toEqual(['TOPO-014 warn', 'TOPO-014 warn']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('nvidia-smi nvlink -s parses as printed: V100 with inactive links, a GPU without NVLink, colour residue', () => {
    const text = 'GPU 0: Tesla V100-SXM2-32GB (UUID: GPU-1)\n\t Link 0: 25.781 GB/s\n         Link 3: <inactive>\nGPU 1: NVIDIA L40S (UUID: GPU-2)\n\x1b[1mGPU 2: NVIDIA GB200 (UUID: GPU-3)\x1b[0m\n         Link 0: 53.125 GB/s\r\n';
    expect(parseNvlinkStatus(text)).toEqual([
      { index: 0, name: 'Tesla V100-SXM2-32GB', links: [{ link: 0, gbps: 25.781 }, { link: 3, gbps: null }] },
      { index: 1, name: 'NVIDIA L40S', links: [] },
      { index: 2, name: 'NVIDIA GB200', links: [{ link: 0, gbps: 53.125 }] },
    ]);
    expect(parseNvlinkStatus('NVIDIA-SMI has failed because it couldn\'t communicate with the NVIDIA driver.')).toBeNull();
  });

  it('point-to-point NICs (search.cc ncclTopoGetNetDev) on the DGX: the peer\'s rail through its NVLink GPU by default; NCCL_CROSS_NIC=0, NCCL_P2P_PXN_LEVEL and the release change it', () => {
    const p2p = (v: string, env: { [name: string]: string } = {}) => {
      const r = server.spawnSync(['topo', '--root', join(FIX, 'topo-dgx-h100'), '--nccl-version', v, '--json'], { encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '', HOME: '/nonexistent', ...env } });
      const d = JSON.parse(r.stdout);
      // "nic@proxy" per peer device, with the NIC as named.
      return d.p2p.map((row: { nic: number; proxy: number }[]) => row.map((c) => `${d.nics[c.nic].device}@${c.proxy}`).join(' '));
    };
    const rail = (g: number) => Array.from({ length: 8 }, (_, d) => `mlx5_${d}@${d === g ? g : d}`).join(' ');
    // PXN level 2 (default): the NIC of the local GPU with the peer's index, relayed by that NIC's local GPU
    // (ncclTopoGetLocalGpu), even for the switch neighbour GPU 0 could reach at PIX itself.
    const dflt = p2p('2.28.3');
    expect(dflt).toEqual(Array.from({ length: 8 }, (_, g) => rail(g)));
    // PXN off, NCCL_CROSS_NIC default 2: the condition fails and each GPU keeps its own NIC.
    expect(p2p('2.28.3', { NCCL_PXN_DISABLE: '1' })[0]).toBe(Array(8).fill('mlx5_0@0').join(' '));
    // PXN off, NCCL_CROSS_NIC=0: the peer's rail, sent by GPU 0 itself across PCIe.
    expect(p2p('2.28.3', { NCCL_PXN_DISABLE: '1', NCCL_CROSS_NIC: '0' })[0]).toBe(Array.from({ length: 8 }, (_, d) => `mlx5_${d}@0`).join(' '));
    // Level 1: the rail NIC when GPU 0's own path to it is within PXN; the relay is the PXN intermediate, none for its switch neighbour's NIC (PIX).
    expect(p2p('2.28.3', { NCCL_P2P_PXN_LEVEL: '1' })[0]).toBe('mlx5_0@0 mlx5_1@0 mlx5_2@2 mlx5_3@3 mlx5_4@4 mlx5_5@5 mlx5_6@6 mlx5_7@7');
    // NCCL_P2P_DISABLE=1 leaves no NVLink pair: level 2 finds no relay and falls back to the own NIC.
    expect(p2p('2.28.3', { NCCL_P2P_DISABLE: '1' })[0]).toBe(Array(8).fill('mlx5_0@0').join(' '));
    // 2.12.7–2.18.0: the peer's own NIC (its modulo choice), relayed by the first local GPU whose NIC it is: the same rail here.
    expect(p2p('2.14.3')[3]).toBe(rail(3));
    // Before 2.12.7: no PXN, each GPU's own NIC.
    expect(p2p('2.11.4')[5]).toBe(Array(8).fill('mlx5_5@5').join(' '));
  });

  it('a fused NIC across point-to-point subnets (IB-035) is in ncclx topo too, in the words of ncclx ib', () => {
    const run = (cmd: string) => JSON.parse(server.spawnSync([cmd, '--root', join(FIX, 'mesh-direct'), '--nccl-version', '2.28.3', '--json'], { encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '', HOME: '/nonexistent' } }).stdout);
    const fromTopo = run('topo').findings.filter((f: { id: string }) => f.id === 'IB-035');
    const fromIb = run('ib').findings.filter((f: { id: string }) => f.id === 'IB-035');
    expect(fromTopo).toHaveLength(1);
    expect(fromTopo[0].message).toBe(fromIb[0].message);
    expect(fromTopo[0].message).toMatch(/different IPv4 subnets/);
    // The same advice, checked in the model the same way before it is shown.
    expect(fromTopo[0].remediation.env).toEqual(fromIb[0].remediation.env);
    expect([fromTopo[0].verdict?.resolves, fromIb[0].verdict?.resolves]).toEqual([true, true]);
  });

  it('ncclTopoSetPaths from 2.30.7 keeps the better path type first, then bandwidth, then fewer hops (before: more bandwidth, not longer)', () => {
    // A CPU reaches its GPU over C2C (20 GB/s) and over a PCI link (24 GB/s), both one hop: before 2.30.7 the faster PCI
    // route (PHB) replaces the C2C one found first; from 2.30.7 C2C is the better type and stays.
    const cpu = { kind: 'CPU', key: '0', links: [] as unknown[], bdf: null, numa: '0', ib: null };
    const gpu = { kind: 'GPU', key: 'g', links: [] as unknown[], bdf: '0000:01:00.0', numa: '0', ib: null };
    cpu.links.push({ type: 'C2C', bw: 20, rem: gpu }, { type: 'PCI', bw: 24, rem: gpu });
    gpu.links.push({ type: 'C2C', bw: 20, rem: cpu }, { type: 'PCI', bw: 24, rem: cpu });
    const sys = (typeFirst: boolean) => ({ nodes: [cpu, gpu], gpus: [gpu], nets: [], cpus: [cpu], parents: new Map(), notes: [], nvb: false, typeFirst }) as unknown as Parameters<typeof pathsTo>[0];
    const toGpu = (typeFirst: boolean) => pathsTo(sys(typeFirst), cpu as never).get(gpu as never)!;
    expect([PATH_NAMES[toGpu(false).type], toGpu(false).bw]).toEqual(['PHB', 24]);
    expect([PATH_NAMES[toGpu(true).type], toGpu(true).bw]).toEqual(['C2C', 20]);
    const rule = (v: string) => topoRules(profileFor(parseVersion(v)), {}, { functions: [], gpus: [] } as unknown as TopoPart).pathTypeFirst;
    expect([rule('2.30.4'), rule('2.30.7')]).toEqual([false, true]);
  });

  it('NVB (paths.cc ncclTopoSetPaths): one NVLink hop through a GPU for GPU → GPU and GPU → CPU paths, never for GPU → NIC; NCCL_NVB_DISABLE from 2.9.9', () => {
    // GPUs 0, 1 on socket 0 and 2, 3 on socket 1, each on a root port (Gen4 x16 = 24 GB/s); NVLinks 0–1 and 1–2 (NV4 = 80 GB/s), none 0–2.
    const f = (bdf: string, numa: number, cls = '0x030200'): TopoFunction => ({ bdf, path: [`pci0000:${bdf.slice(5, 7)}`, bdf], class: cls, vendor: '0x10de', device: '0x20b2', numaNode: numa, maxLinkSpeed: '16.0 GT/s PCIe', maxLinkWidth: 16, currentLinkSpeed: null, currentLinkWidth: null });
    const t: TopoPart = {
      functions: [f('0000:10:00.0', 0), f('0000:11:00.0', 0), f('0000:90:00.0', 1), f('0000:91:00.0', 1), { ...f('0000:12:00.0', 0, '0x020000'), vendor: '0x15b3', device: '0x1021' }],
      gpus: ['0000:10:00.0', '0000:11:00.0', '0000:90:00.0', '0000:91:00.0'],
      numaNodes: [{ id: 0, cpulist: '0-7' }, { id: 1, cpulist: '8-15' }],
      // Skylake: 10 GB/s between the sockets.
      cpu: { arch: 'x86_64', vendor: 'GenuineIntel', family: 6, model: 0x55 },
      nvlink: { links: [[0, 4, 0, 0], [4, 0, 4, 0], [0, 4, 0, 0], [0, 0, 0, 0]], source: 'test' },
    };
    const nic: NcclIbDevice = { index: 0, dev: 'mlx5_0', port: 1, linkLayer: 'InfiniBand', fullPciPath: '/sys/devices/pci0000:12/0000:12:00.0', pciPath: '/sys/devices/pci0000:12/0000:12:00.0', pciPathIsPci: true, rateGbps: 400, rail: -1, plane: -1 };
    const types = (nvb: boolean) => {
      const sys = buildSystem(t, [nic], { bcm: 'gen4+gen5', nvb });
      const to = (base: (typeof sys.nodes)[number]) => pathsTo(sys, base);
      const fromGpu0 = to(sys.gpus[0]!);
      const toCpu0 = to(sys.cpus.find((c) => c.key === '0')!);
      return {
        gpu0: sys.gpus.map((g) => PATH_NAMES[fromGpu0.get(g)!.type]),
        gpu2ToCpu0: { type: PATH_NAMES[toCpu0.get(sys.gpus[2]!)!.type], bw: toCpu0.get(sys.gpus[2]!)!.bw },
        toNic: pathMatrix(sys).map((row) => PATH_NAMES[row[0]!.type]),
      };
    };
    const on = types(true);
    // 0 → 2 crosses GPU 1 over two NVLinks: NVB at NVLink bandwidth; GPU 3 has no NVLink: through both CPUs, SYS.
    expect(on.gpu0).toEqual(['LOC', 'NVL', 'NVB', 'SYS']);
    // GPU 2 reaches CPU 0 through GPU 1 (one hop from the CPU) over NVLink: PHB at 24 GB/s instead of SYS at 10.
    expect(on.gpu2ToCpu0).toEqual({ type: 'PHB', bw: 24 });
    // A GPU is never one hop from a NET: GPU 2's path to the NIC on socket 0 stays SYS (only PXN relays through a GPU).
    expect(on.toNic).toEqual(['PHB', 'PHB', 'SYS', 'SYS']);
    const off = types(false);
    expect(off.gpu0).toEqual(['LOC', 'NVL', 'SYS', 'SYS']);
    expect(off.gpu2ToCpu0).toEqual({ type: 'SYS', bw: 10 });
    expect(off.toNic).toEqual(['PHB', 'PHB', 'SYS', 'SYS']);
    // By release and NCCL_NVB_DISABLE (an NCCL_PARAM integer: strtoll, any non-zero value disables).
    const p = (v: string) => profileFor(parseVersion(v));
    expect(nvbRule(p('2.7.8'), undefined)).toBe(false);
    expect(nvbRule(p('2.8.3'), undefined)).toBe(true);
    expect(nvbRule(p('2.9.8'), '1')).toBe(true);
    expect(nvbRule(p('2.9.9'), '1')).toBe(false);
    expect(nvbRule(p('2.28.3'), '0x2')).toBe(false);
    expect(nvbRule(p('2.28.3'), 'true')).toBe(true);
    expect(nvbRule(p('2.28.3'), '0')).toBe(true);
  });
  describe('virtual NICs (NCCL_NET_MERGE_LEVEL, topo.cc ncclTopoAutoMerge / ncclTopoProcessNet)', () => {
    // One GPU and three NET devices on socket 0's root ports: mlx5_0 and mlx5_1 are the two PCI functions of one
    // dual-port card (0000:12:00.0/.1, folded by the IB transport to 0000:12:00.0, so one <nic>), mlx5_2 its own card.
    const f = (bdf: string, cls: string): TopoFunction => ({ bdf, path: [`pci0000:${bdf.slice(5, 7)}`, bdf], class: cls, vendor: null, device: null, numaNode: 0, maxLinkSpeed: '16.0 GT/s PCIe', maxLinkWidth: 16, currentLinkSpeed: null, currentLinkWidth: null });
    const t: TopoPart = {
      functions: [f('0000:10:00.0', '0x030200'), f('0000:12:00.0', '0x020000'), f('0000:13:00.0', '0x020000')],
      gpus: ['0000:10:00.0'],
      numaNodes: [{ id: 0, cpulist: '0-7' }],
      cpu: { arch: 'x86_64', vendor: 'GenuineIntel', family: 6, model: 143 },
    };
    const dev = (index: number, name: string, bdf: string | null): NcclIbDevice => ({ index, dev: name, port: 1, linkLayer: 'InfiniBand', fullPciPath: bdf ? `/sys/devices/pci0000:${bdf.slice(5, 7)}/${bdf}` : '', pciPath: bdf ? `/sys/devices/pci0000:${bdf.slice(5, 7)}/${bdf}` : null, pciPathIsPci: !!bdf, rateGbps: 200, rail: -1, plane: -1 });
    const devices = [dev(0, 'mlx5_0', '0000:12:00.0'), dev(1, 'mlx5_1', '0000:12:00.0'), dev(2, 'mlx5_2', '0000:13:00.0')];
    const system = (v: string, vars: Record<string, string> = {}, devs = devices) => {
      const profile = profileFor(parseVersion(v));
      const merge = mergeDevices(devs, [], profile, readIbInputs(vars, profile));
      return fuseNets(buildSystem(t, devs), netFusion({ devices: devs, merge }, profile));
    };
    const nets = (sys: ReturnType<typeof system>) => sys.nets.map((n) => `${n.ib!.index} ${n.ib!.dev}`);
    it('≥ 2.27.3: the two NETs of one <nic> (distance PORT, the default level) become NET 3 = mlx5_0+mlx5_1, in their place, at their summed rate; they leave the graph; the GPU takes the vNIC', () => {
      const sys = system('2.28.3');
      expect(nets(sys)).toEqual(['3 mlx5_0+mlx5_1', '2 mlx5_2']);
      expect(sys.nets[0]!.members!.map((m) => m.dev)).toEqual(['mlx5_0', 'mlx5_1']);
      expect(sys.nodes.filter((n) => n.kind === 'NET')).toHaveLength(2);
      // NIC → NET link: 2 × 200 Gb/s = 50 GB/s; the GPU's path is still capped by PCIe Gen4 x16 (24 GB/s), PHB through CPU 0.
      const nic = sys.nets[0]!.links[0]!.rem;
      expect(nic.bdf).toBe('0000:12:00.0');
      expect(sys.nets[0]!.links[0]!.bw).toBe(50);
      const m = pathMatrix(sys);
      expect(m[0]!.map((p) => `${PATH_NAMES[p.type]} ${p.bw}`)).toEqual(['PHB 24', 'PHB 24']);
      // Tied on bandwidth and type: GPU 0 (mirrorBits(0, 2) = 0) takes the first NET, the vNIC.
      expect(localNetFor(m, 0, 0)).toBe(0);
      // --xml writes the physical <net>s, as NCCL_TOPO_DUMP_FILE does (NCCL fuses them again on load).
      const x = topoXml(t, sys);
      expect(x.xml).toContain('<net name="mlx5_0"/>');
      expect(x.xml).toContain('<net name="mlx5_1"/>');
      expect(x.xml).not.toContain('mlx5_0+mlx5_1');
      expect(x.notes.join(' ')).toContain('mlx5_0+mlx5_1 (NET 3) is a virtual NIC');
    });
    it('no fusion with NCCL_NET_MERGE_LEVEL=LOC (or a value that is not a level name, which reads as LOC) from 2.27.3, or before 2.24.3', () => {
      for (const [v, vars] of [['2.28.3', { NCCL_NET_MERGE_LEVEL: 'LOC' }], ['2.28.3', { NCCL_NET_MERGE_LEVEL: 'bogus' }], ['2.18.5', {}]] as const) {
        expect(nets(system(v, vars))).toEqual(['0 mlx5_0', '1 mlx5_1', '2 mlx5_2']);
      }
    });
    it('2.24.3–2.26.x: every AutoMerge group, of one device too, is a new device from index 3; a single NET is renumbered, a fused group\'s vNIC is lost in a nested <nic> and its members stay', () => {
      const port = system('2.26.2');
      expect(nets(port)).toEqual(['0 mlx5_0', '1 mlx5_1', '4 mlx5_2']);
      expect(port.notes.join(' ')).toContain('NET 3 (mlx5_0+mlx5_1)');
      // LOC: three groups of one, NETs 3, 4, 5: NET 0 is gone (NVIDIA/nccl#1748).
      expect(nets(system('2.24.3', { NCCL_NET_MERGE_LEVEL: 'LOC' }))).toEqual(['3 mlx5_0', '4 mlx5_1', '5 mlx5_2']);
    });
    it('NICs off the PCI tree all share the first CPU\'s <nic>: fused at most NCCL_NET_MAX_DEVS_PER_NIC at a time (4; 8 from 2.30.3), each vNIC nested in that <nic> where the topology never reads it, and the ports trimmed (≥ 2.27.3)', () => {
      const six = Array.from({ length: 6 }, (_, i) => dev(i, `mlx5_${i}`, null));
      const profile = profileFor(parseVersion('2.28.3'));
      expect(mergeDevices(six, [], profile, readIbInputs({}, profile)).groups.filter((g) => g.merged).map((g) => g.members)).toEqual([[0, 1, 2, 3], [4, 5]]);
      const p303 = profileFor(parseVersion('2.30.3'));
      expect(mergeDevices(six, [], p303, readIbInputs({}, p303)).groups.filter((g) => g.merged).map((g) => g.members)).toEqual([[0, 1, 2, 3, 4, 5]]);
      const sys = system('2.28.3', {}, six);
      expect(nets(sys)).toEqual([]);
      expect(sys.notes.join(' ')).toContain("NET 6 (mlx5_0+mlx5_1+mlx5_2+mlx5_3): its <nic> is nested in the members' <nic>");
      // LOC keeps all six, in the first CPU's <nic>.
      expect(nets(system('2.28.3', { NCCL_NET_MERGE_LEVEL: 'LOC' }, six))).toHaveLength(6);
    });
  });
});

it('the CLI server answers as its own process does', () => {
  sameAsOwnProcess(server, ['topo', '--root', join(FIX, 'topo-dgx-h100'), '--nccl-version', '2.28.3', '--json'], { PATH: process.env['PATH'] ?? '', HOME: '/nonexistent' });
});
