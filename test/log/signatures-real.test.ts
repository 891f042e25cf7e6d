// Signatures that a check on real user logs found missing or wrong. Every
// message below is composed from NCCL's own format string of the releases
// named (NVIDIA/nccl tags v2.4.8 … v2.30.7), judged by warnProblem /
// infoProblem, then end to end as a whole log line through LogCollector —
// as text (addLine) and, for INFO lines, as bytes (addAsciiLine), the two
// paths by which an INFO line reaches infoProblem.
import { describe, expect, it } from 'vitest';
import type { AsciiBytes } from '../../src/model/log/ascii.js';
import { LogCollector, logExitCode, type LogAnalysis } from '../../src/model/log/analyze.js';
import { infoProblem, warnProblem, type ProblemSeverity } from '../../src/model/log/signatures.js';

type Want = [id: string, severity: ProblemSeverity, detail: string];
/** [what: releases and format, message as NCCL prints it, expected]. */
type Case = [string, string, Want];

const WARN = (src: string) => `gpu7:2231:2290 [3] ${src} NCCL WARN `;
const INFO = 'gpu7:2231:2290 [3] NCCL INFO ';

function judged(m: { signature: { id: string; severity: ProblemSeverity }; detail: string } | null): Want | null {
  return m ? [m.signature.id, m.signature.severity, m.detail] : null;
}

function collect(lines: string[], bytes = false): LogAnalysis {
  const c = new LogCollector();
  for (const l of lines) {
    if (!bytes) c.addLine(l);
    else {
      const b = Buffer.from(l, 'latin1');
      c.addAsciiLine(b as unknown as AsciiBytes, 0, b.length, b.indexOf('NCCL'));
    }
  }
  return c.result();
}

/** The one problem a log of these lines shows, as [id, severity, detail]. */
function problemOf(a: LogAnalysis): Want[] {
  return [...a.summary.errors, ...a.summary.warnings].map((p) => [p.signature, p.severity, p.detail]);
}

/** Each WARN case through warnProblem and as a full WARN line. */
function warnCases(name: string, src: string, cases: Case[]): void {
  describe(name, () => {
    for (const [what, msg, want] of cases) {
      it(what, () => {
        expect(judged(warnProblem(msg))).toEqual(want);
        const a = collect([`${WARN(src)}${msg}`]);
        expect(problemOf(a)).toEqual([want]);
        expect(logExitCode(a)).toBe(want[1] === 'error' ? 1 : 0);
      });
    }
  });
}

/** Each INFO case through infoProblem and as a full INFO line, as text and as bytes. */
function infoCases(name: string, cases: Case[]): void {
  describe(name, () => {
    for (const [what, msg, want] of cases) {
      it(what, () => {
        expect(judged(infoProblem(msg))).toEqual(want);
        for (const bytes of [false, true]) {
          const a = collect([`${INFO}Using network Socket`, `${INFO}${msg}`], bytes);
          expect(problemOf(a)).toEqual([want]);
          expect(logExitCode(a)).toBe(want[1] === 'error' ? 1 : 0);
        }
      });
    }
  });
}

/** INFO lines that must stay clean (text and bytes), and what infoProblem says of them. */
function infoClean(name: string, msgs: string[]): void {
  it(name, () => {
    for (const msg of msgs) {
      expect(infoProblem(msg), msg).toBeNull();
      for (const bytes of [false, true]) {
        const a = collect([`${INFO}${msg}`], bytes);
        expect(problemOf(a), msg).toEqual([]);
        expect(logExitCode(a)).toBe(0);
      }
    }
  });
}

warnCases('socket-connect: every connect failure, with the errno text', 'misc/socket.cc:533', [
  ['2.20–2.23 `socketPollConnect: Connect to %s returned %d(%s) errno %d(%s)`: the first errno, not the stale one', 'socketPollConnect: Connect to 10.0.0.4<56849> returned 113(No route to host) errno 115(Operation now in progress)', ['socket-connect', 'error', 'No route to host']],
  ['2.16–2.23 `socketStartConnect: exceeded retries (%d)`: the refused retries ran out', 'socketStartConnect: exceeded retries (20000)', ['socket-connect', 'error', 'Connection refused']],
  ['2.16–2.23 `socketPollConnect: exceeded retries (%d)`', 'socketPollConnect: exceeded retries (20000)', ['socket-connect', 'error', 'Connection refused']],
  ['2.16.5–2.26 `socketPollConnect poll() failed with error %s`', 'socketPollConnect poll() failed with error Cannot allocate memory', ['socket-connect', 'error', 'Cannot allocate memory']],
  ['2.23–2.26 `socketPollConnect poll() returned %d%s`', 'socketPollConnect poll() returned 1, no POLLOUT events', ['socket-connect', 'error', 'poll() returned 1, no POLLOUT events']],
  ['2.27–2.28 `socketPollConnect to %s failed with error %s`', 'socketPollConnect to 10.0.0.4<56849> failed with error No route to host', ['socket-connect', 'error', 'No route to host']],
  ['≥ 2.29 `ncclOsSocketPollConnect to %s failed with error %s`', 'ncclOsSocketPollConnect to 10.0.0.4<56849> failed with error Network is unreachable', ['socket-connect', 'error', 'Network is unreachable']],
  ['2.24–2.26 `%s: connect returned %s, exceeded error retry count (%d)`, refused: no timeout', 'socketStartConnect: connect returned Connection refused, exceeded error retry count (35)', ['socket-connect', 'error', 'Connection refused']],
  ['≥ 2.27 `%s: connect to %s returned %s, exceeded error retry count after %d attempts`, no route', 'socketPollConnect: connect to 10.0.0.4<56849> returned No route to host, exceeded error retry count after 35 attempts', ['socket-connect', 'error', 'No route to host']],
  ['≥ 2.29 the same from ncclOsSocketStartConnect, refused', 'ncclOsSocketStartConnect: connect to 10.0.0.4<56849> returned Connection refused, exceeded error retry count after 35 attempts', ['socket-connect', 'error', 'Connection refused']],
  ['2.24–2.26 exceeded with a timeout stays socket-timeout', 'socketPollConnect: connect returned Connection timed out, exceeded error retry count (35)', ['socket-timeout', 'error', '']],
  ['≥ 2.27 exceeded with a timeout stays socket-timeout', 'socketPollConnect: connect to 10.0.0.4<56849> returned Connection timed out, exceeded error retry count after 35 attempts', ['socket-timeout', 'error', '']],
  ['2.16–2.23 `exceeded timeouts (%d)` stays socket-timeout', 'socketPollConnect: exceeded timeouts (3)', ['socket-timeout', 'error', '']],
]);

warnCases('peer-closed: recv/send failing because the peer reset or closed', 'misc/socket.cc:30', [
  ['2.4–2.9 `Call to recv failed : %s`', 'Call to recv failed : Connection reset by peer', ['peer-closed', 'error', 'Connection reset by peer']],
  ['2.10–2.15 `Net : Call to recv from %s failed : %s`', 'Net : Call to recv from 10.0.0.2<52035> failed : Connection reset by peer', ['peer-closed', 'error', 'Connection reset by peer']],
  ['2.16–2.23 `socketProgressOpt: Call to recv from %s failed : %s`', 'socketProgressOpt: Call to recv from 11.0.0.7<52035> failed : Connection reset by peer', ['peer-closed', 'error', 'Connection reset by peer']],
  ['2.24–2.28 `socketProgressOpt: Call to %s %s failed : %s`, send to', 'socketProgressOpt: Call to send to 11.0.0.7<52035> failed : Broken pipe', ['peer-closed', 'error', 'Broken pipe']],
  ['≥ 2.29 `ncclOsSocketProgressOpt: Call to %s %s failed : %s`', 'ncclOsSocketProgressOpt: Call to recv from 11.0.0.7<52035> failed : Connection reset by peer', ['peer-closed', 'error', 'Connection reset by peer']],
  ['`Connection closed by remote peer` keeps its signature', 'socketProgress: Connection closed by remote peer gpu8<52035>', ['peer-closed', 'error', '']],
]);

warnCases('proxy-failure: the service thread giving up on a connection', 'proxy.cc:1538', [
  ['2.17–2.30 `[Service thread] Error encountered progressing operation=%s, res=%d, closing connection`', '[Service thread] Error encountered progressing operation=Connect, res=3, closing connection', ['proxy-failure', 'error', '']],
  ['2.12–2.16 `[Service thread] Could not receive type from localRank %d`', '[Service thread] Could not receive type from localRank 0', ['proxy-failure', 'error', '']],
  ['≥ 2.17 `…, res=%u, closed=%d`', '[Service thread] Could not receive type from localRank 3, res=3, closed=0', ['proxy-failure', 'error', '']],
]);

warnCases('shm: shmutils.cc cannot open the segment', 'misc/shmutils.cc:65', [
  ['2.12–2.15 SYSCHECKVAL `Call to open failed : %s`', 'Call to open failed : No such file or directory', ['shm', 'error', 'No such file or directory']],
  ['≥ 2.23 SYSCHECKGOTO `Call to open failed: %s`', 'Call to open failed: No such file or directory', ['shm', 'error', 'No such file or directory']],
]);

warnCases('IB device and verbs failures', 'misc/ibvwrap.cc:155', [
  ['≤ 2.13 IBV_PTR_CHECK `Call to ibv_create_cq failed`', 'Call to ibv_create_cq failed', ['ibv-create-cq', 'error', '']],
  ['≥ 2.14 IBV_PTR_CHECK_ERRNO `Call to ibv_create_cq failed with error %s`', 'Call to ibv_create_cq failed with error Cannot allocate memory', ['ibv-create-cq', 'error', 'Cannot allocate memory']],
  ['all: IBV_PTR_CHECK `Call to ibv_open_device failed`: NCCL skips the device', 'Call to ibv_open_device failed', ['ib-open-device', 'warn', '']],
  ['all: `NET/IB : Unable to open device %s`', 'NET/IB : Unable to open device mlx5_59', ['ib-open-device', 'warn', 'mlx5_59']],
  ['≥ 2.8.4 `Could not find real path of %s (%s)` (soft-RoCE): NCCL goes on without the path', 'Could not find real path of rxe0 (/sys/class/infiniband/rxe0/device)', ['ib-pci-path', 'warn', 'rxe0']],
  ['≤ 2.5 `Could not find real path of %s` (the device path; its caller ignores the error)', 'Could not find real path of /sys/class/infiniband/siw0/device', ['ib-pci-path', 'warn', 'siw0']],
]);

warnCases('socket-address-family: an address that was never set', 'misc/socket.cc:716', [
  ['2.8.3–2.9 `Error : connecting to address with family %d is neither AF_INET(%d) nor AF_INET6(%d)`', 'Error : connecting to address with family 33022 is neither AF_INET(2) nor AF_INET6(10)', ['socket-address-family', 'error', '']],
  ['2.10–2.15 `Net : connecting to address %s with family %d …` (empty address)', 'Net : connecting to address  with family 33621 is neither AF_INET(2) nor AF_INET6(10)', ['socket-address-family', 'error', '']],
  ['≥ 2.16 `ncclSocketInit: connecting to address %s with family %d …`', 'ncclSocketInit: connecting to address  with family 33022 is neither AF_INET(2) nor AF_INET6(10)', ['socket-address-family', 'error', '']],
]);

warnCases('socketFinalizeAccept: a connection NCCL did not expect', 'misc/socket.cc:442', [
  ['2.16–2.26 `socketFinalizeAccept: wrong type %d != %d` (received != expected)', 'socketFinalizeAccept: wrong type 4 != 3', ['socket-wrong-type', 'error', 'peer NET/IB, expected NET/Socket']],
  ['2.27–2.30.4 `socketFinalizeAccept from %s: wrong type %d != %d`', 'socketFinalizeAccept from 10.0.0.3<41822>: wrong type 2 != 1', ['socket-wrong-type', 'error', 'peer proxy, expected bootstrap']],
  ['2.16–2.26 `socketFinalizeAccept: wrong magic %lx != %lx`: dropped, NCCL accepts again', 'socketFinalizeAccept: wrong magic 5448202f20544547 != 564ab9f2fc4b9d6c', ['socket-wrong-magic', 'warn', '']],
]);

warnCases('nvml-gpu-not-found', 'misc/nvmlwrap.cc:164', [
  ['≤ 2.11 `nvmlDeviceGetHandleByPciBusId() failed: %s ` (trailing blank)', 'nvmlDeviceGetHandleByPciBusId() failed: Not Found ', ['nvml-gpu-not-found', 'error', 'Not Found']],
  ['≥ 2.12 NVMLCHECK `%s() failed: %s`', 'nvmlDeviceGetHandleByPciBusId() failed: Not Found', ['nvml-gpu-not-found', 'error', 'Not Found']],
]);

describe('WARN near misses keep their own (or the generic) signature', () => {
  const id = (m: string) => warnProblem(m).signature.id;
  it('other errnos of recv/send are not peer-closed', () => {
    expect(id('socketProgressOpt: Call to recv from 11.0.0.7<52035> failed : No route to host')).toMatch(/^warn:/);
    expect(id('socketProgressOpt: Call to recv from 11.0.0.7<52035> failed : Connection timed out')).toBe('socket-timeout');
  });
  it('other verbs and NVML calls, other opens, the topology\'s PCI path', () => {
    expect(id('Call to ibv_create_qp failed with error Cannot allocate memory')).toBe('ibv-create-qp');
    expect(id('Call to ibv_alloc_pd failed')).toBe('ib-reg-mr');
    expect(id('Call to ibv_query_port failed')).toMatch(/^warn:/);
    expect(id('nvmlDeviceGetNvLinkState() failed: Not Supported')).toMatch(/^warn:/);
    expect(id('Call to openat failed: No such file or directory')).toMatch(/^warn:/);
    expect(id('Could not find real path of /sys/class/pci_bus/0000:00/../../0000:00:05.0')).toMatch(/^warn:/);
    expect(warnProblem('Could not find real path of /sys/class/pci_bus/0000:00/../../0000:00:05.0').signature.severity).toBe('error');
  });
  it('the accept side\'s retries are not a connect', () => {
    expect(id('socketTryAccept: exceeded error retry count after 35 attempts, Connection reset by peer')).toBe('socket-timeout');
  });
});

infoCases('the error trace `file:line -> code` (checks.h): one signature (a warning: NCCL also traces errors it goes past), detail the ncclResult_t', [
  ['NCCLCHECK `%s:%d -> %d`, system error', 'misc/socket.cc:564 -> 2', ['nccl-error-trace', 'warn', 'system error']],
  ['NCCLCHECKTHREAD `%s:%d -> %d [Async thread]`', 'group.cc:64 -> 2 [Async thread]', ['nccl-error-trace', 'warn', 'system error']],
  ['invalid usage', 'init.cc:1234 -> 5', ['nccl-error-trace', 'warn', 'invalid usage']],
  ['unhandled cuda error', 'enqueue.cc:1104 -> 1', ['nccl-error-trace', 'warn', 'unhandled cuda error']],
  ['internal error', 'bootstrap.cc:256 -> 3', ['nccl-error-trace', 'warn', 'internal error']],
  ['invalid argument', 'collectives.cc:97 -> 4', ['nccl-error-trace', 'warn', 'invalid argument']],
  ['remote error (≥ 2.13)', 'transport/net.cc:680 -> 6', ['nccl-error-trace', 'warn', 'remote error']],
  ['SYSCHECKGOTO `%s:%d -> %d (%s)` (≥ 2.18.3)', 'misc/shmutils.cc:65 -> 2 (No such file or directory)', ['nccl-error-trace', 'warn', 'system error']],
  ['`[Proxy Thread]` (2.4–2.18)', 'proxy.cc:1523 -> 3 [Proxy Thread]', ['nccl-error-trace', 'warn', 'internal error']],
  ['`[Progress Thread]` (≥ 2.19)', 'proxy.cc:925 -> 6 [Progress Thread]', ['nccl-error-trace', 'warn', 'remote error']],
  ['CUDACHECKTHREAD prints the result before setting it: `-> 0 [Async thread]`', 'group.cc:87 -> 0 [Async thread]', ['nccl-error-trace', 'warn', 'unhandled cuda error']],
  ['an absolute __FILE__', '/dvs/p4/build/sw/gpgpu/nccl/gitfusion/stable/src/init.cc:1234 -> 5', ['nccl-error-trace', 'warn', 'invalid usage']],
  ['≥ 2.30.7 INFO_LOC `%s:%d (%s) -> %d`', 'misc/socket.cc:612 (ncclSocketConnect) -> 6', ['nccl-error-trace', 'warn', 'remote error']],
  ['≥ 2.30.7 INFO_LOC with [Async thread]', 'group.cc:71 (ncclAsyncJobMain) -> 3 [Async thread]', ['nccl-error-trace', 'warn', 'internal error']],
  ['≥ 2.30.3 ncclTimeout (8)', 'init.cc:2045 -> 8', ['nccl-error-trace', 'warn', 'timeout']],
]);

infoCases('the last retry of a connect is the connect failing', [
  ['2.24–2.26 `%s: connect returned %s, retrying (%d/%ld) after sleep for %u msec`, the last', 'socketPollConnect: connect returned No route to host, retrying (34/34) after sleep for 3400 msec', ['socket-connect', 'error', 'No route to host']],
  ['≥ 2.27 `%s: connect to %s returned %s, retrying (%d/%ld) …`, the last', 'socketPollConnect: connect to 10.0.0.4<56849> returned Connection refused, retrying (34/34) after sleep for 3400 msec', ['socket-connect', 'error', 'Connection refused']],
  ['≥ 2.29 ncclOsSocketStartConnect, the last, timed out', 'ncclOsSocketStartConnect: connect to 10.0.0.4<56849> returned Connection timed out, retrying (34/34) after sleep for 3400 msec', ['socket-timeout', 'error', '']],
  ['2.4–2.12 `Call to connect returned %s, retrying` with a timed-out connect (no count: each one is a failed attempt)', 'Call to connect returned Connection timed out, retrying', ['socket-timeout', 'error', '']],
]);

describe('INFO near misses stay clean', () => {
  infoClean('a retry that is not the last, and the count-less refused retries (routine while the peer starts)', [
    'socketPollConnect: connect returned No route to host, retrying (33/34) after sleep for 3300 msec',
    'socketPollConnect: connect to 10.0.0.4<56849> returned Connection refused, retrying (1/34) after sleep for 100 msec',
    'Call to connect returned Connection refused, retrying',
    'Call to accept returned Connection aborted, retrying',
  ]);
  infoClean('ncclInProgress (7) is no failure, and `-> N` in NCCL\'s other lines is no trace', [
    'init.cc:1234 -> 7',
    'group.cc:64 -> 7 [Async thread]',
    'init.cc:1234 -> 0',
    'Ring 00 : 0 -> 1 -> 2',
    'Tree 0 : -1 -> 0 -> 1/-1/-1',
    'Channel 00/0 : 0[0] -> 1[1] via P2P/IPC',
    'UDS converted fd 12 -> 15 on peer 1',
    'comm 0x55d0 rank 1 nranks 2 cudaDev 0 busId 1b000 - Init COMPLETE',
    'cudaDriverVersion 12040',
  ]);
});

describe('a failing log is not clean; warnings alone exit 0', () => {
  it('a log whose only sign of failure is the error trace is not clean, but exits 0: NCCL traces errors it goes past too', () => {
    const a = collect([`${INFO}NCCL version 2.21.5+cuda12.4`, `${INFO}misc/socket.cc:564 -> 2`, `${INFO}bootstrap.cc:77 -> 2`, `gpu7:2231:2296 [3] NCCL INFO group.cc:64 -> 2 [Async thread]`]);
    expect(a.summary.warnings.map((e) => [e.signature, e.detail, e.count])).toEqual([['nccl-error-trace', 'system error', 3]]);
    expect(a.summary.warnings[0]!.line).toBe(`${INFO}misc/socket.cc:564 -> 2`);
    expect(logExitCode(a)).toBe(0);
    // A run that went past a probe (≥ 2.28 without libibverbs) and used sockets: warnings, no error.
    const probe = collect([`${INFO}transport/net_ib/init.cc:396 -> 3`, `${INFO}Failed to initialize NET plugin IB`, `gpu7:2231:2231 [0] misc/ibvwrap.cc:173 NCCL WARN lib wrapper not initialized.`, `${INFO}Using network Socket`]);
    expect(probe.summary.errors).toEqual([]);
    expect(probe.summary.warnings.map((w) => w.signature).sort()).toEqual(['libibverbs-missing', 'nccl-error-trace']);
    expect(logExitCode(probe)).toBe(0);
  });
  it('warn-severity problems alone (a device NCCL skips, a soft-RoCE path, a stray connection) exit 0', () => {
    const a = collect([
      `${WARN('transport/net_ib.cc:573')}NET/IB : Unable to open device mlx5_59`,
      `${WARN('transport/net_ib.cc:115')}Could not find real path of rxe0 (/sys/class/infiniband/rxe0/device)`,
      `${WARN('misc/socket.cc:432')}socketFinalizeAccept: wrong magic 5448202f20544547 != 564ab9f2fc4b9d6c`,
    ]);
    expect(a.summary.errors).toEqual([]);
    expect(a.summary.warnings.map((w) => w.signature)).toEqual(['ib-open-device', 'ib-pci-path', 'socket-wrong-magic']);
    expect(logExitCode(a)).toBe(0);
  });
  it('2.30.7 WARN with (func): the line as NCCL prints it', () => {
    const a = collect(['gpu7:2231:2290 [3] misc/socket.cc:1043 (ncclSocketInit) NCCL WARN ncclSocketInit: connecting to address  with family 33022 is neither AF_INET(2) nor AF_INET6(10)']);
    expect(problemOf(a)).toEqual([['socket-address-family', 'error', '']]);
  });
});
