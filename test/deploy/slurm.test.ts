// The Slurm recipes in docs/deploy, run as written against a real Slurm:
// munged, slurmctld and slurmd for this one node on 127.0.0.1, private ports
// and directories, started before and stopped after. Skipped with a reason
// where Slurm is not installed, never under CI=true (.ci/run installs it).

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tmp.js';

const ROOT = join(__dirname, '../..');
const DEPLOY = join(ROOT, 'docs/deploy');
const CLI = join(ROOT, 'dist/cli.js');
const IN_CI = !!process.env['CI'] && process.env['CI'] !== 'false' && process.env['CI'] !== '0';
const TOOLS = ['munged', 'mungekey', 'slurmctld', 'slurmd', 'srun', 'sbatch', 'scontrol', 'sinfo'];
const PATH = `${process.env['PATH'] ?? ''}:/usr/sbin:/sbin`;
const missing = TOOLS.filter((t) => spawnSync('sh', ['-c', `command -v ${t}`], { env: { PATH } }).status !== 0);
const AS_ROOT = process.getuid?.() === 0;

// Made only when the suite runs: a skipped file runs no hooks, so nothing would remove it.
const dir = (missing.length === 0 && AS_ROOT) || IN_CI ? tempDir('ncclx-slurm-') : '';
const node = hostname().split('.')[0]!;
const port = 20000 + Math.floor(Math.random() * 20000);
const daemons: ChildProcess[] = [];
let env: Record<string, string>;

function run(argv: string[], opts: { cwd?: string; timeout?: number; extraEnv?: Record<string, string> } = {}) {
  const r = spawnSync(argv[0]!, argv.slice(1), { encoding: 'utf8', cwd: opts.cwd ?? dir, timeout: opts.timeout ?? 60_000, env: { ...env, ...opts.extraEnv } });
  return { code: r.status, out: r.stdout ?? '', err: r.stderr ?? '' };
}

async function until(what: string, ok: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (ok()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

function nodeInfo(): string {
  return run(['scontrol', 'show', 'node', node, '-o']).out;
}

const suite = missing.length || !AS_ROOT ? (IN_CI ? describe : describe.skip) : describe;
const why = !AS_ROOT ? 'not root' : `${missing.join(', ')} not installed (apt-get install slurm-wlm munge)`;

suite(`Slurm recipes against a real single-node Slurm${missing.length || !AS_ROOT ? ` — skipped: ${why}; CI installs it and never skips` : ''}`, () => {
  beforeAll(async () => {
    if (IN_CI) expect(missing, 'apt-get install slurm-wlm munge').toEqual([]);
    for (const d of ['state', 'spool', 'munge', 'log', 'bin']) mkdirSync(join(dir, d), { recursive: true });
    chmodSync(join(dir, 'munge'), 0o700);
    // ncclx as a user has it: a command on PATH.
    writeFileSync(join(dir, 'bin/ncclx'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`, { mode: 0o755 });
    env = { PATH: `${join(dir, 'bin')}:${PATH}`, HOME: dir, SLURM_CONF: join(dir, 'slurm.conf') };
    expect(run(['mungekey', '-c', '-f', '-k', join(dir, 'munge/munge.key')]).code).toBe(0);
    chmodSync(join(dir, 'munge/munge.key'), 0o600);
    const sock = join(dir, 'munge/sock');
    writeFileSync(
      join(dir, 'slurm.conf'),
      [
        'ClusterName=ncclxtest',
        `SlurmctldHost=${node}(127.0.0.1)`,
        `SlurmctldPort=${port}`,
        `SlurmdPort=${port + 1}`,
        'AuthType=auth/munge',
        `AuthInfo=socket=${sock}`,
        'CredType=cred/munge',
        'SlurmUser=root',
        'SlurmdUser=root',
        `StateSaveLocation=${join(dir, 'state')}`,
        `SlurmdSpoolDir=${join(dir, 'spool')}`,
        `SlurmctldPidFile=${join(dir, 'slurmctld.pid')}`,
        `SlurmdPidFile=${join(dir, 'slurmd.pid')}`,
        `SlurmctldLogFile=${join(dir, 'log/slurmctld.log')}`,
        `SlurmdLogFile=${join(dir, 'log/slurmd.log')}`,
        'ProctrackType=proctrack/linuxproc',
        'TaskPlugin=task/none',
        'JobAcctGatherType=jobacct_gather/none',
        'SelectType=select/cons_tres',
        'SelectTypeParameters=CR_Core',
        'MpiDefault=none',
        'ReturnToService=2',
        `NodeName=${node} NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN`,
        'PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP',
        '',
      ].join('\n'),
    );
    const start = (argv: string[]) => {
      const p = spawn(argv[0]!, argv.slice(1), { env, stdio: 'ignore' });
      daemons.push(p);
    };
    start(['munged', '-F', '--force', `--key-file=${join(dir, 'munge/munge.key')}`, `--socket=${sock}`, `--pid-file=${join(dir, 'munge/pid')}`, `--log-file=${join(dir, 'munge/log')}`, `--seed-file=${join(dir, 'munge/seed')}`]);
    await until('munged', () => existsSync(sock));
    start(['slurmctld', '-D', '-f', join(dir, 'slurm.conf')]);
    start(['slurmd', '-D', '-f', join(dir, 'slurm.conf'), '-N', node]);
    await until('the node to be idle and responding', () => /State=IDLE /.test(nodeInfo()), 30_000);
  }, 60_000);

  afterAll(async () => {
    for (const p of daemons.reverse()) p.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    for (const p of daemons) if (p.exitCode === null) p.kill('SIGKILL');
  });

  it('by hand, as docs/deploy/README.md writes it: one snapshot per node in snaps/, compared', () => {
    const readme = readFileSync(join(DEPLOY, 'README.md'), 'utf8');
    const block = /```sh\n(sbatch[^\n]*\n)((?:.*\n)*?)```/.exec(readme)![2]!;
    const lines = block.split('\n').filter((l) => l && !l.startsWith('#'));
    expect(lines[0]).toBe('mkdir -p snaps');
    const work = join(dir, 'byhand');
    mkdirSync(work);
    // Inside an allocation: salloc gives SLURM_JOB_NUM_NODES and the job's environment.
    const r = run(['salloc', '-N1', '--quiet', 'bash', '-euc', lines.join('\n')], { cwd: work, timeout: 120_000 });
    expect(readdirSync(join(work, 'snaps')).sort()).toEqual([`${node}.err`, `${node}.json`]);
    expect(JSON.parse(readFileSync(join(work, 'snaps', `${node}.json`), 'utf8'))).toMatchObject({ host: { hostname: expect.any(String) } });
    expect([0, 1], r.err).toContain(r.code);
    expect(r.out).toMatch(/ncclx compare/);
  });

  it('snapshots.sbatch: sbatch --wait, one snapshot per node, compare with --master-addr <first node> resolving to that node', () => {
    const work = join(dir, 'sbatch');
    mkdirSync(work);
    const r = run(['sbatch', '--wait', '-N1', join(DEPLOY, 'slurm/snapshots.sbatch')], { cwd: work, timeout: 180_000 });
    const jobId = /Submitted batch job (\d+)/.exec(r.out)![1]!;
    const log = readFileSync(join(work, `ncclx-snapshots-${jobId}.log`), 'utf8');
    expect(readdirSync(join(work, `ncclx-snapshots-${jobId}`))).toContain(`${node}.json`);
    expect(log).toMatch(/ncclx compare/);
    expect(log).not.toMatch(/MASTER_ADDR {2}is not one of the compared nodes|only \d+ of/);
  });

  it('healthcheck.sh: errors drain the node with the first error as the reason; a clean doctor resumes its own drain, not an operator\'s', async () => {
    const fake = join(dir, 'fakebin');
    mkdirSync(fake, { recursive: true });
    const state = join(dir, 'fake-exit');
    writeFileSync(
      join(fake, 'ncclx'),
      `#!/bin/sh\ncode=$(cat "${state}")\nif [ "$code" = 1 ]; then echo '{"results":[{"id":"ARP-002","severity":"error","summary":"rails answer ARP for each other"}]}'; else echo '{"results":[]}'; fi\nexit "$code"\n`,
      { mode: 0o755 },
    );
    const hc = (code: number) => {
      writeFileSync(state, String(code));
      return run(['bash', join(DEPLOY, 'slurm/healthcheck.sh')], { extraEnv: { PATH: `${fake}:${env['PATH']}` } });
    };
    await until('the node to respond', () => /State=IDLE /.test(nodeInfo()));
    expect(hc(1).code).toBe(0);
    expect(nodeInfo()).toMatch(/State=IDLE\+DRAIN.* Reason=ncclx ARP-002: rails answer ARP for each other/);
    expect(hc(0).code).toBe(0);
    await until('the drain to be lifted', () => !/DRAIN/.test(nodeInfo()), 5_000);
    // An operator's drain is left alone.
    run(['scontrol', 'update', `NodeName=${node}`, 'State=DRAIN', 'Reason=maintenance']);
    hc(0);
    expect(nodeInfo()).toMatch(/DRAIN.*Reason=maintenance/);
    run(['scontrol', 'update', `NodeName=${node}`, 'State=RESUME']);
  });

  it('prolog.sh: a doctor that cannot run is logged and keeps the previous report; errors fail the prolog', () => {
    const fake = join(dir, 'fakebin2');
    mkdirSync(fake, { recursive: true });
    const state = join(dir, 'fake-exit2');
    writeFileSync(join(fake, 'ncclx'), `#!/bin/sh\ncode=$(cat "${state}")\n[ "$code" = 2 ] && { echo 'ncclx: cannot read /sys' >&2; exit 2; }\necho "{\\"exitCode\\": $code}"\nexit "$code"\n`, { mode: 0o755 });
    const logs = join(dir, 'prolog-logs');
    const prolog = (code: number) => {
      writeFileSync(state, String(code));
      return run(['bash', join(DEPLOY, 'slurm/prolog.sh')], { extraEnv: { PATH: `${fake}:${env['PATH']}`, NCCLX_LOG_DIR: logs, SLURM_JOB_ID: '42' } });
    };
    expect(prolog(0).code).toBe(0);
    expect(readFileSync(join(logs, 'doctor.json'), 'utf8')).toBe('{"exitCode": 0}\n');
    expect(prolog(2).code).toBe(0);
    expect(readFileSync(join(logs, 'doctor.json'), 'utf8')).toBe('{"exitCode": 0}\n');
    expect(readFileSync(join(logs, 'doctor.log'), 'utf8')).toMatch(/job 42: doctor could not run \(exit 2\): ncclx: cannot read \/sys/);
    expect(prolog(1).code).toBe(1);
    expect(readFileSync(join(logs, 'doctor.json'), 'utf8')).toBe('{"exitCode": 1}\n');
  });
});
