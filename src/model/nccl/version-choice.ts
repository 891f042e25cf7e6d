// Which NCCL version to model: the --nccl-version flag, else the library found
// on the node, else the newest known release (and say so).

import type { NodeSnapshot } from '../snapshot/types.js';
import { NEWEST_KNOWN, parseVersion, versionString, type VersionChoice } from './versions.js';

export function chooseVersion(flag: string | undefined, snapshot: Pick<NodeSnapshot, 'ncclLibrary'>): VersionChoice {
  if (flag !== undefined) {
    const version = parseVersion(flag);
    const note = version.patchAssumed && version.vendor === 'nvidia' ? ` (read as ${versionString(version)}, the first ${version.major}.${version.minor} release)` : '';
    return { version, source: `--nccl-version ${flag}${note}`, assumed: false };
  }
  const found = snapshot.ncclLibrary.candidates.filter((c) => c.version !== null);
  const first = found[0];
  if (first) {
    const others = [...new Set(found.slice(1).map((c) => c.version))].filter((v) => v !== first.version);
    const more = others.length ? `; other versions on this node: ${others.join(', ')}` : '';
    return { version: parseVersion(first.version!), source: `${first.path} (${first.via})${more}`, assumed: false };
  }
  const unversioned = snapshot.ncclLibrary.candidates[0];
  const why = unversioned ? `found ${unversioned.path} but could not tell its version` : 'no NCCL library found on this node';
  return { version: NEWEST_KNOWN, source: `${why}; assuming the newest known release ${versionString(NEWEST_KNOWN)}`, assumed: true };
}
