// The Slurm recipes in docs/deploy that gather snapshots, run as written
// against a real Slurm (slurm-harness.ts: munged, slurmctld and slurmd for this
// one node on 127.0.0.1). The Prolog, Epilog and HealthCheckProgram hooks have
// their own files: slurm-hooks.test.ts and slurm-hooks.full.test.ts.

import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SLURM_RUNS, SLURM_SKIP, startSlurm, type Slurm } from './slurm-harness.js';

const ROOT = join(__dirname, '../..');
const DEPLOY = join(ROOT, 'docs/deploy');
const CLI = join(ROOT, 'dist/cli.js');
let slurm: Slurm;

(SLURM_RUNS ? describe : describe.skip)(`Slurm snapshot recipes against a real single-node Slurm${SLURM_SKIP}`, () => {
  beforeAll(async () => {
    slurm = await startSlurm();
    // ncclx as a user has it: a command on PATH.
    mkdirSync(join(slurm.dir, 'bin'));
    writeFileSync(join(slurm.dir, 'bin/ncclx'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`, { mode: 0o755 });
    slurm.env['PATH'] = `${join(slurm.dir, 'bin')}:${slurm.env['PATH']}`;
  }, 60_000);

  afterAll(async () => {
    await slurm?.stop();
  });

  it('by hand, as docs/deploy/README.md writes it: one snapshot per node in snaps/, compared', () => {
    const readme = readFileSync(join(DEPLOY, 'README.md'), 'utf8');
    const block = /```sh\n(sbatch[^\n]*\n)((?:.*\n)*?)```/.exec(readme)![2]!;
    const lines = block.split('\n').filter((l) => l && !l.startsWith('#'));
    expect(lines[0]).toBe('mkdir -p snaps');
    const work = join(slurm.dir, 'byhand');
    mkdirSync(work);
    // Inside an allocation: salloc gives SLURM_JOB_NUM_NODES and the job's environment.
    const r = slurm.run(['salloc', '-N1', '--quiet', 'bash', '-euc', lines.join('\n')], { cwd: work, timeout: 120_000 });
    expect(readdirSync(join(work, 'snaps')).sort()).toEqual([`${slurm.node}.err`, `${slurm.node}.json`]);
    expect(JSON.parse(readFileSync(join(work, 'snaps', `${slurm.node}.json`), 'utf8'))).toMatchObject({ host: { hostname: expect.any(String) } });
    expect([0, 1], r.err).toContain(r.code);
    expect(r.out).toMatch(/ncclx compare/);
  });

  it('snapshots.sbatch: sbatch --wait, one snapshot per node, compare with --master-addr <first node> resolving to that node', () => {
    const work = join(slurm.dir, 'sbatch');
    mkdirSync(work);
    const r = slurm.run(['sbatch', '--wait', '-N1', join(DEPLOY, 'slurm/snapshots.sbatch')], { cwd: work, timeout: 180_000 });
    const jobId = /Submitted batch job (\d+)/.exec(r.out)![1]!;
    const log = readFileSync(join(work, `ncclx-snapshots-${jobId}.log`), 'utf8');
    expect(readdirSync(join(work, `ncclx-snapshots-${jobId}`))).toContain(`${slurm.node}.json`);
    expect(log).toMatch(/ncclx compare/);
    expect(log).not.toMatch(/MASTER_ADDR {2}is not one of the compared nodes|only \d+ of/);
  });
});
