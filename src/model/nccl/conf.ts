// Where each NCCL variable's value comes from (docs/nccl/params.md §1):
// the real environment wins; then the user conf file (NCCL_CONF_FILE, else
// ~/.nccl.conf), then /etc/nccl.conf, each loaded with setenv(..., 0).

import type { ConfFileRecord, ConfRole } from '../snapshot/types.js';
import type { Profile } from './versions.js';

export type { ConfFileRecord, ConfRole } from '../snapshot/types.js';

export interface EnvInput {
  /** The process environment, limited to the variables ncclx cares about. */
  process: Record<string, string>;
  confFiles: ConfFileRecord[];
  /** Home directories NCCL might use: the passwd entry's (≤ 2.30.2) and $HOME (≥ 2.30.3). */
  home: { passwd: string | null; env: string | null };
}

export type Origin =
  | { source: 'environment' }
  | { source: 'conf'; path: string; line: number }
  | { source: 'flag'; flag: string };

export interface EnvNote {
  variable: string;
  path: string;
  line: number;
  kind: 'quoted' | 'trailing-space' | 'carriage-return' | 'shadowed';
  message: string;
}

export interface EffectiveEnv {
  vars: Record<string, string>;
  origins: Record<string, Origin>;
  /** Files NCCL would read, in order, and whether they were there. */
  filesRead: { path: string; role: ConfRole; status: 'read' | 'missing' | 'unreadable'; error?: string }[];
  notes: EnvNote[];
}

/** The user conf file path this profile would open, or null. */
export function userConfPath(input: EnvInput, profile: Profile): { path: string; role: ConfRole } | null {
  const confFile = input.process['NCCL_CONF_FILE'];
  if (profile.confFileVar && confFile !== undefined && confFile !== '') {
    return { path: confFile, role: 'NCCL_CONF_FILE' };
  }
  const home = profile.confHomeFromEnv ? input.home.env : input.home.passwd;
  if (!home) return null;
  return { path: `${home.replace(/\/+$/, '')}/.nccl.conf`, role: profile.confHomeFromEnv ? 'home-env' : 'home-passwd' };
}

/** envVar[1024] / envValue[1024] in setEnvFile(): at most 1023 characters of a name or a value. */
export const CONF_FIELD_MAX = 1023;

export function effectiveEnv(input: EnvInput, profile: Profile): EffectiveEnv {
  const vars: Record<string, string> = { ...input.process };
  const origins: Record<string, Origin> = {};
  for (const k of Object.keys(vars)) origins[k] = { source: 'environment' };
  const notes: EnvNote[] = [];
  const filesRead: EffectiveEnv['filesRead'] = [];

  const order: { path: string; role: ConfRole }[] = [];
  const user = userConfPath(input, profile);
  if (user) order.push(user);
  order.push({ path: '/etc/nccl.conf', role: 'etc' });

  for (const want of order) {
    const rec = input.confFiles.find((f) => f.path === want.path);
    if (!rec || rec.content === null) {
      const missing = !rec || rec.error === null || /ENOENT/.test(rec.error ?? '');
      filesRead.push({ path: want.path, role: want.role, status: missing ? 'missing' : 'unreadable', ...(rec?.error ? { error: rec.error } : {}) });
      continue;
    }
    filesRead.push({ path: want.path, role: want.role, status: 'read' });
    const lines = rec.content.split('\n');
    // A final newline leaves an empty last element that getline never returns.
    if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
    lines.forEach((rawLine, idx) => {
      let line = rawLine;
      const lineNo = idx + 1;
      if (profile.confCrlf && line.endsWith('\r')) line = line.slice(0, -1);
      if (profile.confComments && line.startsWith('#')) return;
      // setEnvFile() scans the name up to '=' or the end of the C string (a NUL byte ends it), and copies
      // name and value into 1024-byte buffers with strncpy: each is cut at 1023 characters and at a NUL.
      const eq = line.indexOf('=');
      const nul = line.indexOf('\0');
      if (eq < 0 || (nul >= 0 && nul < eq)) return;
      const name = line.slice(0, Math.min(eq, CONF_FIELD_MAX));
      const rest = line.slice(eq + 1);
      const restNul = rest.indexOf('\0');
      const value = (restNul >= 0 ? rest.slice(0, restNul) : rest).slice(0, CONF_FIELD_MAX);
      if (name === '') return; // setenv refuses an empty name
      if (name in vars) {
        const o = origins[name];
        if (name.startsWith('NCCL_') && o && o.source !== 'conf') {
          notes.push({ variable: name, path: want.path, line: lineNo, kind: 'shadowed', message: `${want.path}:${lineNo} sets ${name}, but the environment already has it and wins` });
        }
        return;
      }
      vars[name] = value;
      origins[name] = { source: 'conf', path: want.path, line: lineNo };
      if (!name.startsWith('NCCL_')) return;
      if (/^(["']).*\1$/.test(value) && value.length >= 2) {
        notes.push({ variable: name, path: want.path, line: lineNo, kind: 'quoted', message: `${want.path}:${lineNo}: ${name} is ${value} with literal quotes; NCCL does not remove quotes in conf files` });
      } else if (/\r$/.test(value)) {
        notes.push({ variable: name, path: want.path, line: lineNo, kind: 'carriage-return', message: `${want.path}:${lineNo}: ${name} ends with a carriage return (CRLF file); NCCL before 2.30.3 keeps it in the value` });
      } else if (/\s$|^\s/.test(value)) {
        notes.push({ variable: name, path: want.path, line: lineNo, kind: 'trailing-space', message: `${want.path}:${lineNo}: ${name} has leading or trailing whitespace, which NCCL keeps in the value` });
      }
    });
  }
  return { vars, origins, filesRead, notes };
}

/** Variables worth recording from the process environment. */
export function isRelevantVar(name: string): boolean {
  return (
    name.startsWith('NCCL_') ||
    name.startsWith('TORCH_NCCL_') ||
    ['MASTER_ADDR', 'MASTER_PORT', 'GLOO_SOCKET_IFNAME', 'TP_SOCKET_IFNAME', 'RDMA_PEER_IFACES', 'HOME', 'UCX_NET_DEVICES'].includes(name)
  );
}

/** Where a value came from, as reports print it: "environment", "--ifname", "/etc/nccl.conf:3", "unset". */
export function originLabel(o: Origin | undefined): string {
  if (!o) return 'unset';
  if (o.source === 'environment') return 'environment';
  if (o.source === 'flag') return o.flag;
  return `${o.path}:${o.line}`;
}

/** Command-line values on top of the effective environment: flags beat the environment and conf files. */
export function withFlags(env: EffectiveEnv, values: [name: string, value: string | undefined, flag: string][]): EffectiveEnv {
  const vars = { ...env.vars };
  const origins = { ...env.origins };
  for (const [name, value, flag] of values) {
    if (value === undefined) continue;
    vars[name] = value;
    origins[name] = { source: 'flag', flag };
  }
  return { ...env, vars, origins };
}
