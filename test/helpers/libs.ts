// Stand-in NCCL libraries for tests: real shared objects built with gcc when
// it is installed (an ELF file with NCCL's version string in .rodata, a
// DT_SONAME, and for libtorch_cuda.so a DT_NEEDED libnccl.so.2 and a RUNPATH
// like torch's wheels), else plain files carrying the same string. ncclx reads
// both (src/probe/nccl-binary.ts scans a non-ELF file whole).

import { spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export const HAVE_GCC = spawnSync('gcc', ['--version']).status === 0;

/** Why a test that needs gcc cannot run here, or null. Under CI=true it must run. */
export function gccMissing(): string | null {
  if (HAVE_GCC) return null;
  return process.env['CI'] === 'true' ? null : 'gcc is not installed (Debian package gcc)';
}

function gcc(args: string[], cwd: string): void {
  const r = spawnSync('gcc', args, { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`gcc ${args.join(' ')}: ${r.stderr}`);
}

/** A libnccl stand-in at `path` stating "NCCL version <version>+cuda12.9" (ELF with gcc, else a plain file). */
export function fakeNccl(path: string, version: string, o: { soname?: string; elf?: boolean } = {}): void {
  mkdirSync(dirname(path), { recursive: true });
  const text = `NCCL version ${version}+cuda12.9`;
  if (o.elf === false || !HAVE_GCC) {
    writeFileSync(path, Buffer.concat([Buffer.alloc(4096, 0x90), Buffer.from(`\0${text}\0`), Buffer.alloc(4096, 0x90)]));
    return;
  }
  const src = `${path}.c`;
  writeFileSync(src, `const char ncclVersionString[] __attribute__((used)) = "${text}";\nint ncclGetVersion(int *v) { *v = 0; return 0; }\n`);
  gcc(['-shared', '-fPIC', '-O0', '-o', path, src, `-Wl,-soname,${o.soname ?? 'libnccl.so.2'}`], dirname(path));
}

/**
 * torch's libtorch_cuda.so: needs libnccl.so.2 and finds it through
 * RUNPATH $ORIGIN/../../nvidia/nccl/lib, as torch's wheels do. `linkAgainst`
 * is a libnccl.so.2 to link with (its directory need not be the RUNPATH one).
 */
export function fakeLibtorchCuda(path: string, linkAgainst: string, o: { tag?: 'runpath' | 'rpath'; staticVersion?: string } = {}): void {
  mkdirSync(dirname(path), { recursive: true });
  if (!HAVE_GCC) {
    writeFileSync(path, o.staticVersion ? `not an ELF file\0NCCL version ${o.staticVersion}+cuda11.8\0` : 'not an ELF file: a stand-in for libtorch_cuda.so\n');
    return;
  }
  const src = `${path}.c`;
  if (o.staticVersion) {
    // Older torch wheels link NCCL in: no DT_NEEDED libnccl, and NCCL's version string in libtorch_cuda.so itself.
    writeFileSync(src, `const char ncclVersionString[] __attribute__((used)) = "NCCL version ${o.staticVersion}+cuda11.8";\n`);
    gcc(['-shared', '-fPIC', '-o', path, src], dirname(path));
    return;
  }
  writeFileSync(src, 'int torch_cuda_stub(void) { return 0; }\n');
  const tags = o.tag === 'rpath' ? '-Wl,--disable-new-dtags' : '-Wl,--enable-new-dtags';
  gcc(['-shared', '-fPIC', '-o', path, src, '-Wl,--no-as-needed', `-L${dirname(linkAgainst)}`, `-l:${linkAgainst.split('/').pop()}`, tags, '-Wl,-rpath,$ORIGIN/../../nvidia/nccl/lib'], dirname(path));
}

/** Files and symlinks under `dir`. */
export function layout(dir: string, files: Record<string, string>, links: Record<string, string> = {}): void {
  for (const [p, c] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, p)), { recursive: true });
    writeFileSync(join(dir, p), c);
  }
  for (const [p, target] of Object.entries(links)) {
    mkdirSync(dirname(join(dir, p)), { recursive: true });
    symlinkSync(target, join(dir, p));
  }
}

/**
 * The node of issue #24 under `dir`: PyTorch in /opt/torch/.venv with the
 * nvidia-nccl wheel (2.28.9), the system's libnccl 2.28.3 in
 * /lib/x86_64-linux-gnu, python3 on PATH from the venv, no VIRTUAL_ENV.
 */
export function torchNode(dir: string, o: { wheel?: string; system?: string; tag?: 'runpath' | 'rpath'; staticVersion?: string } = {}): { env: Record<string, string>; site: string } {
  const site = '/opt/torch/.venv/lib/python3.12/site-packages';
  layout(
    dir,
    {
      'opt/torch/.venv/pyvenv.cfg': 'home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.12.3\n',
      'usr/bin/python3.12': '',
      [`${site.slice(1)}/torch/__init__.py`]: '',
      [`${site.slice(1)}/nvidia_nccl_cu12-${o.wheel ?? '2.28.9'}.dist-info/METADATA`]: '',
      'etc/hostname': 'h200-node\n',
    },
    { 'opt/torch/.venv/bin/python3': '/usr/bin/python3.12' },
  );
  fakeNccl(join(dir, site, 'nvidia/nccl/lib/libnccl.so.2'), o.wheel ?? '2.28.9');
  fakeNccl(join(dir, 'lib/x86_64-linux-gnu/libnccl.so.2'), o.system ?? '2.28.3');
  fakeLibtorchCuda(join(dir, site, 'torch/lib/libtorch_cuda.so'), join(dir, 'lib/x86_64-linux-gnu/libnccl.so.2'), { tag: o.tag, staticVersion: o.staticVersion });
  return { env: { PATH: '/opt/torch/.venv/bin:/usr/local/bin:/usr/bin:/bin', HOME: '/root', NCCL_VERSION: `${o.system ?? '2.28.3'}-1` }, site };
}
