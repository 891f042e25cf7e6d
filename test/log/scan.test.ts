// The WebAssembly scanner of `ncclx log` (wasm/log-scan.c, src/probe/log-scan.ts):
// what it reads itself (records), and that the reader with it gives what the
// text path gives on the lines it must hand back, wherever chunks end. The
// corpus and the random line shapes go through it in parts.test.ts too.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { LogCollector } from '../../src/model/log/analyze.js';
import { logTarget, readLogs, splitLines, type LineTarget } from '../../src/probe/log-read.js';
import { logScanner, RANK_FIELDS, RECORD_GID, RECORD_RANK, RECORD_REPLAY, RECORD_RUN } from '../../src/probe/log-scan.js';
import { tempDir } from '../helpers/tmp.js';

const tmp = tempDir('ncclx-scan-');

type Rec =
  | { kind: 'replay'; lines: string[] }
  | { kind: 'run'; head: string; rank: number; vias: [string, number][] }
  | { kind: 'rank'; head: string; fields: number[] }
  | { kind: 'gid'; head: string; ibDev: number; gidIndex: number };

/** What the scanner makes of `lines` in one call: its records, decoded, and the lines it only counted. */
function records(lines: string[]): { recs: Rec[]; plain: number; stoppedAt: number; size: number } {
  const s = logScanner()!;
  const text = lines.map((l) => `${l}\n`).join('');
  const size = s.input.write(text, 0, 'latin1');
  const stoppedAt = s.scan(0, size);
  const out = s.out;
  const str = (a: number, e: number) => s.input.toString('latin1', a, e);
  const recs: Rec[] = [];
  for (let i = 0; i < s.records(); ) {
    switch (out[i]) {
      case RECORD_REPLAY:
        recs.push({ kind: 'replay', lines: str(out[i + 1]!, out[i + 2]!).split('\n').slice(0, -1) });
        i += 3;
        break;
      case RECORD_RUN: {
        const vias: [string, number][] = [];
        for (let j = 0; j < out[i + 5]!; j++) vias.push([str(out[i + 6 + 4 * j]!, out[i + 7 + 4 * j]!), out[i + 9 + 4 * j]!]);
        recs.push({ kind: 'run', head: str(out[i + 1]!, out[i + 2]!), rank: out[i + 4]!, vias });
        i += 6 + 4 * out[i + 5]!;
        break;
      }
      case RECORD_RANK:
        recs.push({ kind: 'rank', head: str(out[i + 1]!, out[i + 2]!), fields: Array.from(out.subarray(i + 4, i + 4 + RANK_FIELDS)) });
        i += 4 + RANK_FIELDS;
        break;
      case RECORD_GID:
        recs.push({ kind: 'gid', head: str(out[i + 1]!, out[i + 2]!), ibDev: out[i + 4]!, gidIndex: out[i + 5]! });
        i += 6;
        break;
      default:
        throw new Error(`record kind ${out[i]} at ${i}`);
    }
  }
  return { recs, plain: s.plain(), stoppedAt, size };
}

/** Every line as text: the reference. */
function asText(lines: string[]) {
  const c = new LogCollector();
  for (const l of lines) c.addLine(l.endsWith('\r') ? l.slice(0, -1) : l);
  return c.result();
}

/** The lines as the reader reads them from these chunks, with the scanner (or without: `scan` off). */
function asRead(chunks: Buffer[], scan = true) {
  const c = new LogCollector();
  const target: LineTarget = scan ? logTarget(c) : { ...logTarget(c), scan: undefined };
  const n = splitLines(chunks, target);
  return { result: c.result(), lines: n };
}

const bytes = (lines: string[]) => Buffer.from(lines.map((l) => `${l}\n`).join(''), 'utf8');

const H = '[1,5]<stdout>:gpu-node-000:10005:10045 [5] NCCL INFO ';
const H41 = '[1,5]<stdout>:gpu-node-000:10005:10046 [5] NCCL INFO ';
/** PyTorch's exception for a failed NCCL call, as torchrun prefixes each line of rank 3. */
const TORCH = [
  '[rank3]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, internal error - please report this issue to the NCCL developers, NCCL version 2.19.3',
  '[rank3]: ncclInternalError: Internal check failed.',
  '[rank3]: Last error:',
  '[rank3]: Net : Call to recv from 10.0.0.1<57120> failed : Connection reset by peer',
];
/** One rank's lines of one communicator, as the bench log prints them. */
const BENCH = [
  `${H}comm 0x55d0a001 rank 5 nRanks 1000 nNodes 125 localRanks 8 localRank 5 MNNVL 0`,
  ...[0, 1, 2, 3].flatMap((c) => [
    `${H}Channel 0${c}/0 : 5[5] -> 13[5] [send] via NET/IB/5/GDRDMA`,
    `${H}Channel 0${c}/0 : 997[5] -> 5[5] [receive] via NET/IB/5/GDRDMA`,
    `${H}Channel 0${c + 4}/0 : 5[5] -> 6[6] via P2P/IPC/read`,
  ]),
  `${H41}NET/IB: NCCL Dev 5 IbDev 5 Port 1 qpn 4001 mtu 5 query_ece={supported=1, vendor_id=0x15b3, options=0x30000002, comp_mask=0x0} GID 3 (80FE/1) fifoRkey=0x2a fifoLkey=0x2a`,
  `${H}ncclCommInitRank comm 0x55d0a001 rank 5 nranks 1000 cudaDev 5 nvmlDev 5 busId 1b000 commId 0x1 - Init COMPLETE`,
  '[1,5]<stdout>:step 1 loss 1.000000 lr 0.0003 tokens/s 182334',
  '[1,5]<stdout>:gpu-node-000:10005:10105 [5] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from peer 10.0.0.9<4100> with status=12 opcode=0 len=0 vendor err 129 (Send)',
];

describe('the scanner', () => {
  it('is there: WebAssembly with SIMD runs on every Node ncclx supports', () => {
    expect(logScanner()).not.toBeNull();
  });

  it('reads a communicator\'s lines: one run of channel lines, the rank and QP lines, counts the rest', () => {
    const { recs, plain, stoppedAt, size } = records(BENCH);
    expect(stoppedAt).toBe(size);
    expect(plain).toBe(1);
    const comm = H.length + 'comm '.length;
    expect(recs).toEqual([
      // commStart, commEnd, rank, nranks, cudaDev stated, negative, cudaDev, busStart, busEnd, stage
      { kind: 'rank', head: H.slice(0, -'NCCL INFO '.length), fields: [comm, comm + 10, 5, 1000, 0, 0, 0, -1, -1, 0] },
      { kind: 'run', head: H.slice(0, -'NCCL INFO '.length), rank: 5, vias: [['NET/IB/5/GDRDMA', 8], ['P2P/IPC/read', 4]] },
      { kind: 'gid', head: H41.slice(0, -'NCCL INFO '.length), ibDev: 5, gidIndex: 3 },
      { kind: 'rank', head: H.slice(0, -'NCCL INFO '.length), fields: expect.arrayContaining([5, 1000, 1, 0, 5, 2]) as unknown as number[] },
      { kind: 'replay', lines: [BENCH[16]!] },
    ]);
    const init = recs[3] as { fields: number[] };
    const at = (s: string) => BENCH[14]!.indexOf(s) + BENCH.slice(0, 14).reduce((n, l) => n + l.length + 1, 0);
    expect(init.fields).toEqual([at('0x55d0a001'), at('0x55d0a001') + 10, 5, 1000, 1, 0, 5, at('1b000'), at('1b000') + 5, 2]);
  });

  it('ends a run at another header, another rank, a line between, or a ninth via', () => {
    const ch = (h: string, from: number, via: string) => `${h}Channel 00/0 : ${from}[0] -> 9[1] via ${via}`;
    const vias = Array.from({ length: 9 }, (_, i) => `NET/IB/${i}`);
    const { recs, plain } = records([
      ch(H, 1, 'P2P/IPC'),
      ch(H41, 1, 'P2P/IPC'),
      ch(H41, 2, 'P2P/IPC'),
      'training step',
      ch(H41, 2, 'P2P/IPC'),
      ...vias.map((v) => ch(H, 3, v)),
    ]);
    expect(plain).toBe(1);
    expect(recs.map((r) => (r.kind === 'run' ? [r.rank, r.vias.length, r.head === H41.slice(0, -10)] : r.kind))).toEqual([
      [1, 1, false],
      [1, 1, true],
      [2, 1, true],
      [2, 1, true],
      [3, 8, false],
      [3, 1, false],
    ]);
  });

  it('hands back what it does not read exactly: colour codes, CRs inside, long numbers and vias, long lines', () => {
    const ch = `${H}Channel 00/0 : 5[5] -> 13[5] [send] via NET/IB/5/GDRDMA`;
    const back = [
      ch.replace('gpu', 'g\x1b[0mpu'),
      ch.replace('5[5] ->', '5[5]\r ->'),
      ch.replace(/^(.*) 5\[5\] ->/, '$1 1234567890[5] ->'),
      `${H}comm 0x1 rank 1234567890 nRanks 2`,
      `${H}comm 0x1 rank 1 nRanks 2 cudaDev 1234567890`,
      `${H41}NET/IB: NCCL Dev 5 IbDev 1234567890 Port 1 GID 3`,
      `${H41}NET/IB: NCCL Dev 5 IbDev 5 Port 1 GID 1234567890`,
      ch.replace(/via .*/, `via NET/IB/5/${'x'.repeat(120)}`), // 129 bytes of via
      ch.replace('[send] ', `[send] ${'y'.repeat(65_536)} `),
      `${H}Channel 00/0 : 5[5] -> 13[5] via `,
      // What finish() trims: a blank or Ray's repeat note at the end.
      `${ch} `,
      `${H}Channel 00/0 : 5[5] -> 13[5] via P2P `,
      `${ch} [repeated 4x across cluster]`,
      // Two statements glued by a terminal copy.
      `${ch}      ${ch.replace('10045', '10047')}`,
      `${H}NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB eth0:10.0.0.1<0>`,
    ];
    for (const l of back) {
      const { recs } = records([l]);
      expect(recs, JSON.stringify(l.slice(0, 200))).toEqual([{ kind: 'replay', lines: [l] }]);
    }
    // At the limits they still take: nine digits, a via of 128 bytes, a CR only before the newline.
    const take = [ch.replace(/^(.*) 5\[5\] ->/, '$1 123456789[5] ->'), ch.replace(/via .*/, `via NET/IB/5/${'x'.repeat(119)}`), `${ch}\r`];
    expect(take.map((l) => records([l]).recs[0]!.kind)).toEqual(['run', 'run', 'run']);
    // And the reader gives what it gives without the scanner (the text, the long line cut), whichever way each went.
    const all = [...back, ...take, ...back];
    const plain = asRead([bytes(all)], false).result;
    expect(plain.input.truncatedLines).toBe(2);
    expect(asRead([bytes(all)]).result).toEqual(plain);
  });

  it('hands back PyTorch\'s `Last error:` line and the one after it, whatever that one is', () => {
    const ch = `${H}Channel 00/0 : 5[5] -> 13[5] [send] via NET/IB/5/GDRDMA`;
    const { recs, plain } = records(['step 1', '[rank5]: Last error:  ', ch, ch, 'Last error:', 'Duplicate GPU detected : rank 3 and rank 0 both on CUDA device f000', 'step 2']);
    expect(plain).toBe(2);
    expect(recs.map((r) => (r.kind === 'replay' ? r.lines.length : r.kind))).toEqual([2, 'run', 2]);
    const lines = ['x', 'Last error:', ch, ch, ...BENCH, 'Last error:', 'Duplicate GPU detected : rank 3 and rank 0 both on CUDA device f000'];
    const b = bytes(lines);
    const plainRead = asRead([b], false).result;
    expect(plainRead.summary.errors.map((e) => e.signature)).toContain('duplicate-gpu');
    for (let cut = 0; cut <= b.length; cut += 11) expect(asRead([b.subarray(0, cut), b.subarray(cut)]).result, `cut at ${cut}`).toEqual(plainRead);
  });

  it('hands back PyTorch\'s `NCCL error in:` line and the one after it (then `Last error:` and its text), whatever they are', () => {
    const ch = `${H}Channel 00/0 : 5[5] -> 13[5] [send] via NET/IB/5/GDRDMA`;
    // A colour code between `NCCL` and `error` is one clean() removes: the line is handed back, and the next with it.
    for (const torch of [TORCH[0]!, TORCH[0]!.replace('NCCL error', 'NCCL\x1b[0m error')]) {
      records(['step 0']); // the line the last test's reading may have left it to hand back
      const { recs, plain } = records(['step 1', torch, ch, ch, torch, ...TORCH.slice(1), ch, 'step 2']);
      expect(plain).toBe(2);
      expect(recs.map((r) => (r.kind === 'replay' ? r.lines.length : r.kind))).toEqual([2, 'run', 4, 'run']);
    }
    // Only the line after: a WARN line is handed back alone.
    const warn = records([BENCH[16]!, ch, 'step 3']);
    expect(warn.recs.map((r) => r.kind)).toEqual(['replay', 'run']);
  });

  it('stops when its records fill up, and the reader goes on from there', () => {
    // Rank lines on alternating headers: a record each, far more than one call holds.
    const many = Array.from({ length: 12_000 }, (_, i) => `h${i % 2}:1:1 [0] NCCL INFO comm 0x${i.toString(16)} rank ${i % 7} nRanks 8 cudaDev ${i % 3}`);
    const { stoppedAt, size } = records(many);
    expect(stoppedAt).toBeGreaterThan(0);
    expect(stoppedAt).toBeLessThan(size);
    const read = asRead([bytes(many)]);
    expect(read.lines).toBe(many.length);
    expect(read.result).toEqual(asText(many));
  });
});

describe('the reader with the scanner', () => {
  it('gives what the text gives wherever the chunks end', () => {
    const lines = [...BENCH, ...BENCH.map((l) => l.replace('gpu-node-000', 'gpu-node-001')), '', 'x', ...BENCH.slice(0, 6)];
    const b = bytes(lines);
    const text = asText(lines);
    for (let cut = 0; cut <= b.length; cut += 7) {
      const r = asRead([b.subarray(0, cut), b.subarray(cut)]);
      expect(r.result, `cut at ${cut}`).toEqual(text);
      expect(r.lines).toBe(lines.length);
    }
    // Without its last newline, and in chunks of 1 to 300 bytes.
    const open = b.subarray(0, b.length - 1);
    for (const size of [1, 2, 3, 64, 300]) {
      const chunks: Buffer[] = [];
      for (let i = 0; i < open.length; i += size) chunks.push(open.subarray(i, i + size));
      expect(asRead(chunks).result, `chunks of ${size}`).toEqual(text);
    }
  });

  it('PyTorch\'s line after `NCCL error in:` is a message of that problem wherever the chunks end', () => {
    const lines = [...BENCH, ...TORCH, ...BENCH.slice(0, 4), TORCH[0]!.slice('[rank3]: '.length), 'ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. ', ...BENCH.slice(0, 4)];
    const b = bytes(lines);
    const text = asText(lines);
    const [torch] = text.summary.errors.filter((e) => e.signature === 'torch-nccl-error');
    expect(torch!.count).toBe(2);
    expect(torch!.details?.message).toEqual(['ncclInternalError: Internal check failed.', 'ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error.']);
    expect(asRead([b], false).result).toEqual(text);
    for (let cut = 0; cut <= b.length; cut += 5) {
      const r = asRead([b.subarray(0, cut), b.subarray(cut)]);
      expect(r.result, `cut at ${cut}`).toEqual(text);
      expect(r.lines).toBe(lines.length);
    }
  });

  it('declines what addAsciiLine would read as text: a header without a host is read line by line', () => {
    const lines = [...BENCH.map((l) => l.replace('gpu-node-000', '')), ...BENCH];
    expect(records(lines).recs.some((r) => r.kind === 'run' && r.head.includes(':10005:10045') && !r.head.includes('gpu'))).toBe(true);
    expect(asRead([bytes(lines)]).result).toEqual(asText(lines));
  });

  it('declines once the collector keeps as many processes as it may: past that, lines are counted one by one', () => {
    // 50,000 processes (the collector's bound), then new ones whose lines addAsciiLine would read as text.
    const lines: string[] = [];
    for (let pid = 0; pid < 50_010; pid++) {
      const h = `n${pid % 97}:${pid}:1 [0] NCCL INFO `;
      lines.push(`${h}Channel 00/0 : 1[0] -> 2[1] via P2P/IPC`, `${h}Channel 01/0 : 1[0] -> 2[1] via P2P/IPC`);
    }
    const text = asText(lines);
    expect(text.input.capped).toBeGreaterThan(10);
    expect(asRead([bytes(lines)]).result).toEqual(text);
  });

  it('past the ranks the collector keeps, counts each line of a run it refuses', () => {
    // 200,000 ranks (the collector's bound) of one process, then more, three channel lines each.
    const h = 'n1:1:1 [0] NCCL INFO ';
    const lines: string[] = [];
    for (let r = 0; r < 200_005; r++) for (const c of ['00', '01', '02']) lines.push(`${h}Channel ${c}/0 : ${r}[0] -> 2[1] via P2P/IPC`);
    const text = new LogCollector();
    for (const l of lines) text.addLine(l);
    const read = new LogCollector();
    splitLines([bytes(lines)], logTarget(read));
    // Five ranks refused, three lines each.
    expect(text.result().input.capped).toBe(15);
    expect(read.result().input).toEqual(text.result().input);
  });

  it('reads a stream chunk larger than its input area in windows of whole lines', async () => {
    const lines: string[] = [];
    for (let i = 0; lines.length < 60_000; i++) lines.push(...BENCH.map((l) => l.replaceAll('10005', String(10000 + (i % 50)))));
    const b = bytes(lines);
    expect(b.length).toBeGreaterThan(2 * logScanner()!.input.length);
    const c = new LogCollector();
    await readLogs(['-'], logTarget(c), Readable.from([b]));
    expect(c.result()).toEqual(asRead([b], false).result);
  });

  it('two files read at once: one reads into the scanner, the other line by line, both right', async () => {
    const a = join(tmp, 'a.log');
    const z = join(tmp, 'z.log');
    const la = Array.from({ length: 30_000 }, (_, i) => BENCH[i % BENCH.length]!);
    const lz = la.map((l) => l.replace('gpu-node-000', 'gpu-node-777').replace('NET/IB/5', 'NET/IB/6'));
    writeFileSync(a, bytes(la));
    writeFileSync(z, bytes(lz));
    const ca = new LogCollector();
    const cz = new LogCollector();
    await Promise.all([readLogs([a], logTarget(ca)), readLogs([z], logTarget(cz))]);
    expect(ca.result()).toEqual(asText(la));
    expect(cz.result()).toEqual(asText(lz));
  });
});

describe('the committed module', () => {
  const clang = spawnSync('clang', ['--version']).status === 0 && spawnSync('wasm-ld', ['--version']).status === 0;
  const why = 'clang and wasm-ld not installed (Debian packages clang and lld)';
  it.skipIf(!clang && process.env['CI'] !== 'true')(`is what wasm/log-scan.c compiles to${clang ? '' : ` (skipped: ${why})`}`, () => {
    const r = spawnSync(process.execPath, [join(__dirname, '..', '..', 'scripts', 'build-wasm.mjs'), '--check'], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});
