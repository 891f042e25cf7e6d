// Which NCCL the job loads (issue #24, part 1): the Python on the job's PATH,
// its virtual environment, torch's own NCCL (the nvidia-nccl wheel through
// libtorch_cuda.so's RUNPATH, or NCCL linked into it), LD_LIBRARY_PATH and the
// system's library; the version read from the library binary.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readElf } from '../../src/probe/elf.js';
import { parseLdCache, readLdCache } from '../../src/probe/loader.js';
import { scanNcclVersion } from '../../src/probe/nccl-binary.js';
import { probeNcclLibrary } from '../../src/probe/nccl-lib.js';
import { libraryFindings, modelledLibrary } from '../../src/model/nccl/library.js';
import { Root } from '../../src/probe/root.js';
import { recordedRunner } from '../../src/probe/runner.js';
import { fakeNccl, gccMissing, HAVE_GCC, layout, torchNode } from '../helpers/libs.js';
import { tempDir } from '../helpers/tmp.js';

const CLI = join(__dirname, '../../dist/cli.js');

function explainJson(root: string, env: Record<string, string>, args: string[] = []) {
  const r = spawnSync(process.execPath, [CLI, 'explain', '--json', '--root', root, ...args], { encoding: 'utf8', env: { ...env, NCCL_CONF_FILE: '/dev/null' } });
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout) as { ncclVersion: string; versionSource: string; findings: { id: string; severity: string; message: string }[] };
}

const probe = (dir: string, env: Record<string, string>, python?: string) => {
  const root = new Root(dir);
  return probeNcclLibrary(root, recordedRunner(root), env, { python });
};

describe("the issue's node: PyTorch's wheel 2.28.9 in /opt/torch/.venv, the system's 2.28.3, no VIRTUAL_ENV", () => {
  const dir = tempDir('ncclx-job-');
  const { env, site } = torchNode(dir);

  it('models the NCCL PyTorch loads, found through the python3 on PATH and its pyvenv.cfg', () => {
    const j = explainJson(dir, env);
    expect(j.ncclVersion).toBe('2.28.9');
    expect(j.versionSource).toContain(`${site}/nvidia/nccl/lib/libnccl.so.2 (PyTorch`);
    expect(j.versionSource).toContain('a PyTorch job loads it');
    expect(j.versionSource).toContain('other versions on this node: 2.28.3 (the system\'s, /lib/x86_64-linux-gnu/libnccl.so.2)');
    // Read from the library, not from the wheel's dist-info or the file name.
    expect(j.versionSource).toContain('the library states "NCCL version 2.28.9+cuda12.9"');
    if (HAVE_GCC) expect(j.versionSource).toContain('libtorch_cuda.so needs libnccl.so.2, found in');
  });
  it('says there are two NCCLs and which one a PyTorch job loads; NCCL_VERSION from the image is not the library', () => {
    const j = explainJson(dir, env);
    const lib = j.findings.find((f) => f.id === 'LIB-001')!;
    expect(lib.message).toBe(`two NCCLs: the system's 2.28.3 and PyTorch's 2.28.9; a PyTorch job loads 2.28.9 (${site}/nvidia/nccl/lib/libnccl.so.2); their rules differ, so a job that loads another one behaves otherwise`);
    // 2.28.7 changed a rule between them (a refused vNIC is logged under NOWARN, Profile.vnicRefusalQuiet): a warning.
    expect(lib.severity).toBe('warn');
    expect(j.findings.find((f) => f.id === 'LIB-002')!.message).toMatch(/^NCCL_VERSION=2\.28\.3-1 \(set by the image\) is not the library: a PyTorch job loads 2\.28\.9/);
  });
  // In process: LD_PRELOAD in ncclx's own environment would preload into ncclx itself.
  it("LD_PRELOAD naming the system's libnccl: a PyTorch job runs it, not its wheel's (seen on a real node: NCCL logged 2.28.3)", () => {
    const part = probe(dir, { ...env, LD_PRELOAD: '/lib/x86_64-linux-gnu/libnccl.so.2' });
    const m = modelledLibrary(part)!;
    expect([m.candidate.path, m.candidate.version, m.by]).toEqual(['/lib/x86_64-linux-gnu/libnccl.so.2', '2.28.3', 'preload']);
    expect(m.why).toMatch(/^LD_PRELOAD names it, so every program started here runs it \(LD_PRELOAD=\/lib\/x86_64-linux-gnu\/libnccl\.so\.2 \(a path\): /);
    expect(libraryFindings(part, {}).find((f) => f.id === 'LIB-001')!.message).toMatch(/^two NCCLs: PyTorch's 2\.28\.9 and LD_PRELOAD's 2\.28\.3; /);
  });
  it('LD_PRELOAD by bare name is found as the loader finds it; one not found is skipped, as the loader skips it, and said', () => {
    expect(modelledLibrary(probe(dir, { ...env, LD_PRELOAD: 'libnccl.so.2' }))!.candidate.version).toBe('2.28.3');
    const missing = probe(dir, { ...env, LD_PRELOAD: '/nowhere/libnccl.so.2' });
    expect(modelledLibrary(missing)!.by).toBe('pytorch');
    expect(missing.notes).toContain('LD_PRELOAD names /nowhere/libnccl.so.2, which is not found here: the dynamic loader skips it');
    // Another library in LD_PRELOAD changes nothing.
    expect(modelledLibrary(probe(dir, { ...env, LD_PRELOAD: '/lib/x86_64-linux-gnu/libjemalloc.so.2' }))!.by).toBe('pytorch');
  });
  it('without the venv on PATH, a program linked with libnccl.so.2 gets the system library', () => {
    const j = explainJson(dir, { ...env, PATH: '/usr/bin:/bin' });
    expect(j.ncclVersion).toBe('2.28.3');
    expect(j.versionSource).toMatch(/^\/lib\/x86_64-linux-gnu\/libnccl\.so\.2 \(system library directory; .*a program linked with libnccl\.so\.2 loads it/);
  });
  it('--python names the interpreter when it is not on PATH; VIRTUAL_ENV does too', () => {
    expect(explainJson(dir, { ...env, PATH: '/usr/bin:/bin' }, ['--python', '/opt/torch/.venv/bin/python3']).ncclVersion).toBe('2.28.9');
    expect(explainJson(dir, { ...env, PATH: '/usr/bin:/bin', VIRTUAL_ENV: '/opt/torch/.venv' }).ncclVersion).toBe('2.28.9');
    const lib = probe(dir, { ...env, PATH: '/usr/bin:/bin' }, '/opt/torch/.venv/bin/python3');
    expect(lib.pythons).toEqual([expect.objectContaining({ via: '--python', prefix: '/opt/torch/.venv', venv: true, version: '3.12', real: '/usr/bin/python3.12', torch: `${site}/torch` })]);
  });
  it('--python naming nothing is said, and the system library is modelled', () => {
    const lib = probe(dir, env, '/nonexistent/python3');
    expect(lib.notes?.join('\n')).toMatch(/--python \/nonexistent\/python3: no such interpreter/);
    expect(lib.candidates[0]).toMatchObject({ path: '/lib/x86_64-linux-gnu/libnccl.so.2', loadedBy: ['loader'] });
  });
  it('releases whose rules differ: a warning', () => {
    const d = tempDir('ncclx-job-');
    const t = torchNode(d, { wheel: '2.30.7', system: '2.29.3' });
    const f = explainJson(d, t.env).findings.find((x) => x.id === 'LIB-001')!;
    expect(f.severity).toBe('warn');
    expect(f.message).toMatch(/^two NCCLs: the system's 2\.29\.3 and PyTorch's 2\.30\.7; a PyTorch job loads 2\.30\.7 .*their rules differ/);
  });
  it('one library: no LIB finding; --nccl-version: none either', () => {
    const d = tempDir('ncclx-job-');
    const t = torchNode(d, { wheel: '2.28.3', system: '2.28.3' });
    expect(explainJson(d, { ...t.env, NCCL_VERSION: '2.28.3-1' }).findings.filter((f) => f.id.startsWith('LIB'))).toEqual([]);
    expect(explainJson(dir, env, ['--nccl-version', '2.28.3']).findings.filter((f) => f.id.startsWith('LIB'))).toEqual([]);
  });
});

describe.skipIf(gccMissing())('what libtorch_cuda.so asks the dynamic loader for (ELF built with gcc)', () => {
  it('RUNPATH: LD_LIBRARY_PATH comes first, so a libnccl.so.2 there is what PyTorch loads', () => {
    const d = tempDir('ncclx-job-');
    const t = torchNode(d, { tag: 'runpath' });
    fakeNccl(join(d, 'opt/nccl-2.27.7/lib/libnccl.so.2'), '2.27.7');
    const j = explainJson(d, { ...t.env, LD_LIBRARY_PATH: '/opt/nccl-2.27.7/lib' });
    expect(j.ncclVersion).toBe('2.27.7');
    expect(j.versionSource).toMatch(/libtorch_cuda\.so needs libnccl\.so\.2, found in \/opt\/nccl-2\.27\.7\/lib on LD_LIBRARY_PATH/);
  });
  it('RPATH: searched before LD_LIBRARY_PATH, so the wheel wins', () => {
    const d = tempDir('ncclx-job-');
    const t = torchNode(d, { tag: 'rpath' });
    fakeNccl(join(d, 'opt/nccl-2.27.7/lib/libnccl.so.2'), '2.27.7');
    const j = explainJson(d, { ...t.env, LD_LIBRARY_PATH: '/opt/nccl-2.27.7/lib' });
    expect(j.ncclVersion).toBe('2.28.9');
    expect(j.versionSource).toMatch(/through its RPATH \(searched before LD_LIBRARY_PATH\)/);
  });
  it('NCCL linked into libtorch_cuda.so (older wheels): its version comes from libtorch_cuda.so', () => {
    const d = tempDir('ncclx-job-');
    const t = torchNode(d, { staticVersion: '2.14.3' });
    const lib = probe(d, t.env);
    expect(lib.candidates[0]).toMatchObject({ path: `${t.site}/torch/lib/libtorch_cuda.so`, version: '2.14.3', static: true, loadedBy: ['pytorch'], versionFrom: 'binary' });
    expect(explainJson(d, t.env).ncclVersion).toBe('2.14.3');
  });
});

describe('the version as the library states it', () => {
  it('beats the file name', () => {
    const d = tempDir('ncclx-ver-');
    fakeNccl(join(d, 'usr/lib/x86_64-linux-gnu/libnccl.so.2.28.3'), '2.28.9');
    layout(d, {}, { 'usr/lib/x86_64-linux-gnu/libnccl.so.2': 'libnccl.so.2.28.3' });
    const lib = probe(d, {});
    expect(lib.candidates[0]).toMatchObject({ version: '2.28.9', versionFrom: 'binary', versionText: 'NCCL version 2.28.9+cuda12.9' });
  });
  it('found past 8 MiB chunk boundaries in a file that is not ELF, and not at all in one without it', () => {
    const d = tempDir('ncclx-ver-');
    const f = join(d, 'big.so');
    const text = Buffer.from('NCCL version 2.21.5+cuda12.4\0');
    // Straddling the first chunk boundary (8 MiB, overlap 128 bytes).
    const at = 8 * 1024 * 1024 - 10;
    writeFileSync(f, Buffer.alloc(0));
    truncateSync(f, 24 * 1024 * 1024);
    const fd = openSync(f, 'r+');
    writeSync(fd, text, 0, text.length, at);
    closeSync(fd);
    expect(scanNcclVersion(f)).toEqual({ found: { version: '2.21.5', text: 'NCCL version 2.21.5+cuda12.4' } });
    const g = join(d, 'none.so');
    writeFileSync(g, 'NCCL version mismatch with remote peer %s (local: %d, remote %d)');
    expect(scanNcclVersion(g)).toEqual({ found: null, why: 'the file states no "NCCL version"' });
  });
  it('a FIFO or a directory named like a library is not read (no hang)', () => {
    const d = tempDir('ncclx-ver-');
    mkdirSync(join(d, 'dir.so'));
    spawnSync('mkfifo', [join(d, 'fifo.so')]);
    expect(scanNcclVersion(join(d, 'dir.so')).found).toBeNull();
    expect(scanNcclVersion(join(d, 'fifo.so'))).toEqual({ found: null, why: 'not a regular file' });
  });
});

describe('ELF headers read bounded: truncated or hostile files give fewer facts, never a throw', () => {
  it('a real library, cut short at every size class, and random bytes behind an ELF magic', () => {
    const libc = ['/usr/lib/x86_64-linux-gnu/libc.so.6', '/lib/x86_64-linux-gnu/libc.so.6', '/usr/lib/aarch64-linux-gnu/libc.so.6'].find((p) => existsSync(p))!;
    const whole = readFileSync(libc);
    expect(readElf(libc)?.dynamic?.soname).toBe('libc.so.6');
    const d = tempDir('ncclx-elf-');
    for (const n of [0, 4, 63, 64, 500, 4096, 65536, whole.length - 1]) {
      writeFileSync(join(d, 'cut.so'), whole.subarray(0, n));
      expect(() => readElf(join(d, 'cut.so'))).not.toThrow();
      expect(scanNcclVersion(join(d, 'cut.so')).found).toBeNull();
    }
    for (let i = 0; i < 50; i++) {
      const junk = randomBytes(256 + i * 97);
      Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1]).copy(junk, 0);
      writeFileSync(join(d, 'junk.so'), junk);
      expect(() => readElf(join(d, 'junk.so'))).not.toThrow();
    }
  });
});

describe('/etc/ld.so.cache, read from the file', () => {
  it('the machine\'s own cache lists libc', () => {
    const c = readLdCache(new Root('/'));
    expect(c.error).toBeNull();
    expect(c.entries.some((e) => e.name === 'libc.so.6')).toBe(true);
  });
  it('a hand-made cache in the glibc 1.1 format: this architecture\'s entries only; garbage is an error, not a throw', () => {
    const strings = Buffer.from('\0libnccl.so.2\0/opt/nccl/lib/libnccl.so.2\0libother.so\0/x/libother.so\0');
    const n = 2;
    const header = Buffer.alloc(48);
    header.write('glibc-ld.so.cache1.1', 0, 'latin1');
    header.writeUInt32LE(n, 20);
    const entries = Buffer.alloc(24 * n);
    const base = 48 + 24 * n;
    // x86-64 libc6 entry, then an aarch64 one.
    entries.writeInt32LE(0x0303, 0);
    entries.writeUInt32LE(base + 1, 4);
    entries.writeUInt32LE(base + 14, 8);
    entries.writeInt32LE(0x0a03, 24);
    entries.writeUInt32LE(base + 41, 28);
    entries.writeUInt32LE(base + 53, 32);
    const buf = Buffer.concat([header, entries, strings]);
    expect(parseLdCache(buf, 'x64')).toEqual({ entries: [{ name: 'libnccl.so.2', path: '/opt/nccl/lib/libnccl.so.2' }], error: null });
    expect(parseLdCache(buf, 'arm64').entries).toEqual([{ name: 'libother.so', path: '/x/libother.so' }]);
    expect(parseLdCache(Buffer.from('hello')).error).toBe('not an ld.so.cache file');
    expect(parseLdCache(buf.subarray(0, 60)).error).toBe('truncated');
  });
});
