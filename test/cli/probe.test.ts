// Probing edges: NCCL library detection under --root, and the fallback when iproute2 is missing.
import { spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/tmp.js';
import { networkInterfaces } from 'node:os';
import { describe, expect, it } from 'vitest';
import { probeNcclLibrary } from '../../src/probe/nccl-lib.js';
import { Root } from '../../src/probe/root.js';
import { recordedRunner } from '../../src/probe/runner.js';

const CLI = join(__dirname, '../../dist/cli.js');

function tree(files: Record<string, string>, links: Record<string, string> = {}): string {
  const dir = tempDir('ncclx-root-');
  for (const [p, c] of Object.entries(files)) {
    mkdirSync(join(dir, p, '..'), { recursive: true });
    writeFileSync(join(dir, p), c);
  }
  for (const [p, target] of Object.entries(links)) {
    mkdirSync(join(dir, p, '..'), { recursive: true });
    symlinkSync(target, join(dir, p));
  }
  return dir;
}

describe('NCCL library detection', () => {
  it('reads the version from a versioned file behind libnccl.so.2', () => {
    const dir = tree({ 'usr/lib/x86_64-linux-gnu/libnccl.so.2.21.5': '' }, { 'usr/lib/x86_64-linux-gnu/libnccl.so.2': 'libnccl.so.2.21.5' });
    const root = new Root(dir);
    const lib = probeNcclLibrary(root, recordedRunner(root), {});
    expect(lib.candidates[0]).toMatchObject({ path: '/usr/lib/x86_64-linux-gnu/libnccl.so.2', version: '2.21.5' });
  });
  it('Python wheels: version from the nvidia_nccl dist-info, found before system copies', () => {
    const dir = tree({
      'usr/local/lib/python3.11/dist-packages/nvidia/nccl/lib/libnccl.so.2': '',
      'usr/local/lib/python3.11/dist-packages/nvidia_nccl_cu12-2.26.2.dist-info/METADATA': '',
      'usr/lib/x86_64-linux-gnu/libnccl.so.2.19.3': '',
    });
    const root = new Root(dir);
    const lib = probeNcclLibrary(root, recordedRunner(root), {});
    expect(lib.candidates.map((c) => c.version)).toEqual(['2.26.2', '2.19.3']);
    expect(lib.candidates[0]!.via).toMatch(/wheel/);
  });
  it('explain says where the version came from, and that others exist', () => {
    const dir = tree({ 'usr/lib/libnccl.so.2.27.7': '', 'usr/local/cuda-12.4/lib64/libnccl.so.2.18.3': '' });
    const r = spawnSync(process.execPath, [CLI, 'explain', '--json', '--root', dir], { encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '' } });
    const j = JSON.parse(r.stdout);
    expect(j.ncclVersion).toBe('2.27.7');
    expect(j.profile).toBe('nccl<2.28.3');
    expect(j.versionSource).toMatch(/\/usr\/lib\/libnccl\.so\.2\.27\.7.*other versions on this node: 2\.18\.3/);
  });
  it('none found: says so and assumes the newest known release', () => {
    const dir = tree({ 'etc/hostname': 'n1\n' });
    const j = JSON.parse(spawnSync(process.execPath, [CLI, 'explain', '--json', '--root', dir], { encoding: 'utf8' }).stdout);
    expect(j.versionSource).toMatch(/no NCCL library found on this node; assuming the newest known release 2\.30\.7/);
    expect(j.findings.map((f: { id: string }) => f.id)).toContain('SOCK-021');
    expect(j.warnings.join('\n')).toMatch(/commands\/ip-addr\.json/);
  });
  it('--root reads recorded ip output and conf files under the root', () => {
    const ip = [
      { ifindex: 1, ifname: 'lo', flags: ['LOOPBACK', 'UP', 'LOWER_UP'], operstate: 'UNKNOWN', addr_info: [{ family: 'inet', local: '127.0.0.1', prefixlen: 8, label: 'lo' }] },
      { ifindex: 2, ifname: 'ens1', flags: ['UP', 'LOWER_UP'], operstate: 'UP', addr_info: [{ family: 'inet', local: '10.1.1.1', prefixlen: 24, label: 'ens1' }] },
      { ifindex: 3, ifname: 'ens2', flags: ['UP', 'LOWER_UP'], operstate: 'UP', addr_info: [{ family: 'inet', local: '10.2.1.1', prefixlen: 24, label: 'ens2' }] },
    ];
    const dir = tree({ 'commands/ip-addr.json': JSON.stringify(ip), 'etc/nccl.conf': 'NCCL_SOCKET_IFNAME==ens2\n' });
    const j = JSON.parse(spawnSync(process.execPath, [CLI, 'explain', '--json', '--root', dir, '--nccl-version', '2.28.3'], { encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '', HOME: dir } }).stdout);
    expect(j.socket.selected.map((s: { name: string }) => s.name)).toEqual(['ens2']);
    expect(j.inputs.NCCL_SOCKET_IFNAME).toEqual({ value: '=ens2', source: '/etc/nccl.conf:1' });
  });
});

describe('without iproute2', () => {
  it('falls back to /sys, getifaddrs() through node:os and /proc/net, and says what those cannot show (test/job/no-tools.test.ts compares them with ip)', () => {
    const r = spawnSync(process.execPath, [CLI, 'explain', '--json', '--nccl-version', '2.28.3'], { encoding: 'utf8', env: { PATH: '/nonexistent' } });
    const j = JSON.parse(r.stdout);
    expect(j.warnings.join('\n')).toMatch(/iproute2 'ip' is not available \(ip -j -d addr show: ENOENT\): links from \/sys\/class\/net, addresses from getifaddrs\(\) \(node:os\) and \/proc\/net \(.*qdiscs are not shown in \/proc\)/);
    // What it sees is what node:os sees (lo at least, which the automatic cascade ends on).
    const seen = new Set(Object.entries(networkInterfaces()).flatMap(([n, as]) => (as ?? []).map((a) => `${n} ${a.address}`)));
    expect(j.socket.selected.length).toBeGreaterThan(0);
    for (const s of j.socket.selected as { name: string; address: string }[]) expect(seen.has(`${s.name} ${s.address.replace(/%.*$/, '')}`)).toBe(true);
  });
});
