// ncclx's Slurm hooks (docs/deploy/slurm: install.sh writes prolog, epilog
// and healthcheck from ncclx-hook.sh) run by a real slurmd, with the
// environment slurmd really gives them, against a real slurmctld. ncclx here
// is the built CLI on fixture nodes (a healthy one, one with ARP errors),
// behind a wrapper that also records the environment it was started with and
// can play a broken, hanging or missing ncclx.

import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tmp.js';
import { PATH, SLURM_RUNS, SLURM_SKIP, startSlurm, until, type Slurm } from './slurm-harness.js';

const ROOT = join(__dirname, '../..');
const SLURM_DIR = join(ROOT, 'docs/deploy/slurm');
const CLI = join(ROOT, 'dist/cli.js');
const FIX = join(ROOT, 'test/fixtures');
/** The doctor's first error on roce-one-subnet, as the drain reason carries it. */
const ARP_REASON = /Reason=ncclx ARP-002: enp12s0np0: arp_announce=0: ARP requests may carry another NIC's address/;
/** What the hooks set: the only variable a hook adds to what slurmd gives (SLURM_CONF: this test's slurm.conf is not in /etc). */
const HOOK_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

let slurm: Slurm;
let t: string;
const bin = () => join(t, 'bin');
type Mode = 'healthy' | 'errors' | 'broken' | 'hang';
/** The doctor's behaviour per hook context (the wrapper reads SLURM_SCRIPT_CONTEXT; the health check has none). */
const mode = (ctx: 'prolog_slurmd' | 'epilog_slurmd' | 'healthcheck', m: Mode) => writeFileSync(join(t, `mode-${ctx}`), m);
const recordedEnv = (ctx: string): Record<string, string> =>
  Object.fromEntries(
    readFileSync(join(t, `env-${ctx}`), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );

/** install.sh as an administrator runs it; dest: where this set of hooks goes. */
function install(dest: string, ncclx: string, policy: 'drain' | 'run', more: string[] = []) {
  const r = slurm.run(['bash', join(SLURM_DIR, 'install.sh'), '--ncclx', ncclx, '--on-failure', policy, '--dest', join(t, dest), '--log-dir', join(t, `logs-${dest}`), '--slurm-conf', slurm.slurmConf, ...more]);
  expect(r.code, r.err).toBe(0);
  return r.out;
}

/** Submits a batch job; returns its id. */
function submit(wait = false): { id: string; code: number | null } {
  const r = slurm.run(['sbatch', ...(wait ? ['--wait'] : []), '-N1', '-o', '/dev/null', '--wrap', 'true'], { cwd: t, timeout: 60_000 });
  const id = /Submitted batch job (\d+)/.exec(r.out)?.[1];
  expect(id, r.err).toBeDefined();
  return { id: id!, code: r.code };
}

const slurmdLog = () => readFileSync(slurm.slurmdLog, 'utf8');
/** Waits until the health check has run `n` more times under slurmd. */
async function healthChecks(n: number) {
  const runs = readFileSync(join(t, 'hc-runs'), 'utf8').length;
  await until(`${n} health checks`, () => readFileSync(join(t, 'hc-runs'), 'utf8').length >= runs + n, 90_000);
}
/** Waits for the node to get somewhere; on a timeout, says where it is and what the hooks and slurmd logged. */
async function untilNode(what: string, ok: () => boolean) {
  await until(what, ok, 120_000).catch((e: Error) => {
    const tail = (f: string) => (existsSync(f) ? readFileSync(f, 'utf8').split('\n').slice(-8).join('\n') : '(none)');
    throw new Error(`${e.message}\nnode: ${slurm.nodeInfo()}\nhealth check log:\n${tail(join(t, 'logs-hc/hooks.log'))}\nslurmd log:\n${tail(slurm.slurmdLog)}`);
  });
}

function resumeByHand() {
  if (/DRAIN/.test(slurm.nodeInfo())) slurm.run(['scontrol', 'update', `NodeName=${slurm.node}`, 'State=RESUME']);
}

(SLURM_RUNS ? describe : describe.skip)(`Slurm hooks under a real slurmd${SLURM_SKIP}`, () => {
  beforeAll(async () => {
    t = tempDir('ncclx-hooks-');
    mkdirSync(bin());
    writeFileSync(join(t, 'hc-runs'), '');
    for (const [name, ctx] of [['ncclx-job', '${SLURM_SCRIPT_CONTEXT:-unknown}'], ['ncclx-hc', 'healthcheck']] as const) {
      writeFileSync(
        join(bin(), name),
        [
          '#!/bin/sh',
          `ctx="${ctx}"`,
          `[ "$1" = --version ] && exec "${process.execPath}" "${CLI}" --version`,
          `env > "${t}/env-$ctx"`,
          `[ "$ctx" = healthcheck ] && printf . >> "${t}/hc-runs"`,
          `case "$(cat "${t}/mode-$ctx" 2>/dev/null || echo healthy)" in`,
          `  healthy) exec "${process.execPath}" "${CLI}" "$@" --root "${FIX}/roce-healthy" --nccl-version 2.28.3 ;;`,
          `  errors) exec "${process.execPath}" "${CLI}" "$@" --root "${FIX}/roce-one-subnet" --nccl-version 2.28.3 ;;`,
          `  broken) echo 'ncclx: /sys/class/net: EIO' >&2; exit 2 ;;`,
          `  hang) exec sleep 60 ;;`,
          'esac',
          '',
        ].join('\n'),
        { mode: 0o755 },
      );
    }
    mode('healthcheck', 'broken'); // inert until a test wants it: policy run leaves the node as it is
    // slurmd runs the health check as it starts: the hooks are installed before it does (with
    // the log path given; the first test installs them again, finding it as an administrator would).
    const early = (dest: string, ncclx: string, slurmConf: string, slurmdLog: string) => {
      const r = spawnSync('bash', [join(SLURM_DIR, 'install.sh'), '--ncclx', ncclx, '--on-failure', 'run', '--dest', join(t, dest), '--log-dir', join(t, `logs-${dest}`), '--slurm-conf', slurmConf, '--slurmd-log', slurmdLog], { encoding: 'utf8', env: { PATH } });
      expect(r.status, r.stderr).toBe(0);
    };
    slurm = await startSlurm([`Prolog=${join(t, 'job/prolog')}`, `Epilog=${join(t, 'job/epilog')}`, `HealthCheckProgram=${join(t, 'hc/healthcheck')}`, 'HealthCheckInterval=3'], (p) => {
      early('job', join(bin(), 'ncclx-job'), p.slurmConf, p.slurmdLog);
      early('hc', join(bin(), 'ncclx-hc'), p.slurmConf, p.slurmdLog);
    });
  }, 120_000);

  afterAll(async () => {
    await slurm?.stop([t]);
  });

  // Every test starts from an idle node, no jobs, a healthy doctor for the job hooks and an
  // inert health check (policy run, broken: it leaves the node as it is), so one failure
  // does not become the next test's.
  beforeEach(async () => {
    mode('prolog_slurmd', 'healthy');
    mode('epilog_slurmd', 'healthy');
    mode('healthcheck', 'broken');
    // Two runs since the switch: none still acting on an earlier mode.
    await healthChecks(2);
    slurm.run(['scancel', '--user=root']);
    resumeByHand();
    await until('an idle node with no drain', () => /State=IDLE /.test(slurm.nodeInfo()), 60_000);
  }, 120_000);

  it('installs: absolute ncclx checked with an empty environment, slurmd log path from scontrol show config', async () => {
    const out = install('job', join(bin(), 'ncclx-job'), 'drain');
    install('hc', join(bin(), 'ncclx-hc'), 'run');
    expect(out).toMatch(new RegExp(`Prolog=${t}/job/prolog\\n  Epilog=${t}/job/epilog\\n  HealthCheckProgram=${t}/job/healthcheck`));
    expect(out).toContain(`Errors go to slurmd's log (${slurm.slurmdLog})`);
    expect(readFileSync(join(t, 'job/prolog'), 'utf8')).toContain(`SLURMD_LOG=${slurm.slurmdLog}\n`);
    await healthChecks(1);
  });

  it('the environment slurmd gives: a prolog and an epilog get SLURM_* but no PATH or HOME; a health check only SLURMD_NODENAME', async () => {
    mode('prolog_slurmd', 'healthy');
    mode('epilog_slurmd', 'healthy');
    const job = submit(true);
    expect(job.code).toBe(0);
    // sbatch --wait returns as the job completes; the epilog may run a moment later.
    await until('the epilog to run', () => existsSync(join(t, 'env-epilog_slurmd')));
    for (const ctx of ['prolog_slurmd', 'epilog_slurmd']) {
      const env = recordedEnv(ctx);
      expect(env['PATH'], ctx).toBe(HOOK_PATH); // the hook's own; slurmd gave none
      expect(env['HOME'], ctx).toBeUndefined();
      expect(env['SLURM_JOB_ID'], ctx).toBe(job.id);
      expect(env['SLURMD_NODENAME'], ctx).toBe(slurm.node);
    }
    const hc = recordedEnv('healthcheck');
    // slurmd's: SLURMD_NODENAME (and PWD, SHLVL, _ from the shell); the hook's: PATH, SLURM_CONF.
    expect(Object.keys(hc).filter((k) => !['PWD', 'SHLVL', '_', 'OLDPWD'].includes(k)).sort()).toEqual(['PATH', 'SLURMD_NODENAME', 'SLURM_CONF']);
    expect(hc['SLURMD_NODENAME']).toBe(slurm.node);
  });

  it('prolog, doctor errors: the node drains with the first error, the batch job ends launch failed requeued held, slurmd logs why; the health check resumes it once cured', async () => {
    mode('prolog_slurmd', 'errors');
    const job = submit();
    await until('the job to be requeued and held', () => /JobState=PENDING .*Reason=launch_failed_requeued_held/.test(slurm.jobInfo(job.id)), 60_000);
    expect(slurm.nodeInfo()).toMatch(/State=\S*DRAIN/);
    expect(slurm.nodeInfo()).toMatch(ARP_REASON);
    expect(slurmdLog()).toMatch(new RegExp(`error: prolog failed: rc:1 output:ncclx prolog \\(job ${job.id}\\) on ${slurm.node}: doctor found errors: ARP-002: `));
    expect(JSON.parse(readFileSync(join(t, 'logs-job/prolog.json'), 'utf8')).summary.errors).toBeGreaterThan(0);
    expect(readFileSync(join(t, 'logs-job/hooks.log'), 'utf8')).toMatch(/doctor found errors: ARP-002/);
    slurm.run(['scancel', job.id]);
    // The health check resumes the drain the prolog made (its reason starts "ncclx ") once the doctor is clean.
    mode('healthcheck', 'healthy');
    await untilNode('the health check to resume the node', () => !/DRAIN/.test(slurm.nodeInfo()));
    await until('the health check to log it', () => /resumed: its ncclx drain \(ncclx ARP-002/.test(readFileSync(join(t, 'logs-hc/hooks.log'), 'utf8')));
  });

  it('the health check never resumes a drain that is not its own: an operator\'s, or Slurm\'s "Prolog error"', async () => {
    slurm.run(['scontrol', 'update', `NodeName=${slurm.node}`, 'State=DRAIN', 'Reason=maintenance']);
    await healthChecks(2);
    expect(slurm.nodeInfo()).toMatch(/State=\S*DRAIN.* Reason=maintenance/);
    // Slurm's own drain after a failed prolog ("Prolog error" for srun, "Prolog" for sbatch) is
    // what remains when the hook could not drain with its reason (scontrol failed): not ncclx's.
    resumeByHand();
    slurm.run(['scontrol', 'update', `NodeName=${slurm.node}`, 'State=DRAIN', 'Reason=Prolog error']);
    await healthChecks(2);
    expect(slurm.nodeInfo()).toMatch(/Reason=Prolog error/);
    resumeByHand();
  });

  it('the health check drains on doctor errors (its own reason; exit 1, so slurmd logs it) and resumes when cured', async () => {
    mode('healthcheck', 'errors');
    await untilNode('the health check to drain the node', () => ARP_REASON.test(slurm.nodeInfo()));
    const logged = new RegExp(`error: health_check failed: rc:1 output:ncclx healthcheck on ${slurm.node}: doctor found errors: ARP-002`);
    await until('slurmd to log the health check\'s output', () => logged.test(slurmdLog()));
    mode('healthcheck', 'healthy');
    await untilNode('the health check to resume the node', () => !/DRAIN/.test(slurm.nodeInfo()));
  });

  it('policy run, ncclx missing: the job runs, and slurmd\'s log says ncclx could not run', async () => {
    install('job', join(bin(), 'ncclx-job'), 'run');
    renameSync(join(bin(), 'ncclx-job'), join(bin(), 'ncclx-job.away'));
    try {
      const job = submit(true);
      expect(job.code, slurm.jobInfo(job.id)).toBe(0);
      expect(slurm.jobInfo(job.id)).toMatch(/JobState=COMPLET(ED|ING)/);
      expect(slurm.nodeInfo()).not.toMatch(/DRAIN/);
      expect(slurmdLog()).toMatch(new RegExp(`\\] error: ncclx prolog \\(job ${job.id}\\) on ${slurm.node}: ncclx could not run: ${t}/bin/ncclx-job: not found; policy run: the job starts unchecked`));
      const epilog = new RegExp(`\\] error: ncclx epilog \\(job ${job.id}\\) on ${slurm.node}: ncclx could not run`);
      await until('the epilog\'s error in slurmd\'s log', () => epilog.test(slurmdLog()));
    } finally {
      renameSync(join(bin(), 'ncclx-job.away'), join(bin(), 'ncclx-job'));
    }
  });

  it('policy drain, ncclx missing: the node drains "ncclx could not run", the job is requeued held; back once ncclx is', async () => {
    install('job', join(bin(), 'ncclx-job'), 'drain');
    renameSync(join(bin(), 'ncclx-job'), join(bin(), 'ncclx-job.away'));
    let job: { id: string };
    try {
      job = submit();
      await until('the job to be requeued and held', () => /Reason=launch_failed_requeued_held/.test(slurm.jobInfo(job.id)), 60_000);
      expect(slurm.nodeInfo()).toMatch(new RegExp(`Reason=ncclx could not run: ${t}/bin/ncclx-job: not found`));
      expect(slurmdLog()).toMatch(new RegExp(`prolog failed: rc:1 output:ncclx prolog \\(job ${job.id}\\) on ${slurm.node}: ncclx could not run: .*not found; policy drain: node drained`));
    } finally {
      renameSync(join(bin(), 'ncclx-job.away'), join(bin(), 'ncclx-job'));
    }
    slurm.run(['scancel', job.id]);
    mode('healthcheck', 'healthy');
    await untilNode('the health check to resume the node', () => !/DRAIN/.test(slurm.nodeInfo()));
  });

  it('a doctor that hangs is stopped at the install timeout and handled as one that could not run', async () => {
    install('job', join(bin(), 'ncclx-job'), 'drain', ['--timeout', '2']);
    mode('prolog_slurmd', 'hang');
    const job = submit();
    await until('the job to be requeued and held', () => /Reason=launch_failed_requeued_held/.test(slurm.jobInfo(job.id)), 60_000);
    expect(slurm.nodeInfo()).toMatch(/Reason=ncclx could not run: timed out after 2 s/);
  });

  it('epilog, doctor errors after the job: the job completed; the node drains with ncclx\'s reason, not "Epilog error"', async () => {
    install('job', join(bin(), 'ncclx-job'), 'drain');
    mode('epilog_slurmd', 'errors');
    const job = submit(true);
    expect(job.code, `${slurm.jobInfo(job.id)}\n${slurm.nodeInfo()}`).toBe(0);
    expect(slurm.jobInfo(job.id)).toMatch(/JobState=COMPLET(ED|ING)/);
    await until('the epilog to drain the node', () => /DRAIN/.test(slurm.nodeInfo()), 30_000);
    expect(slurm.nodeInfo()).toMatch(ARP_REASON);
    expect(slurmdLog()).toMatch(new RegExp(`epilog failed: rc:1 output:ncclx epilog \\(job ${job.id}\\) on ${slurm.node}: doctor found errors: ARP-002`));
    mode('healthcheck', 'healthy');
    await untilNode('the health check to resume the node', () => !/DRAIN/.test(slurm.nodeInfo()));
  });
});
