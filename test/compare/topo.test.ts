// compare holds NCCL's GPU → NIC choice and PCIe link widths across nodes
// (CMP-070, CMP-071), from the same model as `ncclx topo`.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tmp.js';
import { cliServer, sameAsOwnProcess } from '../helpers/cli-server.js';

// Every CLI call in one ncclx process (test/helpers/cli-server.ts), one checked against its own process.
const server = cliServer({ faults: false });
const FIX = join(__dirname, '../fixtures');
const tmp = tempDir('ncclx-cmp-topo-');
const run = (args: string[]) => server.spawnSync([...args], { encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '', HOME: tmp } });

function snap(fixture: string, name: string): string {
  const out = join(tmp, `${name}.json`);
  const r = run(['snapshot', '--root', join(FIX, fixture), '-o', out]);
  expect(r.status).toBe(0);
  return out;
}

describe('compare: the GPU ↔ NIC topology across nodes', () => {
  it('a node whose GPUs reach other NICs (or at another distance) is an outlier: CMP-070', () => {
    const a = snap('topo-downtrained', 'a');
    const b = snap('topo-downtrained', 'b');
    const c = snap('topo-no-device-link', 'c');
    const r = run(['compare', a, b, c, '--json', '--nccl-version', '2.28.3']);
    const j = JSON.parse(r.stdout);
    const f = j.findings.find((x: { checkId: string }) => x.checkId === 'CMP-070');
    expect(f).toMatchObject({ severity: 'warn' });
    expect(f.summary).toMatch(/most nodes: GPU0→mlx5_0 PIX, GPU1→mlx5_1 PIX/);
    expect(f.nodes).toHaveLength(1);
  });
  it('a NIC link below its maximum is named with its node: CMP-071', () => {
    const a = snap('topo-downtrained', 'd1');
    const b = snap('topo-dgx-h100', 'd2');
    const j = JSON.parse(run(['compare', a, b, '--json', '--nccl-version', '2.28.3']).stdout);
    const f = j.findings.find((x: { checkId: string }) => x.checkId === 'CMP-071');
    expect(f.summary).toMatch(/mlx5_1 0000:1a:00\.0 32\.0 GT\/s PCIe x8 of 32\.0 GT\/s PCIe x16/);
    expect(f.nodes).toHaveLength(1);
  });
  it('identical nodes: neither finding', () => {
    const a = snap('topo-dgx-h100', 'e1');
    const b = snap('topo-dgx-h100', 'e2');
    const j = JSON.parse(run(['compare', a, b, '--json', '--nccl-version', '2.28.3']).stdout);
    expect(j.findings.filter((x: { checkId: string }) => x.checkId === 'CMP-070' || x.checkId === 'CMP-071')).toEqual([]);
  });
});

it('the CLI server answers as its own process does', () => {
  sameAsOwnProcess(server, ['topo', '--json', '--root', join(__dirname, '../fixtures/topo-dgx-h100'), '--nccl-version', '2.28.3'], { PATH: process.env['PATH'] ?? '', HOME: '/nonexistent' });
});
