// Property-based tests of the model on hostile input, in process: every NCCL
// variable the model reads with arbitrary values, arbitrary conf-file
// contents, and mutated snapshots (dropped keys, wrong types, huge arrays,
// truncation, random bytes). Nothing may throw but a UserError, and the JSON
// must serialise. Seeded and bounded; `npm run fuzz` runs longer.

import fc from 'fast-check';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withEnv } from '../../src/checks/verify.js';
import { KNOWN_VARS } from '../../src/model/nccl/known-vars.js';
import { SnapshotError, validateSnapshot } from '../../src/model/snapshot/schema.js';
import type { NodeSnapshot } from '../../src/model/snapshot/types.js';
import { probeNode } from '../../src/probe/index.js';
import '../helpers/fixture-faults.js';
import { count, exercise, runs, TIMEOUT, triedSoFar } from './lib.js';

const FIXTURES = join(__dirname, '../fixtures');
let base: NodeSnapshot;
let roce: NodeSnapshot;
beforeAll(async () => {
  base = await probeNode({ root: join(FIXTURES, 'sandbox'), kernel: true, rdma: true, env: {} });
  roce = await probeNode({ root: join(FIXTURES, 'roce-bond'), kernel: true, rdma: true, env: {} });
});
afterAll(() => console.log(`fuzz (model): ${triedSoFar()} inputs tried`));

// Every variable the model reads, and the ones people confuse with them.
const VARS = [...Object.keys(KNOWN_VARS), 'MASTER_ADDR', 'GLOO_SOCKET_IFNAME', 'NCCL_SOCKET_IFACE', 'NCCL_IB_HCAS'];
const hostile = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('', '^', '=', '^=', ',', ':', '::', '[', ']', '-1', '0x', '010', '99999999999999999999', 'nan', '1e9', '%', '$(id)', '`id`', "'", '"', '\\', '\x1b[2J', '\u202e'),
  fc.array(fc.constantFrom('mlx5_0', 'eth0', 'net1', '^', '=', ':1', ':abc', ',', 'lo', 'docker'), { maxLength: 12 }).map((xs) => xs.join('')),
  fc.integer({ min: -(2 ** 40), max: 2 ** 40 }).map(String),
);
const envs = fc.dictionary(fc.constantFrom(...VARS), hostile, { maxKeys: 6 });

describe('the model on hostile input', () => {
  it('any values of the variables the model reads: no crash, JSON serialises', () => {
    fc.assert(
      fc.property(envs, fc.constantFrom('2.18.3', '2.21.5', '2.26.2', '2.28.3', '2.30.7', 'ncclx-2.30', '2.99.99'), fc.boolean(), (env, version, which) => {
        count();
        const clean = Object.fromEntries(Object.entries(env).filter(([, v]) => !v.includes('\0')));
        expect(['ok', 'user-error']).toContain(exercise(withEnv(which ? base : roce, clean), version));
      }),
      runs(120),
    );
  }, TIMEOUT);

  it('any conf-file content (NCCL_CONF_FILE and /etc/nccl.conf): no crash', () => {
    const lines = fc.array(fc.oneof(fc.string({ maxLength: 60 }), fc.tuple(fc.constantFrom(...VARS), hostile).map(([k, v]) => `${k}=${v}`), fc.constantFrom('#', '=', '==x', '\r', 'NCCL_DEBUG=INFO\r')), { maxLength: 30 });
    fc.assert(
      fc.property(lines, fc.string({ unit: 'binary', maxLength: 200 }), (ls, bytes) => {
        count();
        const content = ls.join('\n') + bytes;
        const snap: NodeSnapshot = {
          ...base,
          env: { ...base.env, process: { ...base.env.process, NCCL_CONF_FILE: '/fuzz.conf' }, confFiles: [{ path: '/fuzz.conf', role: 'NCCL_CONF_FILE', content, error: null }, { path: '/etc/nccl.conf', role: 'etc', content: bytes, error: null }] },
        };
        expect(['ok', 'user-error']).toContain(exercise(snap));
      }),
      runs(80),
    );
  }, TIMEOUT);

  it('mutated snapshots: refused with a SnapshotError naming the file, or modelled without a crash', () => {
    const json = () => JSON.parse(JSON.stringify(base)) as Record<string, unknown>;
    /** A path into the snapshot, chosen by numbers. */
    const mutate = (doc: unknown, picks: number[], kind: number, payload: unknown): unknown => {
      let node = doc as Record<string, unknown>;
      for (let d = 0; d < picks.length; d++) {
        const keys = node && typeof node === 'object' ? Object.keys(node) : [];
        if (keys.length === 0) break;
        const key = keys[picks[d]! % keys.length]!;
        const child = node[key];
        const last = d === picks.length - 1 || !child || typeof child !== 'object';
        if (last) {
          if (kind === 0) delete node[key];
          else if (kind === 1) node[key] = payload;
          else if (kind === 2) node[key] = Array.from({ length: 2000 }, () => (Array.isArray(child) ? child[0] ?? null : child));
          else node[key] = Array.isArray(child) ? [] : null;
          return doc;
        }
        node = child as Record<string, unknown>;
      }
      return doc;
    };
    const payload = fc.oneof(fc.string({ maxLength: 20 }), fc.integer(), fc.constant(null), fc.boolean(), fc.array(fc.integer(), { maxLength: 3 }), fc.object({ maxDepth: 1 }));
    fc.assert(
      fc.property(fc.array(fc.nat(), { minLength: 1, maxLength: 6 }), fc.integer({ min: 0, max: 3 }), payload, (picks, kind, p) => {
        count();
        const doc = mutate(json(), picks, kind, p);
        let snap: NodeSnapshot;
        try {
          snap = validateSnapshot(doc, 'fuzz.json');
        } catch (e) {
          expect(e).toBeInstanceOf(SnapshotError);
          expect((e as Error).message).toMatch(/^fuzz\.json: /);
          return;
        }
        expect(['ok', 'user-error']).toContain(exercise(snap));
      }),
      runs(150),
    );
  }, TIMEOUT);

  it('truncated or corrupted snapshot text: refused by name', () => {
    const text = JSON.stringify(base);
    fc.assert(
      fc.property(fc.nat({ max: text.length }), fc.string({ unit: 'binary', maxLength: 8 }), (cut, junk) => {
        count();
        let data: unknown;
        try {
          data = JSON.parse(text.slice(0, cut) + junk);
        } catch {
          return; // not JSON: the loader's "not JSON" answer (tested in test/cli)
        }
        try {
          exercise(validateSnapshot(data, 'cut.json'));
        } catch (e) {
          expect(e).toBeInstanceOf(SnapshotError);
        }
      }),
      runs(60),
    );
  }, TIMEOUT);
});
