// The NCCL-related environment and every conf file NCCL might read, raw.
// Which of them apply depends on the NCCL version, so the merge is done later
// by the pure src/model/nccl/conf.ts.

import { userInfo } from 'node:os';
import { isRelevantVar, type ConfFileRecord, type ConfRole } from '../model/nccl/conf.js';
import type { EnvPart, ProbeWarning } from '../model/snapshot/types.js';
import { BOUNDS, clip } from './bound.js';
import type { Root } from './root.js';
import { UserError } from '../model/errors.js';
import { LIMITS, limitText } from './read-bounded.js';

function passwdHome(root: Root, uidOf: number | null | undefined): string | null {
  if (root.isLive && uidOf === undefined) {
    try {
      return userInfo().homedir || null;
    } catch {
      return null;
    }
  }
  const uid = uidOf ?? (typeof process.getuid === 'function' ? process.getuid() : 0);
  const passwd = root.readTrim('/etc/passwd');
  if (!passwd) return null;
  for (const line of passwd.split('\n')) {
    const f = line.split(':');
    if (Number(f[2]) === uid) return f[5] || null;
  }
  return null;
}

/** `uid`: whose passwd home to read (--pid: the process's owner, in its own /etc/passwd); `warnings`: what was left out. */
export function probeEnv(root: Root, processEnv: NodeJS.ProcessEnv, o: { uid?: number | null; warnings?: ProbeWarning[] } = {}): EnvPart {
  const warnings = o.warnings;
  const vars: Record<string, string> = {};
  let kept = 0;
  for (const [k, v] of Object.entries(processEnv)) {
    if (v === undefined || !isRelevantVar(k) || kept >= BOUNDS.envVars) continue;
    // MAX_ARG_STRLEN on 4 KiB pages: a larger value (possible with 64 KiB pages) is more than a snapshot holds.
    if (k.length + v.length > BOUNDS.envValue) {
      warnings?.push({ source: 'environment', message: `${clip(k, 64)}: a value of ${v.length} characters, more than the ${BOUNDS.envValue} a snapshot holds: left out` });
      continue;
    }
    vars[k] = v;
    kept++;
  }
  // A home directory is a path (PATH_MAX); a longer one can hold no conf file NCCL could open.
  const path = (p: string | null | undefined) => (p === null || p === undefined || p.length >= BOUNDS.path ? null : p);
  const home = { passwd: path(passwdHome(root, o.uid)), env: path(processEnv['HOME']) };
  const wanted: { path: string; role: ConfRole }[] = [];
  if (vars['NCCL_CONF_FILE']) wanted.push({ path: vars['NCCL_CONF_FILE'], role: 'NCCL_CONF_FILE' });
  if (home.passwd) wanted.push({ path: `${home.passwd.replace(/\/+$/, '')}/.nccl.conf`, role: 'home-passwd' });
  if (home.env) wanted.push({ path: `${home.env.replace(/\/+$/, '')}/.nccl.conf`, role: 'home-env' });
  wanted.push({ path: '/etc/nccl.conf', role: 'etc' });
  const confFiles: ConfFileRecord[] = [];
  for (const w of wanted) {
    if (confFiles.some((c) => c.path === w.path)) continue;
    const r = root.read(w.path, LIMITS.conf);
    if (!r.ok && r.error.startsWith('EFBIG')) throw new UserError(`${w.role === 'NCCL_CONF_FILE' ? 'NCCL_CONF_FILE ' : ''}${w.path}: larger than the ${limitText(LIMITS.conf)} ncclx reads for an NCCL conf file (see "Limits" in docs/snapshot.md)`);
    confFiles.push({ path: w.path, role: w.role, content: r.ok ? r.value : null, error: r.ok ? null : r.error });
  }
  return { process: vars, confFiles, home };
}
