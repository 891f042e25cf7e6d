// ENV-003: conf files NCCL opens but cannot use. NCCL's setEnvFile() is
// silent about every failure: fopen() failing (missing, no permission) skips
// the file; a directory opens but getline() fails at once; a device such as
// /dev/zero never ends a line, so getline() grows its buffer until memory
// runs out; a FIFO blocks the open until a writer comes; binary content is
// read as lines, and whatever precedes a NUL byte is kept. Pure.

import type { Finding } from '../result/types.js';
import { advise } from '../result/build.js';
import type { EffectiveEnv } from './conf.js';
import type { ConfFileRecord } from '../snapshot/types.js';

export interface ConfFileFinding extends Finding {
  path: string;
}

const label = (role: string, path: string) => (role === 'NCCL_CONF_FILE' ? `NCCL_CONF_FILE=${path}` : path);

/** The files NCCL would open, judged; files that are simply absent (~/.nccl.conf, /etc/nccl.conf) are normal. */
export function confFileFindings(env: EffectiveEnv, records: ConfFileRecord[]): ConfFileFinding[] {
  const out: ConfFileFinding[] = [];
  for (const f of env.filesRead) {
    const name = label(f.role, f.path);
    const skipsHome = f.role === 'NCCL_CONF_FILE' ? '; with NCCL_CONF_FILE set, NCCL does not read ~/.nccl.conf either' : '';
    const push = (severity: Finding['severity'], message: string, fix: string) => out.push({ id: 'ENV-003', path: f.path, severity, message, remediation: advise(fix) });
    if (f.status === 'missing') {
      if (f.role === 'NCCL_CONF_FILE') push('warn', `${name} does not exist: NCCL's fopen() fails and it reads nothing from it, without a message${skipsHome}`, 'Point NCCL_CONF_FILE at the conf file you meant, or unset it');
      continue;
    }
    const error = f.error ?? '';
    if (f.status === 'unreadable') {
      if (/^EISDIR/.test(error)) push('warn', `${name} is a directory: fopen() succeeds, getline() fails at once, and NCCL reads nothing from it, without a message${skipsHome}`, 'Name the conf file itself, not its directory');
      else if (/^ENOTREG/.test(error)) {
        const fifo = /FIFO/.test(error);
        push(
          'error',
          fifo
            ? `${name} is a FIFO: NCCL's fopen() blocks until something writes to it, so NCCL's first ncclGetEnv() hangs`
            : `${name} is ${error.replace(/^ENOTREG: /, '').replace(/, not a regular file$/, '')}: NCCL reads it with getline(); a device such as /dev/zero never ends a line, so NCCL's buffer grows until memory runs out`,
          'Point NCCL_CONF_FILE at a regular file, or unset it',
        );
      } else if (/^(EACCES|EPERM)/.test(error)) push('warn', `${name} cannot be opened (${error}): NCCL's fopen() fails and it reads nothing from it, without a message${skipsHome}`, 'Make it readable by the job\'s user');
      else push('warn', `${name} could not be read (${error}); NCCL most likely reads nothing from it`, 'Check the file');
      continue;
    }
    const rec = records.find((r) => r.path === f.path);
    if (rec?.content && /\0|\uFFFD/.test(rec.content)) {
      const set = Object.entries(env.origins)
        .filter(([, o]) => o.source === 'conf' && o.path === f.path)
        .map(([k]) => k);
      push(
        'warn',
        `${name} is binary (NUL bytes or invalid UTF-8): NCCL still reads it line by line and sets whatever precedes a NUL byte — ${set.length ? `${set.length} variable(s) from it: ${set.slice(0, 5).join(', ')}${set.length > 5 ? ', …' : ''}` : 'no NAME=VALUE line survives'}`,
        'Point NCCL_CONF_FILE at a text file of NAME=VALUE lines',
      );
    }
  }
  return out;
}
