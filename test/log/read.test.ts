// The reader's lines are the file's lines whatever the chunking: LF ends a
// line, one CR before it goes, a line is cut at MAX_LINE characters (UTF-16
// units, as JavaScript counts them), multi-byte characters and lines cross the
// 1 MiB chunk boundaries intact, and ASCII lines handed over as bytes are the
// same lines.
import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_LINE, readLogs } from '../../src/probe/log-read.js';
import { tempDir } from '../helpers/tmp.js';

const tmp = tempDir('ncclx-read-');

/** What the reader must give for `text`: the reference, written plainly. */
function expected(text: string): [string, boolean][] {
  const parts = text.split('\n');
  if (parts.at(-1) === '') parts.pop();
  return parts.map((l) => {
    const s = l.endsWith('\r') ? l.slice(0, -1) : l;
    return s.length > MAX_LINE ? [s.slice(0, MAX_LINE), true] : [s, false];
  });
}

function sample(): string {
  const out: string[] = [];
  let size = 0;
  // Past three chunks, with every kind of line recurring so some straddle each boundary.
  const long = [
    (i: number) => 'L'.repeat(MAX_LINE - 1 + (i % 3)), // MAX_LINE - 1 … MAX_LINE + 1 characters
    (i: number) => `${'é'.repeat(MAX_LINE - 2 + (i % 5))}\r`, // under and over the limit in characters, far over in bytes
    () => 'Z'.repeat(5 * MAX_LINE),
  ];
  for (let i = 0; size < 3.5 * 1024 * 1024; i++) {
    const k = i % 8;
    const l =
      i % 40 === 39 ? long[(i / 40) % 3 | 0]!(i)
      : k === 0 ? `n1:1:1 [0] NCCL INFO Channel 0${i % 8}/0 : 1[1] -> 2[2] via P2P/IPC\r`
      : k === 1 ? `n1:1:1 [0] NCCL INFO Bootstrap : Using ëth0:10.0.0.1<0> ✓ ${'é'.repeat(i % 300)}`
      : k === 2 ? `${'x'.repeat(i % 5000)} NCCL WARN 𝔘nicode astral ${i}`
      : k === 3 ? ''
      : k === 4 ? '\r'
      : `plain line ${i}`;
    out.push(l);
    size += Buffer.byteLength(l) + 1;
  }
  return `${out.join('\n')}\nlast line without newline\r`;
}

describe('the log reader', () => {
  const text = sample();
  const file = join(tmp, 'mixed.log');
  writeFileSync(file, text);

  it('gives the lines of the file, cut where they are too long, across chunk boundaries', async () => {
    const got: [string, boolean][] = [];
    const inputs = await readLogs([file], (l, cut) => got.push([l, cut]));
    const want = expected(text);
    expect(got.length).toBe(want.length);
    for (let i = 0; i < want.length; i++) expect(got[i], `line ${i}`).toEqual(want[i]);
    expect(inputs[0]!.lines).toBe(want.length);
    expect(want.filter(([, c]) => c).length).toBeGreaterThan(10);
  });

  it('ASCII lines given as bytes are the same lines, with their first NCCL found', async () => {
    const got: [string, boolean][] = [];
    let asBytes = 0;
    await readLogs([file], {
      line: (l, cut) => got.push([l, cut]),
      ascii: (b, a, e, k) => {
        asBytes++;
        const l = b.toString('latin1', a, e);
        expect(k).toBe(l.indexOf('NCCL') < 0 ? -1 : a + l.indexOf('NCCL'));
        got.push([l, false]);
      },
    });
    expect(got).toEqual(expected(text));
    expect(asBytes).toBeGreaterThan(0);
  });

  it('a named pipe (read as a stream, not into the reused buffer) gives the same lines', async () => {
    const fifo = join(tmp, 'pipe.log');
    if (spawnSync('mkfifo', [fifo]).status !== 0) return;
    const writer = spawn('sh', ['-c', 'cat "$0" > "$1"', file, fifo]);
    // Listened for from the start: the writer may be gone before the reading ends.
    const exited = new Promise((ok) => writer.once('exit', ok));
    const got: [string, boolean][] = [];
    await readLogs([fifo], { line: (l, cut) => got.push([l, cut]), ascii: (b, a, e) => got.push([b.toString('latin1', a, e), false]) });
    await exited;
    expect(got).toEqual(expected(text));
    // (Opening the pipe, closing it and opening it again would wait for a writer forever.)
  }, 20_000);

  it('files around the sniff and chunk sizes, with and without a last newline', async () => {
    for (const size of [0, 1, 65535, 65536, 65537, (1 << 20) - 1, 1 << 20, (1 << 20) + 1]) {
      const line = 'n1:1:1 [0] NCCL INFO Channel 00/0 : 1[1] -> 2[2] via P2P/IPC\n';
      const body = line.repeat(Math.ceil(size / line.length)).slice(0, size);
      const f = join(tmp, `size-${size}.log`);
      writeFileSync(f, body);
      const got: [string, boolean][] = [];
      const inputs = await readLogs([f], { line: (l, cut) => got.push([l, cut]), ascii: (b, a, e) => got.push([b.toString('latin1', a, e), false]) });
      expect(got, `${size} bytes`).toEqual(expected(body));
      expect(inputs[0]).toEqual({ name: f, bytes: size, lines: expected(body).length, gzip: false });
    }
  });
});
