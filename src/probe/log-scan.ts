// The WebAssembly byte scanner of `ncclx log` (wasm/log-scan.c): one instance
// per thread, made on first use. Its input area is a Buffer over the module's
// memory, so a reader can read a file straight into it; only one reader may
// hold it at a time (lease), since the next read would overwrite the bytes the
// last one has not scanned yet. NCCLX_LOG_SCAN=js turns it off (the line-by-line
// reader alone, as the tests compare both).

import { LOG_SCAN_WASM } from './log-scan-wasm.js';

export const RECORD_REPLAY = 1;
export const RECORD_RUN = 2;
export const RECORD_RANK = 3;
export const RECORD_GID = 4;
/** Ints in a RANK record after its kind, start, k and end (wasm/log-scan.c R_FIELDS). */
export const RANK_FIELDS = 10;

export interface LogScanner {
  /** The input area: scan() reads the bytes here. */
  readonly input: Buffer;
  /** The records of the last scan(), from index 0. */
  readonly out: Int32Array;
  /** Reads the complete lines of input[from, to); returns where it stopped (to, or earlier when the records filled up). */
  scan(from: number, to: number): number;
  /** How many ints of out the last scan() wrote. */
  records(): number;
  /** Lines without `NCCL` the last scan() counted and no record covers. */
  plain(): number;
  /** Who holds the input area (null: free). */
  holder: object | null;
}

interface Exports {
  memory: { buffer: ArrayBuffer };
  input(): number;
  capacity(): number;
  output(): number;
  records(): number;
  plain(): number;
  scan(from: number, to: number): number;
}

/** The runtime's WebAssembly, as much of it as this uses (the project's TypeScript libs do not declare it). */
interface Wasm {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
}
const wasm = (globalThis as { WebAssembly?: Wasm }).WebAssembly;

let made: LogScanner | null | undefined;

function make(): LogScanner | null {
  if (process.env['NCCLX_LOG_SCAN'] === 'js' || !wasm) return null;
  try {
    const x = new wasm.Instance(new wasm.Module(Buffer.from(LOG_SCAN_WASM, 'base64')), {}).exports as Exports;
    // The memory never grows (the module allocates nothing), so these views stay valid.
    const input = Buffer.from(x.memory.buffer, x.input(), x.capacity());
    const out = new Int32Array(x.memory.buffer, x.output(), 65536);
    return { input, out, scan: x.scan, records: x.records, plain: x.plain, holder: null };
  } catch {
    // A runtime without WebAssembly SIMD: the line-by-line reader does it all.
    return null;
  }
}

/** This thread's scanner, or null when there is none (then lines are read one by one). */
export function logScanner(): LogScanner | null {
  if (made === undefined) made = make();
  return made;
}

/** The scanner's input area for `who` to read into, when the scanner is there and free; give it back with release(). */
export function leaseInput(who: object): Buffer | null {
  const s = logScanner();
  if (!s || s.holder) return null;
  s.holder = who;
  return s.input;
}

export function release(who: object): void {
  const s = logScanner();
  if (s && s.holder === who) s.holder = null;
}
