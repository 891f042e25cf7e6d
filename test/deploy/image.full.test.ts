// The container image, built as CI builds it: scripts/build-image.sh makes the
// base with debootstrap from Debian's mirror and builds container/Dockerfile
// with buildah (chroot isolation), into private storage and a temporary
// tarball. Then the image is run as the manifests run it: host network,
// NET_ADMIN and nothing else, the node's /sys and /proc. Needs root,
// debootstrap, buildah and a Debian mirror; skipped with the reason
// elsewhere, never under CI=true (.ci/run installs them).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tmp.js';

const ROOT = join(__dirname, '../..');
const VERSION = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version as string;
const IN_CI = !!process.env['CI'] && process.env['CI'] !== 'false' && process.env['CI'] !== '0';
const missing = ['debootstrap', 'buildah'].filter((t) => spawnSync('sh', ['-c', `command -v ${t}`], { env: { PATH: `${process.env['PATH']}:/usr/sbin:/sbin` } }).status !== 0);
const AS_ROOT = process.getuid?.() === 0;
const RUNS = (missing.length === 0 && AS_ROOT) || IN_CI;
const WHY = !AS_ROOT ? 'not root' : `${missing.join(', ')} not installed (apt-get install ${missing.join(' ')})`;
const ARCH = ({ x64: 'x64', arm64: 'arm64' } as Record<string, string>)[process.arch] ?? process.arch;

const work = RUNS ? tempDir('ncclx-image-') : '';
const storage = join(work, 'storage');
const out = join(work, `ncclx-image-${VERSION}.tar`);
const buildah = (...args: string[]) => spawnSync('buildah', ['--root', join(storage, 'root'), '--runroot', join(storage, 'run'), '--storage-driver', 'vfs', ...args], { encoding: 'utf8', timeout: 300_000, maxBuffer: 64 << 20 });
let build: { status: number | null; stdout: string; stderr: string };

(RUNS ? describe : describe.skip)(`the container image (scripts/build-image.sh)${RUNS ? '' : ` — skipped: ${WHY}; CI installs them and never skips`}`, () => {
  beforeAll(() => {
    const exe = spawnSync(process.execPath, [join(ROOT, 'scripts/build-exe.mjs'), '--out', join(work, 'release')], { encoding: 'utf8', timeout: 300_000 });
    expect(exe.status, exe.stderr).toBe(0);
    build = spawnSync('bash', [join(ROOT, 'scripts/build-image.sh'), '--exe', join(work, 'release', `ncclx-linux-${ARCH}`), '--out', out, '--storage', storage], { encoding: 'utf8', timeout: 1_500_000, env: { ...process.env, PATH: `${process.env['PATH']}:/usr/sbin:/sbin` } });
    expect(build.status, `${build.stdout}\n${build.stderr}`).toBe(0);
  }, 1_800_000);

  it(`builds ncclx:${VERSION} and writes it as a docker-archive tarball with its checksum`, () => {
    expect(build.stdout).toMatch(new RegExp(`ncclx:${VERSION.replace(/\./g, '\\.')}: ${out} \\(\\d+ MiB\\), doctor exit [01] inside it`));
    const manifest = JSON.parse(spawnSync('tar', ['-xOf', out, 'manifest.json'], { encoding: 'utf8' }).stdout);
    // `image: ncclx:0.1.0` in a pod spec is docker.io/library/ncclx:0.1.0 to the kubelet and containerd:
    // the name a node finds after `ctr -n k8s.io images import` or `docker load` of this tarball.
    expect(manifest[0].RepoTags).toContain(`docker.io/library/ncclx:${VERSION}`);
    expect(spawnSync('sha256sum', ['-c', `${out}.sha256`], { cwd: work }).status).toBe(0);
  });

  it('runs ncclx by default; PATH set; the tools ncclx reads with are there', () => {
    const cfg = JSON.parse(buildah('inspect', '--type', 'image', `ncclx:${VERSION}`).stdout).OCIv1.config;
    expect(cfg.Entrypoint).toEqual(['/usr/local/bin/ncclx']);
    expect(cfg.Cmd).toEqual(['doctor']);
    expect(cfg.Env).toContain('PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin');
  });

  it('as a hostNetwork pod with NET_ADMIN: doctor --json reads the node, firewall rules included', () => {
    const ctr = buildah('from', `ncclx:${VERSION}`).stdout.trim();
    try {
      const r = buildah('run', '--isolation', 'chroot', '--network', 'host', '--cap-add', 'CAP_NET_ADMIN', ctr, '--', '/usr/local/bin/ncclx', 'doctor', '--json');
      expect([0, 1], r.stderr).toContain(r.status);
      const doc = JSON.parse(r.stdout);
      const unknown = doc.results.filter((x: { severity: string }) => x.severity === 'unknown').map((x: { id: string; summary: string }) => `${x.id}: ${x.summary}`);
      expect(unknown).toEqual([]);
      // The host's links, seen through the host network: the image's ip reads the same ones.
      const hostLinks = JSON.parse(spawnSync('ip', ['-j', 'link', 'show'], { encoding: 'utf8' }).stdout).map((l: { ifname: string }) => l.ifname).sort();
      const inImage = JSON.parse(buildah('run', '--isolation', 'chroot', '--network', 'host', ctr, '--', 'ip', '-j', 'link', 'show').stdout).map((l: { ifname: string }) => l.ifname).sort();
      expect(inImage).toEqual(hostLinks);
    } finally {
      buildah('rm', ctr);
    }
  });
});
