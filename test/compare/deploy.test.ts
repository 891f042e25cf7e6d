// docs/deploy: the Kubernetes manifests are valid API objects (schemas from
// kubernetes-models) with the rights the README promises, and the Slurm
// scripts parse and act on the doctor's exit code as documented.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DaemonSet } from 'kubernetes-models/apps/v1';
import { Job } from 'kubernetes-models/batch/v1';
import { Namespace } from 'kubernetes-models/v1';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';

const DEPLOY = join(__dirname, '..', '..', 'docs', 'deploy');
const K8S = join(DEPLOY, 'kubernetes');

type Obj = { apiVersion: string; kind: string; metadata: { name: string }; spec?: any };
const MODELS: Record<string, new (o: any) => { validate(): void }> = { 'v1/Namespace': Namespace, 'apps/v1/DaemonSet': DaemonSet, 'batch/v1/Job': Job };

function manifests(): { file: string; obj: Obj }[] {
  return readdirSync(K8S)
    .filter((f) => f.endsWith('.yaml'))
    .flatMap((file) =>
      parseAllDocuments(readFileSync(join(K8S, file), 'utf8')).map((d) => {
        expect(d.errors, file).toEqual([]);
        return { file, obj: d.toJS() as Obj };
      }),
    );
}

const podSpec = (o: Obj) => o.spec?.template?.spec;

describe('Kubernetes manifests', () => {
  const all = manifests();

  it('every document is a valid object of its kind (OpenAPI schema)', () => {
    expect(all.map((m) => `${m.file}:${m.obj.kind}`).sort()).toEqual(['doctor-job.yaml:Job', 'fix-job.yaml:Job', 'namespace.yaml:Namespace', 'snapshot-daemonset.yaml:DaemonSet']);
    for (const { file, obj } of all) {
      const Model = MODELS[`${obj.apiVersion}/${obj.kind}`];
      expect(Model, `${file}: ${obj.apiVersion} ${obj.kind}`).toBeDefined();
      expect(() => new Model!(obj).validate(), file).not.toThrow();
    }
  });

  it('the validator does catch a broken manifest', () => {
    const ds = structuredClone(all.find((m) => m.obj.kind === 'DaemonSet')!.obj);
    ds.spec.template.spec.initContainers[0].volumeMounts[0].readOnly = 'yes';
    expect(() => new DaemonSet(ds as any).validate()).toThrow(/readOnly/);
  });

  it('host network everywhere; ncclx run as an argument list, never through a shell', () => {
    for (const { file, obj } of all.filter((m) => podSpec(m.obj))) {
      const spec = podSpec(obj);
      expect(spec.hostNetwork, file).toBe(true);
      expect(spec.dnsPolicy, file).toBe('ClusterFirstWithHostNet');
      const ncclx = [...(spec.initContainers ?? []), ...spec.containers].filter((c: any) => c.command?.[0] === 'ncclx');
      expect(ncclx.length, file).toBe(1);
      for (const c of [...(spec.initContainers ?? []), ...spec.containers]) expect(c.command?.[0] ?? '', file).not.toMatch(/^(sh|bash|\/bin\/sh|\/bin\/bash)$/);
    }
  });

  it('read-only unless fixing: only the fix Job is privileged or mounts anything writable from the host', () => {
    for (const { file, obj } of all.filter((m) => podSpec(m.obj))) {
      const spec = podSpec(obj);
      const hostVolumes = new Set(spec.volumes.filter((v: any) => v.hostPath).map((v: any) => v.name));
      const containers = [...(spec.initContainers ?? []), ...spec.containers];
      const writableHost = containers.flatMap((c: any) => (c.volumeMounts ?? []).filter((m: any) => hostVolumes.has(m.name) && !m.readOnly).map((m: any) => m.mountPath));
      const privileged = containers.some((c: any) => c.securityContext?.privileged);
      if (file === 'fix-job.yaml') {
        expect(privileged).toBe(true);
        expect(writableHost).toEqual(['/var/lib/ncclx']);
        expect(containers[0].command).toEqual(expect.arrayContaining(['fix', '--apply']));
      } else {
        expect(privileged, file).toBe(false);
        expect(writableHost, file).toEqual([]);
        for (const c of containers) {
          expect(c.securityContext.readOnlyRootFilesystem, `${file} ${c.name}`).toBe(true);
          expect(c.securityContext.allowPrivilegeEscalation, `${file} ${c.name}`).toBe(false);
          expect(c.securityContext.capabilities.drop, `${file} ${c.name}`).toEqual(['ALL']);
          for (const cap of c.securityContext.capabilities.add ?? []) expect(cap).toBe('NET_ADMIN');
        }
      }
      // What ncclx reads from the host: /dev/infiniband and /etc/nccl.conf.
      const mounts = containers.flatMap((c: any) => (c.volumeMounts ?? []).map((m: any) => m.mountPath));
      expect(mounts, file).toEqual(expect.arrayContaining(['/dev/infiniband', '/etc/nccl.conf']));
    }
  });
});

describe('Slurm scripts', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'ncclx-deploy-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));
  /** A fake `ncclx` (and `scontrol`) on PATH: exit with $FAKE_CODE, print $FAKE_OUT; record the arguments. */
  function fakes(): string {
    const bin = mkdtempSync(join(tmp, 'bin-'));
    for (const name of ['ncclx', 'scontrol']) {
      writeFileSync(join(bin, name), `#!/bin/sh\nprintf '%s\\n' "${name} $*" >> "$FAKE_LOG"\nif [ ${name} = ncclx ]; then printf '%s' "$FAKE_OUT"; exit "$FAKE_CODE"; fi\n`);
      chmodSync(join(bin, name), 0o755);
    }
    return bin;
  }
  const run = (script: string, code: number, out = '{"results": []}') => {
    const bin = fakes();
    const log = join(bin, 'log');
    writeFileSync(log, '');
    const r = spawnSync('bash', [join(DEPLOY, 'slurm', script)], { encoding: 'utf8', env: { PATH: `${bin}:${process.env['PATH']}`, FAKE_CODE: String(code), FAKE_OUT: out, FAKE_LOG: log, NCCLX_LOG_DIR: join(bin, 'logdir') } });
    return { code: r.status, log: readFileSync(log, 'utf8'), err: r.stderr };
  };

  it('every script parses', () => {
    for (const f of readdirSync(join(DEPLOY, 'slurm'))) expect(spawnSync('bash', ['-n', join(DEPLOY, 'slurm', f)]).status, f).toBe(0);
  });

  it('prolog: fails the job (drain + requeue) only when the doctor finds errors', () => {
    expect(run('prolog.sh', 0).code).toBe(0);
    const bad = run('prolog.sh', 1);
    expect(bad.code).toBe(1);
    expect(bad.log).toBe('ncclx doctor --json\n');
    expect(run('prolog.sh', 2).code).toBe(0);
  });

  it('health check: drains the node on doctor errors, with the first error as the reason; never fails itself', () => {
    const report = JSON.stringify({ results: [{ id: 'SOCK-001', severity: 'ok', summary: 'fine' }, { id: 'ARP-002', severity: 'error', summary: "ens1: arp_ignore=0; it's wrong" }] });
    const drained = run('healthcheck.sh', 1, report);
    expect(drained.code).toBe(0);
    expect(drained.log).toMatch(/^ncclx doctor --json\nscontrol update NodeName=\S+ State=DRAIN Reason=ncclx ARP-002: ens1: arp_ignore=0; it's wrong\n$/);
    // Healthy: it looks at the node's state (to lift a drain of its own), and changes nothing here.
    const healthy = run('healthcheck.sh', 0);
    expect(healthy.log).toMatch(/^ncclx doctor --json\nscontrol show node \S+ -o\n$/);
  });

  it('snapshots.sbatch: srun expands %N in its own --output, one JSON per node, then compare', () => {
    const s = readFileSync(join(DEPLOY, 'slurm', 'snapshots.sbatch'), 'utf8');
    expect(s).toMatch(/srun [^\n]*\\\n\s+--output="\$dir\/%N\.json" --error="\$dir\/%N\.err" \\\n\s+ncclx snapshot\n/);
    expect(s).toMatch(/\nncclx compare .*-- "\$dir"\n/);
  });
});
