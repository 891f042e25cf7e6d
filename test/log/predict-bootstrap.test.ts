// The bootstrap's own failure in a log (bootstrap.cc's WARN) is a fact held against the prediction; the same
// words from the socket transport or the IB OOB are not the bootstrap's (docs/log-json.md, "prediction").
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LogCollector } from '../../src/model/log/analyze.js';
import { comparePrediction } from '../../src/model/log/predict.js';
import { loadSnapshot } from '../../src/probe/snapshot-file.js';

// A real node (test/device/h200-vm/README.md): eth0 192.0.2.2, hostname vm, NCCL 2.28.9 (the PyTorch wheel's).
const node = loadSnapshot(join(__dirname, '../device/h200-vm/snapshot-host.json'));
const noSubnet = loadSnapshot(join(__dirname, '../device/h200-vm/snapshot-no-subnet.json'));

function bootstrapOf(lines: string[], snap = node) {
  const c = new LogCollector();
  for (const l of lines) c.addLine(l);
  return comparePrediction(c.result(), snap, { ncclVersion: '2.28.9' }).consumers.find((x) => x.consumer === 'bootstrap')!;
}

describe('a bootstrap that found no interface, as the log states it', () => {
  it("2.28's bootstrap.cc WARN: the log's bootstrap is none, which differs from the node's eth0", () => {
    const b = bootstrapOf(['vm:1:1 [0] bootstrap.cc:108 NCCL WARN NET/Socket : No usable listening interface found']);
    expect(b).toMatchObject({ status: 'differ', log: 'no interface (bootstrap fails)', predicted: 'eth0 192.0.2.2', likely: 'environment' });
  });

  it("an older release's `Bootstrap : no socket interface found` is the bootstrap's failure too", () => {
    expect(bootstrapOf(['vm:1:1 [0] bootstrap.cc:41 NCCL WARN Bootstrap : no socket interface found']).log).toBe('no interface (bootstrap fails)');
  });

  it('it agrees with a prediction of none (NCCL_COMM_ID on no local subnet)', () => {
    expect(bootstrapOf(['vm:1:1 [0] bootstrap.cc:108 NCCL WARN NET/Socket : No usable listening interface found'], noSubnet)).toMatchObject({ status: 'agree', predicted: 'no interface (bootstrap fails)' });
  });

  it("the socket transport's `no interface found` (net_socket.cc) says nothing of the bootstrap", () => {
    expect(bootstrapOf(['vm:1:1 [0] net_socket.cc:420 NCCL WARN NET/Socket : no interface found'])).toMatchObject({ status: 'not-in-log', log: null });
  });

  it('a `Bootstrap : Using` line wins over a WARN from another process of the host', () => {
    expect(bootstrapOf(['vm:1:1 [0] NCCL INFO Bootstrap : Using eth0:192.0.2.2<0>', 'vm:2:2 [0] bootstrap.cc:108 NCCL WARN NET/Socket : No usable listening interface found'])).toMatchObject({ status: 'agree', log: 'eth0 192.0.2.2' });
  });
});
