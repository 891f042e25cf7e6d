// The shortcuts of `ncclx log` give exactly what reading every line as text
// gives: channel lines read from the bytes of an ASCII chunk (addAsciiLine),
// the same read by the WebAssembly scanner (asScanned; test/log/scan.test.ts
// has its own cases), and a large log read in parts by worker threads and
// merged (part/absorb). Checked on the whole corpus, every split point, and random
// logs built from the shapes that make the merge hard: first statements,
// duplicate WARNs across parts, hosts known only through the launcher.
import fc from 'fast-check';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AsciiBytes } from '../../src/model/log/ascii.js';
import { LogCollector } from '../../src/model/log/analyze.js';
import { logTarget, splitLines } from '../../src/probe/log-read.js';
import { runs } from '../fuzz/lib.js';

const CORPUS = join(__dirname, 'corpus');
const files = (dir: string): string[] => readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? files(join(dir, f)) : [join(dir, f)]));
const corpus = files(CORPUS).filter((f) => f.endsWith('.log'));
const linesOf = (f: string) => readFileSync(f, 'utf8').replace(/\n$/, '').split('\n');

/** Every line as text, the way a non-ASCII chunk goes. */
function asText(lines: string[], c = new LogCollector()): LogCollector {
  for (const l of lines) c.addLine(l.endsWith('\r') ? l.slice(0, -1) : l);
  return c;
}

/** A second `NCCL LEVEL` after the first `NCCL`: the reader gives such a line as text (LineTarget.ascii). */
const twoStatements = (l: string) => /NCCL[\s\S]*NCCL [IWTA]/.test(l);

/** Every ASCII line as bytes, the way the reader hands them over. */
function asBytes(lines: string[], c = new LogCollector()): LogCollector {
  for (const l0 of lines) {
    const l = l0.endsWith('\r') ? l0.slice(0, -1) : l0;
    const b = Buffer.from(l, 'utf8');
    if (b.length !== l.length || twoStatements(l)) {
      c.addLine(l);
      continue;
    }
    c.addAsciiLine(b as unknown as AsciiBytes, 0, b.length, b.indexOf('NCCL'));
  }
  return c;
}

/** Every line as bytes of one chunk, as the reader hands over a chunk's lines (a line with a non-ASCII byte goes as text). */
function asChunk(lines: string[], c = new LogCollector()): LogCollector {
  const ls = lines.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  const b = Buffer.from(ls.join('\n'), 'latin1');
  let a = 0;
  for (const l of ls) {
    const e = a + l.length;
    if (/[^\x00-\x7f]/.test(l) || twoStatements(l)) c.addLine(l);
    else {
      const k = b.indexOf('NCCL', a);
      c.addAsciiLine(b as unknown as AsciiBytes, a, e, k >= 0 && k < e ? k : -1);
    }
    a = e + 1;
  }
  return c;
}

/** The lines as the reader reads a file that holds them: ASCII chunks through the WebAssembly scanner (log-scan.ts). */
function asScanned(lines: string[], c = new LogCollector()): LogCollector {
  splitLines([Buffer.from(lines.map((l) => `${l}\n`).join(''), 'utf8')], logTarget(c));
  return c;
}

/** The lines cut at `cuts`, each part read by a collector of its own, then merged in order; null when a merge declines. */
function inParts(lines: string[], cuts: number[], read = asBytes) {
  const bounds = [0, ...cuts, lines.length];
  const merged = new LogCollector();
  for (let i = 0; i + 1 < bounds.length; i++) {
    const part = read(lines.slice(bounds[i], bounds[i + 1]), LogCollector.part()).part();
    if (!merged.absorb(structuredClone(part))) return null;
  }
  return merged.result();
}

const CHANNEL = 'gpu1:11:12 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0/GDRDMA';

describe('channel lines read from bytes', () => {
  it('the bytes give what the text gives on every corpus file', () => {
    for (const f of corpus) {
      const text = asText(linesOf(f)).result();
      expect(asBytes(linesOf(f)).result(), f).toEqual(text);
      expect(asScanned(linesOf(f)).result(), f).toEqual(text);
    }
  });

  it('and on each way a channel or INFO line strays from its plain shape', () => {
    const variants = [
      CHANNEL,
      CHANNEL.replace('[send] ', ''),
      CHANNEL.replace('[send]', '[receive]'),
      `${CHANNEL} `,
      `${CHANNEL} [repeated 4x across cluster]`,
      CHANNEL.replace('0[0]', '0[\x1b[0m0]'),
      CHANNEL.replace('via', '\x1b[1mvia'),
      `${CHANNEL}\r\r`,
      CHANNEL.replace('gpu1', 'gp\ru1'),
      CHANNEL.replace('gpu1', ''),
      CHANNEL.replace('00/0', '00'),
      CHANNEL.replace('00/0', '/0'),
      CHANNEL.replace('00/0', '00/'),
      CHANNEL.replace(' : ', ' :'),
      CHANNEL.replace('0[0] ->', '0 ->'),
      CHANNEL.replace('-> 8', '->8'),
      CHANNEL.replace('8[0]', '8[0 ]'),
      CHANNEL.replace('8[0] ', '8[0]'),
      CHANNEL.replace('via ', 'via'),
      CHANNEL.replace(/via .*/, 'via '),
      CHANNEL.replace('Channel', 'Channels'),
      CHANNEL.replace('NCCL INFO', 'NCCL WARN'),
      `x NCCL y ${CHANNEL}`,
      CHANNEL.replace('[0] NCCL', 'NCCL'),
      CHANNEL.replace('0[0]', '99999999999999999999[0]'),
      CHANNEL.replace('[0] -> 8', '[0] -> 9] -> 8'),
      CHANNEL.replace('NET/IB/0/GDRDMA', 'P2P/IPC/read'),
      CHANNEL.replace('NET/IB/0/GDRDMA', 'SHM/direct/direct'),
      `[1,0]<stdout>:${CHANNEL}`,
      `10.0.0.1: ${CHANNEL}`,
      // Lines a terminal copy glued together: each statement counts.
      `${CHANNEL}      ${CHANNEL.replace('gpu1:11:12', 'gpu2:21:22')}`,
      `${CHANNEL}   gpu1:11:12 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>  gpu1:11:13 [0] misc/socket.cc:71 NCCL WARN socketProgress: Connection closed by remote peer 10.0.0.2<1>`,
      `${CHANNEL} mentions NCCL INFO in its via`,
    ];
    // Other INFO lines take a shorter path from the bytes too (infoAscii): the same strays.
    const INFO = 'gpu1:11:12 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB eth0:10.0.0.1<0>';
    const PROBLEM = 'gpu1:11:12 [0] NCCL INFO NET/IB : No device found.';
    variants.push(
      INFO,
      PROBLEM,
      `${INFO} `,
      `${PROBLEM} [repeated 3x across cluster]`,
      `${INFO}\r\r`,
      INFO.replace('Using', '\x1b[1mUsing'),
      INFO.replace('gpu1', 'g\x1bpu1'),
      INFO.replace('NCCL INFO', 'NCCL INFO\t'),
      'gpu1:11:12 [0] NCCL INFO ',
      'gpu1:11:12 [0] NCCL INFO x',
      `x NCCL INFO ${INFO}`,
      `[1,3]<stdout>:${PROBLEM}`,
      `:11:12 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>`,
      'gpu1:11:12 [0] NCCL INFO comm 0x55d0 rank 3 nRanks 16 nNodes 2 localRanks 8 localRank 3 MNNVL 0',
    );
    for (const v of variants) {
      const text = asText([v, CHANNEL]).result();
      expect(asBytes([v, CHANNEL]).result(), JSON.stringify(v)).toEqual(text);
      expect(asScanned([v, CHANNEL]).result(), JSON.stringify(v)).toEqual(text);
      expect(asScanned([CHANNEL, v, CHANNEL, v]).result(), JSON.stringify(v)).toEqual(asText([CHANNEL, v, CHANNEL, v]).result());
    }
    // A transport named `constructor` by the log text is counted like any other (own keys, not Object's).
    expect(asBytes([CHANNEL.replace(/via .*/, 'via constructor'), CHANNEL.replace(/via .*/, 'via constructor')]).result().ranks[0]!.transports).toEqual({ constructor: 2 });
    // Control: the plain shape is taken from the bytes (a collector fed nothing else still counts it).
    expect(asBytes([CHANNEL]).result().ranks[0]).toMatchObject({ rank: 0, transports: { 'NET/IB': 1 }, netChannels: 1, gdrChannels: 1 });
  });
});

describe('what the byte path remembers from line to line', () => {
  // Headers and vias are recognised by their bytes, and a channel line's rank by its process and number:
  // a header or via one byte off, of the same length, must not be taken for the one before it.
  const head = (host: string, pid: number, tid: number, dev: number) => `[1,${pid}]<stdout>:${host}:${pid}:${tid} [${dev}] NCCL INFO `;
  const chan = (from: number, to: number, via: string, dir = '') => `Channel 00/0 : ${from}[0] -> ${to}[1] ${dir}via ${via}`;
  const lines = [
    head('gpu1', 11, 12, 0) + chan(0, 8, 'NET/IB/0/GDRDMA', '[send] '),
    head('gpu1', 11, 12, 0) + chan(0, 8, 'NET/IB/1/GDRDMA', '[send] '),
    head('gpu1', 11, 12, 0) + chan(7, 0, 'NET/IB/1/GDRDMA', '[receive] '),
    head('gpu2', 11, 12, 0) + chan(0, 8, 'NET/IB/0/GDRDMA', '[send] '),
    head('gpu1', 11, 13, 0) + chan(0, 8, 'NET/IB/0/GDRDNA', '[send] '),
    head('gpu1', 12, 12, 0) + chan(0, 8, 'NET/IB/0/GDRDMA'),
    head('gpu1', 11, 12, 1) + chan(1, 2, 'P2P/IPC/read'),
    head('gpu1', 11, 12, 1) + chan(1, 2, 'P2P/IPC/reae'),
    head('gpu1', 11, 12, 0) + chan(0, 1, 'SHM/direct/direct'),
    head('gpu1', 11, 12, 0) + chan(2, 1, 'SHM/direct/direct', '[receive] '),
    head('gpu1', 11, 12, 0) + chan(0, 8, `NET/IB/0/${'x'.repeat(200)}`),
    head('gpu1', 11, 12, 0) + chan(0, 8, `NET/IB/0/${'x'.repeat(199)}y`),
    head('gpu1', 11, 12, 0) + chan(0, 8, `NET/IB/0/${'x'.repeat(120)}`),
    head('gpu1', 11, 12, 0) + chan(0, 8, `NET/IB/0/${'x'.repeat(119)}y`),
    `${'z'.repeat(600)} ${head('gpu3', 11, 12, 0)}${chan(0, 8, 'NET/IB/0/GDRDMA')}`,
    `${'z'.repeat(600)} ${head('gpu3', 11, 12, 0)}${chan(0, 8, 'NET/IB/0/GDRDMA')}`,
    `${'z'.repeat(599)}y ${head('gpu3', 11, 12, 0)}${chan(0, 8, 'NET/IB/0/GDRDMA')}`,
    head('', 11, 12, 0) + chan(0, 8, 'NET/IB/0/GDRDMA'),
    head('', 11, 12, 0) + chan(0, 8, 'NET/IB/0/GDRDMA'),
    `gpu1:11:12 [0] ${'NCCL INFO '}${chan(0, 8, 'NET/IB/0/GDRDMA')}`,
    `gpu1:11:12 [0]${'NCCL INFO '}${chan(0, 8, 'NET/IB/0/GDRDMA')}`,
    `gpu1:11:12 [0]${'NCCL INFO '}${chan(0, 8, 'NET/IB/0/GDRDMA')}`,
    `gpu1:11:12 [x] ${'NCCL INFO '}${chan(0, 8, 'NET/IB/0/GDRDMA')}`,
    `gpu1:11:12 [x] ${'NCCL INFO '}${chan(0, 8, 'NET/IB/0/GDRDMA')}`,
    // 'Aa' and 'BB' hash alike (31 × 65 + 97 = 31 × 66 + 66): the bytes, not the hash, must decide, from the first byte on.
    `Aa:11:12 [0] NCCL INFO ${chan(0, 8, 'Aa/x')}`,
    `BB:11:12 [0] NCCL INFO ${chan(0, 8, 'BB/x')}`,
    `Aa:11:12 [0] NCCL INFO ${chan(0, 8, 'BB/x')}`,
    `BB:11:12 [0] NCCL INFO ${chan(0, 8, 'Aa/x')}`,
    // One byte off, the first: the previous line's header is compared whole.
    `gpu1:11:12 [0] NCCL INFO ${chan(0, 8, 'NET/IB/0/GDRDMA')}`,
    `hpu1:11:12 [0] NCCL INFO ${chan(0, 8, 'MET/IB/0/GDRDMA')}`,
  ];

  it('gives what the text gives, line by line and in any order', () => {
    const text = asText(lines).result();
    expect(asBytes(lines).result()).toEqual(text);
    expect(asChunk(lines).result()).toEqual(text);
    expect(asScanned(lines).result()).toEqual(text);
    expect(asChunk([...lines].reverse()).result()).toEqual(asText([...lines].reverse()).result());
    expect(asScanned([...lines].reverse()).result()).toEqual(asText([...lines].reverse()).result());
    // Each line twice in a row, then the whole list again: every entry is met again after others.
    const twice = [...lines.flatMap((l) => [l, l]), ...lines];
    expect(asChunk(twice).result()).toEqual(asText(twice).result());
    expect(asScanned(twice).result()).toEqual(asText(twice).result());
  });

  it('past the bounds of its tables: more distinct headers and vias than they hold, then the first ones again', () => {
    // 9,000 headers (the header table holds 8,192, then starts again) and 3,000 vias (1,024 slots), each header
    // followed by a second thread's, so the entries that point to the next header outlive a clear.
    const ls: string[] = [];
    for (let i = 0; i < 9000; i++) {
      ls.push(`h${i % 700}:${i}:1 [0] NCCL INFO ${chan(i % 50, 1, `NET/IB/${i % 3000}/GDRDMA`)}`);
      ls.push(`h${i % 700}:${i}:2 [0] NCCL INFO comm 0x${i.toString(16)} rank ${i % 50} nRanks 64`);
    }
    const again = [...ls.slice(0, 400), ...ls.slice(-400), ...ls.slice(0, 400)];
    const all = [...ls, ...again];
    const text = asText(all).result();
    expect(asChunk(all).result()).toEqual(text);
    expect(asScanned(all).result()).toEqual(text);
  });

  it('random orders of near-identical lines', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...lines), { minLength: 1, maxLength: 40 }), (ls) => {
        const text = asText(ls).result();
        expect(asChunk(ls).result()).toEqual(text);
        expect(asScanned(ls).result()).toEqual(text);
      }),
      runs(200),
    );
  });
});

describe('rank and QP lines read from bytes', () => {
  // rankAt and gidAt read what facts.ts's RANK and GID regexes read, on the shapes they take; anything else goes as text.
  // Each part mostly in a shape the byte path takes, sometimes a near-miss that must go as text.
  const pick = (good: string[], bad: string[]) => fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...good) }, { weight: 1, arbitrary: fc.constantFrom(...bad) });
  const rankMsg = fc
    .tuple(
      pick(['comm ', 'ncclCommInitRank comm '], ['comm  ', 'Comm ', 'ncclCommInitRank  comm ', 'x comm ']),
      pick(['0x55d0a001', '(nil)', `0x${'a'.repeat(40)}`, '0x55d0a002'], ['0x', '0xg1', '(nil', '0X1']),
      pick([' rank '], [' rank  ', ' Rank ', 'rank ']),
      pick(['3', '0', '007'], ['', '12345678901234567']),
      pick([' nRanks ', ' nranks '], [' NRanks ', ' nRanks']),
      pick(['16', '4'], ['', '99999999999999999999', '1x']),
      fc.array(
        pick(
          [' cudaDev 5', ' cudaDev -1', ' cudaDev -0', ' cudaDev 2', ' nvmlDev 5', ' nvmlDev -1', ' busId 1b000', ' busId 1c000', ` busId ${'f'.repeat(40)}`, ` busId ${'f'.repeat(39)}e`, ' commId 0x1', ' nNodes 2', ' localRanks 8 MNNVL 0'],
          [' cudaDev -', ' cudaDev x', ' nvmlDev -', ' busId ', ' busId 1B0g0', ' commId 0x', ' commId 1'],
        ),
        { maxLength: 5 },
      ),
      pick(
        ['', ' - Init COMPLETE', ' - Init START', ' - COMPLETE', ' - START'],
        [' -  Init COMPLETE', ' - Init Init COMPLETE', ' - Init x - COMPLETE', ' -- START', ' - init START', ' x - Init START - COMPLETE', ' \x1b[0m- Init COMPLETE', ' - Init COMPLETE\x1b[0m x', ' - Init COMPLETE\r x', ' -\x1b[0m Init COMPLETE', ' -\r Init START', ' comm 0x1 rank 9 nranks 10'],
      ),
    )
    .map(([p, comm, r, rank, n, nranks, opt, tail]) => `${p}${comm}${r}${rank}${n}${nranks}${opt.join('')}${tail}`);
  const gidMsg = fc
    .tuple(
      pick(['NET/IB: NCCL Dev 0', 'NET/IB: NCCL Dev 12345678901234567890'], ['NET/IB : NCCL Dev 0', 'NET/IB: NCCL Dev ', 'NET/IB: No device found', 'NET/IB: Using']),
      pick([' IbDev 3', ' IbDev 1'], [' IbDev ', ' IbDev 12345678901234567', ' IBDev 3', '']),
      pick([' Port 1 '], [' Port 1', ' Port ', ' Port 1x ']),
      fc.array(pick(['qpn 9 ', 'mtu 5 ', 'query_ece={supported=1, vendor_id=0x15b3} '], ['xGID 4 ', 'GID x ', 'GID ', '_GID 2 ', '(GID 6) ', 'IbDev 7 Port 2 GID 7 ', 'GID 12345678901234567 ', '\x1b[1m']), { maxLength: 4 }),
      pick(['GID 3 (80FE/1) fifoRkey=0x2a', 'GID 3', 'GID 0', 'GID 5 GID 6'], ['', 'GID', 'GID 3 \x1b[0m', 'GID 3 \r', 'GI\x1b[0mD 3 GID 4', 'GI\rD 3 GID 4']),
    )
    .map(([a, b, c, mid, tail]) => `${a}${b}${c}${mid.join('')}${tail}`);
  const line = fc.tuple(fc.constantFrom('gpu1', 'gpu2', ''), fc.constantFrom('', '[1,0]<stdout>:', '10.0.0.9: '), fc.integer({ min: -1, max: 2 }), fc.oneof(rankMsg, gidMsg)).map(([h, l, dev, m]) => `${l}${h}:1:1 [${dev}] NCCL INFO ${m}`);

  it('give what the text gives on every shape, near-misses included', () => {
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 12 }), (ls) => {
        const text = asText(ls).result();
        expect(asChunk(ls).result()).toEqual(text);
        expect(asScanned(ls).result()).toEqual(text);
      }),
      runs(1000),
    );
  });

  it('and on the lines the bench log repeats', () => {
    const ls = [
      '[1,5]<stdout>:gpu-node-000:10005:10045 [5] NCCL INFO comm 0x55d0a001 rank 5 nRanks 1000 nNodes 125 localRanks 8 localRank 5 MNNVL 0',
      '[1,5]<stdout>:gpu-node-000:10005:10046 [5] NCCL INFO NET/IB: NCCL Dev 5 IbDev 5 Port 1 qpn 4001 mtu 5 query_ece={supported=1, vendor_id=0x15b3, options=0x30000002, comp_mask=0x0} GID 3 (80FE/1) fifoRkey=0x2a fifoLkey=0x2a',
      '[1,5]<stdout>:gpu-node-000:10005:10045 [5] NCCL INFO ncclCommInitRank comm 0x55d0a001 rank 5 nranks 1000 cudaDev 5 nvmlDev 5 busId 1b000 commId 0x1 - Init COMPLETE',
      '[1,5]<stdout>:gpu-node-000:10005:10045 [5] NCCL INFO comm 0x55d0a002 rank 5 nRanks 1000 nNodes 125 localRanks 8 localRank 5 MNNVL 0',
      '[1,5]<stdout>:gpu-node-000:10005:10045 [5] NCCL INFO ncclCommInitRank comm 0x55d0a002 rank 5 nranks 1000 cudaDev 4 nvmlDev 5 busId 1c000 commId 0x2 - Init START',
    ];
    const text = asText(ls).result();
    expect(asChunk(ls).result()).toEqual(text);
    expect(asScanned(ls).result()).toEqual(text);
    expect(text.ranks[0]).toMatchObject({ rank: 5, nranks: 1000, cudaDev: 4, busId: '1c000', comm: '0x55d0a002', initComplete: true });
    expect(text.hosts[0]!.gidIndex).toEqual({ 5: 3 });
  });
});

describe('a log read in parts and merged', () => {
  it('equals the log read whole at every split point of every corpus file (or declines)', () => {
    let exact = 0;
    let declined = 0;
    for (const f of corpus) {
      const lines = linesOf(f);
      const whole = asText(lines).result();
      for (let i = 0; i <= lines.length; i++) {
        const r = inParts(lines, [i]);
        if (r === null) declined++;
        else {
          exact++;
          expect(r, `${f} split at line ${i}`).toEqual(whole);
        }
      }
    }
    // Only lines whose host comes from the launcher maps make a merge decline.
    expect(exact).toBeGreaterThan(declined * 3);
  });

  it('three and four parts over all the corpus files read as one input', () => {
    const lines = corpus.flatMap(linesOf);
    const whole = asText(lines).result();
    const n = lines.length;
    for (const cuts of [[Math.floor(n / 3), Math.floor((2 * n) / 3)], [1, 2, n - 1], [Math.floor(n / 4), Math.floor(n / 2), Math.floor((3 * n) / 4)]]) {
      const r = inParts(lines, cuts);
      if (r) expect(r).toEqual(whole);
    }
  });

  it('declines where only order can decide: a host known through the launcher, a bound reached', () => {
    const lines = ['[1,0]<stdout>:hostA:1:1 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>', '[1,0]<stdout>::1:1 [0] x.cc:1 NCCL WARN something broke'];
    expect(inParts(lines, [1])).toBeNull();
    // The same lines in one part merge.
    expect(inParts(lines, [])).toEqual(asText(lines).result());
    const many = Array.from({ length: 300 }, (_, i) => `h:1:1 [0] NCCL INFO NCCL_X${i} set by environment to 1`);
    expect(inParts(many, [150])).toBeNull();
    // A part that ends on PyTorch's `Last error:` leaves its next line to the next part.
    const torch = ['h:1:1 [0] NCCL INFO Using network IB', 'Last error:', 'Duplicate GPU detected : rank 3 and rank 0 both on CUDA device f000'];
    expect(inParts(torch, [2])).toBeNull();
    expect(inParts(torch, [1])).toEqual(asText(torch).result());
  });

  it('PyTorch\'s line after `NCCL error in:` and the ranks of a problem: equal at every split, declined after `NCCL error in:` or `Last error:`', () => {
    const lines = [
      'h:1:1 [0] x.cc:1 NCCL WARN something broke',
      'torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, internal error - please report this issue to the NCCL developers, NCCL version 2.19.3',
      'ncclInternalError: Internal check failed.',
      'Last error:',
      'Net : Call to recv from 10.0.0.1<57120> failed : Connection reset by peer',
      // The WARN's process states its ranks after it: rank 3 of 8 (its largest communicator) and rank 1 of 2.
      'h:1:1 [0] NCCL INFO comm 0x2 rank 1 nRanks 2 cudaDev 0',
      'h:1:1 [0] NCCL INFO comm 0x1 rank 3 nRanks 8 cudaDev 0',
    ];
    const whole = asText(lines).result();
    const errors = Object.fromEntries(whole.summary.errors.map((e) => [e.signature, e]));
    expect(errors['torch-nccl-error']!.details).toEqual({ message: ['ncclInternalError: Internal check failed.'] });
    expect(errors['torch-nccl-error']!.count).toBe(1);
    expect(errors['warn:something broke']!.details).toEqual({ rank: ['3'] });
    expect(whole.input.lines).toBe(lines.length);
    // Two communicators of one size: the lower rank; one more rank in the other: that one.
    const tie = (n: number) => asText([lines[0]!, `h:1:1 [0] NCCL INFO comm 0x3 rank 5 nRanks ${n} cudaDev 0`, 'h:1:1 [0] NCCL INFO comm 0x4 rank 2 nRanks 8 cudaDev 0']).result();
    expect(tie(8).summary.errors[0]!.details).toEqual({ rank: ['2'] });
    expect(tie(9).summary.errors[0]!.details).toEqual({ rank: ['5'] });
    for (const read of [asBytes, asChunk, asScanned]) {
      expect(read(lines).result(), read.name).toEqual(whole);
      for (let i = 0; i <= lines.length; i++) {
        const r = inParts(lines, [i], read);
        if (i === 2 || i === 4) expect(r, `${read.name} split at ${i}`).toBeNull();
        else expect(r, `${read.name} split at ${i}`).toEqual(whole);
      }
    }
  });

  it('random logs: every merge that is made equals the log read whole', () => {
    const host = fc.constantFrom('h1', 'h2', 'h3', 'h1', 'h2', 'h3', '');
    const launcher = fc.constantFrom('', '[1,0]<stdout>:', '[1,1]<stdout>:', '0: ', '10.0.0.9: ');
    const msg = fc.constantFrom(
      'NCCL version 2.18.3+cuda12.2',
      'NCCL version 2.21.5+cuda12.4',
      'NCCL_SOCKET_IFNAME set by environment to eth0',
      'NCCL_SOCKET_IFNAME set by environment to ens3',
      'NCCL_IB_GID_INDEX set by environment to 3.',
      'Bootstrap : Using eth0:10.0.0.1<0>',
      'Bootstrap: Using ens3:10.0.0.2<0>',
      'NET/Socket : Using [0]eth0:10.0.0.1<0>',
      'NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE [RO]; OOB eth0:10.0.0.1<0>',
      'NET/IB : Using [0]mlx5_0:1/IB; OOB ens3:10.0.0.2<0>',
      'NET/IB : No device found.',
      'Using network IB',
      'Using network Socket',
      'Channel 00/0 : 0[0] -> 1[1] [send] via NET/IB/0/GDRDMA',
      'Channel 01/0 : 1[1] -> 0[0] [receive] via NET/Socket/1',
      'Channel 02/0 : 0[0] -> 1[1] via P2P/IPC',
      'NET/IB: NCCL Dev 0 IbDev 0 Port 1 qpn 9 mtu 5 GID 3 (80FE/1)',
      'NET/IB : GPU Direct RDMA Enabled for HCA 0 \'mlx5_0\'',
    );
    const warn = fc.constantFrom('NET/IB : Got completion from peer 10.0.0.9<4100> with status=12 opcode=0 len=0 vendor err 129 (Send)', 'Call to ibv_modify_qp failed with 110 Connection timed out', 'Something odd');
    // Rank lines with and without the device, so later statements override and headers only fill in.
    const rank = fc.tuple(fc.nat(2), fc.nat(2), fc.integer({ min: 2, max: 4 }), fc.option(fc.nat(3)), fc.constantFrom('', ' - Init START', ' - Init COMPLETE')).map(
      ([comm, r, n, dev, stage]) => `comm 0x55d${comm} rank ${r} nranks ${n}${dev === null ? '' : ` cudaDev ${dev} busId ${dev}b000`}${stage}`,
    );
    const line = fc.oneof(
      { weight: 3, arbitrary: fc.tuple(host, fc.integer({ min: 1, max: 2 }), fc.integer({ min: -1, max: 3 }), rank).map(([h, pid, dev, m]) => `${h}:${pid}:${pid} [${dev}] NCCL INFO ${m}`) },
      { weight: 6, arbitrary: fc.tuple(launcher, host, fc.integer({ min: 1, max: 3 }), fc.integer({ min: -1, max: 3 }), msg).map(([l, h, pid, dev, m]) => `${l}${h}:${pid}:${pid} [${dev}] NCCL INFO ${m}`) },
      { weight: 2, arbitrary: fc.tuple(launcher, host, warn, fc.boolean()).map(([l, h, w, rep]) => `${l}${h}:1:2 [0] x.cc:1 NCCL WARN ${w}${rep ? ' [repeated 3x across cluster]' : ''}`) },
      { weight: 1, arbitrary: fc.tuple(launcher, fc.constantFrom('NCCL version 2.18.3+cuda12.2', 'NCCL version 2.7.8+cuda11.0')).map(([l, v]) => `${l}${v}`) },
      { weight: 1, arbitrary: fc.constantFrom('step 1 loss 0.5', '') },
    );
    let merged = 0;
    let declined = 0;
    fc.assert(
      fc.property(fc.array(line, { minLength: 10, maxLength: 60, size: 'max' }), fc.array(fc.nat(60), { minLength: 1, maxLength: 3 }), (lines, cutsIn) => {
        const cuts = [...new Set(cutsIn.map((c) => Math.min(c, lines.length)))].sort((a, b) => a - b);
        const r = inParts(lines, cuts);
        if (r === null) return void declined++;
        merged++;
        expect(r).toEqual(asText(lines).result());
        expect(inParts(lines, cuts, asScanned)).toEqual(r);
      }),
      runs(400),
    );
    expect(merged).toBeGreaterThan(150);
  });
});
