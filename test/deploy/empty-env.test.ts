// ncclx run with nothing in its environment, as Slurm runs a Prolog or a
// HealthCheckProgram and as `env -i` does: the tools it reads the node with
// live in sbin directories, which no default search path holds.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tmp.js';

const CLI = join(__dirname, '../../dist/cli.js');
const sbinOnly = (tool: string) => ['/usr/sbin', '/sbin'].some((d) => existsSync(join(d, tool))) && !['/usr/bin', '/bin'].some((d) => existsSync(join(d, tool)));

describe('an empty environment', () => {
  it.skipIf(!sbinOnly('tc'))('doctor still finds tc (in sbin only on this machine) with no PATH at all', () => {
    const cwd = tempDir('ncclx-empty-env-');
    const r = spawnSync(process.execPath, [CLI, 'doctor', '--json', '--only', 'QOS-001'], { env: {}, cwd, encoding: 'utf8', timeout: 60_000 });
    expect([0, 1], r.stderr).toContain(r.status);
    const qos = JSON.parse(r.stdout).results.find((x: { id: string }) => x.id === 'QOS-001');
    expect(qos.summary).not.toMatch(/not installed/);
    expect(qos.severity).not.toBe('unknown');
  });

  it('a PATH that is set is kept: with a PATH that holds no tc, tc is reported missing', () => {
    const cwd = tempDir('ncclx-empty-env-');
    const r = spawnSync(process.execPath, [CLI, 'doctor', '--json', '--only', 'QOS-001'], { env: { PATH: cwd }, cwd, encoding: 'utf8', timeout: 60_000 });
    expect(JSON.parse(r.stdout).results.find((x: { id: string }) => x.id === 'QOS-001').summary).toMatch(/`tc` is not installed/);
  });
});
