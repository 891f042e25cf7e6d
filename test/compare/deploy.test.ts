// docs/deploy: the Kubernetes manifests are valid API objects (schemas from
// kubernetes-models) with the rights the README promises, and the Slurm
// scripts parse (the hooks' decisions: test/deploy/slurm-hooks*.test.ts).
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DaemonSet } from 'kubernetes-models/apps/v1';
import { Job } from 'kubernetes-models/batch/v1';
import { ClusterRole, ClusterRoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1';
import { Namespace, ServiceAccount } from 'kubernetes-models/v1';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';

const ROOT = join(__dirname, '..', '..');
const DEPLOY = join(ROOT, 'docs', 'deploy');
const K8S = join(DEPLOY, 'kubernetes');
const VERSION = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version as string;

type Obj = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string }; spec?: any; rules?: any[]; roleRef?: any; subjects?: any[] };
const MODELS: Record<string, new (o: any) => { validate(): void }> = {
  'v1/Namespace': Namespace,
  'v1/ServiceAccount': ServiceAccount,
  'apps/v1/DaemonSet': DaemonSet,
  'batch/v1/Job': Job,
  'rbac.authorization.k8s.io/v1/ClusterRole': ClusterRole,
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': ClusterRoleBinding,
};
/** The programs of the image (container/Dockerfile installs them there). */
const NCCLX_PROGRAMS = ['/usr/local/bin/ncclx', '/usr/local/bin/ncclx-node-verdict'];

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
    expect(all.map((m) => `${m.file}:${m.obj.kind}`).sort()).toEqual([
      'doctor-job.yaml:Job',
      'fix-job.yaml:Job',
      'health-daemonset.yaml:ClusterRole',
      'health-daemonset.yaml:ClusterRoleBinding',
      'health-daemonset.yaml:DaemonSet',
      'health-daemonset.yaml:ServiceAccount',
      'namespace.yaml:Namespace',
      'snapshot-daemonset.yaml:DaemonSet',
    ]);
    for (const { file, obj } of all) {
      const Model = MODELS[`${obj.apiVersion}/${obj.kind}`];
      expect(Model, `${file}: ${obj.apiVersion} ${obj.kind}`).toBeDefined();
      expect(() => new Model!(obj).validate(), file).not.toThrow();
    }
  });

  it('the validator does catch a broken manifest', () => {
    const ds = structuredClone(all.find((m) => m.obj.metadata.name === 'ncclx-snapshot')!.obj);
    ds.spec.template.spec.initContainers[0].volumeMounts[0].readOnly = 'yes';
    expect(() => new DaemonSet(ds as any).validate()).toThrow(/readOnly/);
  });

  it('host network everywhere; ncclx run as an argument list, never through a shell', () => {
    for (const { file, obj } of all.filter((m) => podSpec(m.obj))) {
      const spec = podSpec(obj);
      expect(spec.hostNetwork, file).toBe(true);
      expect(spec.dnsPolicy, file).toBe('ClusterFirstWithHostNet');
      const ncclx = [...(spec.initContainers ?? []), ...spec.containers].filter((c: any) => NCCLX_PROGRAMS.includes(c.command?.[0]));
      expect(ncclx.length, file).toBe(1);
      for (const c of [...(spec.initContainers ?? []), ...spec.containers]) expect(c.command?.[0] ?? '', file).not.toMatch(/^(sh|bash|\/bin\/sh|\/bin\/bash)$/);
    }
  });

  it('the image is the one scripts/build-image.sh tags (ncclx:<package version>), with the programs its Dockerfile installs', () => {
    const script = readFileSync(join(ROOT, 'scripts/build-image.sh'), 'utf8');
    expect(script).toMatch(/\ntag="ncclx:\$version"\n/);
    const dockerfile = readFileSync(join(ROOT, 'container/Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/\nCOPY \$\{EXE\} \/usr\/local\/bin\/ncclx\n/);
    expect(dockerfile).toMatch(/\nCOPY container\/node-verdict.sh \/usr\/local\/bin\/ncclx-node-verdict\n/);
    for (const { file, obj } of all.filter((m) => podSpec(m.obj))) {
      for (const c of [...(podSpec(obj).initContainers ?? []), ...podSpec(obj).containers].filter((c: any) => NCCLX_PROGRAMS.includes(c.command?.[0]))) {
        expect(c.image, file).toBe(`ncclx:${VERSION}`);
        expect(c.imagePullPolicy, file).toBe('IfNotPresent');
      }
    }
  });

  it('only the health DaemonSet talks to the API server: its own service account, bound to get and patch on nodes and nothing else', () => {
    const pods = all.filter((m) => podSpec(m.obj));
    for (const { file, obj } of pods) expect(podSpec(obj).automountServiceAccountToken, `${file} ${obj.metadata.name}`).toBe(obj.metadata.name === 'ncclx-health');
    const health = podSpec(all.find((m) => m.obj.metadata.name === 'ncclx-health')!.obj);
    const binding = all.find((m) => m.obj.kind === 'ClusterRoleBinding')!.obj;
    const role = all.find((m) => m.obj.kind === 'ClusterRole')!.obj;
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: health.serviceAccountName, namespace: 'ncclx' }]);
    expect(binding.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role.metadata.name });
    expect(role.rules).toEqual([{ apiGroups: [''], resources: ['nodes'], verbs: ['get', 'patch'] }]);
    // It keeps running on a node it tainted (to lift the taint), and knows which node it is on.
    expect(health.tolerations).toEqual(expect.arrayContaining([{ key: 'ncclx.dev/doctor', operator: 'Exists' }]));
    expect(health.containers[0].env).toEqual(expect.arrayContaining([{ name: 'NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }]));
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
  it('every script parses', () => {
    for (const f of readdirSync(join(DEPLOY, 'slurm'))) expect(spawnSync('bash', ['-n', join(DEPLOY, 'slurm', f)]).status, f).toBe(0);
  });

  it('snapshots.sbatch: srun expands %N in its own --output, one JSON per node, then compare', () => {
    const s = readFileSync(join(DEPLOY, 'slurm', 'snapshots.sbatch'), 'utf8');
    expect(s).toMatch(/srun [^\n]*\\\n\s+--output="\$dir\/%N\.json" --error="\$dir\/%N\.err" \\\n\s+ncclx snapshot\n/);
    expect(s).toMatch(/\nncclx compare .*-- "\$dir"\n/);
  });
});
