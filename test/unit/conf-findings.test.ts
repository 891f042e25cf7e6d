// ENV-003 (src/model/nccl/conf-findings.ts): conf files NCCL opens but cannot
// use, each kind of failure, and the files that are simply absent.
import { describe, expect, it } from 'vitest';
import { confFileFindings } from '../../src/model/nccl/conf-findings.js';
import { effectiveEnv, type ConfFileRecord } from '../../src/model/nccl/conf.js';
import { parseVersion, profileFor } from '../../src/model/nccl/versions.js';

const P = profileFor(parseVersion('2.28.3'));
function judge(records: ConfFileRecord[], process: Record<string, string> = {}) {
  const env = effectiveEnv({ process, confFiles: records, home: { passwd: '/root', env: '/root' } }, P);
  return confFileFindings(env, records).map((f) => [f.path, f.severity, f.message, f.remediation.advice]);
}
const USER = { NCCL_CONF_FILE: '/cfg/nccl.conf' };
const rec = (path: string, content: string | null, error: string | null = null, role: ConfFileRecord['role'] = 'NCCL_CONF_FILE'): ConfFileRecord => ({ path, role, content, error });

describe('ENV-003', () => {
  it('an absent ~/.nccl.conf or /etc/nccl.conf is normal; an absent NCCL_CONF_FILE is not', () => {
    expect(judge([rec('/root/.nccl.conf', null, 'ENOENT', 'home-passwd'), rec('/etc/nccl.conf', null, 'ENOENT', 'etc')])).toEqual([]);
    expect(judge([rec('/cfg/nccl.conf', null, 'ENOENT')], USER)).toEqual([
      ['/cfg/nccl.conf', 'warn', "NCCL_CONF_FILE=/cfg/nccl.conf does not exist: NCCL's fopen() fails and it reads nothing from it, without a message; with NCCL_CONF_FILE set, NCCL does not read ~/.nccl.conf either", 'Point NCCL_CONF_FILE at the conf file you meant, or unset it'],
    ]);
  });
  it('a directory, a permission error, anything else', () => {
    expect(judge([rec('/cfg/nccl.conf', null, 'EISDIR: illegal operation on a directory')], USER)[0]!.slice(1)).toEqual(['warn', "NCCL_CONF_FILE=/cfg/nccl.conf is a directory: fopen() succeeds, getline() fails at once, and NCCL reads nothing from it, without a message; with NCCL_CONF_FILE set, NCCL does not read ~/.nccl.conf either", 'Name the conf file itself, not its directory']);
    expect(judge([rec('/etc/nccl.conf', null, 'EACCES: permission denied', 'etc')])[0]!.slice(1)).toEqual(['warn', "/etc/nccl.conf cannot be opened (EACCES: permission denied): NCCL's fopen() fails and it reads nothing from it, without a message", "Make it readable by the job's user"]);
    expect(judge([rec('/etc/nccl.conf', null, 'EPERM', 'etc')])[0]![1]).toBe('warn');
    expect(judge([rec('/etc/nccl.conf', null, 'EIO: i/o error', 'etc')])[0]!.slice(1)).toEqual(['warn', '/etc/nccl.conf could not be read (EIO: i/o error); NCCL most likely reads nothing from it', 'Check the file']);
  });
  it('a FIFO hangs the first lookup; a device is read until memory runs out', () => {
    expect(judge([rec('/cfg/nccl.conf', null, 'ENOTREG: a FIFO, not a regular file')], USER)[0]!.slice(1)).toEqual(['error', "NCCL_CONF_FILE=/cfg/nccl.conf is a FIFO: NCCL's fopen() blocks until something writes to it, so NCCL's first ncclGetEnv() hangs", 'Point NCCL_CONF_FILE at a regular file, or unset it']);
    expect(judge([rec('/cfg/nccl.conf', null, 'ENOTREG: a character device, not a regular file')], USER)[0]!.slice(1, 3)).toEqual(['error', 'NCCL_CONF_FILE=/cfg/nccl.conf is a character device: NCCL reads it with getline(); a device such as /dev/zero never ends a line, so NCCL\'s buffer grows until memory runs out']);
  });
  it('binary content: what precedes a NUL byte is set, and said so; text is fine', () => {
    const bin = judge([rec('/cfg/nccl.conf', 'NCCL_DEBUG=INFO\nNCCL_IB_HCA=mlx5\0junk\n')], USER);
    expect(bin).toHaveLength(1);
    expect(bin[0]![2]).toMatch(/^NCCL_CONF_FILE=\/cfg\/nccl\.conf is binary \(NUL bytes or invalid UTF-8\): NCCL still reads it line by line and sets whatever precedes a NUL byte — 2 variable\(s\) from it: NCCL_DEBUG, NCCL_IB_HCA$/);
    expect(judge([rec('/cfg/nccl.conf', '\uFFFD\uFFFD')], USER)[0]![2]).toMatch(/no NAME=VALUE line survives$/);
    expect(judge([rec('/cfg/nccl.conf', 'NCCL_DEBUG=INFO\n')], USER)).toEqual([]);
  });
  it('more than five variables are cut with …', () => {
    const many = Array.from({ length: 7 }, (_, i) => `NCCL_X${i}=1`).join('\n') + '\n\0';
    expect(judge([rec('/cfg/nccl.conf', many)], USER)[0]![2]).toMatch(/7 variable\(s\) from it: NCCL_X0, NCCL_X1, NCCL_X2, NCCL_X3, NCCL_X4, …$/);
  });
});
