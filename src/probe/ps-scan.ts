// The first pass of `ncclx ps`: which processes map an NCCL library. Every
// /proc/PID/maps is read once into one reused buffer and searched as bytes
// for "libnccl" or "libtorch_cuda" (no text decoding, no allocation per
// process); only the processes that match are read further
// (src/probe/ps.ts). This module imports nothing else, so a node with no
// NCCL process is answered without loading the model.

import { closeSync, openSync, readdirSync, readSync } from 'node:fs';

const BUF = Buffer.allocUnsafe(1 << 18);
const NEEDLES = [Buffer.from('libnccl'), Buffer.from('libtorch_cuda')];
const KEEP = 16;

type Seen = 'match' | 'no' | 'denied' | 'gone';

function mapsMention(pid: number): Seen {
  let fd: number;
  try {
    fd = openSync(`/proc/${pid}/maps`, 'r');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === 'EACCES' || code === 'EPERM' ? 'denied' : 'gone';
  }
  try {
    let carry = 0;
    for (;;) {
      const n = readSync(fd, BUF, carry, BUF.length - carry, null);
      if (n === 0) return 'no';
      const end = carry + n;
      const view = BUF.subarray(0, end);
      if (view.indexOf(NEEDLES[0]!) >= 0 || view.indexOf(NEEDLES[1]!) >= 0) return 'match';
      // A needle cut by the read boundary is found in the next pass.
      const keep = Math.min(KEEP, end);
      BUF.copy(BUF, 0, end - keep, end);
      carry = keep;
    }
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === 'EACCES' || code === 'EPERM' ? 'denied' : 'gone';
  } finally {
    closeSync(fd);
  }
}

export interface ScanCandidates {
  pids: number[];
  scanned: number;
  /** Processes whose maps ncclx may not read (another user's, as non-root); ended ones are not counted. */
  unreadable: number;
}

export function candidatePids(): ScanCandidates {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return { pids: [], scanned: 0, unreadable: 0 };
  }
  const pids: number[] = [];
  let scanned = 0;
  let unreadable = 0;
  for (const n of names) {
    const c = n.charCodeAt(0);
    if (c < 48 || c > 57) continue;
    const pid = Number(n);
    if (pid === process.pid) continue;
    scanned++;
    const seen = mapsMention(pid);
    if (seen === 'match') pids.push(pid);
    else if (seen === 'denied') unreadable++;
  }
  return { pids, scanned, unreadable };
}
