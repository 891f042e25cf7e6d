// Real processes in real namespaces (issue #24, parts 2 and 3): a stand-in
// NCCL job (test/job/job.py) runs in its own network namespace (links the
// host does not have) and its own mount namespace (a HOME with an nccl.conf
// only it sees), maps a stand-in libnccl, listens where NCCL's bootstrap
// would and connects to a rendezvous that never answers. `ncclx ps` and
// `--pid` must see what NCCL in that process sees.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildScenario, cliPath, gate, removeCliCopy, sh, type Built } from '../netns/lib.js';
import { fakeNccl, HAVE_GCC } from '../helpers/libs.js';
import { tempDir } from '../helpers/tmp.js';

const g = gate();
const JOB = join(__dirname, 'job.py');
const PYTHON = ['/usr/bin/python3', '/usr/local/bin/python3'].find((p) => spawnSync(p, ['-c', '0']).status === 0) ?? 'python3';

interface Job {
  pid: number;
  child: ChildProcess;
}

const jobs: Job[] = [];

/** Start job.py (argv after the script) under `prefix` (ip netns exec …, unshare …) with exactly `env`; resolves once it printed "ready". */
function startJob(prefix: string[], args: string[], env: Record<string, string>): Promise<Job> {
  return new Promise((resolve, reject) => {
    const child = spawn(prefix[0]!, [...prefix.slice(1), PYTHON, JOB, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr!.on('data', (d) => (err += d));
    child.stdout!.on('data', (d: Buffer) => {
      if (!d.toString().includes('ready')) return;
      // The python process is the last exec in the chain: find it by its parent chain.
      const pid = pythonPid(child.pid!);
      const job = { pid, child };
      jobs.push(job);
      resolve(job);
    });
    child.on('exit', (code) => reject(new Error(`job exited ${code}: ${err}`)));
    setTimeout(() => reject(new Error(`job did not start: ${err}`)), 20_000);
  });
}

/** ip netns exec and unshare exec their command, so the spawned pid is python's; follow children just in case. */
function pythonPid(pid: number): number {
  for (let p = pid, i = 0; i < 5; i++) {
    const comm = spawnSync('cat', [`/proc/${p}/comm`], { encoding: 'utf8' }).stdout.trim();
    if (comm.startsWith('python')) return p;
    const kids = spawnSync('cat', [`/proc/${p}/task/${p}/children`], { encoding: 'utf8' }).stdout.trim().split(/\s+/).filter(Boolean);
    if (!kids[0]) break;
    p = Number(kids[0]);
  }
  return pid;
}

const memo = new Map<string, ReturnType<typeof run>>();
/** ncclx run once per argument list (ps is read by several cases). */
function cli(args: string[], o: { env?: Record<string, string>; user?: number } = {}) {
  if (o.user !== undefined || o.env || args[0] !== 'ps') return run(args, o);
  const key = args.join('\0');
  if (!memo.has(key)) memo.set(key, run(args, o));
  return memo.get(key)!;
}

function run(args: string[], o: { env?: Record<string, string>; user?: number } = {}) {
  const argv = o.user !== undefined ? ['setpriv', `--reuid=${o.user}`, `--regid=${o.user}`, '--clear-groups', process.execPath, cliPath(), ...args] : [process.execPath, cliPath(), ...args];
  const r = spawnSync(argv[0]!, argv.slice(1), { encoding: 'utf8', env: o.env ?? { PATH: process.env['PATH'] ?? '/usr/sbin:/usr/bin:/sbin:/bin', HOME: '/nonexistent' }, timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, json: (() => { try { return JSON.parse(r.stdout); } catch { return null; } })() };
}

describe.skipIf(!g.run)(`a job in its own namespaces${g.reason ? ` (${g.reason})` : ''}`, () => {
  let built: Built;
  let dir: string;
  let main: Job;
  let staticJob: Job;
  let noNcclJob: Job;
  let home: string;
  const lib = () => join(dir, 'opt/nccl/lib/libnccl.so.2');

  beforeAll(async () => {
    dir = tempDir('ncclx-ps-');
    // World-readable, so a non-root ncclx can read its own copy and a non-root job its library.
    chmodSync(dir, 0o755);
    // 2.30.7: NCCL ≥ 2.30.3 takes ~ from $HOME, so the job's HOME decides which nccl.conf it reads.
    fakeNccl(lib(), '2.30.7');
    mkdirSync(join(dir, 'opt/torch/lib'), { recursive: true });
    writeFileSync(join(dir, 'opt/torch/lib/libtorch_cuda.so'), Buffer.concat([Buffer.alloc(8192, 1), Buffer.from('\0NCCL version 2.14.3+cuda11.8\0')]));
    writeFileSync(join(dir, 'opt/torch/lib/libc10_cuda.so'), Buffer.alloc(8192, 1));
    home = join(dir, 'home');
    mkdirSync(home);
    built = await buildScenario({
      links: [
        { name: 'lo', addrs: [] },
        { name: 'eth0', addrs: ['10.88.0.5/24'] },
        { name: 'data7', addrs: ['10.77.0.5/24'] },
      ],
    });
    // The rendezvous is off-link, through a gateway (the peer namespace) that does not forward: the SYN is
    // dropped without an answer, so the connection stays in SYN_SENT (for about two minutes of retries).
    sh(['ip', '-n', built.peer, 'addr', 'add', '10.77.0.1/24', 'dev', 'p1']);
    sh(['ip', '-n', built.ns, 'route', 'add', 'default', 'via', '10.77.0.1', 'dev', 'data7']);
    const env = { PATH: '/usr/bin:/bin', HOME: home, MASTER_ADDR: '10.99.0.1', MASTER_PORT: '29555', RANK: '0', WORLD_SIZE: '2', SECRET_TOKEN: 'do-not-print' };
    const inNs = ['ip', 'netns', 'exec', built.ns, 'unshare', '--mount', '--propagation', 'private', '--'];
    // The conf file exists only in the job's mount namespace: NCCL_SOCKET_IFNAME=data7 reaches the prediction only through /proc/PID/root.
    main = await startJob(inNs, [lib(), HAVE_GCC ? 'dlopen' : 'mmap', '10.77.0.5', '10.99.0.1', '29555', 'NCCL_SOCKET_IFNAME=data7'], env);
    // A non-root ncclx must be able to read its own copy of the CLI.
    chmodSync(join(cliPath(), '../..'), 0o755);
    staticJob = await startJob(['ip', 'netns', 'exec', built.ns], [join(dir, 'opt/torch/lib/libtorch_cuda.so'), 'mmap', '-', '-', '0'], { PATH: '/usr/bin:/bin', HOME: '/root' });
    noNcclJob = await startJob(['ip', 'netns', 'exec', built.ns], [join(dir, 'opt/torch/lib/libc10_cuda.so'), 'mmap', '-', '-', '0'], { PATH: '/usr/bin:/bin', HOME: '/root' });
  }, 90_000);

  afterAll(() => {
    for (const j of jobs) j.child.kill('SIGKILL');
    for (const j of jobs) spawnSync('kill', ['-9', String(j.pid)]);
    built?.destroy();
    removeCliCopy();
  });

  it('the host namespace has no data7: the test means something', () => {
    expect(spawnSync('ip', ['link', 'show', 'data7']).status).not.toBe(0);
  });

  it('explain --pid: its interfaces, its conf file through its root and HOME, its mapped NCCL', () => {
    const r = cli(['explain', '--pid', String(main.pid), '--json']);
    expect(r.stderr).toBe('');
    const j = r.json;
    expect(j.ncclVersion).toBe('2.30.7');
    expect(j.versionSource).toContain(`${lib()} (mapped by process ${main.pid}; the library states "NCCL version 2.30.7+cuda12.9")`);
    expect(j.versionSource).toContain('the process has it mapped');
    expect(j.inputs.NCCL_SOCKET_IFNAME).toEqual({ value: 'data7', source: `${home}/.nccl.conf:1` });
    expect(j.bootstrap.selected).toEqual([{ name: 'data7', address: '10.77.0.5', family: 'AF_INET', display: '10.77.0.5' }]);
    expect(j.process).toMatchObject({ pid: main.pid, sameNetns: false, networkFrom: `nsenter --net=/proc/${main.pid}/ns/net ip -j -d addr show` });
  });

  it('doctor, ib, env and topo --pid reason about the same process', () => {
    const d = cli(['doctor', '--pid', String(main.pid), '--json']);
    expect([0, 1]).toContain(d.code);
    expect(d.json.versionSource).toContain(`mapped by process ${main.pid}`);
    // Its kernel part is its namespace's: the default route of the scenario's namespace, not the host's.
    const ib = cli(['ib', '--pid', String(main.pid), '--json']);
    expect(ib.json.versionSource).toContain(`mapped by process ${main.pid}`);
    const topo = cli(['topo', '--pid', String(main.pid), '--json']);
    expect(topo.json.versionSource).toContain(`mapped by process ${main.pid}`);
    const env = cli(['env', '--pid', String(main.pid), '--format', 'json']);
    expect(env.json.NCCL_SOCKET_IFNAME).toBe('=data7');
  });

  it('ps: the process, its container, library, environment, sockets and the classic hang', () => {
    const r = cli(['ps', '--json']);
    expect(r.code).toBe(1);
    const p = r.json.processes.find((x: { pid: number }) => x.pid === main.pid);
    expect(p).toBeDefined();
    expect(p.container).toMatchObject({ kind: 'container', otherNetNs: true, otherMountNs: true });
    expect(p.ncclLibrary).toMatchObject({ path: lib(), version: '2.30.7', readThrough: `/proc/${main.pid}/map_files`, static: false });
    expect(p.env).toEqual({ HOME: home, MASTER_ADDR: '10.99.0.1', MASTER_PORT: '29555', RANK: '0', WORLD_SIZE: '2' });
    const listen = p.sockets.find((s: { state: string }) => s.state === 'LISTEN');
    expect(listen).toMatchObject({ local: '10.77.0.5', interface: 'data7' });
    const syn = p.sockets.find((s: { state: string }) => s.state === 'SYN_SENT');
    expect(syn).toMatchObject({ local: '10.77.0.5', remote: '10.99.0.1', remotePort: 29555, interface: 'data7' });
    expect(p.prediction.hang).toMatch(/^data7 10\.77\.0\.5:\d+ → 10\.99\.0\.1:29555 stuck in SYN_SENT: PyTorch's store \(MASTER_ADDR:MASTER_PORT\) does not answer — the classic hang/);
    expect(p.prediction.consumers[0]).toMatchObject({ consumer: 'bootstrap', predicted: ['data7 10.77.0.5'], status: 'agree' });
  });

  it('ps: NCCL linked into a mapped libtorch_cuda.so is found; a mapped library without NCCL is not a process of the list', () => {
    const r = cli(['ps', '--json']);
    const s = r.json.processes.find((x: { pid: number }) => x.pid === staticJob.pid);
    expect(s.ncclLibrary).toMatchObject({ version: '2.14.3', static: true });
    // Of this test's three jobs, the two with NCCL (other tests may run NCCL stand-ins on this machine at the same time).
    const ours = r.json.processes.map((x: { pid: number }) => x.pid).filter((pid: number) => [main.pid, staticJob.pid, noNcclJob.pid].includes(pid));
    expect(ours.sort()).toEqual([main.pid, staticJob.pid].sort());
  });

  it('explain --pid on a process with no NCCL mapped: says so, and models what its loader would find', () => {
    const r = cli(['explain', '--pid', String(noNcclJob.pid), '--json']);
    expect(r.json.versionSource).toMatch(new RegExp(`^process ${noNcclJob.pid} has none mapped, and none is found where its loader would look; assuming the newest known release`));
  });

  it('ps in text names the hang', () => {
    const r = cli(['ps', '--no-color']);
    expect(r.stdout).toContain(`PID ${main.pid}`);
    expect(r.stdout).toMatch(/✗ SYN_SENT +data7 10\.77\.0\.5:\d+ → 10\.99\.0\.1:29555 stuck in SYN_SENT/);
    expect(r.stdout).not.toContain('do-not-print');
  });

  it('as non-root: its own process works, someone else\'s is a one-line error (exit 2)', async () => {
    const user = 65534;
    // A job of that user in the host namespace, mapping the same library.
    const own = await startJob(['setpriv', `--reuid=${user}`, `--regid=${user}`, '--clear-groups', '--'], [lib(), HAVE_GCC ? 'dlopen' : 'mmap', '-', '-', '0'], { PATH: '/usr/bin:/bin', HOME: '/nonexistent' });
    const mine = cli(['explain', '--pid', String(own.pid), '--json'], { user });
    expect(mine.stderr).toBe('');
    expect(mine.json.versionSource).toContain(`mapped by process ${own.pid}`);
    const theirs = cli(['explain', '--pid', String(main.pid), '--json'], { user });
    expect(theirs.code).toBe(2);
    expect(theirs.stderr).toBe(`ncclx: --pid ${main.pid}: cannot read its environment (/proc/${main.pid}/environ: permission denied: run ncclx as root, or as the process's owner)\n`);
  });

  it('bad --pid values are one-line errors', () => {
    expect(cli(['explain', '--pid', '4194304']).stderr).toBe('ncclx: --pid 4194304: no such process\n');
    expect(cli(['explain', '--pid', 'abc']).stderr).toBe("ncclx: --pid: expected a process id (1-4194304), got 'abc'\n");
    const r = cli(['explain', '--pid', String(main.pid), '--root', '/tmp']);
    expect([r.code, r.stderr]).toEqual([2, 'ncclx: --pid reads the process through /proc/PID/root: it cannot be combined with --root\n']);
  });
});

