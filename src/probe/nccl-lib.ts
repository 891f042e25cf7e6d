// Finding the NCCL library a job on this node would load, and its version.
// Sources, most specific first: LD_LIBRARY_PATH, Python wheels
// (site-packages/nvidia/nccl/lib, version from the dist-info), conda, the
// dynamic loader cache, system and CUDA directories, and Debian's package db.

import type { LibraryCandidate, NcclLibraryPart } from '../model/snapshot/types.js';
import { BOUNDS } from './bound.js';
import type { Root } from './root.js';
import type { Runner } from './runner.js';

const LIB_RE = /^libnccl\.so(?:\.(\d{1,9}(?:\.\d{1,9}){0,2}))?$/;

function versionFromName(name: string): string | null {
  const m = LIB_RE.exec(name);
  const v = m?.[1];
  return v && v.split('.').length === 3 ? v : null;
}

function scanDir(root: Root, dir: string, via: string, out: LibraryCandidate[], versionHint: string | null = null) {
  const names = root.list(dir).filter((n) => LIB_RE.test(n));
  if (names.length === 0) return;
  // Prefer the fully versioned file; a libnccl.so.2 symlink resolves to it.
  let version: string | null = null;
  for (const n of names) version = version ?? versionFromName(n);
  for (const n of names) {
    if (version) break;
    const real = root.realpath(`${dir}/${n}`);
    if (real) version = versionFromName(real.split('/').pop()!);
  }
  const chosen = names.find((n) => n === 'libnccl.so.2') ?? names[0]!;
  const path = `${dir}/${chosen}`;
  if (out.some((c) => c.path === path)) return;
  out.push({ path, version: version ?? versionHint, via });
}

function pythonSitePackages(root: Root, prefixes: string[]): string[] {
  const dirs: string[] = [];
  for (const p of prefixes) {
    for (const lib of ['lib', 'lib64']) {
      for (const py of root.list(`${p}/${lib}`).filter((n) => /^python3(\.\d+)?$/.test(n))) {
        for (const sp of ['site-packages', 'dist-packages']) dirs.push(`${p}/${lib}/${py}/${sp}`);
      }
    }
  }
  return dirs;
}

export function probeNcclLibrary(root: Root, runner: Runner, env: NodeJS.ProcessEnv): NcclLibraryPart {
  const out: LibraryCandidate[] = [];
  const searched: string[] = [];
  // At most as many directories and paths as a snapshot holds (src/model/snapshot/limits.ts): LD_LIBRARY_PATH can be anything.
  const visit = (dir: string, via: string, hint: string | null = null) => {
    if (searched.length >= BOUNDS.libraries || dir.length > BOUNDS.path - 256) return;
    searched.push(dir);
    scanDir(root, dir, via, out, hint);
  };

  for (const d of (env['LD_LIBRARY_PATH'] ?? '').split(':').filter(Boolean)) visit(d, 'LD_LIBRARY_PATH');

  const prefixes = [env['VIRTUAL_ENV'], env['CONDA_PREFIX'], '/opt/conda', '/usr', '/usr/local', env['HOME'] ? `${env['HOME']}/.local` : undefined].filter(
    (p): p is string => !!p,
  );
  for (const sp of pythonSitePackages(root, prefixes)) {
    // The nvidia-nccl-cuXX wheel ships libnccl.so.2; its version is in the dist-info name.
    const dist = root.list(sp).find((n) => /^nvidia_nccl_cu\d+-[\d.]+\.dist-info$/.test(n));
    const hint = dist ? /-(\d{1,9}\.\d{1,9}\.\d{1,9})/.exec(dist)?.[1] ?? null : null;
    visit(`${sp}/nvidia/nccl/lib`, 'python wheel (nvidia-nccl)', hint);
  }
  for (const p of [env['CONDA_PREFIX'], '/opt/conda'].filter((x): x is string => !!x)) {
    const meta = root.list(`${p}/conda-meta`).find((n) => /^nccl-\d/.test(n));
    visit(`${p}/lib`, 'conda', meta ? /^nccl-(\d{1,9}\.\d{1,9}\.\d{1,9})/.exec(meta)?.[1] ?? null : null);
  }

  if (root.isLive) {
    const r = runner.run({ argv: ['ldconfig', '-p'], record: 'ldconfig-p.txt' });
    if (r.ok) {
      for (const line of r.stdout.split('\n')) {
        const m = /^\s*(libnccl\.so\S*)\s.*=>\s*(\S+)/.exec(line);
        if (!m) continue;
        const dir = m[2]!.slice(0, m[2]!.lastIndexOf('/'));
        visit(dir, 'ldconfig');
      }
    }
  }
  for (const d of ['/usr/lib/x86_64-linux-gnu', '/usr/lib/aarch64-linux-gnu', '/usr/lib64', '/usr/lib', '/usr/local/lib', '/usr/local/nccl/lib']) {
    visit(d, 'system library directory');
  }
  for (const c of root.list('/usr/local').filter((n) => /^cuda/.test(n))) {
    for (const sub of ['lib64', 'lib', ...root.list(`/usr/local/${c}/targets`).map((t) => `targets/${t}/lib`)]) {
      visit(`/usr/local/${c}/${sub}`, 'CUDA toolkit');
    }
  }
  // Debian/Ubuntu packages name the full version even when only libnccl.so.2 is on disk.
  const status = root.readTrim('/var/lib/dpkg/status');
  if (status) {
    const m = /Package: libnccl2\n(?:[^\n]+\n)*?Version: (\d{1,9}\.\d{1,9}\.\d{1,9})/.exec(status);
    if (m) {
      for (const c of out) if (c.version === null && c.via !== 'python wheel (nvidia-nccl)') c.version = m[1]!;
      if (out.length === 0) out.push({ path: '/var/lib/dpkg/status (libnccl2)', version: m[1]!, via: 'dpkg' });
    }
  }
  return { candidates: out, searched };
}
