// Each line shape NCCL prints (format strings from NVIDIA/nccl 2.4.8 … 2.30.7)
// and each launcher or paste artefact around it, one assertion per shape.
import { describe, expect, it } from 'vitest';
import { factOf, parseEndpoint } from '../../src/model/log/facts.js';
import { parseLine } from '../../src/model/log/line.js';
import { warnProblem, infoProblem } from '../../src/model/log/signatures.js';

const INFO = 'node7:1234:1290 [3] NCCL INFO ';

describe('NCCL header and launcher artefacts', () => {
  const cases: [string, string, Partial<ReturnType<typeof parseLine>> & object][] = [
    ['plain', `${INFO}Using network IB`, { host: 'node7', pid: 1234, tid: 1290, cudaDev: 3, level: 'INFO', message: 'Using network IB' }],
    ['mpirun, glued', `[1,5]<stdout>:${INFO}Using network IB`, { host: 'node7', launcher: { host: null, task: '1,5' } }],
    ['srun -l', `12: ${INFO}Using network IB`, { host: 'node7', launcher: { host: null, task: '12' } }],
    ['torchrun --tee', `[default3]:${INFO}Using network IB`, { host: 'node7', launcher: { host: null, task: 'default3' } }],
    ['torchrun, bare version', '[trainer0]:NCCL version 2.18.3+cuda12.2', { level: 'VERSION', launcher: { host: null, task: 'trainer0' } }],
    ['pdsh, doubled', `10.0.0.2: 10.0.0.2: ${INFO}Using network IB`, { host: 'node7', launcher: { host: '10.0.0.2', task: null } }],
    ['Ray worker', `(RayWorkerWrapper pid=881, ip=10.1.0.7) ${INFO}Using network IB`, { launcher: { host: '10.1.0.7', task: 'pid=881' } }],
    ['Ray pid only', `(pid=881) ${INFO}Using network IB`, { launcher: { host: null, task: 'pid=881' } }],
    ['kubectl --prefix', `[pod/trainer-3/main] ${INFO}Using network IB`, { launcher: { host: 'trainer-3', task: null } }],
    ['markdown quote', `> > ${INFO}Using network IB`, { host: 'node7', message: 'Using network IB' }],
    ['ANSI colour residue', `\x1b[32m${INFO}Using network IB\x1b[0m`, { host: 'node7', message: 'Using network IB' }],
    ['CR line end', `${INFO}Using network IB\r`, { message: 'Using network IB' }],
    ['Ray repeat note', `${INFO}Using network IB [repeated 16x across cluster]`, { message: 'Using network IB', repeat: 16 }],
    ['empty host field', `:1234:1290 [0] NCCL INFO Using network IB`, { host: '', pid: 1234 }],
    ['launcher timestamp', `2025-03-04T10:11:12.123Z ${INFO}Using network IB`, { host: 'node7' }],
    ['WARN with file:line', `node7:1:2 [0] misc/socket.cc:484 NCCL WARN NET/Socket : no interface found`, { level: 'WARN', source: 'misc/socket.cc:484', message: 'NET/Socket : no interface found' }],
    ['WARN with (func), 2.30', `node7:1:2 [0] misc/socket.cc:50 (socketStartConnect) NCCL WARN x`, { level: 'WARN', source: 'misc/socket.cc:50 (socketStartConnect)' }],
    ['WARN with NCCL timestamp', `[2025-03-04 10:11:12] node7:1:2 [0] transport/net_ib.cc:1696 NCCL WARN boom`, { level: 'WARN', host: 'node7', message: 'boom' }],
    ['TRACE with time', `node7:1:2 [0] 12.345678 init.cc:10 NCCL TRACE x`, { level: 'TRACE', host: 'node7' }],
    ['bare version (≤ 2.21 printf)', 'NCCL version 2.18.3+cuda12.2', { level: 'VERSION', message: 'NCCL version 2.18.3+cuda12.2' }],
    ['bare version behind srun', '3: NCCL version 2.7.8+cuda11.0', { level: 'VERSION', launcher: { host: null, task: '3' } }],
  ];
  for (const [name, line, want] of cases) it(name, () => expect(parseLine(line)).toMatchObject(want));

  it('not NCCL: no line', () => {
    expect(parseLine('Epoch 1: loss 0.3')).toBeNull();
    expect(parseLine('NCCL is great')).toBeNull();
    expect(parseLine('')).toBeNull();
  });
  it('the [N] is the CUDA device, not a rank', () => {
    const l = parseLine('n:1:1 [5] NCCL INFO comm 0x1 rank 13 nranks 16 cudaDev 5 busId 9c000 - Init COMPLETE')!;
    expect(l.cudaDev).toBe(5);
    expect(factOf(l.message)).toMatchObject({ kind: 'rank', rank: 13, nranks: 16, cudaDev: 5, stage: 'complete' });
  });
});

describe('facts, every release wording', () => {
  it('version as INFO (≥ 2.25) and bare', () => {
    expect(factOf('NCCL version 2.25.1+cuda12.8')).toEqual({ kind: 'version', version: '2.25.1', cuda: '12.8' });
    expect(factOf('NCCL version 2.4.8+cuda10.1')).toMatchObject({ version: '2.4.8' });
  });
  it('Bootstrap : Using (≤ 2.23), Bootstrap: Using (≥ 2.24), the indexed list of 2.5–2.7, the OOB-net form', () => {
    expect(factOf('Bootstrap : Using eth0:10.0.0.1<0>')).toEqual({ kind: 'bootstrap', endpoint: { ifname: 'eth0', address: '10.0.0.1' } });
    expect(factOf('Bootstrap: Using eth0:10.0.0.1<0>')).toEqual({ kind: 'bootstrap', endpoint: { ifname: 'eth0', address: '10.0.0.1' } });
    expect(factOf('Bootstrap : Using [0]ib0:192.168.1.1<0> [1]eth0:10.0.0.1<0>')).toEqual({ kind: 'bootstrap', endpoint: { ifname: 'ib0', address: '192.168.1.1' } });
    expect(factOf('Bootstrap: Using mlx5_0:1')).toEqual({ kind: 'bootstrap', endpoint: { ifname: 'mlx5_0', address: null } });
    expect(factOf('Bootstrap: Using vethf4:fe80::54a7:2aff:fe92:27be%vethf4<0>')).toMatchObject({ endpoint: { ifname: 'vethf4', address: 'fe80::54a7:2aff:fe92:27be%vethf4' } });
  });
  it('NET/Socket : Using list', () => {
    expect(factOf('NET/Socket : Using [0]eth0:10.0.0.1<0> [1]eth1:10.0.1.1<0>')).toEqual({ kind: 'socket', endpoints: [{ ifname: 'eth0', address: '10.0.0.1' }, { ifname: 'eth1', address: '10.0.1.1' }] });
  });
  it('NET/IB : Using with and without [RO], the ≤ 2.11 form, merged groups, rail/plane, device-less and empty OOB', () => {
    expect(factOf('NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/RoCE [RO]; OOB eth0:10.0.0.1<0>')).toEqual({
      kind: 'ib',
      relaxedOrdering: true,
      oob: { ifname: 'eth0', address: '10.0.0.1' },
      devices: [
        { index: 0, device: 'mlx5_0', port: 1, linkLayer: 'IB', relaxedOrdering: true, mergedInto: null },
        { index: 1, device: 'mlx5_1', port: 1, linkLayer: 'RoCE', relaxedOrdering: true, mergedInto: null },
      ],
    });
    expect(factOf('NET/IB : Using [0]mlx5_0:1/RoCE ; OOB eth0:10.0.0.1<0>')).toMatchObject({ relaxedOrdering: false, devices: [{ device: 'mlx5_0' }] });
    const merged = factOf('NET/IB : Using [0]={[0] mlx5_0:1/RoCE, [1] mlx5_1:1/RoCE} [2]mlx5_2:1/RoCE ; OOB eth0:10.0.0.1<0>');
    expect(merged).toMatchObject({ devices: [{ index: 0, device: 'mlx5_0', mergedInto: 0 }, { index: 1, device: 'mlx5_1', mergedInto: 0 }, { index: 2, device: 'mlx5_2', mergedInto: null }] });
    expect(factOf('NET/IB : Using [0]mlx5_0:1:0:1/IB [1]mlx5_1:1::1/IB [RO]; OOB ib0:10.0.0.1<0>')).toMatchObject({ devices: [{ device: 'mlx5_0', port: 1, linkLayer: 'IB' }, { device: 'mlx5_1', port: 1 }] });
    expect(factOf('NET/IB : Using [RO]; OOB eth0:10.0.0.1<0>')).toEqual({ kind: 'ib', devices: [], relaxedOrdering: true, oob: { ifname: 'eth0', address: '10.0.0.1' } });
    expect(factOf('NET/IB : Using [0]mlx5_0:1/IB ; OOB :')).toMatchObject({ devices: [{ device: 'mlx5_0' }], oob: null });
    expect(factOf('NET/IB : No device found.')).toEqual({ kind: 'ib-none' });
  });
  it('network and plugin lines', () => {
    expect(factOf('Using network IB')).toEqual({ kind: 'network', name: 'IB' });
    expect(factOf('Using network AWS Libfabric')).toEqual({ kind: 'network', name: 'AWS Libfabric' });
    expect(factOf('NET/Plugin: Loaded net plugin AWS Libfabric (v6)')).toEqual({ kind: 'plugin', name: 'AWS Libfabric' });
    expect(factOf('NET/Plugin : Loaded net plugin NCCL RDMA Plugin v7 (v7)')).toEqual({ kind: 'plugin', name: 'NCCL RDMA Plugin v7' });
    expect(factOf('NET/Plugin: Could not find: libnccl-net.so. Using internal network plugin.')).toMatchObject({ kind: 'plugin-missing' });
    expect(factOf('NET/Plugin : No plugin found (libnccl-net.so), using internal implementation')).toMatchObject({ kind: 'plugin-missing' });
  });
  it('a collnet plugin is not the net plugin', () => {
    expect(factOf('NET/Plugin: Loaded collnet plugin SHARP (v8)')?.kind).not.toBe('plugin');
  });
  it('set by environment, with and without the trailing period of integer parameters', () => {
    expect(factOf('NCCL_IB_GID_INDEX set by environment to 3.')).toEqual({ kind: 'env', name: 'NCCL_IB_GID_INDEX', value: '3' });
    expect(factOf('NCCL_SOCKET_IFNAME set by environment to =eth0')).toEqual({ kind: 'env', name: 'NCCL_SOCKET_IFNAME', value: '=eth0' });
    expect(factOf('NCCL_NET_GDR_LEVEL set by environment to PHB')).toEqual({ kind: 'env', name: 'NCCL_NET_GDR_LEVEL', value: 'PHB' });
  });
  it('`NCCL_X set to %s`: the variables NCCL reads with getenv (socket.cc, net_ib.cc, bootstrap OOB net; 2.7 → 2.30), and nothing else so worded', () => {
    expect(factOf('NCCL_IB_HCA set to mlx5_4')).toEqual({ kind: 'env', name: 'NCCL_IB_HCA', value: 'mlx5_4' });
    expect(factOf('NCCL_SOCKET_IFNAME set to ^docker,lo')).toEqual({ kind: 'env', name: 'NCCL_SOCKET_IFNAME', value: '^docker,lo' });
    expect(factOf('NCCL_OOB_NET_IFNAME set to ib0')).toEqual({ kind: 'env', name: 'NCCL_OOB_NET_IFNAME', value: 'ib0' });
    // 2.4's WARN about ring counts is not a variable's value.
    expect(factOf('NCCL_MIN_NRINGS set to a value greater than NCCL_MAX_NRINGS, ignoring NCCL_MIN_NRINGS')).toBeNull();
  });
  it('channel lines: NET with GDRDMA, proxy and shared, P2P, SHM, busId ranks of 2.12–2.18, receive direction, ≤ 2.4 Ring', () => {
    expect(factOf('Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0/GDRDMA')).toEqual({ kind: 'channel', rank: 0, peer: 8, transport: 'NET/IB', netDev: 0, gdr: true, direction: 'send' });
    expect(factOf('Channel 03/1 : 8[0] -> 0[0] [receive] via NET/IB/2/GDRDMA(PCI)/Shared')).toMatchObject({ rank: 0, peer: 8, netDev: 2, gdr: true, direction: 'receive' });
    expect(factOf('Channel 00/0 : 3[3] -> 11[3] [send] via NET/IB/1(2)/GDRDMA')).toMatchObject({ netDev: 1, gdr: true });
    expect(factOf('Channel 00/0 : 1[1] -> 9[1] [send] via NET/Socket/0')).toMatchObject({ transport: 'NET/Socket', gdr: false });
    expect(factOf('Channel 01/0 : 3[3] -> 4[4] via P2P/IPC/read')).toMatchObject({ rank: 3, transport: 'P2P/IPC' });
    expect(factOf('Channel 02 : 3[3] -> 2[2] via SHM/direct/direct')).toMatchObject({ transport: 'SHM' });
    expect(factOf('Channel 00 : 0[1b000] -> 1[3d000] via P2P/IPC')).toMatchObject({ rank: 0, peer: 1, transport: 'P2P/IPC' });
    expect(factOf('Ring 00 : 0 -> 1 [send] via NET/IB/0')).toMatchObject({ rank: 0, transport: 'NET/IB' });
    expect(factOf('Channel 00/0 : 0[0] -> 8[0] [send] via NET/AWS Libfabric/0/GDRDMA')).toMatchObject({ transport: 'NET/AWS Libfabric' });
  });
  it('GID index per IB device (2.19 … 2.30 wordings) and GPUDirect per HCA', () => {
    expect(factOf('NET/IB: NCCL Dev 1 IbDev 1 Port 1 qpn 4217 mtu 5 query_ece={supported=1} GID 3 (80FE/1) fifoRkey=0x1 fifoLkey=0x1')).toEqual({ kind: 'gid', ibDev: 1, port: 1, gidIndex: 3 });
    expect(factOf('NET/IB: Dev 0 Port 1 qpn 12 mtu 5 GID 0 (80FE/1)')).toBeNull();
    expect(factOf('NET/IB: main: NCCL Dev 0 IbDev 2 Port 1 qp_num 7 mtu 5 GID 5 (0/0) ctsFifoRkey=0x1 ctsFifoLkey=0x1')).toMatchObject({ ibDev: 2, gidIndex: 5 });
    expect(factOf("NET/IB : GPU Direct RDMA Enabled for HCA 0 'mlx5_0'")).toEqual({ kind: 'gdr-hca', hca: 0, name: 'mlx5_0', enabled: true });
  });
  it('the ranks: comm lines of 2.4, 2.7–2.18, 2.19+, 2.21+ and 2.30', () => {
    expect(factOf('comm 0x7f2a rank 0 nranks 2 cudaDev 0 nvmlDev 0 - Init COMPLETE')).toMatchObject({ rank: 0, nranks: 2, stage: 'complete' });
    expect(factOf('comm 0x55d0 rank 1 nranks 2 cudaDev 0 busId 1b000 - Init COMPLETE')).toMatchObject({ rank: 1, busId: '1b000' });
    expect(factOf('comm 0x8c4a rank 3 nRanks 16 nNodes 2 localRanks 8 localRank 3 MNNVL 0')).toMatchObject({ rank: 3, nranks: 16, stage: null });
    expect(factOf('ncclCommInitRankConfig comm 0x3f1a rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 18000 commId 0x9f2b - Init START')).toMatchObject({ rank: 0, commId: '0x9f2b', stage: 'start' });
  });
  it('endpoints: the bare address without <port>', () => {
    expect(parseEndpoint('eth0:10.0.0.1<0>')).toEqual({ ifname: 'eth0', address: '10.0.0.1' });
    expect(parseEndpoint('')).toBeNull();
  });
});

describe('problem signatures', () => {
  const sig = (m: string) => warnProblem(m).signature.id;
  it('completion errors by status in every wording (≤ 2.19, 2.20–2.21, 2.22–2.28, 2.28.7, ≥ 2.29)', () => {
    expect(sig('NET/IB : Got completion from peer 10.0.0.2<1> with error 12, opcode 0, len 0, vendor err 129 (Send)')).toBe('ib-completion-12');
    expect(sig('NET/IB : Got completion from peer 10.0.0.2<1> with status=12 opcode=0 len=0 vendor err 129 (Send)')).toBe('ib-completion-12');
    expect(sig('NET/IB: Got completion from peer 10.0.0.2<1> with status=12 opcode=0 len=0 vendor err 129 (Send) hca mlx5_0')).toBe('ib-completion-12');
    expect(sig('NET/IB: Got completion from peer 10.0.0.2<1> with status=IBV_WC_RETRY_EXC_ERR(12) opcode=IBV_WC_SEND(0) reqSize=0 vendor_err=129 req_type=Send')).toBe('ib-completion-12');
    expect(sig('NET/IB: Got completion from peer 10.0.0.2<1> with status=IBV_WC_RNR_RETRY_EXC_ERR(13) opcode=IBV_WC_RECV(128) vendor_err=0 hca mlx5_0')).toBe('ib-completion-13');
    expect(warnProblem('NET/IB : Got completion from peer x with error 5, opcode 0').signature.severity).toBe('warn');
    // Older releases print no peer address (NVIDIA/nccl#1052).
    expect(sig('NET/IB : Got completion from peer with error 4, opcode 0, len 0, vendor err 81 (Send) localGid ::ffff: remoteGid ::ffff:')).toBe('ib-completion-4');
  });
  it('two ranks on one GPU, the graph search fallback (the WARN before "Could not find NET with id 0"), a failed proxy operation', () => {
    expect(sig('Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 1b000')).toBe('duplicate-gpu');
    expect(sig('Could not find a path for pattern 4, falling back to simple order')).toBe('graph-search-fallback');
    expect(sig('[Proxy Service 4] Failed to execute operation Connect from rank 4, retcode 2')).toBe('proxy-failure');
    expect(sig('Proxy Call to rank 4 failed (Connect)')).toBe('proxy-failure');
    expect(sig('Socket recv failed while polling for opId=0x7f6f18cb7f40')).toBe('proxy-failure');
  });
  it('the other WARNs', () => {
    expect(sig('NET/Socket : no interface found')).toBe('no-socket-interface');
    expect(sig('Bootstrap : no socket interface found')).toBe('no-socket-interface');
    expect(sig('NET/IB : No IP interface found.')).toBe('no-socket-interface');
    expect(sig('NET/Socket : No usable listening interface found')).toBe('no-socket-interface');
    expect(sig('Failed to open libibverbs.so[.1]')).toBe('libibverbs-missing');
    expect(sig('Call to ibv_modify_qp failed with error Connection timed out')).toBe('ibv-modify-qp');
    expect(warnProblem('Call to ibv_modify_qp failed with 110 Connection timed out, on dev rocep1s0f0:1, curr state INIT, next state RTR').detail).toBe('Connection timed out');
    expect(sig('Call to ibv_create_qp failed with error Cannot allocate memory errno 12')).toBe('ibv-create-qp');
    expect(sig('socketStartConnect: Connect to 10.0.0.9<41233> failed : Connection refused')).toBe('socket-connect');
    expect(sig('Connect to 10.0.0.9<41233> failed : No route to host')).toBe('socket-connect');
    expect(sig('ncclSocketConnect: connect to 10.0.0.9<41233> failed : Network is unreachable')).toBe('socket-connect');
    expect(sig('socketPollConnect: exceeded timeouts (20000)')).toBe('socket-timeout');
    expect(sig('socketProgress: Connection closed by remote peer n2<52334>')).toBe('peer-closed');
    expect(sig('Net : Connection closed by remote peer')).toBe('peer-closed');
    expect(sig('Bootstrap Root : rank 3 of 8 ranks has already checked in')).toBe('bootstrap-duplicate-rank');
    expect(sig('Error while creating shared memory segment /dev/shm/nccl-x (size 9637888)')).toBe('shm');
    expect(sig('failed to open CUDA IPC handle : 201 invalid device context')).toBe('cuda-ipc');
    expect(sig('Could not find NET with id 1f0')).toBe('net-id-not-found');
    expect(sig('Could not find net id 1f0')).toBe('net-id-not-found');
    expect(sig('NET/IB: read failed in ncclIbRoceGetVersionNum: Invalid argument')).toBe('gid-query');
    expect(sig('Call to ibv_query_gid failed with error Invalid argument')).toBe('gid-query');
    expect(sig('Error: network IB not found.')).toBe('network-not-found');
    expect(sig('Failed to initialize any NET plugin')).toBe('network-not-found');
    expect(sig('Something new 42')).toBe('warn:Something new N');
  });
  it('INFO lines that are problems: the silent fallback', () => {
    expect(infoProblem('NET/IB : No device found.')?.signature.id).toBe('ib-no-device');
    expect(infoProblem('Failed to open libibverbs.so[.1]')?.signature.id).toBe('libibverbs-missing');
    expect(infoProblem('Using network IB')).toBeNull();
  });
});
