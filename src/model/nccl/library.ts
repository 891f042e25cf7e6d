// Which NCCL library a job loads, among the candidates the probe found
// (src/probe/nccl-lib.ts), and what to say when candidates disagree. One
// function picks the library every command models, so doctor, explain, ib,
// env, topo and log never disagree on the version.
//
// Order: the library the process has mapped (--pid, ncclx ps); else one
// named in LD_PRELOAD (the loader binds NCCL's symbols to it before torch's
// own); else the NCCL PyTorch loads (the usual job); else what the dynamic
// loader gives a program linked with libnccl.so.2; else the first candidate
// with a version.

import type { Finding } from '../result/types.js';
import type { LibraryCandidate, LoadedBy, NcclLibraryPart } from '../snapshot/types.js';
import { parseVersion, profileFor } from './versions.js';

export interface ModelledLibrary {
  candidate: LibraryCandidate;
  /** Who loads it, and how that was decided. */
  by: LoadedBy | null;
  why: string;
}

const WHO: Record<LoadedBy, string> = { process: 'the process has it mapped', preload: 'LD_PRELOAD names it, so every program started here runs it', pytorch: 'a PyTorch job loads it', loader: 'a program linked with libnccl.so.2 loads it' };

export function loadedBy(c: LibraryCandidate, by: LoadedBy): string | null {
  const i = c.loadedBy?.indexOf(by) ?? -1;
  return i < 0 ? null : c.loadNotes?.[i] || WHO[by];
}

/** The library ncclx models, or null when no candidate states a version. */
export function modelledLibrary(part: Pick<NcclLibraryPart, 'candidates'>): ModelledLibrary | null {
  const versioned = part.candidates.filter((c) => c.version !== null);
  for (const by of ['process', 'preload', 'pytorch', 'loader'] as const) {
    const c = versioned.find((x) => x.loadedBy?.includes(by));
    if (c) return { candidate: c, by, why: `${WHO[by]} (${loadedBy(c, by)})` };
  }
  const first = versioned[0];
  return first ? { candidate: first, by: null, why: 'the first NCCL library found; nothing shows which one the job loads' } : null;
}

/** Where a candidate's version was read, for the report. */
export function versionEvidence(c: LibraryCandidate): string {
  switch (c.versionFrom) {
    case 'binary':
      return `the library states "${c.versionText ?? c.version}"`;
    case 'file name':
      return 'version from the file name';
    case 'dist-info':
      return "version from the wheel's dist-info";
    case 'conda-meta':
      return "version from conda's metadata";
    case 'dpkg':
      return "version from Debian's package database";
    default:
      return 'version from the file name';
  }
}

/** "the system's 2.28.3", "PyTorch's 2.28.9": whose library it is, in a few words. */
export function ownerOf(c: LibraryCandidate): string {
  if (c.loadedBy?.includes('process')) return `the process's ${c.version}`;
  if (c.loadedBy?.includes('preload')) return `LD_PRELOAD's ${c.version}`;
  if (c.loadedBy?.includes('pytorch')) return `PyTorch's ${c.version}`;
  if (/wheel/.test(c.via)) return `a Python wheel's ${c.version}`;
  if (/conda/.test(c.via)) return `conda's ${c.version}`;
  if (/CUDA/.test(c.via)) return `the CUDA toolkit's ${c.version}`;
  if (/LD_LIBRARY_PATH/.test(c.via)) return `LD_LIBRARY_PATH's ${c.version}`;
  return `the system's ${c.version}`;
}

/**
 * LIB-001: candidates state different versions. A warning when their NCCL
 * rules differ (another profile), else information: the job loads one, and
 * a tool or a second job may load the other.
 */
export function libraryFindings(part: NcclLibraryPart, vars: Record<string, string | undefined>): Finding[] {
  const out: Finding[] = [];
  const chosen = modelledLibrary(part);
  const versioned = part.candidates.filter((c) => c.version !== null);
  const distinct = [...new Map(versioned.map((c) => [c.version!, c])).values()];
  if (chosen && distinct.length > 1) {
    const others = distinct.filter((c) => c.version !== chosen.candidate.version);
    const names = [...others, chosen.candidate].map(ownerOf);
    const list = names.length === 2 ? `${names[0]} and ${names[1]}` : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
    const count = ['', 'one', 'two', 'three', 'four'][distinct.length] ?? String(distinct.length);
    const profiles = new Set(distinct.map((c) => safeProfile(c.version!)));
    const who = chosen.by ? WHO[chosen.by].replace(' it', ` ${chosen.candidate.version}`) : `ncclx models ${chosen.candidate.version}, the first found`;
    out.push({
      id: 'LIB-001',
      severity: profiles.size > 1 ? 'warn' : 'info',
      message: `${count} NCCLs: ${list}; ${who} (${chosen.candidate.path})${profiles.size > 1 ? '; their rules differ, so a job that loads another one behaves otherwise' : ''}`,
      remediation: { advice: `Nothing to change if every job loads ${chosen.candidate.path}; check a job that does not (another Python, LD_LIBRARY_PATH, a C++ program) with ncclx --pid PID or --python PATH` },
    });
  }
  // CUDA base images export NCCL_VERSION for the package they installed: it is not the library a job loads.
  const env = vars['NCCL_VERSION'];
  const envVersion = env ? /^(\d+\.\d+\.\d+)/.exec(env)?.[1] : undefined;
  if (chosen && envVersion && envVersion !== chosen.candidate.version) {
    out.push({
      id: 'LIB-002',
      severity: 'info',
      message: `NCCL_VERSION=${env} (set by the image) is not the library: ${chosen.by ? WHO[chosen.by].replace(' it', ` ${chosen.candidate.version}`) : `ncclx models ${chosen.candidate.version}`} from ${chosen.candidate.path}`,
      remediation: { advice: 'NCCL never reads NCCL_VERSION; it only records which package the image installed. The library version is what matters' },
    });
  }
  return out;
}

/** Every rule ncclx models for a version (the Profile without its version and id): two versions with equal rules behave alike here. */
function safeProfile(v: string): string {
  try {
    const { version: _v, id: _i, ...rules } = profileFor(parseVersion(v));
    return JSON.stringify(rules);
  } catch {
    return v;
  }
}
