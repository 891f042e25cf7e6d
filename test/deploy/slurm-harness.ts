// A real single-node Slurm for the deployment tests: munged, slurmctld and
// slurmd for this machine on 127.0.0.1, private ports and directories, started
// by a test file and stopped after it. Skipped with a reason where Slurm is not
// installed or the user is not root, never under CI=true (.ci/run installs it).

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { tempDir } from '../helpers/tmp.js';

export const IN_CI = !!process.env['CI'] && process.env['CI'] !== 'false' && process.env['CI'] !== '0';
const TOOLS = ['munged', 'mungekey', 'slurmctld', 'slurmd', 'srun', 'sbatch', 'scontrol', 'sinfo'];
/** The test's own PATH, with the sbin directories where Debian puts the daemons. */
export const PATH = `${process.env['PATH'] ?? ''}:/usr/sbin:/sbin`;
const missing = TOOLS.filter((t) => spawnSync('sh', ['-c', `command -v ${t}`], { env: { PATH } }).status !== 0);
const AS_ROOT = process.getuid?.() === 0;

/** Whether a Slurm suite runs here; where it does not (and CI is not set), why. */
export const SLURM_RUNS = (missing.length === 0 && AS_ROOT) || IN_CI;
export const SLURM_SKIP = SLURM_RUNS ? '' : ` — skipped: ${!AS_ROOT ? 'not root' : `${missing.join(', ')} not installed (apt-get install slurm-wlm munge)`}; CI installs it and never skips`;

export interface Slurm {
  dir: string;
  /** This node's name in Slurm (the short host name). */
  node: string;
  /** What the test's own commands (sbatch, scontrol) run with. */
  env: Record<string, string>;
  slurmConf: string;
  slurmdLog: string;
  run(argv: string[], opts?: { cwd?: string; timeout?: number; extraEnv?: Record<string, string> }): { code: number | null; out: string; err: string };
  /** `scontrol show node NODE -o`. */
  nodeInfo(): string;
  /** `scontrol show job ID -o`. */
  jobInfo(id: string): string;
  /** Stops the daemons, then waits for what they started (hooks, their doctors) and whatever else runs from `paths`. */
  stop(paths?: string[]): Promise<void>;
}

/** Processes whose command line names one of the paths. */
function processesUsing(paths: string[]): number[] {
  const pids: number[] = [];
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p) || Number(p) === process.pid) continue;
    try {
      const cmd = readFileSync(`/proc/${p}/cmdline`, 'utf8');
      if (paths.some((x) => cmd.includes(x))) pids.push(Number(p));
    } catch {
      /* gone */
    }
  }
  return pids;
}

export async function until(what: string, ok: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (ok()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/**
 * Starts the three daemons with slurm.conf plus `extra` lines; resolves when the node is idle.
 * `beforeStart` runs once slurm.conf is written, before any daemon starts (to install hooks it names).
 */
export async function startSlurm(extra: string[] = [], beforeStart?: (paths: { dir: string; slurmConf: string; slurmdLog: string }) => void): Promise<Slurm> {
  if (IN_CI) expect(missing, 'apt-get install slurm-wlm munge').toEqual([]);
  const dir = tempDir('ncclx-slurm-');
  const node = hostname().split('.')[0]!;
  const port = 20000 + Math.floor(Math.random() * 20000);
  const daemons: ChildProcess[] = [];
  for (const d of ['state', 'spool', 'munge', 'log']) mkdirSync(join(dir, d), { recursive: true });
  chmodSync(join(dir, 'munge'), 0o700);
  const slurmConf = join(dir, 'slurm.conf');
  const slurmdLog = join(dir, 'log/slurmd.log');
  const env = { PATH, HOME: dir, SLURM_CONF: slurmConf };
  const run: Slurm['run'] = (argv, opts = {}) => {
    const r = spawnSync(argv[0]!, argv.slice(1), { encoding: 'utf8', cwd: opts.cwd ?? dir, timeout: opts.timeout ?? 60_000, env: { ...env, ...opts.extraEnv } });
    return { code: r.status, out: r.stdout ?? '', err: r.stderr ?? '' };
  };
  expect(run(['mungekey', '-c', '-f', '-k', join(dir, 'munge/munge.key')]).code).toBe(0);
  chmodSync(join(dir, 'munge/munge.key'), 0o600);
  const sock = join(dir, 'munge/sock');
  writeFileSync(
    slurmConf,
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
      `SlurmdLogFile=${slurmdLog}`,
      'ProctrackType=proctrack/linuxproc',
      'TaskPlugin=task/none',
      'JobAcctGatherType=jobacct_gather/none',
      'SelectType=select/cons_tres',
      'SelectTypeParameters=CR_Core',
      'MpiDefault=none',
      'ReturnToService=2',
      ...extra,
      `NodeName=${node} NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN`,
      'PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP',
      '',
    ].join('\n'),
  );
  beforeStart?.({ dir, slurmConf, slurmdLog });
  const start = (argv: string[]) => daemons.push(spawn(argv[0]!, argv.slice(1), { env, stdio: 'ignore' }));
  start(['munged', '-F', '--force', `--key-file=${join(dir, 'munge/munge.key')}`, `--socket=${sock}`, `--pid-file=${join(dir, 'munge/pid')}`, `--log-file=${join(dir, 'munge/log')}`, `--seed-file=${join(dir, 'munge/seed')}`]);
  await until('munged', () => existsSync(sock));
  start(['slurmctld', '-D', '-f', slurmConf]);
  start(['slurmd', '-D', '-f', slurmConf, '-N', node]);
  const nodeInfo = () => run(['scontrol', 'show', 'node', node, '-o']).out;
  await until('the node to be idle and responding', () => /State=IDLE /.test(nodeInfo()), 30_000);
  return {
    dir,
    node,
    env,
    slurmConf,
    slurmdLog,
    run,
    nodeInfo,
    jobInfo: (id) => run(['scontrol', 'show', 'job', id, '-o']).out,
    async stop(paths = []) {
      for (const p of [...daemons].reverse()) p.kill('SIGTERM');
      await new Promise((r) => setTimeout(r, 500));
      for (const p of daemons) if (p.exitCode === null) p.kill('SIGKILL');
      // Hooks slurmd started outlive it; the temporary directories go only once they are done.
      const ours = [dir, ...paths];
      await until('the hooks slurmd started to finish', () => processesUsing(ours).length === 0, 15_000).catch(() => {
        for (const pid of processesUsing(ours)) process.kill(pid, 'SIGKILL');
      });
    },
  };
}
