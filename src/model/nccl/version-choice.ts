// Which NCCL version to model: the --nccl-version flag, else the library found
// on the node, else the newest known release (and say so).

import type { NodeSnapshot } from '../snapshot/types.js';
import { modelledLibrary, ownerOf, versionEvidence } from './library.js';
import { beyondModel, firstPatchKnown, NEWEST_KNOWN, parseVersion, versionString, type VersionChoice } from './versions.js';

export function chooseVersion(flag: string | undefined, snapshot: Pick<NodeSnapshot, 'ncclLibrary' | 'process'>): VersionChoice {
  if (flag !== undefined) {
    const version = parseVersion(flag);
    const beyond = beyondModel(version);
    const read =
      version.patchAssumed && version.vendor === 'nvidia'
        ? firstPatchKnown(version)
          ? ` (read as ${versionString(version)}, the first ${version.major}.${version.minor} release)`
          : ` (no patch level given, and no ${version.major}.${version.minor} release is known to this ncclx)`
        : '';
    return { version, source: `--nccl-version ${flag}${read}${beyond ? `; ${beyond.note}` : ''}`, assumed: false, beyond };
  }
  const found = snapshot.ncclLibrary.candidates.filter((c) => c.version !== null);
  const chosen = modelledLibrary(snapshot.ncclLibrary);
  if (chosen) {
    const first = chosen.candidate;
    const others = [...new Map(found.filter((c) => c.version !== first.version).map((c) => [c.version, c])).values()];
    const more = others.length ? `; other versions on this node: ${others.map((c) => `${c.version} (${ownerOf(c).replace(/ [^ ]+$/, '')}, ${c.path})`).join(', ')}` : '';
    const version = parseVersion(first.version!);
    const beyond = beyondModel(version);
    const how = first.versionFrom === undefined ? '' : `; ${versionEvidence(first)}`;
    return { version, source: `${first.path} (${first.via}${how}); ${chosen.why}${more}${beyond ? `; ${beyond.note}` : ''}`, assumed: false, beyond };
  }
  const unversioned = snapshot.ncclLibrary.candidates[0];
  // --pid on a process that has not loaded NCCL (yet): what its loader would find is searched in its view.
  const view = snapshot.process;
  const where = view ? `process ${view.pid} has none mapped, and none is found where its loader would look` : 'no NCCL library found on this node';
  const why = unversioned ? `found ${unversioned.path} but could not tell its version` : where;
  return { version: NEWEST_KNOWN, source: `${why}; assuming the newest known release ${versionString(NEWEST_KNOWN)}`, assumed: true, beyond: null };
}
