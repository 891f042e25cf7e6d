// Net plugins per release, the network NCCL ends up on, and the socket-only
// warning (issue #24 parts 4 and 5): the model on hand-made inputs, then the
// built CLI on fixture trees with stand-in plugin libraries — doctor, env
// and log judge the same way.
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { netDecision, netVerdict, pluginEntries, type NetInputs } from '../../src/model/nccl/net-plugin.js';
import { parseVersion, profileFor } from '../../src/model/nccl/versions.js';
import { identify } from '../../src/probe/net-plugin.js';
import type { NetPluginLib, NetPluginPart } from '../../src/model/snapshot/types.js';
import { tempDir } from '../helpers/tmp.js';
import { cliServer, sameAsOwnProcess } from '../helpers/cli-server.js';

// Every CLI call in one ncclx process (test/helpers/cli-server.ts), one checked against its own process.
const server = cliServer({ faults: false });
const FIX = join(__dirname, '../fixtures');
const profile = (v: string) => profileFor(parseVersion(v));
const names = (v: string, value: string | undefined) => pluginEntries(profile(v), value).map((e) => e.names);

describe('the names NCCL dlopens for NCCL_NET_PLUGIN, per release (src/init.cc, src/net.cc, src/plugin/*)', () => {
  it('unset: libnccl-net.so in every release', () => {
    for (const v of ['2.9.6', '2.18.5', '2.23.4', '2.27.3', '2.30.7']) expect(names(v, undefined)).toEqual([['libnccl-net.so']]);
  });
  it('< 2.11.4 ignores NCCL_NET_PLUGIN; 2.11.4–2.20 only the suffix; 2.21.5–2.26 the name then the suffix', () => {
    expect(names('2.10.3', 'ofi')).toEqual([['libnccl-net.so']]);
    expect(names('2.11.4', 'ofi')).toEqual([['libnccl-net-ofi.so']]);
    expect(names('2.20.5', 'ofi')).toEqual([['libnccl-net-ofi.so']]);
    expect(names('2.21.5', 'ofi')).toEqual([['ofi', 'libnccl-net-ofi.so']]);
    expect(names('2.26.2', '/opt/x/libnccl-net.so')).toEqual([['/opt/x/libnccl-net.so', 'libnccl-net-/opt/x/libnccl-net.so.so']]);
  });
  it('2.27.3: a lib….so name alone, anything else only as a suffix; ≥ 2.27.5: the name, and the suffix unless a path or lib….so', () => {
    expect(names('2.27.3', 'libnccl-net-ofi.so')).toEqual([['libnccl-net-ofi.so']]);
    expect(names('2.27.3', '/opt/x/libnccl-net.so')).toEqual([['libnccl-net-/opt/x/libnccl-net.so.so']]);
    expect(names('2.27.5', '/opt/x/libnccl-net.so')).toEqual([['/opt/x/libnccl-net.so']]);
    expect(names('2.27.5', 'ofi')).toEqual([['ofi', 'libnccl-net-ofi.so']]);
  });
  it('lists from 2.27.3 (at most 14, empty entries skipped); `none` from 2.28.3; an empty value loads nothing from 2.27.3', () => {
    expect(names('2.28.3', 'a,,b')).toEqual([['a', 'libnccl-net-a.so'], ['b', 'libnccl-net-b.so']]);
    expect(names('2.26.2', 'a,b')).toEqual([['a,b', 'libnccl-net-a,b.so']]);
    expect(pluginEntries(profile('2.30.7'), Array.from({ length: 20 }, (_, i) => `p${i}`).join(','))).toHaveLength(14);
    expect(names('2.28.3', 'NONE')).toEqual([]);
    expect(names('2.27.7', 'none')).toEqual([['none', 'libnccl-net-none.so']]);
    expect(names('2.27.3', '')).toEqual([]);
    expect(names('2.26.2', '')).toEqual([['libnccl-net.so']]);
  });
  it('plugin API versions each release takes', () => {
    expect(profile('2.18.5').netPluginApis).toEqual([6, 5, 4]);
    expect(profile('2.19.3').netPluginApis).toEqual([7, 6, 5]);
    expect(profile('2.27.7').netPluginApis).toEqual([10, 9, 8, 7, 6]);
    expect(profile('2.30.7').netPluginApis).toEqual([12, 11, 10, 9, 8, 7, 6]);
  });
});

describe('what a plugin says it is', () => {
  it('aws-ofi-nccl: version, and the NCCL_NET names it answers to (≤ 1.11 "AWS Libfabric" only)', () => {
    expect(identify('\0Initializing aws-ofi-nccl 1.13.2-aws\0')).toEqual({ product: 'aws-ofi-nccl', version: '1.13.2-aws', netNames: ['Libfabric', 'AWS Libfabric', 'OFI'] });
    expect(identify('\0aws-ofi-nccl 1.7.4-aws\0AWS Libfabric\0').netNames).toEqual(['AWS Libfabric']);
  });
  it('gIB, TCPX, TCPXO, HPC-X; an unknown library says nothing', () => {
    expect(identify('NET/gIB : Initializing gIB v1.0.6')).toMatchObject({ product: 'gIB', version: '1.0.6', netNames: ['gIB'] });
    expect(identify('GPUDirectTCPX_v7\0')).toMatchObject({ product: 'GPUDirectTCPX', netNames: ['GPUDirectTCPX_v7'] });
    expect(identify('\0FasTrak\0')).toMatchObject({ netNames: ['FasTrak'] });
    expect(identify('NCCL RDMA SHARP Plugin\0IBext\0UCX\0')).toMatchObject({ product: 'nccl-rdma-sharp-plugins (HPC-X)', netNames: ['IBext', 'UCX'] });
    expect(identify('hello')).toEqual({ product: null, version: null, netNames: [] });
  });
});

const ofi: NetPluginLib = { path: '/opt/amazon/ofi-nccl/lib/libnccl-net.so', product: 'aws-ofi-nccl', version: '1.13.2-aws', netNames: ['Libfabric', 'AWS Libfabric', 'OFI'], apis: [9, 8, 7, 6], error: null };
const found = (lib: NetPluginLib, name = 'libnccl-net.so'): NetPluginPart => ({ lookups: [{ name, path: lib.path, step: 'LD_LIBRARY_PATH' }], libraries: [lib], elsewhere: [], asker: null, mapped: null });
const none: NetPluginPart = { lookups: [{ name: 'libnccl-net.so', path: null, step: null }], libraries: [], elsewhere: [], asker: null, mapped: null };
const efaNode = (over: Partial<NetInputs> = {}): NetInputs => ({ profile: profile('2.28.3'), vars: {}, plugins: none, fabric: { efa: ['rdmap16s27'], ibRoce: [] }, ib: 'none', socket: [{ name: 'ens5', speedMbps: 100000 }], ...over });

describe('the network NCCL uses, and the findings', () => {
  it('EFA with aws-ofi-nccl: the plugin; without: sockets, an error naming the interface and its speed', () => {
    expect(netDecision(efaNode({ plugins: found(ofi) })).network).toBe('Libfabric');
    const v = netVerdict(efaNode());
    expect(v.decision.network).toBe('Socket');
    expect(v.findings.map((f) => [f.id, f.severity])).toEqual([['NET-001', 'error']]);
    expect(v.findings[0]!.message).toBe('EFA devices rdmap16s27 but no aws-ofi-nccl plugin loads (libnccl-net.so: not found): inter-node traffic goes over TCP sockets on ens5 (100 Gb/s)');
  });
  it('a plugin of an API this NCCL does not take is not used (NET-004), and EFA falls to sockets', () => {
    const v = netVerdict(efaNode({ plugins: found({ ...ofi, apis: [5] }) }));
    expect(v.findings.map((f) => f.id)).toEqual(['NET-001', 'NET-004']);
    expect(v.findings[1]!.message).toMatch(/exports ncclNetPlugin_v5, and NCCL 2\.28\.3 looks for v11\/v10\/v9\/v8\/v7\/v6: it is not used/);
  });
  it('NCCL_NET names the plugin (any case, its aliases), IB, Socket; a name nothing carries fails with the release\'s WARN', () => {
    expect(netDecision(efaNode({ plugins: found(ofi), vars: { NCCL_NET: 'aws libfabric' } })).network).toBe('Libfabric');
    expect(netDecision(efaNode({ vars: { NCCL_NET: 'socket' } })).network).toBe('Socket');
    const v = netVerdict(efaNode({ vars: { NCCL_NET: 'Libfabric' } }));
    expect(v.decision.network).toBe('none');
    expect(v.findings.find((f) => f.id === 'NET-002')!.message).toMatch(/NCCL_NET=Libfabric names no transport NCCL has here \(Socket\): NCCL fails \("Failed to initialize any NET plugin"\)/);
    expect(netDecision(efaNode({ profile: profile('2.26.2'), vars: { NCCL_NET: 'Libfabric' } })).log.at(-1)!.text).toBe('Error: network Libfabric not found.');
  });
  it('an aws-ofi-nccl installed off the loader\'s path: NCCL_NET_PLUGIN=<path> where the release takes a path (≥ 2.21.5), LD_LIBRARY_PATH advice before', () => {
    const off: NetPluginPart = { ...none, elsewhere: [{ ...ofi, path: '/opt/amazon/ofi-nccl/lib/libnccl-net-ofi.so' }] };
    expect(netVerdict(efaNode({ plugins: off })).findings[0]!.remediation.env).toEqual({ NCCL_NET_PLUGIN: '/opt/amazon/ofi-nccl/lib/libnccl-net-ofi.so' });
    const old = netVerdict(efaNode({ plugins: off, profile: profile('2.18.5') })).findings[0]!.remediation;
    expect(old.env).toBeUndefined();
    expect(old.advice).toMatch(/add \/opt\/amazon\/ofi-nccl\/lib to LD_LIBRARY_PATH/);
  });
  it('NCCL_NET_PLUGIN naming nothing the loader finds: NET-003', () => {
    const v = netVerdict({ ...efaNode({ fabric: { efa: [], ibRoce: ['mlx5_0'] }, ib: 'devices' }), vars: { NCCL_NET_PLUGIN: 'ofi' }, plugins: none });
    expect(v.findings.map((f) => f.id)).toEqual(['NET-003']);
    expect(v.decision.network).toBe('IB');
  });
  it('no RDMA at all: the socket-only warning names the interface and speed; NCCL_NET=Socket makes it information; with IB devices no warning', () => {
    const plain = { ...efaNode({ fabric: { efa: [], ibRoce: [] } }), socket: [{ name: 'eth0', speedMbps: 10000 }] };
    const w = netVerdict(plain).findings;
    expect(w.map((f) => [f.id, f.severity])).toEqual([['NET-010', 'warn']]);
    expect(w[0]!.message).toBe('inter-node collectives use TCP sockets over eth0 (10 Gb/s): this node has no RDMA device (NCCL logs "NET/IB : No device found." and falls back without a warning)');
    expect(netVerdict({ ...plain, vars: { NCCL_NET: 'Socket' } }).findings[0]!.severity).toBe('info');
    // A node with GPUs, or GPUs unknown, warns; a node with none (a login or storage node) runs no rank: information.
    expect(netVerdict({ ...plain, gpus: 1 }).findings[0]!.severity).toBe('warn');
    expect(netVerdict({ ...plain, gpus: null }).findings[0]!.severity).toBe('warn');
    const noGpu = netVerdict({ ...plain, gpus: 0 }).findings[0]!;
    expect([noGpu.severity, noGpu.message]).toEqual(['info', `${w[0]!.message}; this node has no GPU, so no NCCL rank runs here`]);
    expect(netVerdict({ ...plain, ib: 'devices', fabric: { efa: [], ibRoce: ['mlx5_0'] } }).findings).toEqual([]);
    expect(netVerdict({ ...plain, socket: [{ name: 'eth0', speedMbps: null }] }).findings[0]!.message).toMatch(/eth0 \(speed unknown: NCCL assumes 10 Gb\/s\)/);
  });
});

function efaTree(plugin?: { dir: string; name: string; text: string }): string {
  const d = tempDir('ncclx-efa-');
  cpSync(join(FIX, 'efa'), d, { recursive: true, verbatimSymlinks: true });
  if (plugin) {
    mkdirSync(join(d, plugin.dir), { recursive: true });
    writeFileSync(join(d, plugin.dir, plugin.name), plugin.text);
  }
  return d;
}

const run = (args: string[], env: Record<string, string> = {}) => {
  const r = server.spawnSync([...args], { encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '', HOME: '/nonexistent', NCCL_CONF_FILE: '/dev/null', ...env } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, json: (() => { try { return JSON.parse(r.stdout); } catch { return null; } })() };
};
type Res = { id: string; severity: string; summary: string; remediation: { env?: Record<string, string | null>; advice?: string } | null; verdict?: { resolves: boolean } | null };
const results = (j: { results: Res[] }, id: string) => j.results.filter((r) => r.id === id);

describe('the built CLI on the EFA fixture (p4d, no aws-ofi-nccl on the loader path)', () => {
  it('doctor: NET-001 error naming ens5; env says the same; exit 1', () => {
    const d = efaTree();
    const r = run(['doctor', '--json', '--root', d, '--nccl-version', '2.28.3']);
    expect(r.code).toBe(1);
    expect(results(r.json, 'NET-001')[0]).toMatchObject({ severity: 'error', summary: expect.stringMatching(/^EFA devices rdmap16s27, rdmap32s27, rdmap144s27, rdmap160s27 but no aws-ofi-nccl plugin loads \(libnccl-net\.so: not found\): inter-node traffic goes over TCP sockets on ens5/) });
    const env = run(['env', '--root', d, '--nccl-version', '2.28.3']);
    expect(env.stdout + env.stderr).toMatch(/NET-001: EFA devices rdmap16s27/);
    expect(env.stdout + env.stderr).toMatch(/network: Socket/);
  });
  it('an aws-ofi-nccl installed in /opt/amazon/ofi-nccl/lib: the fix names it; the model finds it would raise TOPO-010 (GPUDirect RDMA off at PHB), so the change is said, not offered as checked', () => {
    const d = efaTree({ dir: 'opt/amazon/ofi-nccl/lib', name: 'libnccl-net-ofi.so', text: '\0Initializing aws-ofi-nccl 1.13.2-aws\0ncclNetPlugin_v9\0ncclNetPlugin_v8\0' });
    const r = run(['doctor', '--json', '--root', d, '--nccl-version', '2.28.3']);
    const f = results(r.json, 'NET-001')[0]!;
    // With the plugin the EFA devices carry the traffic and their GPUDirect RDMA is judged: PHB, off (TOPO-010).
    // A change that raises a new warning is withheld (docs/advice.md); the advice still names the plugin's path.
    expect(f.remediation?.advice).toMatch(/^aws-ofi-nccl is installed at \/opt\/amazon\/ofi-nccl\/lib\/libnccl-net-ofi\.so, where the loader does not look: name it in NCCL_NET_PLUGIN\./);
    expect(f.remediation?.advice).toMatch(/it would cause TOPO-010/);
    expect(f.verdict).toMatchObject({ resolves: false, withheld: true, env: { NCCL_NET_PLUGIN: '/opt/amazon/ofi-nccl/lib/libnccl-net-ofi.so' } });
  });
  it('found on LD_LIBRARY_PATH: NCCL uses the plugin, no error', () => {
    const d = efaTree({ dir: 'opt/amazon/ofi-nccl/lib', name: 'libnccl-net.so', text: '\0aws-ofi-nccl 1.13.2-aws\0ncclNetPlugin_v8\0' });
    const r = run(['doctor', '--json', '--root', d, '--nccl-version', '2.28.3', '--only', 'NET'], { LD_LIBRARY_PATH: '/opt/amazon/ofi-nccl/lib' });
    expect(r.json.results.filter((x: Res) => x.severity === 'error' || x.severity === 'warn')).toEqual([]);
    expect(results(r.json, 'NET-010')[0]!.summary).toMatch(/^NCCL uses Libfabric between nodes: the external plugin aws-ofi-nccl 1\.13\.2-aws/);
  });
});

describe('ncclx log on a p4d log ("No plugin found (libnccl-net.so)", no IB device)', () => {
  const LOG = join(__dirname, '../log/corpus/v2.28-p4d-efa.log');
  const next = (j: { summary: { warnings: { signature: string; next: string[] }[] } }) => j.summary.warnings.find((w) => w.signature === 'ib-no-device')!.next;
  it('alone: never advises NCCL_NET=IB unconditionally; names the missing plugin', () => {
    const n = next(run(['log', LOG, '--json']).json);
    expect(n[0]).toMatch(/NCCL found no external net plugin .*AWS EFA \(aws-ofi-nccl\).*NCCL_NET=IB would make such a node fail/);
    expect(n.filter((x) => /NCCL_NET=IB/.test(x) && !/InfiniBand\/RoCE node only|would make such a node fail/.test(x))).toEqual([]);
  });
  it('with the node (--root): the doctor\'s NET-001 verdict, and "do not set NCCL_NET=IB"', () => {
    const n = next(run(['log', LOG, '--json', '--root', efaTree()]).json);
    expect(n[0]).toMatch(/^EFA devices rdmap16s27, rdmap32s27, rdmap144s27, rdmap160s27 but no aws-ofi-nccl plugin loads/);
    expect(n[1]).toBe('do not set NCCL_NET=IB: EFA is not an InfiniBand device, and NCCL would fail instead of falling back');
  });
  it('an InfiniBand log without the plugin line keeps the NCCL_NET=IB advice as it was', () => {
    const d = tempDir('ncclx-log-');
    const f = join(d, 'ib.log');
    writeFileSync(f, 'n1:1:1 [0] NCCL INFO NCCL version 2.28.3+cuda12.9\nn1:1:2 [0] NCCL INFO NET/IB : No device found.\nn1:1:2 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>\n');
    expect(next(run(['log', f, '--json']).json)).toContain('set NCCL_NET=IB to make the fallback an error instead of a silent slowdown');
  });
});

describe('the topology places the socket transport\'s NIC (issue #24 part 7)', () => {
  it('EFA without its plugin: NET/0 is ens5, at its /sys/class/net/ens5/device, PHB from the GPUs on its CPU, 1.25 GB/s at the default 10 Gb/s; no GPUDirect RDMA', () => {
    const r = run(['topo', '--json', '--root', join(FIX, 'efa'), '--nccl-version', '2.28.3']);
    expect(r.json.nics).toEqual([expect.objectContaining({ index: 0, device: 'ens5', port: 0, bdf: '0000:00:05.0' })]);
    expect(r.json.pairs[0]).toMatchObject({ nic: 0, path: 'PHB', bwGBs: 1.3 });
    expect(r.json.matrix[0][0]).toEqual({ path: 'PHB', bwGBs: 1.3 });
    expect(r.json.pairs[0].gdr.enabled).toBe(false);
    expect(r.json.notes.join('\n')).toMatch(/the network is NCCL's socket transport: its interfaces are the NET devices \(ens5\)/);
  });
  it('with aws-ofi-nccl loaded the NICs are the EFA devices', () => {
    const d = efaTree({ dir: 'opt/amazon/ofi-nccl/lib', name: 'libnccl-net.so', text: '\0aws-ofi-nccl 1.13.2-aws\0ncclNetPlugin_v8\0' });
    const r = run(['topo', '--json', '--root', d, '--nccl-version', '2.28.3'], { LD_LIBRARY_PATH: '/opt/amazon/ofi-nccl/lib' });
    expect(r.json.nics.map((n: { device: string }) => n.device)).toEqual(['rdmap16s27', 'rdmap32s27', 'rdmap144s27', 'rdmap160s27']);
  });
});

it('the CLI server answers as its own process does', () => {
  sameAsOwnProcess(server, ['explain', '--json', '--root', join(__dirname, '../fixtures/roce-bond'), '--nccl-version', '2.28.3'], { PATH: process.env['PATH'] ?? '', HOME: '/nonexistent' });
});
