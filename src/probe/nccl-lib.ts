// Every NCCL library a job on this node may load, with its version and who
// loads it. A job is rarely a program linked with -lnccl: PyTorch loads the
// NCCL its own libtorch_cuda.so needs (the nvidia-nccl wheel next to torch,
// found through libtorch_cuda.so's RUNPATH $ORIGIN/../../nvidia/nccl/lib) or
// carries (older wheels link NCCL into libtorch_cuda.so). So the search
// starts from the job's Python (src/probe/python.ts), then follows what a
// program linked with libnccl.so.2 gets from the dynamic loader
// (src/probe/loader.ts: LD_LIBRARY_PATH, /etc/ld.so.cache, system
// directories), then lists what else is installed: wheels, conda, CUDA
// directories, Debian's package.
//
// A version is read from the library itself (NCCL's "NCCL version X.Y.Z"
// string, src/probe/nccl-binary.ts) before file names, the wheel's
// dist-info, conda's metadata or dpkg. NCCL_VERSION in the environment
// (CUDA images set it) says which package the image was built with, not
// which library a job loads, and is never used.

import type { LibraryCandidate, LoadedBy, NcclLibraryPart, PythonEnvInfo, VersionFrom } from '../model/snapshot/types.js';
import { minOf } from '../model/list.js';
import { BOUNDS } from './bound.js';
import { readElf } from './elf.js';
import { findLibrary, readLdCache, systemDirs, type Found, type SearchContext } from './loader.js';
import { scanNcclVersion } from './nccl-binary.js';
import { pythonEnvs } from './python.js';
import type { Root } from './root.js';
import type { Runner } from './runner.js';

const LIB_RE = /^libnccl\.so(?:\.(\d{1,9}(?:\.\d{1,9}){0,2}))?$/;

export interface LibraryOptions {
  /** --python PATH: the interpreter of the job. */
  python?: string;
}

function versionFromName(name: string): string | null {
  const m = LIB_RE.exec(name);
  const v = m?.[1];
  return v && v.split('.').length === 3 ? v : null;
}

const basename = (p: string) => p.slice(p.lastIndexOf('/') + 1);
const dirname = (p: string) => p.slice(0, p.lastIndexOf('/')) || '/';

interface Hint {
  version: string;
  from: VersionFrom;
}

class Candidates {
  readonly list: (LibraryCandidate & { hint?: Hint | null; real: string })[] = [];
  constructor(private readonly root: Root) {}

  /** Add (or enrich) a candidate; two paths to one file are one candidate, under the first path. */
  add(path: string, via: string, o: { hint?: Hint | null; loadedBy?: LoadedBy; note?: string; static?: boolean } = {}): void {
    const real = this.root.realpath(path) ?? path;
    let c = this.list.find((x) => x.path === path || x.real === real);
    if (!c) {
      c = { path, version: null, via, real, hint: o.hint ?? null, ...(o.static ? { static: true } : {}) };
      this.list.push(c);
    }
    c.hint ??= o.hint ?? null;
    if (o.loadedBy && !c.loadedBy?.includes(o.loadedBy)) {
      c.loadedBy = [...(c.loadedBy ?? []), o.loadedBy];
      c.loadNotes = [...(c.loadNotes ?? []), o.note ?? ''];
    }
  }
}

function scanDir(root: Root, dir: string, via: string, into: Candidates, hint: Hint | null = null): void {
  const names = root.list(dir).filter((n) => LIB_RE.test(n));
  if (names.length === 0) return;
  const chosen = names.find((n) => n === 'libnccl.so.2') ?? names.find((n) => versionFromName(n)) ?? names[0]!;
  // A fully versioned name states the version even when libnccl.so.2 is what the loader opens.
  const named = names.map(versionFromName).find((v) => v) ?? null;
  into.add(`${dir === '/' ? '' : dir}/${chosen}`, via, { hint: hint ?? (named ? { version: named, from: 'file name' } : null) });
}

function stepText(f: Found): string {
  switch (f.step) {
    case 'DT_RUNPATH':
      return `found in ${f.dir} through its RUNPATH`;
    case 'DT_RPATH':
      return `found in ${f.dir} through its RPATH (searched before LD_LIBRARY_PATH)`;
    case 'LD_LIBRARY_PATH':
      return `found in ${f.dir} on LD_LIBRARY_PATH`;
    case 'ld.so.cache':
      return `found through /etc/ld.so.cache`;
    case 'path':
      return `named by path`;
    default:
      return `found in the system directory ${f.dir}`;
  }
}

/** The NCCL torch's libtorch_cuda.so loads (DT_NEEDED libnccl.so.N through its RPATH/RUNPATH) or carries (linked statically). */
function torchNccl(root: Root, ctx: SearchContext, py: PythonEnvInfo, site: string, into: Candidates, notes: string[]): void {
  const torch = `${site}/torch`;
  const lib = `${torch}/lib/libtorch_cuda.so`;
  const who = `torch in ${py.prefix}${py.venv ? ' (virtual environment)' : ''}`;
  if (!root.exists(lib)) {
    notes.push(`${who}: no torch/lib/libtorch_cuda.so (a CPU build), so PyTorch loads no NCCL`);
    return;
  }
  const elf = readElf(root.path(lib));
  const needed = elf?.dynamic?.needed.find((n) => /^libnccl\.so/.test(n));
  if (elf?.dynamic && needed) {
    const found = findLibrary(needed, ctx, { path: lib, rpath: elf.dynamic.rpath, runpath: elf.dynamic.runpath });
    if (!found) {
      notes.push(`${lib} needs ${needed}, which the dynamic loader does not find: \`import torch\` fails`);
      return;
    }
    into.add(found.path, 'PyTorch', { loadedBy: 'pytorch', note: `${who}: libtorch_cuda.so needs ${needed}, ${stepText(found)}` });
    return;
  }
  if (elf?.dynamic) {
    // No libnccl among its needs: NCCL is linked in, and the library states its version.
    const scan = scanNcclVersion(root.path(lib));
    if (scan.found) into.add(lib, 'PyTorch (NCCL linked into libtorch_cuda.so)', { loadedBy: 'pytorch', static: true, note: `${who}: libtorch_cuda.so needs no libnccl and carries "${scan.found.text}"` });
    else notes.push(`${lib} neither needs libnccl nor states an NCCL version (${scan.why})`);
    return;
  }
  // Not readable as ELF (a stand-in, a truncated file): torch wheels' layout says where its NCCL is.
  const wheel = `${site}/nvidia/nccl/lib/libnccl.so.2`;
  const own = root.list(`${torch}/lib`).find((n) => LIB_RE.test(n));
  const scan = scanNcclVersion(root.path(lib));
  const why = `${lib} is not readable as a 64-bit ELF library`;
  if (root.exists(wheel)) into.add(wheel, 'PyTorch', { loadedBy: 'pytorch', note: `${who}: ${why}; the nvidia-nccl wheel next to torch is what torch's wheels load` });
  else if (own) into.add(`${torch}/lib/${own}`, 'PyTorch', { loadedBy: 'pytorch', note: `${who}: ${why}; torch ships ${own} in its own lib directory` });
  else if (scan.found) into.add(lib, 'PyTorch (NCCL linked into libtorch_cuda.so)', { loadedBy: 'pytorch', static: true, note: `${who}: libtorch_cuda.so carries "${scan.found.text}"` });
  else notes.push(`${why}, and no NCCL was found next to torch`);
}

function wheelHint(root: Root, site: string): Hint | null {
  const dist = root.list(site).find((n) => /^nvidia_nccl_cu\d+-[\d.]+\.dist-info$/.test(n));
  const v = dist ? /-(\d{1,9}\.\d{1,9}\.\d{1,9})/.exec(dist)?.[1] : undefined;
  return v ? { version: v, from: 'dist-info' } : null;
}

function legacyPrefixes(env: Record<string, string | undefined>): string[] {
  return [env['VIRTUAL_ENV'], env['CONDA_PREFIX'], '/opt/conda', '/usr', '/usr/local', env['HOME'] ? `${env['HOME']}/.local` : undefined].filter((p): p is string => !!p);
}

/** site-packages under the usual prefixes, for wheels no examined interpreter imports (listed, not loaded). */
function otherSites(root: Root, env: Record<string, string | undefined>): string[] {
  const dirs: string[] = [];
  for (const p of legacyPrefixes(env)) {
    for (const lib of ['lib', 'lib64']) {
      for (const py of root.list(`${p}/${lib}`).filter((n) => /^python3(\.\d+)?$/.test(n))) {
        for (const sp of ['site-packages', 'dist-packages']) dirs.push(`${p}/${lib}/${py}/${sp}`);
      }
    }
  }
  return dirs;
}

const RANK: Record<LoadedBy, number> = { process: 0, preload: 1, pytorch: 2, loader: 3 };
const rankOf = (c: LibraryCandidate) => Math.min(4, minOf((c.loadedBy ?? []).map((l) => RANK[l])));

export function probeNcclLibrary(root: Root, _runner: Runner, env: Record<string, string | undefined>, opts: LibraryOptions = {}): NcclLibraryPart {
  const into = new Candidates(root);
  const searched: string[] = [];
  const notes: string[] = [];
  // At most as many directories and paths as a snapshot holds (src/model/snapshot/limits.ts): LD_LIBRARY_PATH can be anything.
  const visit = (dir: string, via: string, hint: Hint | null = null) => {
    if (searched.length >= BOUNDS.libraries || dir.length > BOUNDS.path - 256 || searched.includes(dir)) return;
    searched.push(dir);
    scanDir(root, dir, via, into, hint);
  };
  const cache = readLdCache(root);
  const ctx: SearchContext = { root, ldLibraryPath: env['LD_LIBRARY_PATH'], cache };

  // LD_PRELOAD (a common way to run a custom NCCL under PyTorch): a path is taken as it is, a bare name as ld.so finds it.
  for (const entry of (env['LD_PRELOAD'] ?? '').split(/[\s:]+/).filter((e) => LIB_RE.test(basename(e))).slice(0, 4)) {
    const found = entry.includes('/') ? (root.exists(entry) ? { path: entry, text: 'a path' } : null) : ((f) => (f ? { path: f.path, text: stepText(f) } : null))(findLibrary(entry, ctx));
    if (found) into.add(found.path, 'LD_PRELOAD', { loadedBy: 'preload', note: `LD_PRELOAD=${entry} (${found.text}): the dynamic loader binds NCCL's symbols to it before any copy loaded later, so a PyTorch job runs it, not its wheel's` });
    else notes.push(`LD_PRELOAD names ${entry}, which is not found here: the dynamic loader skips it`);
  }

  const pythons = pythonEnvs(root, { python: opts.python, env });
  for (const py of pythons) {
    if (py.note) notes.push(py.note);
    // The first torch on sys.path is the one `import torch` gets.
    const site = py.sitePackages.find((sp) => root.isDir(`${sp}/torch`));
    py.torch = site ? `${site}/torch` : null;
    if (site) torchNccl(root, ctx, py, site, into, notes);
    for (const sp of py.sitePackages) visit(`${sp}/nvidia/nccl/lib`, 'python wheel (nvidia-nccl)', wheelHint(root, sp));
  }

  // What ld.so gives a program linked with libnccl.so.2.
  const plain = findLibrary('libnccl.so.2', ctx);
  if (plain) into.add(plain.path, plain.step === 'ld.so.cache' ? 'ldconfig' : plain.step === 'LD_LIBRARY_PATH' ? 'LD_LIBRARY_PATH' : 'system library directory', { loadedBy: 'loader', note: `a program linked with libnccl.so.2 (nccl-tests, a C++ job): ${stepText(plain)}` });

  for (const d of (env['LD_LIBRARY_PATH'] ?? '').split(':').filter((x) => x.startsWith('/'))) visit(d, 'LD_LIBRARY_PATH');
  for (const sp of otherSites(root, env)) visit(`${sp}/nvidia/nccl/lib`, 'python wheel (nvidia-nccl)', wheelHint(root, sp));
  for (const p of [env['CONDA_PREFIX'], '/opt/conda'].filter((x): x is string => !!x)) {
    const meta = root.list(`${p}/conda-meta`).find((n) => /^nccl-\d/.test(n));
    const v = meta ? /^nccl-(\d{1,9}\.\d{1,9}\.\d{1,9})/.exec(meta)?.[1] : undefined;
    visit(`${p}/lib`, 'conda', v ? { version: v, from: 'conda-meta' } : null);
  }
  for (const e of cache.entries) if (LIB_RE.test(e.name)) visit(dirname(e.path), 'ldconfig');
  for (const d of [...systemDirs(), '/usr/local/lib', '/usr/local/nccl/lib']) visit(d, 'system library directory');
  for (const c of root.list('/usr/local').filter((n) => /^cuda/.test(n))) {
    for (const sub of ['lib64', 'lib', ...root.list(`/usr/local/${c}/targets`).map((t) => `targets/${t}/lib`)]) visit(`/usr/local/${c}/${sub}`, 'CUDA toolkit');
  }

  // The version each library states; then its file name, dist-info or conda metadata.
  for (const c of into.list) {
    const scan = scanNcclVersion(root.path(c.path));
    if (scan.found) {
      Object.assign(c, { version: scan.found.version, versionFrom: 'binary', versionText: scan.found.text });
      continue;
    }
    const byName = versionFromName(basename(c.path)) ?? versionFromName(basename(c.real));
    const h: Hint | null = byName ? { version: byName, from: 'file name' } : c.hint ?? null;
    Object.assign(c, { version: h?.version ?? null, versionFrom: h?.from ?? null });
  }
  // Debian/Ubuntu packages name the full version even when only libnccl.so.2 is on disk.
  const status = root.readTrim('/var/lib/dpkg/status');
  const dpkg = status ? /Package: libnccl2\n(?:[^\n]+\n)*?Version: (\d{1,9}\.\d{1,9}\.\d{1,9})/.exec(status)?.[1] : undefined;
  if (dpkg) {
    for (const c of into.list) if (c.version === null && c.via !== 'python wheel (nvidia-nccl)' && !c.static) Object.assign(c, { version: dpkg, versionFrom: 'dpkg' });
    if (into.list.length === 0) into.add('/var/lib/dpkg/status (libnccl2)', 'dpkg', { hint: { version: dpkg, from: 'dpkg' } });
    for (const c of into.list) if (c.via === 'dpkg') Object.assign(c, { version: dpkg, versionFrom: 'dpkg' });
  }
  const candidates = into.list
    .map(({ hint: _h, real: _r, ...c }) => c)
    .map((c, i) => ({ c, i }))
    .sort((a, b) => rankOf(a.c) - rankOf(b.c) || a.i - b.i)
    .map(({ c }) => c);
  return { candidates, searched, pythons, ...(notes.length ? { notes } : {}) };
}
