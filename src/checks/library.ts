// The NCCL library the job loads (LIB-001, LIB-002): the candidates the probe
// found and which one is modelled (src/model/nccl/library.ts decides, for
// every command alike).

import type { Check, CheckContext } from '../model/doctor/types.js';
import { libraryFindings, loadedBy, modelledLibrary, versionEvidence } from '../model/nccl/library.js';
import { findingResults } from '../model/result/build.js';
import type { Evidence } from '../model/result/types.js';

function evidence(ctx: CheckContext): Evidence[] {
  return ctx.snapshot.ncclLibrary.candidates.slice(0, 8).map((c) => ({
    kind: 'file',
    source: c.path,
    value: `${c.version ?? 'version unknown'} (${c.via}; ${versionEvidence(c)})${(['process', 'pytorch', 'loader'] as const).map((b) => loadedBy(c, b)).filter(Boolean).map((n) => `; ${n}`).join('')}`,
  }));
}

const SPECS = [
  { id: 'LIB-001', title: 'The NCCL libraries on the job\'s path agree', why: 'NCCL\'s rules differ by release: a job that loads another library than the one ncclx models (another Python, LD_LIBRARY_PATH, a C++ program) selects interfaces, HCAs and GIDs by other rules.' },
  { id: 'LIB-002', title: 'NCCL_VERSION is not mistaken for the library', why: 'CUDA images export NCCL_VERSION for the package they installed; NCCL never reads it, and PyTorch loads its own NCCL.' },
];

export const libraryChecks: Check[] = SPECS.map((spec) => ({
  id: spec.id,
  title: spec.title,
  family: 'env',
  run(ctx) {
    const chosen = modelledLibrary(ctx.snapshot.ncclLibrary);
    const given = ctx.options.ncclVersion !== undefined;
    const ok = spec.id === 'LIB-001'
      ? chosen ? `one NCCL version on the job's path: ${chosen.candidate.version} (${chosen.candidate.path})` : 'no NCCL library with a known version was found (see SOCK-021)'
      : 'NCCL_VERSION is unset or matches the library';
    // --nccl-version settles the version: the libraries found do not change the model then.
    const found = given ? [] : libraryFindings(ctx.snapshot.ncclLibrary, ctx.snapshot.env.process).filter((f) => f.id === spec.id);
    return findingResults(found, { ok: given ? `--nccl-version ${ctx.options.ncclVersion} is modelled` : ok, why: spec.why }, evidence(ctx));
  },
}));
