// Shapes of NCCL logs as users paste them into issues, composed here from
// NCCL's format strings and the paste artefacts seen in public threads (no
// thread's text is copied): a header cut off, a Markdown link in the source
// field, a log collector's export, interface aliases, an exception that
// quotes the version, releases that print no bootstrap or network line.
import { describe, expect, it } from 'vitest';
import { LogCollector } from '../../src/model/log/analyze.js';
import { parseEndpoint } from '../../src/model/log/facts.js';
import { parseLine } from '../../src/model/log/line.js';

const analyse = (lines: string[]) => {
  const c = new LogCollector();
  for (const l of lines) c.addLine(l);
  return c.result();
};

describe('lines whose host:pid:tid was cut off', () => {
  it('are NCCL lines of an unknown host: `[dev] file:line`, `file:line`, `[dev]`, nothing', () => {
    const shapes: [string, number | null, string | null][] = [
      ['[0] misc/socket.cc:71 NCCL WARN socketProgress: Connection closed by remote peer 10.0.0.2<36138>', 0, 'misc/socket.cc:71'],
      ['[3] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>', 3, null],
      ['misc/socket.cc:537 NCCL WARN ncclSocketInit: connecting to address with family 33022 is neither AF_INET(2) nor AF_INET6(10)', null, 'misc/socket.cc:537'],
      ['NCCL WARN NET/IB : Got completion from peer 10.0.0.2<4100> with status=12 opcode=0 len=0 vendor err 129 (Send)', null, null],
      ['[1,0]<stdout>:[2] graph/topo.h:230 NCCL WARN Could not find NET with id 0', 2, 'graph/topo.h:230'],
    ];
    for (const [line, dev, source] of shapes) expect(parseLine(line), line).toMatchObject({ host: '', pid: null, cudaDev: dev, source });
    const r = analyse(shapes.map(([l]) => l));
    expect(r.input.ncclLines).toBe(5);
    expect(r.hosts.map((h) => h.host)).toEqual(['(unknown host)']);
    expect(r.summary.bootstrap).toEqual({ ifname: 'eth0', address: '10.0.0.1' });
    const sigs = r.summary.errors.map((e) => e.signature);
    expect(sigs).toEqual(expect.arrayContaining(['ib-completion-12', 'net-id-not-found', 'peer-closed']));
    expect(sigs).toHaveLength(4);
  });

  it('but text in front that is no launcher\'s, or a level word in prose, is not NCCL\'s', () => {
    for (const l of ['some text NCCL WARN x', 'see the NCCL INFO lines above', 'x [0] misc/socket.cc:71 NCCL WARN y', 'ERROR 10:00 NCCL INFO z']) expect(parseLine(l), l).toBeNull();
  });
});

describe('what paste tools and collectors do to the header', () => {
  it('a Markdown link in the source field keeps the line and its host', () => {
    const l = 'node23:10214:10303 [0] transport/[net_ib.cc:1909](http://net_ib.cc:1909/) NCCL WARN NET/IB : Got completion from peer 10.1.3.201<33057> with status=9 opcode=0 len=0 vendor err 244 (Recv)';
    expect(parseLine(l)).toMatchObject({ level: 'WARN', host: 'node23', source: 'transport/[net_ib.cc:1909](http://net_ib.cc:1909/)' });
    const r = analyse([l]);
    expect(r.summary.errors.map((e) => e.signature)).toEqual(['ib-completion-9']);
    expect(r.hosts.map((h) => h.host)).toEqual(['node23']);
  });

  it('a collector export: an ISO time glued to the host, table bars, a second column run on', () => {
    const lines = [
      '  | 2025-05-16T16:39:51.208-07:00 | NCCL version 2.21.5+cuda12.8',
      '  | 2025-05-16T16:39:51.208-07:00ip-10-0-29-253:79:79 [0] NCCL INFO Bootstrap : Using eth0:10.0.29.253<0> | ip-10-0-29-253:79:79 [0] NCCL INFO Bootstrap : Using eth0:10.0.29.253<0>',
    ];
    const r = analyse(lines);
    expect(r.summary.ncclVersion).toBe('2.21.5');
    expect(r.hosts.map((h) => h.host)).toEqual(['ip-10-0-29-253']);
    expect(r.summary.bootstrap).toEqual({ ifname: 'eth0', address: '10.0.29.253' });
  });
});

describe('interfaces as NCCL prints them (`%s:%s`, the address from getnameinfo)', () => {
  it('an alias name holds a colon; IPv6 addresses hold colons; masked and run-on text', () => {
    const cases: [string, { ifname: string; address: string | null }][] = [
      ['eth0:10.0.0.1<0>', { ifname: 'eth0', address: '10.0.0.1' }],
      ['eno1:avahi:10.1.2.3<0>', { ifname: 'eno1:avahi', address: '10.1.2.3' }],
      ['eth0:1:10.0.0.1<0>', { ifname: 'eth0:1', address: '10.0.0.1' }],
      ['eno1:avahi:xxx.xxx.xxx.xxx<0>', { ifname: 'eno1:avahi', address: 'xxx.xxx.xxx.xxx' }],
      ['eth0:xxx.xxx.xxx.xxx<0>', { ifname: 'eth0', address: 'xxx.xxx.xxx.xxx' }],
      ['ib0:fe80::a:b:c:d%ib0<0>', { ifname: 'ib0', address: 'fe80::a:b:c:d%ib0' }],
      ['eth0:::ffff:10.1.2.3<0>', { ifname: 'eth0', address: '::ffff:10.1.2.3' }],
      ['eth0:10.0.0.1<0> | next column', { ifname: 'eth0', address: '10.0.0.1' }],
      ['mlx5_0:1', { ifname: 'mlx5_0', address: null }],
      ['eth0:<0>', { ifname: 'eth0', address: null }],
    ];
    for (const [text, want] of cases) expect(parseEndpoint(text), text).toEqual(want);
    expect(analyse(['h1:1:1 [0] NCCL INFO Bootstrap : Using eno1:avahi:10.1.2.3<0>']).hosts[0]!.bootstrap).toEqual({ ifname: 'eno1:avahi', address: '10.1.2.3' });
  });
});

describe('an exception that quotes NCCL\'s version', () => {
  it('gives the version, and no host named after the exception', () => {
    const lines = [
      'RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1201, internal error, NCCL version 2.14.3',
      '(pid=4242) torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:219, unhandled system error, NCCL version 2.14.3',
      'gpu1:7:7 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>',
    ];
    const r = analyse(lines);
    expect(r.summary.ncclVersion).toBe('2.14.3');
    expect(r.hosts.map((h) => h.host).filter((h) => h !== '(unknown host)')).toEqual(['gpu1']);
    // The failure it reports is a problem of its own, by NCCL's result.
    expect(r.summary.errors.map((e) => [e.signature, e.detail, e.count])).toEqual([
      ['torch-nccl-error', 'internal error', 1],
      ['torch-nccl-error', 'unhandled system error', 1],
    ]);
    // Anything else before the version is not NCCL's banner.
    expect(parseLine('we moved to NCCL version 2.18.1 last week')).toBeNull();
    expect(parseLine('[1,0]<stdout>:NCCL version 2.18.3+cuda12.2')).toMatchObject({ level: 'VERSION', launcher: { task: '1,0' } });
  });
});

describe('releases that print no bootstrap or network line', () => {
  const h = (n: string) => `${n}:20:289 [0] NCCL INFO `;
  it('before 2.4.8 the bootstrap is the socket transport\'s first interface, and IB is used when it lists devices', () => {
    const r = analyse([
      'NCCL version 2.4.7+cuda10.1',
      `${h('a')}NET/Socket : Using [0]ib0:192.168.11.1<0> [1]eth0:10.0.0.1<0>`,
      `${h('a')}NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:192.168.11.1<0>`,
    ]);
    expect(r.summary).toMatchObject({ bootstrap: { ifname: 'ib0', address: '192.168.11.1' }, transport: 'IB' });
    expect(r.hosts[0]).toMatchObject({ bootstrap: { ifname: 'ib0', address: '192.168.11.1' }, transport: 'IB' });
  });

  it('2.4.8–2.5.x: sockets after `No device found`, a loaded plugin before IB; from 2.6 nothing is guessed', () => {
    const socket = ['NCCL version 2.5.6+cuda10.2', `${h('a')}Bootstrap : Using [0]eth0:10.0.0.1<0>`, `${h('a')}NET/IB : No device found.`, `${h('a')}NET/Socket : Using [0]eth0:10.0.0.1<0>`];
    expect(analyse(socket).summary).toMatchObject({ bootstrap: { ifname: 'eth0' }, transport: 'Socket' });
    const plugin = ['NCCL version 2.5.6+cuda10.2', `${h('a')}NET/Plugin : Loaded net plugin AWS Libfabric (v2)`, `${h('a')}NET/IB : Using [0]mlx5_0:1/IB ; OOB eth0:10.0.0.1<0>`];
    expect(analyse(plugin).hosts[0]).toMatchObject({ transport: 'AWS Libfabric' });
    // From 2.6.4 NCCL says `Using network`: without it ncclx does not guess; nor without a version.
    expect(analyse(socket.map((l) => l.replace('2.5.6', '2.6.4'))).summary.transport).toBeNull();
    expect(analyse(socket.slice(1)).summary.transport).toBeNull();
    // Before 2.4.8 only: a 2.5 log states its bootstrap, so NET/Socket does not stand for it.
    expect(analyse(['NCCL version 2.5.6+cuda10.2', `${h('a')}NET/Socket : Using [0]eth1:10.0.0.9<0>`]).summary.bootstrap).toBeNull();
  });
});

describe('net plugins named other ways', () => {
  it('`P2P plugin IBext` as the plugin loads, and a channel\'s `via NET/<name>`', () => {
    expect(analyse(['n1:1:2 [0] NCCL INFO Plugin Path : /opt/hpcx/nccl_rdma_sharp_plugin/lib/libnccl-net.so', 'n1:1:2 [0] NCCL INFO P2P plugin IBext']).summary.netPlugin).toBe('IBext');
    const r = analyse(['n1:1:2 [0] NCCL INFO Channel 00 : 0[160] -> 1[170] [send] via NET/AWS Libfabric/0']);
    expect(r.summary).toMatchObject({ transport: 'AWS Libfabric', netPlugin: 'AWS Libfabric' });
    expect(r.hosts[0]).toMatchObject({ transport: 'AWS Libfabric', netPlugin: 'AWS Libfabric' });
    // NCCL's own transports are no plugin.
    expect(analyse(['n1:1:2 [0] NCCL INFO Channel 00 : 0[160] -> 1[170] [send] via NET/IB/0']).summary.netPlugin).toBeNull();
  });
});

describe('a plugin named two ways', () => {
  it('is no asymmetry: a host\'s excerpt shows `Loaded net plugin …`, another\'s only `Using network`; nor is a plugin loaded and unused', () => {
    const a = 'g20:1:2 [0] NCCL INFO ';
    const b = 'g19:1:2 [0] NCCL INFO ';
    const lines = [`${a}NET/Plugin: Loaded net plugin NCCL RDMA Plugin v6 (v6)`, `${a}P2P plugin IBext`, `${a}Using network IBext`, `${b}Using network IBext`];
    expect(analyse(lines).asymmetries).toEqual([]);
    // A plugin used on some hosts only is a transport that differs; one loaded and unused (HPC-X's plugin in a
    // container on a node without IB, then sockets like the others) is no difference at all.
    const r = analyse([...lines, 'g18:1:2 [0] NCCL INFO Using network IB']);
    expect(r.asymmetries.map((x) => [x.fact, x.outliers])).toEqual([['transport', ['g18']]]);
    const unused = ['g1:1:2 [0] NCCL INFO P2P plugin IBext', 'g1:1:2 [0] NCCL INFO NET/IB : No device found.', 'g1:1:2 [0] NCCL INFO Using network Socket', 'g2:1:2 [0] NCCL INFO Using network Socket'];
    expect(analyse(unused).asymmetries).toEqual([]);
  });
});

describe('hosts', () => {
  it('a host whose lines state nothing ncclx reads is still listed, with its process', () => {
    const r = analyse(['nd20-01:191:219 [0] NCCL INFO cudaDriverVersion 12020', 'nd20-02:77:78 [1] NCCL INFO Setting affinity for GPU 1 to ffff']);
    expect(r.hosts.map((x) => [x.host, x.processes])).toEqual([
      ['nd20-01', 1],
      ['nd20-02', 1],
    ]);
  });
});

describe('wordings of older releases and of paste damage', () => {
  it('a completion error without its peer (≤ 2.10), an errno text closed by a typographic quote', () => {
    const r = analyse(['n1:1:2 [0] transport/net_ib.cc:789 NCCL WARN NET/IB : Got completion with error 12, opcode 0, len 0, vendor err 129', '\u201dmisc/ibvwrap.cc:280 NCCL WARN Call to ibv_create_qp failed\u201c']);
    expect(r.summary.errors.map((e) => e.signature).sort()).toEqual(['ib-completion-12', 'ibv-create-qp']);
  });

  it('a net plugin NCCL found but would not load is a warning; the versions it tries first are not', () => {
    const h = 'n1:1:1 [0] NCCL INFO ';
    for (const last of ['NET/Plugin: Failed to find ncclNetPlugin symbol (>= v5). ncclNetPlugin symbols v4 and lower are not supported.', 'NET/Plugin: Failed to find ncclNetPlugin symbol (v4 or v5).', 'NET/Plugin: Failed to find ncclNetPlugin_v4 symbol.', 'NET/Plugin: Failed to find ncclNetPlugin symbol.']) {
      expect(analyse([h + last]).summary.warnings.map((w) => w.signature), last).toEqual(['net-plugin-rejected']);
    }
    expect(analyse([`${h}NET/Plugin: Failed to find ncclNetPlugin_v8 symbol.`, `${h}NET/Plugin: Failed to find ncclCollNetPlugin symbol (v4 or v5).`]).summary.warnings).toEqual([]);
  });
});

describe('2.30.7 says at INFO what it used to WARN', () => {
  it('a peer on the wrong kind of socket, or of another job, is discarded: still the same problems', () => {
    const h = 'n1:1:2 [0] NCCL INFO ';
    const r = analyse([
      `${h}socketFinalizeAccept from 10.0.0.2<41234>: wrong socket type (peer 4 != expected 3 -- peer connected to wrong NCCL socket), discarding peer connection`,
      `${h}socketFinalizeAccept from 10.0.0.3<41235>: socket magic mismatch (peer 0x00000000deadbeef != expected 0x1234567890abcdef), discarding peer connection`,
      `${h}socketFinalizeAccept: handshake receive from 10.0.0.4<1> failed, discarding peer connection`,
    ]);
    expect(r.summary.errors.map((e) => [e.signature, e.detail])).toEqual([['socket-wrong-type', 'peer NET/IB, expected NET/Socket']]);
    expect(r.summary.warnings.map((e) => e.signature)).toEqual(['socket-wrong-magic']);
  });
});

describe('a second set of pasted logs', () => {
  const W = (src: string) => `n1:10:20 [3] ${src} NCCL WARN `;
  const sigs = (lines: string[]) => {
    const r = analyse(lines);
    return [...r.summary.errors, ...r.summary.warnings].map((p) => [p.signature, p.severity, p.detail]);
  };

  it('failures that had no signature of their own', () => {
    expect(sigs([`${W('transport/nvls.cc:287')}Failed to bind NVLink SHARP (NVLS) Multicast memory of size 2097152 : CUDA error 2 'out of memory'.`])).toEqual([['nvls', 'error', 'out of memory']]);
    // 2.26's CUDACHECK in nvls.cc: the file tells it from a CUDA failure elsewhere.
    expect(sigs([`${W('transport/nvls.cc:254')}Cuda failure 401 'the operation cannot be performed in the present state'`])).toEqual([['nvls', 'error', 'the operation cannot be performed in the present state']]);
    expect(sigs([`${W('enqueue.cc:47')}Cuda failure 'named symbol not found'`])).toEqual([['cuda-failure', 'error', 'named symbol not found']]);
    expect(sigs([`${W('graph/rings.cc:38')}Error : ring 0 does not loop back to start (4 != 0)`])).toEqual([['ring-no-loop', 'error', '']]);
    expect(sigs([`${W('misc/ibvwrap.cc:288')}Call to ibv_reg_dmabuf_mr failed with error Operation not supported`])).toEqual([['ib-reg-mr', 'error', 'Operation not supported']]);
    expect(sigs([`${W('include/alloc.h:185')}Failed to CUDA calloc 6291456 bytes`])).toEqual([['cuda-failure', 'error', 'out of memory']]);
    expect(sigs([`${W('graph/search.cc:703')}XML Import Channel : dev 1 not found.`])).toEqual([['graph-file-mismatch', 'error', '']]);
  });

  it('GPUDirect RDMA off for want of its module, and a plugin that is there but will not load, are warnings', () => {
    const h = 'n1:10:20 [0] NCCL INFO ';
    expect(sigs([`${h}NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0' (no module)`])).toEqual([['gdr-no-module', 'warn', 'mlx5_0']]);
    expect(sigs([`${h}NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'`, `${h}NET/IB : GPU Direct RDMA Enabled for HCA 1 'mlx5_1'`])).toEqual([]);
    const glibc = "NET/Plugin: Plugin load returned 2 : /lib/x86_64-linux-gnu/libc.so.6: version `GLIBC_2.32' not found (required by /usr/local/nvidia/lib64/libnccl-net.so) : when loading libnccl-net.so";
    expect(sigs([h + glibc])[0]!.slice(0, 2)).toEqual(['net-plugin-rejected', 'warn']);
    // The usual absence of a plugin is nothing.
    expect(sigs([`${h}NET/Plugin : Plugin load (libnccl-net.so) returned 2 : libnccl-net.so: cannot open shared object file: No such file or directory`])).toEqual([]);
  });

  it('`NET/IB : No device found` is no silent fallback where the job turned IB off', () => {
    const h = 'n1:10:20 [0] NCCL INFO ';
    expect(sigs([`${h}P2P plugin IBext`, `${h}NET/IB : No device found.`, `${h}NCCL_IB_DISABLE set by environment to 1.`, `${h}Using network Socket`])).toEqual([]);
    expect(sigs([`${h}NET/IB : No device found.`, `${h}Using network Socket`]).map((x) => x[0])).toEqual(['ib-no-device']);
  });

  it('PyTorch before 1.11 printed NCCL ≥ 2.9 as 21.1.4; its exception goes to the host its launcher task names', () => {
    const r = analyse(['52: ip-10-0-0-7:71:71 [4] NCCL INFO Bootstrap : Using eth0:10.0.0.7<0>', '52: RuntimeError: NCCL error in: ../torch/lib/c10d/ProcessGroupNCCL.cpp:975, internal error, NCCL version 21.1.4']);
    expect(r.summary.ncclVersion).toBe('2.11.4');
    expect(r.hosts.map((h) => h.host)).toEqual(['ip-10-0-0-7']);
    expect(r.summary.errors.map((e) => [e.signature, e.hosts])).toEqual([['torch-nccl-error', ['ip-10-0-0-7']]]);
    expect(parseLine('RuntimeError: NCCL error in: x.cpp:1, internal error, NCCL version 2.18.3')?.message).toBe('NCCL version 2.18.3');
  });

  it('a plugin\'s own source field (a C++ signature) and a Markdown code span\'s backtick', () => {
    const tcpx = 'tcpxResult_t tcpxCommProgress(tcpxComm*):1231 NCCL WARN 0x7f00, nic 0, enp12s0, 10.0.0.1<4000><-10.0.0.2<5000> rx rx ctrl timeout cnt 1, nanos 5000';
    expect(parseLine(`a3-vm-1:1:2 [0] ${tcpx}`)).toMatchObject({ level: 'WARN', host: 'a3-vm-1', source: 'tcpxResult_t tcpxCommProgress(tcpxComm*):1231' });
    expect(parseLine(`[0] ${tcpx}`)).toMatchObject({ level: 'WARN', host: '', cudaDev: 0 });
    const r = analyse(['error log `H100-2:19989:20082 [1] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer 10.0.0.1<1> with error 12, opcode 0, len 0, vendor err 129 (Send)', 'H100-2:19989:20082 [1] NCCL INFO Using network IB']);
    expect(r.hosts.map((h) => h.host)).toEqual(['H100-2']);
  });

  it('a host whose lines are WARNs and traces only still counts its processes', () => {
    const r = analyse(['ng1:3063025:3063100 [0] misc/socket.cc:50 NCCL WARN socketStartConnect: Connect to 10.0.0.9<4000> failed : Connection refused', 'ng1:3063028:3063101 [1] NCCL INFO misc/socket.cc:564 -> 2']);
    expect(r.hosts.map((h) => [h.host, h.processes])).toEqual([['ng1', 2]]);
  });
});

describe('PyTorch\'s `Last error:`', () => {
  it('the line after it is NCCL\'s WARN text, read as a WARN; the hint is not the result', () => {
    const r = analyse([
      '[rank3]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.19.3',
      '[rank3]: ncclInvalidUsage: This usually reflects invalid usage of NCCL library.',
      '[rank3]: Last error:',
      '[rank3]: Duplicate GPU detected : rank 3 and rank 0 both on CUDA device f000',
      'Last error:  ',
      'socketProgressOpt: Call to recv from 10.0.0.1<50000> failed : Connection reset by peer',
      'Last error:',
      'gpu1:1:2 [0] NCCL INFO Using network IB',
      'Duplicate GPU detected : rank 5 and rank 0 both on CUDA device f000',
    ]);
    expect(r.summary.errors.map((e) => [e.signature, e.detail])).toEqual([
      ['torch-nccl-error', 'invalid usage'],
      ['duplicate-gpu', ''],
      ['peer-closed', 'Connection reset by peer'],
    ]);
    // Only the line right after `Last error:` is read: an NCCL line in between ends it.
    expect(r.summary.errors.find((e) => e.signature === 'duplicate-gpu')!.count).toBe(1);
  });
});

describe('lines a terminal copy glued together', () => {
  it('each statement counts, with its own header; a message that only names NCCL stays one line', () => {
    const ch = (host: string, tid: number, rank: number) => `${host}:11980:${tid} [2] NCCL INFO Channel 03/0 : ${rank}[2] -> 10[2] [send] via NET/IBext/2/GDRDMA`;
    const glued = `${ch('vm-17', 1, 2)}                    ${ch('vm-17', 2, 3)}         ${ch('vm-18', 3, 4)}`;
    const r = analyse([glued]);
    expect(r.input).toMatchObject({ lines: 1, ncclLines: 3 });
    expect(r.ranks.map((x) => [x.host, x.rank, x.transports])).toEqual([
      ['vm-17', 2, { 'NET/IBext': 1 }],
      ['vm-17', 3, { 'NET/IBext': 1 }],
      ['vm-18', 4, { 'NET/IBext': 1 }],
    ]);
    // The IB transport's own `NCCL Dev` and a variable's `NCCL_` are no second statement.
    const qp = 'n1:1:2 [0] NCCL INFO NET/IB: NCCL Dev 5 IbDev 5 Port 1 qpn 4001 mtu 5 GID 3 (80FE/1)';
    expect(analyse([qp]).input.ncclLines).toBe(1);
  });
});

describe('interfaces compared by kind', () => {
  it('names unique per VM (Azure IPoIB) are one kind; eth0 against docker0 is not', () => {
    const b = (host: string, ifname: string, ip: string) => `${host}:1:2 [0] NCCL INFO Bootstrap : Using ${ifname}:${ip}<0>`;
    expect(analyse([b('vm1', 'ibP257s452603', '172.16.1.94'), b('vm2', 'ibP257s464513', '172.16.1.56')]).asymmetries).toEqual([]);
    const r = analyse([b('n1', 'eth0', '10.0.0.1'), b('n2', 'eth0', '10.0.0.2'), b('n3', 'docker0', '172.17.0.1')]);
    expect(r.asymmetries.map((x) => [x.fact, x.values.map((v) => v.value), x.outliers])).toEqual([['bootstrap', ['eth*', 'docker*'], ['n3']]]);
  });
});

describe('crafted long lines stay linear', () => {
  // Each of these took seconds a line with the searches written naively (quadratic in the line's length):
  // eight such lines take minutes that way, well under a second now. The time limit is a guard against a hang,
  // far above the expected time; speed itself is measured by `npm run bench`.
  it('blank runs between statements, fake headers before NCCL, rules\' phrases repeated in a message', { timeout: 20_000 }, () => {
    const lines: string[] = [];
    for (let i = 0; i < 8; i++) {
      lines.push(`h${i}:1:2 [0] NCCL INFO NCCL INFO${' '.repeat(65_000)}x`);
      lines.push(`${'a:1:2 [0] '.repeat(6000)}NCCL INFO x${i}`);
      lines.push(`[0] ${'x('.repeat(30_000)}NCCL WARN y${i}`);
      lines.push(`h${i}:1:2 [0] misc/socket.cc:1 NCCL WARN ${'Connect to a returned 1('.repeat(2500)}`);
      lines.push(`h${i}:1:2 [0] NCCL INFO ${'connect returned x, '.repeat(3000)}`);
    }
    const r = analyse(lines);
    expect(r.input.lines).toBe(40);
    expect(r.summary.errors.length).toBeGreaterThan(0);
  });
});

describe('the QP line\'s GID, read in linear time', () => {
  it('gives what NCCL-shaped regex `\\bIbDev (\\d+) Port (\\d+) .*?\\bGID (\\d+)` gives, on random token strings', async () => {
    const fc = (await import('fast-check')).default;
    const { factOf } = await import('../../src/model/log/facts.js');
    const re = /\bIbDev (\d+) Port (\d+) .*?\bGID (\d+)/;
    const token = fc.constantFrom('IbDev ', 'Port ', 'GID ', '1', '23', ' ', 'x', '_', '(', 'aIbDev ', 'xGID ', '0x1 ');
    fc.assert(
      fc.property(fc.array(token, { maxLength: 24 }), (ts) => {
        const msg = `NET/IB: NCCL Dev 0 ${ts.join('')}`;
        const m = re.exec(msg);
        const f = factOf(msg);
        expect(f?.kind === 'gid' ? [f.ibDev, f.port, f.gidIndex] : null).toEqual(m ? [Number(m[1]), Number(m[2]), Number(m[3])] : null);
      }),
      { numRuns: 3000, seed: 20261126 },
    );
  });
});
