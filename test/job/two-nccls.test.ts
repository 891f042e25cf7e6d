// A process that maps two copies of libnccl (issue #24; seen on a real node, test/device/h200-vm/README.md:
// a PyTorch job run with LD_PRELOAD of the system's libnccl.so.2 maps its wheel's copy too, and NCCL's log
// says the preloaded 2.28.3 runs). Real processes: python maps two stand-in libraries, with and without
// LD_PRELOAD naming one; `ncclx ps` and `explain --pid` must name the copy the process runs.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeNccl } from '../helpers/libs.js';
import { tempDir } from '../helpers/tmp.js';

const CLI = join(__dirname, '../../dist/cli.js');
const PYTHON = ['/usr/bin/python3', '/usr/local/bin/python3'].find((p) => spawnSync(p, ['-c', '0']).status === 0);
const children: ChildProcess[] = [];

/** python3 mapping `libs` in order (mmap: the maps list them by address, not by load order), with exactly `env`. */
async function mapper(libs: string[], env: Record<string, string>): Promise<number> {
  const py = `import mmap,sys\nfs=[open(p,'rb') for p in sys.argv[1:]]\nkeep=[mmap.mmap(f.fileno(),0,prot=mmap.PROT_READ) for f in fs]\nprint('ready',flush=True)\nsys.stdin.read()\n`;
  const c = spawn(PYTHON!, ['-c', py, ...libs], { env, stdio: ['pipe', 'pipe', 'ignore'] });
  children.push(c);
  await new Promise((resolve, reject) => {
    c.stdout!.once('data', resolve);
    c.once('exit', (code) => reject(new Error(`the mapper exited ${code}`)));
  });
  return c.pid!;
}

const ncclx = (args: string[]) => {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: { PATH: '/usr/bin:/bin', HOME: '/nonexistent' }, timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
};

// python3 holds the mappings; a fresh machine may lack it (never skipped under CI).
describe.skipIf(!PYTHON && process.env['CI'] !== 'true')('two copies of libnccl in one process (needs python3: Debian package python3)', () => {
  let wheel: string;
  let system: string;
  let systemReal: string;
  let preloaded: number;
  let byName: number;
  let plain: number;
  let single: number;

  beforeAll(async () => {
    const dir = tempDir('ncclx-two-nccls-');
    wheel = join(dir, 'venv/lib/python3.12/site-packages/nvidia/nccl/lib/libnccl.so.2');
    // As Debian installs it: libnccl.so.2 a link to libnccl.so.2.28.3. The maps hold the real path; LD_PRELOAD names the link.
    systemReal = join(dir, 'usr/lib/x86_64-linux-gnu/libnccl.so.2.28.3');
    system = join(dir, 'usr/lib/x86_64-linux-gnu/libnccl.so.2');
    // Plain files: a preload of a real shared object would put a third mapping in the process.
    fakeNccl(wheel, '2.28.9', { elf: false });
    fakeNccl(systemReal, '2.28.3', { elf: false });
    symlinkSync('libnccl.so.2.28.3', system);
    const env = { PATH: '/usr/bin:/bin' };
    // The loader refuses a preload that is not ELF and goes on; the variable stays in the process's environment.
    // The preloaded copy is mapped first, so it lies higher and the maps list the wheel's first: only LD_PRELOAD tells.
    preloaded = await mapper([system, wheel], { ...env, LD_PRELOAD: system });
    // A bare name, found as ld.so finds it (here through LD_LIBRARY_PATH).
    byName = await mapper([system, wheel], { ...env, LD_PRELOAD: 'libnccl.so.2', LD_LIBRARY_PATH: dirname(system) });
    plain = await mapper([wheel, system], env);
    single = await mapper([system], { ...env, LD_PRELOAD: system });
  }, 30_000);

  afterAll(() => {
    for (const c of children) c.kill('SIGKILL');
  });

  it('ps: the copy named in LD_PRELOAD is the one the process runs, the other is listed; without it, the first mapped and a word that the order is unknown', () => {
    const r = ncclx(['ps', '--json']);
    expect(r.code).toBe(0);
    const byPid = new Map(JSON.parse(r.stdout).processes.map((p: { pid: number }) => [p.pid, p]));
    const lib = (pid: number) => (byPid.get(pid) as { ncclLibrary: Record<string, unknown> }).ncclLibrary;
    expect(lib(preloaded)).toMatchObject({ path: systemReal, version: '2.28.3', alsoMapped: [{ path: wheel, version: '2.28.9' }] });
    expect(lib(preloaded)['chosenBy']).toMatch(/named in LD_PRELOAD/);
    expect(lib(byName)).toMatchObject({ path: systemReal, version: '2.28.3', alsoMapped: [{ path: wheel, version: '2.28.9' }] });
    // Both copies mapped, no LD_PRELOAD: whichever the maps list first, the other is named, and why it cannot be told.
    const p = lib(plain);
    expect([p['path'], (p['alsoMapped'] as { path: string }[])[0]!.path].sort()).toEqual([wheel, systemReal].sort());
    expect(p['chosenBy']).toMatch(/none named in LD_PRELOAD: .*which \/proc\/PID\/maps does not show/);
    // One copy: nothing more to say, whatever LD_PRELOAD holds.
    expect(lib(single)).toMatchObject({ path: systemReal, version: '2.28.3' });
    expect(lib(single)['alsoMapped']).toBeUndefined();
    expect(lib(single)['chosenBy']).toBeUndefined();
  });

  it('explain --pid models the preloaded copy\'s release and says which copy and why', () => {
    const r = ncclx(['explain', '--pid', String(preloaded), '--json']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.ncclVersion).toBe('2.28.3');
    expect(j.versionSource).toContain(systemReal);
    expect(j.versionSource).toMatch(/named in LD_PRELOAD.*also mapped: .*nvidia\/nccl\/lib\/libnccl\.so\.2 \(2\.28\.9\)/);
  });
});
