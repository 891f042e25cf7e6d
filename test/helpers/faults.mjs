// Reads that fail on purpose, for tests only: a plain file cannot fail with
// EINVAL the way a sysfs attribute does (GID entries that are unset or belong
// to another network namespace). A fixture tree `<dir>` may have a sibling
// `<dir>.faults.json` listing such reads; tests make them fail by patching
// the Root class they use (src/ in process, dist/ through ./ncclx.mjs). ncclx
// itself never reads this file: a user's --root tree cannot inject anything.
// Format and rules: docs/fixtures.md ("Reads that fail").

import { readFileSync } from 'node:fs';

/** Where the faults of a tree are kept: next to it, never inside it. */
export const faultsFile = (dir) => `${dir.replace(/\/+$/, '')}.faults.json`;

const cache = new Map();

/** The node paths whose read fails, with the errno, for the tree at `dir`; null when it has none. */
export function faultsFor(dir) {
  if (cache.has(dir)) return cache.get(dir);
  let data = null;
  try {
    data = JSON.parse(readFileSync(faultsFile(dir), 'utf8'));
  } catch {
    // no faults file: every read is real
  }
  const out = data && typeof data.reads === 'object' && data.reads !== null ? new Map() : null;
  for (const [key, errno] of Object.entries(out ? data.reads : {})) {
    // The last component may be a range {a..b}: one entry per index.
    const m = /^(.*\/)\{(\d+)\.\.(\d+)\}$/.exec(key);
    if (!m) out.set(key, String(errno));
    else for (let i = Number(m[2]); i <= Number(m[3]); i++) out.set(`${m[1]}${i}`, String(errno));
  }
  cache.set(dir, out);
  return out;
}

/** Make every instance of `RootClass` fail the reads its tree's faults file lists (the file itself still exists). */
export function injectFaults(RootClass) {
  const proto = RootClass.prototype;
  if (proto.read.injected) return;
  const real = proto.read;
  const read = function (p, limit) {
    const errno = this.isLive ? undefined : faultsFor(this.dir)?.get(p);
    return errno === undefined ? real.call(this, p, limit) : { ok: false, error: errno };
  };
  read.injected = true;
  proto.read = read;
}
