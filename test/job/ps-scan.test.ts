// The first pass of `ncclx ps` (src/probe/ps-scan.ts) reads each maps file in
// chunks of one reused 256 KiB buffer: a process whose libnccl line lies past
// the first chunk, or is cut by a chunk boundary, is still found, and a
// process with no NCCL library is not.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { candidatePids } from '../../src/probe/ps-scan.js';
import { tempDir } from '../helpers/tmp.js';

const CHUNK = 1 << 18;
// python3 holds the mappings; a fresh machine may lack it (never skipped under CI).
const HAVE_PYTHON = spawnSync('python3', ['-c', '0']).status === 0 || process.env['CI'] === 'true';
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
});

// Python maps `lib` first (mmap hands out addresses top down, so it is listed
// last), then `copies` mappings of a file with a ~4 KiB path, each a line
// of about 4 KiB in maps before the libnccl line.
async function mapper(lib: string, filler: string, copies: number): Promise<number> {
  const py = `import mmap,sys\nf=open(sys.argv[1],'rb');keep=[mmap.mmap(f.fileno(),0,prot=mmap.PROT_READ)]\ng=open(sys.argv[2],'rb')\nfor i in range(int(sys.argv[3])):\n  keep.append(mmap.mmap(g.fileno(),4096,prot=mmap.PROT_READ if i%2 else mmap.PROT_READ|mmap.PROT_WRITE,flags=mmap.MAP_PRIVATE))\nprint('ready',flush=True)\nsys.stdin.read()\n`;
  const c = spawn('python3', ['-c', py, lib, filler, String(copies)], { stdio: ['pipe', 'pipe', 'inherit'] });
  children.push(c);
  await new Promise((r) => c.stdout!.once('data', r));
  return c.pid!;
}

function longPathFile(dir: string): string {
  let p = dir;
  while (p.length < 3800) p = join(p, 'd'.repeat(200));
  mkdirSync(p, { recursive: true });
  const f = join(p, 'filler.bin');
  writeFileSync(f, Buffer.alloc(4096, 1));
  return f;
}

describe('ps first pass', () => {
  it.skipIf(!HAVE_PYTHON)('finds a libnccl (needs python3: Debian package python3) mapping that lies past the first 256 KiB of maps, and not a process without one', async () => {
    const dir = tempDir('ncclx-ps-scan-');
    const lib = join(dir, 'libnccl.so.2');
    writeFileSync(lib, Buffer.alloc(8192, 0x90));
    const other = join(dir, 'libother.so.1');
    writeFileSync(other, Buffer.alloc(8192, 0x90));
    const filler = longPathFile(dir);
    const pid = await mapper(lib, filler, 120);
    const none = await mapper(other, filler, 120);
    const maps = readFileSync(`/proc/${pid}/maps`);
    // The test means something only if the libnccl line is beyond one chunk.
    expect(maps.length).toBeGreaterThan(CHUNK);
    expect(maps.indexOf('libnccl')).toBeGreaterThan(CHUNK);
    const c = candidatePids();
    expect(c.pids).toContain(pid);
    expect(c.pids).not.toContain(none);
    expect(c.scanned).toBeGreaterThan(2);
  }, 30_000);
});
