// Signatures that a check on real user logs found missing or wrong. Every
// message below is composed from NCCL's own format string of the releases
// named (NVIDIA/nccl tags v2.4.8 … v2.30.7), judged by warnProblem, then end
// to end as a whole log line through LogCollector.
import { describe, expect, it } from 'vitest';
import type { AsciiBytes } from '../../src/model/log/ascii.js';
import { LogCollector, logExitCode, type LogAnalysis } from '../../src/model/log/analyze.js';
import { warnProblem, type ProblemSeverity } from '../../src/model/log/signatures.js';

type Want = [id: string, severity: ProblemSeverity, detail: string];
/** [what: releases and format, message as NCCL prints it, expected]. */
type Case = [string, string, Want];

const WARN = (src: string) => `gpu7:2231:2290 [3] ${src} NCCL WARN `;

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

describe('WARN near misses keep their own (or the generic) signature', () => {
  const id = (m: string) => warnProblem(m).signature.id;
  it('other errnos of recv/send are not peer-closed', () => {
    expect(id('socketProgressOpt: Call to recv from 11.0.0.7<52035> failed : No route to host')).toMatch(/^warn:/);
    expect(id('socketProgressOpt: Call to recv from 11.0.0.7<52035> failed : Connection timed out')).toBe('socket-timeout');
  });
  it('the accept side\'s retries are not a connect', () => {
    expect(id('socketTryAccept: exceeded error retry count after 35 attempts, Connection reset by peer')).toBe('socket-timeout');
  });
});
