// The NCCL-related environment and every conf file NCCL might read, raw.
// Which of them apply depends on the NCCL version, so the merge is done later
// by the pure src/nccl/conf.ts.

import { userInfo } from 'node:os';
import { isRelevantVar, type ConfFileRecord, type ConfRole } from '../model/nccl/conf.js';
import type { EnvPart } from '../model/snapshot/types.js';
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

/** `uid`: whose passwd home to read (--pid: the process's owner, in its own /etc/passwd). */
export function probeEnv(root: Root, processEnv: NodeJS.ProcessEnv, o: { uid?: number | null } = {}): EnvPart {
  const vars: Record<string, string> = {};
  for (const [k, v] of Object.entries(processEnv)) {
    if (v !== undefined && isRelevantVar(k)) vars[k] = v;
  }
  const home = { passwd: passwdHome(root, o.uid), env: processEnv['HOME'] ?? null };
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
