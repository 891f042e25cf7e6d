// ncclx's Slurm hooks without Slurm: install.sh's checks and what it writes,
// and each hook's decisions with a fake scontrol (a node line from a file,
// every call recorded) and a fake ncclx. The same hooks under a real slurmd:
// slurm-hooks.full.test.ts.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tmp.js';

const ROOT = join(__dirname, '../..');
const SLURM_DIR = join(ROOT, 'docs/deploy/slurm');
const CLI = join(ROOT, 'dist/cli.js');
const FIX = join(ROOT, 'test/fixtures');
const t = tempDir('ncclx-hooks-unit-');

function script(path: string, body: string): string {
  writeFileSync(path, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return path;
}

/** A fake scontrol: `show node` prints $dir/node-line; every call is appended to $dir/calls. */
function fakeScontrol(dir: string): string {
  return script(join(dir, 'scontrol'), `printf '%s\\n' "$*" >> '${dir}/calls'\n[ "$1" = show ] && cat '${dir}/node-line'\nexit 0`);
}

function install(dir: string, ncclx: string, policy: string, more: string[] = []) {
  return spawnSync('bash', [join(SLURM_DIR, 'install.sh'), '--ncclx', ncclx, '--on-failure', policy, '--dest', join(dir, 'hooks'), '--log-dir', join(dir, 'logs'), '--scontrol', fakeScontrol(dir), '--slurmd-log', join(dir, 'slurmd.log'), ...more], { encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '' } });
}

let n = 0;
/** A fresh directory with hooks installed for a fake ncclx that prints `report` and exits `code`. */
function setup(o: { code?: number; report?: string; missing?: boolean; policy?: 'drain' | 'run'; nodeLine?: string; ncclx?: string }) {
  const dir = join(t, String(n++));
  mkdirSync(dir);
  const ncclx =
    o.ncclx ??
    script(join(dir, 'ncclx'), `[ "$1" = --version ] && { echo 0.1.0; exit 0; }\n[ -f '${dir}/report' ] && cat '${dir}/report'\necho 'ncclx: cannot read /sys' >&2\nexit ${o.code ?? 0}`);
  if (o.report !== undefined) writeFileSync(join(dir, 'report'), o.report);
  writeFileSync(join(dir, 'node-line'), o.nodeLine ?? 'NodeName=gpu7 State=IDLE ThreadsPerCore=1 Reason=(null)');
  writeFileSync(join(dir, 'slurmd.log'), '');
  const r = install(dir, ncclx, o.policy ?? 'drain');
  expect(r.status, r.stderr).toBe(0);
  if (o.missing) spawnSync('rm', [ncclx]);
  writeFileSync(join(dir, 'calls'), '');
  /** Runs an installed hook with the environment slurmd gives it. */
  const hook = (name: 'prolog' | 'epilog' | 'healthcheck') => {
    const env = name === 'healthcheck' ? { SLURMD_NODENAME: 'gpu7' } : { SLURMD_NODENAME: 'gpu7', SLURM_JOB_ID: '42', SLURM_SCRIPT_CONTEXT: `${name}_slurmd` };
    const r = spawnSync(join(dir, 'hooks', name), [], { encoding: 'utf8', env, cwd: '/' });
    return { code: r.status, err: r.stderr, calls: readFileSync(join(dir, 'calls'), 'utf8'), slurmdLog: readFileSync(join(dir, 'slurmd.log'), 'utf8'), dir };
  };
  return hook;
}

/** A doctor --json report as ncclx prints it (JSON.stringify, two spaces). */
const report = (results: { id: string; severity: string; summary: string }[]) => JSON.stringify({ schemaVersion: 3, summary: {}, exitCode: results.some((r) => r.severity === 'error') ? 1 : 0, results: results.map((r) => ({ ...r, evidence: [{ id: 'not-this', severity: 'error', summary: 'evidence' }] })), warnings: [] }, null, 2) + '\n';
const ARP = { id: 'ARP-002', severity: 'error', summary: 'enp1: arp_ignore=0' };
const OWN_DRAIN = 'NodeName=gpu7 State=IDLE+DRAIN ThreadsPerCore=1 Reason=ncclx ARP-002: enp1: arp_ignore=0 [root@2026-01-01T00:00:00]';
const OPERATOR_DRAIN = 'NodeName=gpu7 State=IDLE+DRAIN ThreadsPerCore=1 Reason=maintenance [root@2026-01-01T00:00:00]';

describe('install.sh', () => {
  it('refuses what would fail open later: no --ncclx, a relative path, no policy, an ncclx that does not run with an empty environment', () => {
    const dir = join(t, 'refuse');
    mkdirSync(dir);
    const fine = script(join(dir, 'ncclx'), 'echo 0.1.0');
    const needsHome = script(join(dir, 'ncclx-needs-home'), '[ -n "$HOME" ] || { echo "no HOME" >&2; exit 3; }\necho 0.1.0');
    const run = (...a: string[]) => spawnSync('bash', [join(SLURM_DIR, 'install.sh'), ...a, '--dest', join(dir, 'h'), '--scontrol', '/bin/true', '--slurmd-log', ''], { encoding: 'utf8' });
    expect(run('--on-failure', 'drain')).toMatchObject({ status: 2, stderr: expect.stringMatching(/--ncclx PATH is required: the hooks run with no PATH/) });
    expect(run('--ncclx', 'ncclx', '--on-failure', 'drain')).toMatchObject({ status: 2, stderr: expect.stringMatching(/must be an absolute path/) });
    expect(run('--ncclx', fine)).toMatchObject({ status: 2, stderr: expect.stringMatching(/--on-failure drain\|run is required/) });
    expect(run('--ncclx', fine, '--on-failure', 'maybe')).toMatchObject({ status: 2, stderr: expect.stringMatching(/must be drain or run/) });
    expect(run('--ncclx', join(dir, 'absent'), '--on-failure', 'run')).toMatchObject({ status: 2, stderr: expect.stringMatching(/is not an executable file/) });
    expect(run('--ncclx', needsHome, '--on-failure', 'run')).toMatchObject({ status: 2, stderr: expect.stringMatching(/does not run with an empty environment, as slurmd would run it: no HOME/) });
    expect(existsSync(join(dir, 'h'))).toBe(false);
    // Control: the same call with a working ncclx installs.
    expect(run('--ncclx', fine, '--on-failure', 'run').status).toBe(0);
  });

  it('writes three hooks: the template with its settings filled in, every value quoted for bash (backslashes and newlines too)', () => {
    const dir = join(t, 'quoted');
    mkdirSync(join(dir, "odd $(touch pwned) 'dir\\x"), { recursive: true });
    const ncclx = script(join(dir, "odd $(touch pwned) 'dir\\x", 'ncclx'), `[ "$1" = --version ] && { echo 0.1.0; exit 0; }\nprintf '%s\\n' "$@" > '${dir}/args'\nexit 0`);
    writeFileSync(join(dir, 'node-line'), 'NodeName=gpu7 State=IDLE Reason=(null)');
    expect(install(dir, ncclx, 'run', ['--', '--nccl-version', '2.28.3', 'a b;$(id)', 'back\\slash\nnew line']).status).toBe(0);
    const template = readFileSync(join(SLURM_DIR, 'ncclx-hook.sh'), 'utf8');
    const settings = /# ---- settings: written by install.sh ----\n[\s\S]*?# ---- end of settings ----\n/;
    for (const h of ['prolog', 'epilog', 'healthcheck']) {
      const text = readFileSync(join(dir, 'hooks', h), 'utf8');
      expect(text.replace(settings, ''), h).toBe(template.replace(settings, ''));
      expect(text, h).toContain(`HOOK=${h}\n`);
    }
    const r = spawnSync(join(dir, 'hooks/prolog'), [], { env: { SLURMD_NODENAME: 'gpu7' }, cwd: dir, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(readFileSync(join(dir, 'args'), 'utf8')).toBe('doctor\n--json\n--nccl-version\n2.28.3\na b;$(id)\nback\\slash\nnew line\n');
    expect(existsSync(join(dir, 'pwned'))).toBe(false);
  });

  it('the template itself refuses to run (never fails open when slurm.conf points at it by mistake)', () => {
    const r = spawnSync('bash', [join(SLURM_DIR, 'ncclx-hook.sh')], { encoding: 'utf8', env: {} });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/not installed \(run docs\/deploy\/slurm\/install.sh/);
  });
});

describe('the hooks', () => {
  it('errors: drain with "ncclx <ID>: <summary>" of the first error (read from the real doctor --json), fail the hook', () => {
    const real = spawnSync(process.execPath, [CLI, 'doctor', '--root', join(FIX, 'roce-one-subnet'), '--nccl-version', '2.28.3', '--json'], { encoding: 'utf8' }).stdout;
    const first = JSON.parse(real).results.find((r: { severity: string }) => r.severity === 'error');
    const hook = setup({ code: 1, report: real });
    const r = hook('prolog');
    expect(r.code).toBe(1);
    expect(r.calls).toBe(`show node gpu7 -o\nupdate NodeName=gpu7 State=DRAIN Reason=${`ncclx ${first.id}: ${first.summary}`.slice(0, 200)}\n`);
    expect(r.err).toBe(`ncclx prolog (job 42) on gpu7: doctor found errors: ${first.id}: ${first.summary} (report: ${r.dir}/logs/prolog.json); node drained\n`);
    // A hook that fails has its output in slurmd's log already: nothing appended.
    expect(r.slurmdLog).toBe('');
    expect(readFileSync(join(r.dir, 'logs/prolog.json'), 'utf8')).toBe(real);
  });

  it('the first error is read whole: quotes and backslashes in the summary, evidence ignored, results only', () => {
    const summary = 'bond0: "weird" \\ name';
    const hook = setup({ code: 1, report: report([{ id: 'SOCK-001', severity: 'ok', summary: 'fine' }, { id: 'GID-003', severity: 'error', summary }, ARP]) });
    expect(hook('healthcheck').calls).toContain(`Reason=ncclx GID-003: ${summary}\n`);
  });

  it("errors on a node someone else drained: that reason is kept (the health check must not resume it later)", () => {
    const r = setup({ code: 1, report: report([ARP]), nodeLine: OPERATOR_DRAIN })('epilog');
    expect(r.code).toBe(1);
    expect(r.calls).toBe('show node gpu7 -o\n');
    expect(r.err).toMatch(/already drained by someone else \(Reason=maintenance \[root@[^\]]*\]\), reason kept\n$/);
  });

  it('healthy health check: resumes its own drain, never an operator\'s; prolog and epilog do nothing', () => {
    expect(setup({ code: 0, report: report([]), nodeLine: OWN_DRAIN })('healthcheck')).toMatchObject({ code: 0, calls: 'show node gpu7 -o\nupdate NodeName=gpu7 State=RESUME\n' });
    expect(setup({ code: 0, report: report([]), nodeLine: OPERATOR_DRAIN })('healthcheck')).toMatchObject({ code: 0, calls: 'show node gpu7 -o\n' });
    expect(setup({ code: 0, report: report([]), nodeLine: OWN_DRAIN })('prolog')).toMatchObject({ code: 0, calls: '' });
  });

  it('policy run, ncclx broken: the job runs, and the error is written into slurmd\'s log (the hook exits 0, so slurmd would log nothing)', () => {
    const r = setup({ code: 2, policy: 'run' })('prolog');
    expect(r).toMatchObject({ code: 0, calls: '' });
    expect(r.slurmdLog).toMatch(/^\[\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\] error: ncclx prolog \(job 42\) on gpu7: ncclx could not run: exit 2: ncclx: cannot read \/sys; policy run: the job starts unchecked\n$/);
    // The health check under policy run: exit 1 (slurmd logs it), no drain.
    const hc = setup({ code: 2, policy: 'run', nodeLine: OWN_DRAIN })('healthcheck');
    expect(hc).toMatchObject({ code: 1, calls: '', slurmdLog: '' });
    expect(hc.err).toMatch(/ncclx could not run: exit 2: .*; policy run: node left as it is/);
  });

  it('one health check at a time: while another holds the lock, a health check does nothing (slurmd starts one per interval, finished or not)', async () => {
    const hook = setup({ code: 1, report: report([ARP]) });
    const lock = join(t, String(n - 1), 'logs/healthcheck.lock');
    mkdirSync(join(t, String(n - 1), 'logs'), { recursive: true });
    // Another health check: holds the lock for 2 s, then lets it go.
    const holder = spawn('flock', [lock, 'sleep', '2'], { stdio: 'ignore' });
    const gone = new Promise((r) => holder.once('exit', r));
    await new Promise((r) => setTimeout(r, 300));
    expect(hook('healthcheck')).toMatchObject({ code: 0, calls: '' });
    expect(readFileSync(join(t, String(n - 1), 'logs/hooks.log'), 'utf8')).toMatch(/the previous health check still runs: this one does nothing/);
    // Control: with the lock free, the same health check drains.
    await gone;
    expect(hook('healthcheck')).toMatchObject({ code: 1, calls: expect.stringContaining('State=DRAIN') });
  });

  it('policy drain, ncclx missing or printing no report: drain with "ncclx could not run: …", fail the hook', () => {
    const missing = setup({ missing: true, policy: 'drain' })('prolog');
    expect(missing.code).toBe(1);
    expect(missing.calls).toMatch(/^show node gpu7 -o\nupdate NodeName=gpu7 State=DRAIN Reason=ncclx could not run: \S+\/ncclx: not found\n$/);
    // Exit 1 without a report (a crash that happens to exit 1) is not "errors found".
    const noReport = setup({ code: 1, policy: 'drain' })('epilog');
    expect(noReport.calls).toMatch(/Reason=ncclx could not run: exit 1 without a report: ncclx: cannot read \/sys\n$/);
  });
});
