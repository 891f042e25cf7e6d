// The log parser on hostile input: mangled NCCL lines (each known shape cut,
// spliced, with random bytes and prefixes), arbitrary text and bytes. The
// collector never throws, its JSON serialises, and the prediction holds on a
// fixture node. Seeded and bounded; `npm run fuzz` runs longer.

import fc from 'fast-check';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LogCollector } from '../../src/model/log/analyze.js';
import { comparePrediction } from '../../src/model/log/predict.js';
import type { NodeSnapshot } from '../../src/model/snapshot/types.js';
import { probeNode } from '../../src/probe/index.js';
import { renderLog } from '../../src/report/log-text.js';
import { makeStyle } from '../../src/report/style.js';
import { terminalText } from '../../src/report/display.js';
import { count, runs, TIMEOUT, triedSoFar } from './lib.js';

let roce: NodeSnapshot;
beforeAll(async () => {
  roce = await probeNode({ root: join(__dirname, '../fixtures/roce-one-subnet'), rdma: true, env: {} });
});
afterAll(() => console.log(`fuzz (log): ${triedSoFar()} inputs tried`));

const SHAPES = [
  'NCCL version 2.18.3+cuda12.2',
  'Bootstrap : Using eth0:10.0.0.1<0>',
  'Bootstrap: Using [0]ib0:fe80::1%ib0<0> [1]eth0:10.0.0.1<0>',
  'NET/Socket : Using [0]eth0:10.0.0.1<0> [1]eth1:10.0.1.1<0>',
  'NET/IB : Using [0]={[0] mlx5_0:1/RoCE, [1] mlx5_1:1/RoCE} [2]mlx5_2:1:0:1/IB [RO]; OOB eth0:10.0.0.1<0>',
  'NET/IB : No device found.',
  'NET/IB : Using [RO]; OOB :',
  'Using network AWS Libfabric',
  'NET/Plugin: Loaded net plugin X (v7)',
  'NCCL_IB_GID_INDEX set by environment to 3.',
  'Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0(3)/GDRDMA(PCI)/Shared',
  'Channel 01 : 0[1b000] -> 1[3d000] via P2P/IPC',
  'comm 0x1 rank 3 nranks 16 cudaDev 3 nvmlDev 3 busId 9c000 commId 0x4b - Init COMPLETE',
  'NET/IB: NCCL Dev 1 IbDev 1 Port 1 qpn 1 mtu 5 GID 3 (0/0) fifoRkey=0x1',
];
const WARNS = ['NET/IB: Got completion from peer 10.0.0.2<1> with status=IBV_WC_RETRY_EXC_ERR(12) opcode=x', 'Call to ibv_modify_qp failed with 110 Connection timed out', 'socketStartConnect: Connect to x failed : y', 'Something'];
const PREFIXES = ['', '[1,3]<stdout>:', '0: ', '10.0.0.2: 10.0.0.2: ', '(RayWorkerWrapper pid=1, ip=1.2.3.4) ', '[pod/a/b] ', '> ', '\x1b[32m', '2025-01-01T00:00:00Z '];

const mangle = fc.string({ unit: 'binary', maxLength: 8 });
const line = fc.oneof(
  fc.tuple(fc.constantFrom(...PREFIXES), fc.constantFrom('n1', 'n2', '', 'a.b'), fc.nat(99999), fc.integer({ min: -1, max: 9 }), fc.constantFrom(...SHAPES), fc.nat(80), mangle).map(
    ([p, h, pid, dev, msg, cut, junk]) => `${p}${h}:${pid}:${pid} [${dev}] NCCL INFO ${msg.slice(0, Math.max(0, msg.length - cut))}${junk}`,
  ),
  fc.tuple(fc.constantFrom(...PREFIXES), fc.constantFrom(...WARNS), fc.boolean()).map(([p, w, rep]) => `${p}n1:1:2 [0] x.cc:1 NCCL WARN ${w}${rep ? ' [repeated 3x across cluster]' : ''}`),
  fc.string({ maxLength: 120 }),
  fc.string({ unit: 'binary', maxLength: 120 }),
  fc.constantFrom('NCCL', 'NCCL INFO', ' NCCL WARN ', ':::: [] NCCL INFO', 'NCCL version', 'n:1:1 [0] NCCL INFO Channel 99999999999999999999/0 : 1[', 'n:1:1 [0] NCCL INFO NET/IB : Using [', 'n:1:1 [99999999999] NCCL INFO comm 0x rank 1 nranks'),
);

describe('the log parser on hostile input', () => {
  it('any lines: the collector never throws, JSON serialises, text renders escaped, the prediction holds', () => {
    fc.assert(
      fc.property(fc.array(line, { maxLength: 40 }), (lines) => {
        count();
        const c = new LogCollector();
        for (const l of lines) c.addLine(l);
        const a = c.result();
        expect(() => JSON.stringify(a)).not.toThrow();
        const text = terminalText(renderLog(a, [{ name: '-', bytes: 0, lines: lines.length, gzip: false }], null, makeStyle(false), true));
        expect(text).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]/);
        const p = comparePrediction(a, roce, { ncclVersion: '2.21.5' });
        expect(() => JSON.stringify(p)).not.toThrow();
      }),
      runs(150),
    );
  }, TIMEOUT);
});
