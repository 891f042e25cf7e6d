// Release boundaries of the log reader, each on both sides: which facts a log
// implies where its release printed no line for them (versions.ts
// logsBootstrap ≥ 2.4.8, logsNetwork ≥ 2.6.4: NVIDIA/nccl v2.4.8-1
// src/bootstrap.cc bootstrapNetInit, v2.6.4-1 src/init.cc initNet), and the
// version code old PyTorch misprinted (≥ 2.9.0, docs/nccl/logging.md).
import { describe, expect, it } from 'vitest';
import { LogCollector } from '../../src/model/log/analyze.js';
import { parseLine } from '../../src/model/log/line.js';

const analyse = (lines: string[]) => {
  const c = new LogCollector();
  for (const l of lines) c.addLine(l);
  return c.result();
};

/** One rank's lines of a release that prints the socket and IB transports' lines and nothing else. */
const quiet = (version: string) => [
  `NCCL version ${version}+cuda10.1`,
  'dgx1:4711:4711 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>',
  'dgx1:4711:4711 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB eth0:10.0.0.1<0>',
];

describe('facts a release implies without printing them', () => {
  it('bootstrap: before 2.4.8 the socket transport\'s first interface; from 2.4.8 only its own line says', () => {
    expect(analyse(quiet('2.4.7')).summary.bootstrap).toEqual({ ifname: 'eth0', address: '10.0.0.1' });
    expect(analyse(quiet('2.4.8')).summary.bootstrap).toBeNull();
  });
  it('transport: before 2.6.4 IB when `NET/IB : Using` lists devices; from 2.6.4 only `Using network` says', () => {
    expect(analyse(quiet('2.6.3')).summary.transport).toBe('IB');
    expect(analyse(quiet('2.6.4')).summary.transport).toBeNull();
    expect(analyse([...quiet('2.6.4'), 'dgx1:4711:4711 [0] NCCL INFO Using network IB']).summary.transport).toBe('IB');
  });
  it('a release stated in words ncclx does not model implies nothing', () => {
    const r = analyse(quiet('3.0.0'));
    expect([r.summary.bootstrap, r.summary.transport]).toEqual([null, null]);
  });
});

describe('PyTorch < 1.11 decoding NCCL ≥ 2.9\'s version code as code/1000 . (code%1000)/100 . code%100', () => {
  const stated = (v: string) => parseLine(`RuntimeError: NCCL error in: ../torch/lib/c10d/ProcessGroupNCCL.cpp:975, internal error, NCCL version ${v}`)?.message;
  it('20.9.0 is 2.9.0, the first release with the new code; 20.8.99 (code 20899) is below it and left as written', () => {
    expect(stated('20.9.0')).toBe('NCCL version 2.9.0');
    expect(stated('20.9.9')).toBe('NCCL version 2.9.9');
    expect(stated('21.1.4')).toBe('NCCL version 2.11.4');
    expect(stated('20.8.99')).toBe('NCCL version 20.8.99');
  });
  it('a release PyTorch printed right stays as it is', () => {
    expect(stated('2.8.4')).toBe('NCCL version 2.8.4');
  });
});
