// The Python environment a job runs in, found the way the job finds it: the
// interpreter (--python, else python3 on the job's PATH, VIRTUAL_ENV,
// CONDA_PREFIX), its sys.prefix (a virtual environment is the directory whose
// pyvenv.cfg sits next to or above bin/, whatever the interpreter links to),
// and the site-packages directories in sys.path order. Files only: the job's
// interpreter is never run (it may be another machine's, or a container's).

import { append } from '../model/list.js';
import type { PythonEnvInfo } from '../model/snapshot/types.js';
import type { Root } from './root.js';

export interface PythonQuery {
  /** --python PATH, as given. */
  python?: string;
  env: Record<string, string | undefined>;
}

const PY_RE = /^python3\.(\d{1,2})$/;

function executable(root: Root, p: string): boolean {
  return root.exists(p) && !root.isDir(p);
}

/** The first python3 on PATH, as the shell would find it (no resolution of symlinks). */
function onPath(root: Root, path: string | undefined, name = 'python3'): string | null {
  for (const dir of (path ?? '').split(':')) {
    if (!dir.startsWith('/')) continue;
    const p = `${dir.replace(/\/+$/, '')}/${name}`;
    if (executable(root, p)) return p;
  }
  return null;
}

function parent(p: string): string {
  const i = p.replace(/\/+$/, '').lastIndexOf('/');
  return i <= 0 ? '/' : p.slice(0, i);
}

/** pyvenv.cfg as key = value lines. */
function readCfg(root: Root, file: string): Record<string, string> | null {
  const text = root.readTrim(file);
  if (text === null) return null;
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^\s*([A-Za-z_-]+)\s*=\s*(.*?)\s*$/.exec(line);
    if (m) out[m[1]!.toLowerCase()] = m[2]!;
  }
  return out;
}

/** X.Y of the interpreter: its file name (python3.12), pyvenv.cfg's version, or the only lib/python3.Y directory. */
function minorVersions(root: Root, prefix: string, hint: string | null): string[] {
  if (hint) return [hint];
  const dirs = [...root.list(`${prefix}/lib`), ...root.list(`${prefix}/lib64`)].filter((n) => PY_RE.test(n));
  return [...new Set(dirs.map((n) => n.replace('python', '')))].sort((a, b) => Number(b.split('.')[1]) - Number(a.split('.')[1]));
}

function sitesOf(root: Root, prefix: string, versions: string[], debian: boolean): string[] {
  const out: string[] = [];
  for (const v of versions) {
    if (debian) out.push(`/usr/local/lib/python${v}/dist-packages`, '/usr/lib/python3/dist-packages', `/usr/lib/python${v}/dist-packages`);
    out.push(`${prefix}/lib/python${v}/site-packages`, `${prefix}/lib64/python${v}/site-packages`);
  }
  return [...new Set(out)].filter((d) => root.isDir(d));
}

/** A pyenv shim is a shell script: the version it runs is PYENV_VERSION, else $PYENV_ROOT/version. */
function pyenvTarget(root: Root, shim: string, env: Record<string, string | undefined>): { path: string | null; note: string } | null {
  const head = root.read(shim, 64 * 1024);
  if (!head.ok || !head.value.startsWith('#!') || !/pyenv/.test(head.value)) return null;
  const pyenvRoot = env['PYENV_ROOT'] ?? parent(parent(shim));
  const version = env['PYENV_VERSION']?.split(':')[0] ?? root.readTrim(`${pyenvRoot}/version`)?.split('\n')[0]?.trim();
  if (!version || version === 'system') return { path: null, note: `${shim} is a pyenv shim for ${version ?? 'an unknown version'} (a .python-version in the job's directory may choose another)` };
  const p = `${pyenvRoot}/versions/${version}/bin/python3`;
  return { path: executable(root, p) ? p : null, note: `${shim} is a pyenv shim: PYENV_VERSION/$PYENV_ROOT/version name ${version} (a .python-version in the job's directory may choose another)` };
}

/** One interpreter's environment: prefix, venv or not, site-packages in sys.path order. */
export function pythonEnvOf(root: Root, interpreter: string, via: string, env: Record<string, string | undefined>): PythonEnvInfo {
  const notes: string[] = [];
  // A venv is recognised before symlinks are followed: its python is a link to the base interpreter.
  for (const dir of [parent(interpreter), parent(parent(interpreter))]) {
    const cfg = readCfg(root, `${dir}/pyvenv.cfg`);
    if (!cfg) continue;
    const version = /^(\d+\.\d+)/.exec(cfg['version'] ?? cfg['version_info'] ?? '')?.[1] ?? null;
    const versions = minorVersions(root, dir, version);
    const sites = sitesOf(root, dir, versions, false);
    if (cfg['include-system-site-packages'] === 'true' && cfg['home']) {
      const base = parent(cfg['home']);
      append(sites, sitesOf(root, base, versions, base === '/usr'));
      notes.push('include-system-site-packages = true: the base interpreter\'s site-packages follow');
    }
    return { via, interpreter, real: root.realpath(interpreter), prefix: dir, venv: true, version: versions[0] ?? null, sitePackages: pythonPathFirst(env, sites), note: notes.join('; ') || null };
  }
  let real = root.realpath(interpreter);
  const shim = real ? pyenvTarget(root, real, env) : null;
  if (shim) {
    notes.push(shim.note);
    if (!shim.path) return { via, interpreter, real, prefix: parent(parent(real!)), venv: false, version: null, sitePackages: [], note: notes.join('; ') };
    return { ...pythonEnvOf(root, shim.path, via, env), interpreter, note: notes.join('; ') };
  }
  real ??= interpreter;
  const prefix = parent(parent(real));
  const name = real.split('/').pop()!;
  const versions = minorVersions(root, prefix, PY_RE.test(name) ? name.replace('python', '') : null);
  const sites = sitesOf(root, prefix, versions, prefix === '/usr');
  // The user site (~/.local) comes before the system's.
  const home = env['HOME'];
  const user = home ? versions.map((v) => `${home.replace(/\/+$/, '')}/.local/lib/python${v}/site-packages`).filter((d) => root.isDir(d)) : [];
  if (versions.length === 0) notes.push(`no lib/python3.Y directory under ${prefix}`);
  return { via, interpreter, real, prefix, venv: false, version: versions[0] ?? null, sitePackages: pythonPathFirst(env, [...user, ...sites]), note: notes.join('; ') || null };
}

/** PYTHONPATH entries come first in sys.path. */
function pythonPathFirst(env: Record<string, string | undefined>, sites: string[]): string[] {
  const extra = (env['PYTHONPATH'] ?? '').split(':').filter((d) => d.startsWith('/'));
  return [...new Set([...extra, ...sites])];
}

/**
 * The environments to look at: --python alone when given; else the python3
 * on PATH, VIRTUAL_ENV and CONDA_PREFIX (each once, by prefix).
 */
export function pythonEnvs(root: Root, q: PythonQuery): PythonEnvInfo[] {
  if (q.python !== undefined) {
    // A bare name is looked up on the job's PATH, as the shell would; a relative path has no meaning for the job.
    const path = q.python.startsWith('/') ? q.python : q.python.includes('/') ? null : onPath(root, q.env['PATH'], q.python);
    if (!path || !executable(root, path)) return [{ via: '--python', interpreter: q.python, real: null, prefix: '', venv: false, version: null, sitePackages: [], note: `--python ${q.python}: no such interpreter${root.isLive ? '' : ` under ${root.dir}`}` }];
    return [pythonEnvOf(root, path, '--python', q.env)];
  }
  const out: PythonEnvInfo[] = [];
  const add = (interpreter: string | null, via: string) => {
    if (!interpreter) return;
    const e = pythonEnvOf(root, interpreter, via, q.env);
    if (!out.some((o) => o.prefix === e.prefix)) out.push(e);
  };
  add(onPath(root, q.env['PATH']), 'python3 on PATH');
  for (const v of ['VIRTUAL_ENV', 'CONDA_PREFIX'] as const) {
    const dir = q.env[v];
    if (!dir?.startsWith('/')) continue;
    const bin = [`${dir}/bin/python3`, `${dir}/bin/python`].find((p) => executable(root, p));
    if (bin) add(bin, v);
  }
  return out;
}
