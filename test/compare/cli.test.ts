// The built binary on directories of snapshot files, as a user runs it.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cluster } from './helpers.js';
import { cliServer, sameAsOwnProcess } from '../helpers/cli-server.js';

// Every CLI call in one ncclx process (test/helpers/cli-server.ts), one checked against its own process.
const server = cliServer({ faults: false });
const tmp = mkdtempSync(join(tmpdir(), 'ncclx-compare-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function ncclx(args: string[]) {
  const r = server.spawnSync([...args], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, env: { PATH: process.env['PATH'] ?? '', HOME: tmp, NO_COLOR: '1' } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const write = (dir: string, name: string, text: string) => writeFileSync(join(dir, name), text);

const healthy = join(tmp, 'healthy');
const mixed = join(tmp, 'mixed');
const faulty = join(tmp, 'faulty');
const many = join(tmp, 'many');

beforeAll(async () => {
  for (const d of [healthy, mixed, faulty, many]) mkdirSync(d);
  const good = await cluster(4);
  for (const s of good) write(healthy, `${s.host.hostname}.json`, JSON.stringify(s, null, 2));
  for (const s of good) write(mixed, `${s.host.hostname}.json`, JSON.stringify(s, null, 2));
  const text = JSON.stringify(good[0], null, 2);
  write(mixed, 'truncated.json', text.slice(0, 5000));
  write(mixed, 'malformed.json', '{"schemaVersion": 1,, }');
  write(mixed, 'wrong-version.json', text.replace('"schemaVersion": 1', '"schemaVersion": 7'));
  write(mixed, 'oversized.json', ' '.repeat(16 * 1024 * 1024 + 1));
  write(mixed, 'notes.txt', 'not a snapshot, and not *.json: ignored');
  // One bad number once made every node's analysis allocate the implied GID table (gigabytes, then a V8 abort of the whole run).
  const huge = structuredClone(good[0]!);
  huge.rdma!.devices[0]!.ports[0]!.gidCount = 999_999_999;
  write(mixed, 'huge-gid-table.json', JSON.stringify(huge, null, 2));
  const far = structuredClone(good[0]!);
  far.rdma!.devices[0]!.ports[0]!.gids.push({ ...far.rdma!.devices[0]!.ports[0]!.gids[0]!, index: 4096 });
  write(mixed, 'gid-4096.json', JSON.stringify(far, null, 2));
  write(mixed, 'deep.json', `{"schemaVersion": 1, "host": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
  for (const s of await cluster(3, { 2: 'nccl-version' })) write(faulty, `${s.host.hostname}.json`, JSON.stringify(s, null, 2));
  for (const s of await cluster(100, { 10: 'missing-rail', 50: 'rail-subnet' })) write(many, `${s.host.hostname}.json`, JSON.stringify(s, null, 2));
}, 120_000);

describe('ncclx compare', () => {
  it('a healthy directory: exit 0, every section, no colour when not a terminal', () => {
    const r = ncclx(['compare', healthy]);
    expect(r.code).toBe(0);
    for (const h of ['Nodes that differ (0 of 4)', 'Symmetric RDMA set', 'Rail plan', 'Bootstrap', 'Consistency', 'Findings']) expect(r.out).toContain(`\n${h}`);
    expect(r.out).toContain('RDMA_PEER_IFACES=enp24s0np0 enp58s0np0 enp75s0np0 enp92s0np0 enp154s0np0 enp186s0np0 enp202s0np0 enp218s0np0');
    // Healthy: the majority in one line, no per-node rows.
    expect(r.out).toMatch(/^ {2}all 4: NCCL 2\.28\.3, network IB, /m);
    expect(r.out).not.toMatch(/gpu00004\s+mlx5_7:1/);
    expect(r.out).toMatch(/0 errors, 0 warnings, \d+ ok/);
    // -v: every node on every rail.
    const v = ncclx(['compare', healthy, '-v']);
    expect(v.out).toMatch(/gpu00004\s+mlx5_7:1\s+enp218s0np0\s+10\.7\.0\.5\/16\s+10\.7\.0\.0\/16\s+9000\s+400G\s+Ethernet\s+3\s+RoCE v2 IPv4/);
    expect(v.out).toContain('\nNodes\n');
  });
  it('100 nodes, two faulty: the outliers first with how they differ, the majority in one line', () => {
    const r = ncclx(['compare', many]);
    expect(r.out).toMatch(/\nNodes that differ \(\d of 100\)\n/);
    expect(r.out).toMatch(/^ {2}the other 9\d: NCCL /m);
    expect(r.out).toMatch(/rail \d+ (missing on|subnet .* on) gpu000(11|51)/);
    const lines = r.out.split('\n').length;
    expect(lines).toBeLessThan(90);
    expect(ncclx(['compare', many, '-v']).out.split('\n').length).toBeGreaterThan(lines + 100);
    expect(r.out).not.toMatch(/\x1b\[/);
  });

  it('bad inputs are reported by file name and skipped; the rest is analysed; exit 2', () => {
    const r = ncclx(['compare', mixed, '--json']);
    expect(r.code).toBe(2);
    const j = JSON.parse(r.out);
    expect(j.inputs.analysed).toBe(4);
    expect(j.inputs.files).toBe(11);
    const skipped = Object.fromEntries(j.inputs.skipped.map((s: { file: string; problem: string }) => [s.file.split('/').pop(), s.problem]));
    expect(Object.keys(skipped).sort()).toEqual(['deep.json', 'gid-4096.json', 'huge-gid-table.json', 'malformed.json', 'oversized.json', 'truncated.json', 'wrong-version.json']);
    expect(skipped['huge-gid-table.json']).toMatch(/rdma\.devices\.0\.ports\.0\.gidCount: Too big: expected number to be <=256/);
    expect(skipped['gid-4096.json']).toMatch(/rdma\.devices\.0\.ports\.0\.gids\.\d+\.index: Too big: expected number to be <=255/);
    expect(skipped['deep.json']).toMatch(/nested more than 64 levels deep/);
    for (const problem of Object.values(skipped)) expect(problem).not.toMatch(/\n|internal error/);
    expect(skipped['truncated.json']).toMatch(/^not JSON/);
    expect(skipped['malformed.json']).toMatch(/^not JSON/);
    expect(skipped['wrong-version.json']).toMatch(/^schema version 7 is not supported/);
    expect(skipped['oversized.json']).toBe('file is 16777217 bytes, larger than the 16777216-byte limit (--max-bytes)');
    expect(j.exitCode).toBe(2);
    expect(j.rails.rails).toHaveLength(8);
    const text = ncclx(['compare', mixed]);
    expect(text.out).toMatch(/Inputs skipped\n(.*\n){7}/);
    expect(text.out).toContain(`${join(mixed, 'truncated.json')}: not JSON`);
  });

  it('files and directories mix; a missing argument is one more skipped input', () => {
    const r = ncclx(['compare', join(healthy, 'gpu00001.json'), join(healthy, 'gpu00002.json'), join(tmp, 'nope'), '--json']);
    const j = JSON.parse(r.out);
    expect(j.inputs).toMatchObject({ analysed: 2, skipped: [{ file: join(tmp, 'nope'), problem: 'cannot read: ENOENT' }] });
    expect(r.code).toBe(2);
  });

  it('an error finding: exit 1, in text and in JSON', () => {
    const r = ncclx(['compare', faulty]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/✗ CMP-010 NCCL versions differ: 2\.28\.3 on 2 nodes, 2\.27\.3 on gpu00003/);
    const j = JSON.parse(ncclx(['compare', faulty, '--format', 'json']).out);
    expect(j.exitCode).toBe(1);
    expect(j.summary.errors).toBeGreaterThan(0);
  });

  it('--json has the documented shape', () => {
    const j = JSON.parse(ncclx(['compare', healthy, '--json']).out);
    expect(Object.keys(j)).toEqual(['schemaVersion', 'inputs', 'nodes', 'symmetric', 'rails', 'mesh', 'bootstrap', 'consistency', 'findings', 'summary', 'exitCode']);
    expect(j.schemaVersion).toBe(2);
    expect(j.nodes[0]).toEqual({ node: 'gpu00001', file: join(healthy, 'gpu00001.json'), host: 'gpu00001', ncclVersion: '2.28.3', versionAssumed: false, network: 'IB', rails: 8, netDevices: 8, bootstrap: 'eno1 172.16.0.2/16', gdr: 'on (8/8 GPUs)' });
    expect(Object.keys(j.symmetric)).toEqual(['netdevs', 'peerIfacesLine', 'ncclIbHca', 'ncclIbHcaByNode', 'exports', 'notEverywhere', 'perNode', 'majority']);
    expect(Object.keys(j.rails.rails[0])).toEqual(['rail', 'nodes', 'missingOn', 'values', 'mismatches', 'perNode']);
    expect(j.rails.rails[0].values.hca).toEqual([{ value: 'mlx5_0:1', count: 4, nodes: null }]);
    expect(j.mesh).toBeNull();
    expect(Object.keys(j.bootstrap)).toEqual(['target', 'interfaces', 'subnets', 'reach', 'problems']);
    expect(Object.keys(j.findings[0])).toEqual(['checkId', 'severity', 'summary', 'evidence', 'why', 'remediation', 'fixIds', 'nodes']);
  });

  it('100 nodes on worker threads give the same report as one thread', () => {
    const a = JSON.parse(ncclx(['compare', many, '--json']).out);
    const b = JSON.parse(ncclx(['compare', many, '--json', '--jobs', '1']).out);
    expect(a).toEqual(b);
    expect(a.inputs.analysed).toBe(100);
    // Past 64 nodes the rails list no node by node.
    expect(a.rails.rails[0].perNode).toBeNull();
    expect(a.findings.find((f: { checkId: string; severity: string }) => f.checkId === 'CMP-032' && f.severity === 'error').nodes).toEqual(['gpu00051']);
    expect(a.symmetric.majority.excluded).toEqual(['gpu00011']);
    const text = ncclx(['compare', many]).out;
    expect(text).toMatch(/\n  rail\s+nodes\s+HCA\s+netdev\s+subnet/);
    expect(text).toMatch(/\n  3\s+100\s+mlx5_3:1\s+enp92s0np0\s+10\.3\.0\.0\/16 ≠1/);
  });

  it('usage errors exit 2', () => {
    expect(ncclx(['compare']).code).toBe(2);
    const jobs = ncclx(['compare', healthy, '--jobs', '0']);
    expect(jobs).toMatchObject({ code: 2, err: "ncclx: --jobs: expected an integer ≥ 1, got '0'\n" });
    expect(ncclx(['compare', healthy, '--nccl-version', 'banana']).code).toBe(2);
    expect(ncclx(['compare', healthy, '--topology', 'ring']).code).toBe(2);
  });

  it('the command module loads nothing at start-up: explain --json never pays for compare', () => {
    const built = readFileSync(join(__dirname, '../../dist/commands/compare.js'), 'utf8');
    // Static imports are the shared flag helpers only; compare's own modules load inside the action.
    expect((built.match(/^import .*$/gm) ?? []).filter((l) => /compare/.test(l))).toEqual([]);
    expect(built).toContain("import('../compare/run.js')");
  });
});

it('the CLI server answers as its own process does', () => {
  sameAsOwnProcess(server, ['doctor', '--json', '--root', join(__dirname, '../fixtures/roce-bond'), '--nccl-version', '2.28.3'], { PATH: process.env['PATH'] ?? '', HOME: '/nonexistent' });
});
