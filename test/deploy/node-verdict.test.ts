// container/node-verdict.sh (ncclx-node-verdict in the image) against a
// stand-in for the Kubernetes API: GET and merge-PATCH of one Node, with the
// API server's resourceVersion precondition (409 when the node changed). The
// doctor's reports are the built CLI's on fixture nodes. Needs bash, curl and jq (the
// image has them); skipped with the reason elsewhere, never under CI=true.
import { spawn, spawnSync } from 'node:child_process';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tmp.js';

const ROOT = join(__dirname, '../..');
const SCRIPT = join(ROOT, 'container/node-verdict.sh');
const CLI = join(ROOT, 'dist/cli.js');
const FIX = join(ROOT, 'test/fixtures');
const IN_CI = !!process.env['CI'] && process.env['CI'] !== 'false' && process.env['CI'] !== '0';
const missing = ['curl', 'jq'].filter((t) => spawnSync('sh', ['-c', `command -v ${t}`]).status !== 0);

type Json = any;
/** RFC 7386 JSON merge patch, as the API server applies application/merge-patch+json. */
function merge(target: Json, patch: Json): Json {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const out: Json = target && typeof target === 'object' && !Array.isArray(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = merge(out[k], v);
  }
  return out;
}

let server: Server;
let api = '';
let node: Json;
const requests: { method: string; contentType?: string; body?: Json }[] = [];
/** Called before each PATCH is applied: a way to change the node "in between", as another client would. */
let beforePatch: (() => void) | null = null;

function body(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let s = '';
    req.on('data', (d) => (s += d)).on('end', () => resolve(s));
  });
}

function bump() {
  node.metadata.resourceVersion = String(Number(node.metadata.resourceVersion) + 1);
}

const t = tempDir('ncclx-verdict-');
const ncclx = join(t, 'ncclx');

function verdict(mode: 'healthy' | 'errors' | 'broken', env: Record<string, string> = {}): Promise<{ code: number | null; err: string }> {
  writeFileSync(join(t, 'mode'), mode);
  return new Promise((resolve) => {
    // Asynchronous: the stand-in API server answers from this same process.
    const p = spawn('bash', [SCRIPT], { env: { PATH: process.env['PATH'] ?? '', NODE_NAME: 'gpu7', NCCLX: ncclx, NCCLX_K8S_API: api, NCCLX_K8S_TOKEN_FILE: join(t, 'token'), NCCLX_K8S_CA: join(t, 'no-ca'), NCCLX_INTERVAL: '0', TMPDIR: t, ...env } });
    let err = '';
    p.stderr.on('data', (d) => (err += d));
    p.on('close', (code) => resolve({ code, err }));
  });
}

(missing.length && !IN_CI ? describe.skip : describe)(`ncclx-node-verdict and the Kubernetes API${missing.length ? ` — skipped: ${missing.join(', ')} not installed (apt-get install ${missing.join(' ')}); CI installs them and never skips` : ''}`, () => {
  beforeAll(async () => {
    writeFileSync(join(t, 'token'), 'sa-token');
    // The doctor's real reports on two fixture nodes, made once; the fake ncclx replays them.
    for (const [m, fixture] of [['healthy', 'roce-healthy'], ['errors', 'roce-one-subnet']]) {
      const r = spawnSync(process.execPath, [CLI, 'doctor', '--json', '--root', join(FIX, fixture!), '--nccl-version', '2.28.3'], { encoding: 'utf8' });
      writeFileSync(join(t, `${m}.json`), r.stdout);
      writeFileSync(join(t, `${m}.code`), String(r.status));
    }
    writeFileSync(ncclx, `#!/bin/sh\nm=$(cat '${t}/mode')\n[ "$m" = broken ] && { echo 'ncclx: /sys/class/net: EIO' >&2; exit 2; }\ncat "${t}/$m.json"\nexit "$(cat "${t}/$m.code")"\n`, { mode: 0o755 });
    server = createServer(async (req, res) => {
      const text = await body(req);
      const reply = (code: number, obj: Json) => {
        res.writeHead(code, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(obj));
      };
      if (req.headers.authorization !== 'Bearer sa-token') return reply(401, { kind: 'Status', code: 401 });
      if (req.url !== '/api/v1/nodes/gpu7') return reply(404, { kind: 'Status', code: 404 });
      requests.push({ method: req.method!, contentType: req.headers['content-type'], ...(text ? { body: JSON.parse(text) } : {}) });
      if (req.method === 'GET') return reply(200, node);
      if (req.method !== 'PATCH' || req.headers['content-type'] !== 'application/merge-patch+json') return reply(415, { kind: 'Status', code: 415 });
      beforePatch?.();
      beforePatch = null;
      const patch = JSON.parse(text);
      // The API server's optimistic lock: a resourceVersion in the patch must be the current one.
      if (patch.metadata?.resourceVersion !== undefined && patch.metadata.resourceVersion !== node.metadata.resourceVersion) return reply(409, { kind: 'Status', code: 409, reason: 'Conflict' });
      node = merge(node, { ...patch, metadata: { ...patch.metadata, resourceVersion: undefined } });
      bump();
      reply(200, node);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    api = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const fresh = () => {
    node = { kind: 'Node', metadata: { name: 'gpu7', resourceVersion: '100', labels: { 'nvidia.com/gpu.present': 'true' }, annotations: {} }, spec: { taints: [{ key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' }] } };
    requests.length = 0;
  };

  it('fail: labels, the first error as an annotation, and with NCCLX_TAINT its own taint beside the others', async () => {
    fresh();
    const r = await verdict('errors', { NCCLX_TAINT: 'NoSchedule' });
    expect(r.code, r.err).toBe(1);
    expect(node.metadata.labels).toEqual({ 'nvidia.com/gpu.present': 'true', 'ncclx.dev/doctor': 'fail', 'ncclx.dev/doctor-errors': expect.stringMatching(/^[1-9]\d*$/) });
    expect(node.metadata.annotations['ncclx.dev/doctor-first-error']).toMatch(/^ARP-002: enp12s0np0: arp_announce=0: /);
    expect(node.metadata.annotations['ncclx.dev/doctor-time']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(node.spec.taints).toEqual([
      { key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' },
      { key: 'ncclx.dev/doctor', value: 'fail', effect: 'NoSchedule' },
    ]);
    expect(requests.map((q) => q.method)).toEqual(['GET', 'PATCH']);
    expect(r.err).toMatch(/ncclx-node-verdict: node gpu7: fail \(ARP-002: /);
  });

  it('pass: label pass, its own taint lifted, every other taint kept', async () => {
    const r = await verdict('healthy', { NCCLX_TAINT: 'NoSchedule' });
    expect(r.code, r.err).toBe(0);
    expect(node.metadata.labels['ncclx.dev/doctor']).toBe('pass');
    expect(node.metadata.labels['ncclx.dev/doctor-errors']).toBe('0');
    expect(node.metadata.annotations['ncclx.dev/doctor-first-error']).toBe('');
    expect(node.spec.taints).toEqual([{ key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' }]);
  });

  it('a node changed by someone else in between (409): read again, nothing of theirs lost', async () => {
    fresh();
    beforePatch = () => {
      node.spec.taints.push({ key: 'maintenance', value: 'disk', effect: 'NoExecute' });
      bump();
    };
    const r = await verdict('errors', { NCCLX_TAINT: 'NoSchedule' });
    expect(r.code, r.err).toBe(1);
    expect(r.err).toMatch(/changed while recording \(attempt 1\); reading it again/);
    expect(requests.map((q) => q.method)).toEqual(['GET', 'PATCH', 'GET', 'PATCH']);
    expect(node.spec.taints.map((x: Json) => x.key)).toEqual(['nvidia.com/gpu', 'maintenance', 'ncclx.dev/doctor']);
  });

  it('ncclx cannot run: label error with why, taints left as the last verdict left them', async () => {
    const r = await verdict('broken', { NCCLX_TAINT: 'NoSchedule' });
    expect(r.code).toBe(2);
    expect(node.metadata.labels['ncclx.dev/doctor']).toBe('error');
    expect(node.metadata.annotations['ncclx.dev/doctor-first-error']).toBe('ncclx could not run (exit 2): ncclx: /sys/class/net: EIO');
    expect(node.spec.taints.map((x: Json) => x.key)).toEqual(['nvidia.com/gpu', 'maintenance', 'ncclx.dev/doctor']);
    expect(requests.at(-1)!.body.spec).toBeUndefined();
  });

  it('without NCCLX_TAINT (the manifest\'s default) it labels only: taints are not in the patch', async () => {
    fresh();
    const r = await verdict('errors');
    expect(r.code).toBe(1);
    expect(node.metadata.labels['ncclx.dev/doctor']).toBe('fail');
    expect(requests.at(-1)!.body).not.toHaveProperty('spec');
    expect(node.spec.taints).toEqual([{ key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' }]);
  });

  it('refuses a bad setting before doing anything', async () => {
    fresh();
    const r = await verdict('healthy', { NCCLX_TAINT: 'PreferNoSchedule ' });
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/NCCLX_TAINT must be empty, NoSchedule or NoExecute/);
    expect(requests).toEqual([]);
  });
});
