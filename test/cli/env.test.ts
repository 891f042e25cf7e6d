// `ncclx env` as a user runs it: the exports, pasted into a shell, set exactly these values.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/tmp.js';
import { describe, expect, it } from 'vitest';
import { link, snapshotOf } from '../unit/helpers.js';
import { cliServer, sameAsOwnProcess } from '../helpers/cli-server.js';

// The built CLI, with the fixtures' failing reads (EINVAL on hidden GID entries) as a real kernel has them: test/helpers/faults.mjs.
// Every CLI call in one ncclx process (test/helpers/cli-server.ts), one checked against its own process.
const server = cliServer({ faults: true });
const FIX = join(__dirname, '../fixtures');
const tmp = tempDir('ncclx-env-');
const ncclx = (args: string[]) => server.spawnSync([...args], { encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '', HOME: tmp } });

describe('socket exports with names Linux allows', () => {
  const odd = "e$x;('1";
  const file = join(tmp, 'odd.json');
  writeFileSync(file, JSON.stringify(snapshotOf([link('lo', ['127.0.0.1/8']), link(odd, ['10.0.0.5/24']), link('docker0', ['172.17.0.1/16'])])));

  it('bash: evaluating the output sets the exact values and runs nothing else', () => {
    const r = ncclx(['env', '--snapshot', file, '--nccl-version', '2.28.3']);
    expect(r.status).toBe(0);
    const sh = spawnSync('sh', ['-c', `${r.stdout}\nprintf '%s\\n%s\\n' "$NCCL_SOCKET_IFNAME" "$GLOO_SOCKET_IFNAME"`], { encoding: 'utf8', cwd: tmp });
    expect(sh.stdout).toBe(`=${odd}\n${odd}\n`);
    expect(r.stdout).toMatch(/^# copy to the peer node: RDMA_PEER_IFACES=$/m);
  });
  it('json on stdout parses; the summary goes to stderr', () => {
    const r = ncclx(['env', '--snapshot', file, '--format', 'json', '--nccl-version', '2.28.3']);
    expect(JSON.parse(r.stdout)).toEqual({ NCCL_SOCKET_IFNAME: `=${odd}`, GLOO_SOCKET_IFNAME: odd });
    expect(r.stderr).toMatch(/^# NCCL_SOCKET_IFNAME: /m);
  });
  it('nccl-conf: verbatim NAME=VALUE lines NCCL reads back unchanged; GLOO_SOCKET_IFNAME only as a comment (Gloo reads the environment, before NCCL applies nccl.conf)', () => {
    const r = ncclx(['env', '--snapshot', file, '--format', 'nccl-conf', '--nccl-version', '2.28.3']);
    expect(r.stdout.split('\n').slice(0, 2)).toEqual([`NCCL_SOCKET_IFNAME==${odd}`, '']);
    expect(r.stdout).not.toMatch(/^GLOO_SOCKET_IFNAME=/m);
    expect(r.stdout).toMatch(/^# note: not in nccl\.conf \(PyTorch's Gloo reads it .*\); export it in the job's environment: export GLOO_SOCKET_IFNAME=/m);
  });
  it('a docker0/lo-only choice is replaced by the routable interface', () => {
    const f2 = join(tmp, 'docker.json');
    writeFileSync(f2, JSON.stringify(snapshotOf([link('lo', ['127.0.0.1/8']), link('docker0', ['172.17.0.1/16']), link('ens5', ['10.1.0.5/24'])], { env: { NCCL_SOCKET_IFNAME: 'docker' } })));
    const r = ncclx(['env', '--snapshot', f2, '--format', 'json', '--nccl-version', '2.28.3']);
    expect(JSON.parse(r.stdout).NCCL_SOCKET_IFNAME).toBe('=ens5');
  });
  it('--debug adds the NCCL debug bundle', () => {
    const j = JSON.parse(ncclx(['env', '--snapshot', file, '--format', 'json', '--debug', '--nccl-version', '2.28.3']).stdout);
    expect(j).toMatchObject({ NCCL_DEBUG: 'INFO', NCCL_DEBUG_SUBSYS: 'INIT,BOOTSTRAP,ENV,NET,GRAPH' });
    expect(j.NCCL_DEBUG_FILE).toMatch(/%h/);
    expect(j.NCCL_TOPO_DUMP_FILE).toBeTruthy();
  });
});

describe('RDMA exports on fixture nodes', () => {
  it('IB node: exact HCA names with ports, one link layer, no placeholder', () => {
    const j = JSON.parse(ncclx(['env', '--root', join(FIX, 'ib8-storage'), '--format', 'json', '--nccl-version', '2.28.3']).stdout);
    expect(j.NCCL_IB_HCA).toBe('=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_6:1,mlx5_7:1,mlx5_8:1,mlx5_9:1');
    expect(j.NCCL_IB_GID_INDEX).toBeUndefined();
  });
  it('RoCE before 2.21.5: NCCL_IB_GID_INDEX names the RoCE v2 IPv4 GID; from 2.21.5 the automatic choice is left alone', () => {
    const old = JSON.parse(ncclx(['env', '--root', join(FIX, 'roce-one-subnet'), '--format', 'json', '--nccl-version', '2.19.3']).stdout);
    expect(old.NCCL_IB_GID_INDEX).toBe('3');
    const cur = JSON.parse(ncclx(['env', '--root', join(FIX, 'roce-one-subnet'), '--format', 'json', '--nccl-version', '2.28.3']).stdout);
    expect(cur.NCCL_IB_GID_INDEX).toBeUndefined();
    expect(cur.RDMA_PEER_IFACES.split(' ')).toHaveLength(8);
  });
  it('the file says who reads RDMA_PEER_IFACES: not NCCL nor PyTorch, but the launch scripts and --peer-ifaces on the peer (issue #25; docs/advice.md)', () => {
    const out = ncclx(['env', '--root', join(FIX, 'roce-one-subnet'), '--nccl-version', '2.28.3']).stdout;
    expect(out).toMatch(/^export RDMA_PEER_IFACES='enp/m);
    expect(out).toMatch(/^# RDMA_PEER_IFACES: .*\(NCCL and PyTorch do not read it: the job's launch scripts do .*ncclx env --peer-ifaces on the peer node\)$/m);
  });
  it('--peer-ifaces keeps only the set both nodes have', () => {
    const r = ncclx(['env', '--root', join(FIX, 'roce-one-subnet'), '--format', 'json', '--nccl-version', '2.28.3', '--peer-ifaces', 'enp12s0np0 enp42s0np0 ens9']);
    const j = JSON.parse(r.stdout);
    expect(j.RDMA_PEER_IFACES).toBe('enp12s0np0 enp42s0np0');
    expect(j.NCCL_IB_HCA).toBe('=mlx5_0:1,mlx5_1:1');
    expect(r.stderr).toMatch(/the peer advertises ens9/);
  });
});

// Issue #25: NCCL_COMM_ID whose host does not resolve stops NCCL at init. The advice addresses that first:
// no interface list claims plainly to resolve what only the address of rank 0 fixes, and `ncclx env` does not exit 0 in silence.
describe('NCCL_COMM_ID=gpu-node-001:29500 that does not resolve', () => {
  const file = join(tmp, 'commid.json');
  writeFileSync(
    file,
    JSON.stringify(
      snapshotOf([link('lo', ['127.0.0.1/8']), link('eth0', ['10.0.0.5/24']), link('eth1', ['10.1.0.5/24'])], {
        env: { NCCL_COMM_ID: 'gpu-node-001:29500' },
        resolutions: { 'gpu-node-001': { addresses: [], error: 'getaddrinfo ENOTFOUND gpu-node-001' } },
      }),
    ),
  );

  it('ncclx env says to fix NCCL_COMM_ID first, on stderr and in the file, and exits 1', () => {
    const r = ncclx(['env', '--snapshot', file, '--nccl-version', '2.28.3']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^ncclx env: not fixed by these exports: First fix NCCL_COMM_ID=gpu-node-001:29500: .*does not resolve/m);
    expect(r.stdout).toMatch(/NOT FIXED BY THESE EXPORTS: First fix NCCL_COMM_ID=gpu-node-001:29500/);
  });

  it('doctor: SOCK-001 names the cause first, and its checked line says SOCK-007 and SOCK-008 stay errors', () => {
    const r = ncclx(['doctor', '--snapshot', file, '--nccl-version', '2.28.3']);
    const sock001 = r.stdout.slice(r.stdout.indexOf('SOCK-001'), r.stdout.indexOf('\n\n', r.stdout.indexOf('SOCK-001')));
    expect(sock001).toMatch(/fix: The cause is NCCL_COMM_ID \(SOCK-007\): fix it first/);
    expect(sock001).toMatch(/checked: applied to this node in the model, it resolves this and raises nothing new; SOCK-007, SOCK-008 stay errors until their own fix/);
    expect(sock001).not.toMatch(/raises nothing new\n/);
  });
});

// A name the snapshot never resolved (a --root tree, a snapshot taken elsewhere): NCCL's bootstrap interface is the
// one on that address's subnet, unknown here. The doctor says it cannot predict it (SOCK-020); env says so too.
describe('NCCL_COMM_ID=headnode:29500, a name not resolved when the node was read', () => {
  const links = [link('lo', ['127.0.0.1/8']), link('eth0', ['10.0.0.5/24']), link('eth1', ['10.1.0.5/24'])];
  const unresolved = join(tmp, 'commid-unresolved.json');
  writeFileSync(unresolved, JSON.stringify(snapshotOf(links, { env: { NCCL_COMM_ID: 'headnode:29500' } })));
  const resolved = join(tmp, 'commid-resolved.json');
  writeFileSync(resolved, JSON.stringify(snapshotOf(links, { env: { NCCL_COMM_ID: 'headnode:29500' }, resolutions: { headnode: { addresses: [{ address: '10.1.0.1', family: 'AF_INET' }], error: null } } })));
  const NOTE = /^# note: NCCL_COMM_ID=headnode:29500: host 'headnode' was not resolved when the node was read; .*which ncclx cannot tell/m;

  it('env: a note that the bootstrap interface cannot be told, no claim of what NCCL would use, exit 0 (nothing known to be wrong)', () => {
    const r = ncclx(['env', '--snapshot', unresolved, '--nccl-version', '2.28.3']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(NOTE);
    expect(r.stdout).toMatch(/^# NCCL_SOCKET_IFNAME: NCCL's own choice cannot be predicted \(host 'headnode' was not resolved/m);
    expect(r.stdout).not.toMatch(/NCCL would use nothing|NCCL alone would pick nothing/);
    const doctor = ncclx(['doctor', '--snapshot', unresolved, '--nccl-version', '2.28.3']);
    expect(doctor.stdout).toMatch(/SOCK-020[^]*Cannot predict the bootstrap interface: host 'headnode' was not resolved/);
  });
  it('resolved onto eth1\'s subnet: no such note, and the doctor predicts', () => {
    const r = ncclx(['env', '--snapshot', resolved, '--nccl-version', '2.28.3']);
    expect(r.status).toBe(0);
    expect(r.stdout).not.toMatch(/# note: NCCL_COMM_ID/);
    expect(r.stdout).not.toMatch(/cannot be predicted/);
    expect(ncclx(['doctor', '--snapshot', resolved, '--nccl-version', '2.28.3']).stdout).not.toMatch(/Cannot predict/);
  });
});

it('the CLI server answers as its own process does', () => {
  sameAsOwnProcess(server, ['env', '--root', join(FIX, 'roce-one-subnet'), '--nccl-version', '2.28.3'], { PATH: process.env['PATH'] ?? '', HOME: '/nonexistent' });
});
