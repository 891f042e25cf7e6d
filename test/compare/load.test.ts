// The fast snapshot reader gives exactly what the schema loader gives, minus
// the parts compare does not read; bad files are reported, never thrown.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadSnapshotFile, parseSnapshotBytes, reduce } from '../../src/compare/load.js';
import { validateSnapshot } from '../../src/model/snapshot/schema.js';
import type { NodeSnapshot } from '../../src/model/snapshot/types.js';
import { probeNode } from '../../src/probe/index.js';
import '../helpers/fixture-faults.js';
import { FIXTURES } from './helpers.js';

const tmp = mkdtempSync(join(tmpdir(), 'ncclx-compare-load-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const UNREAD = ['conf', 'localPortRange', 'qdiscs', 'nft', 'iptablesMangle', 'ip6tablesMangle'] as const;

/** What compare keeps: everything but the kernel parts it never reads (pci stays: CMP-070/071 read its topology). */
function kept(s: NodeSnapshot): unknown {
  const c = structuredClone(s) as NodeSnapshot & { pci?: unknown };
  if (c.kernel) for (const k of UNREAD) delete (c.kernel as unknown as Record<string, unknown>)[k];
  return c;
}

describe('fast reader on every fixture node', () => {
  for (const node of ['roce-healthy', 'ib8-storage', 'mesh-direct', 'roce-rail-subnets', 'roce-bond', 'sandbox', 'efa', 'roce-one-subnet']) {
    it(`${node}: same data as JSON.parse + schema, unset GID entries and unread parts not parsed`, async () => {
      const snap = await probeNode({ root: join(FIXTURES, node), env: {} });
      const text = JSON.stringify(snap, null, 2) + '\n';
      const file = join(tmp, `${node}.json`);
      writeFileSync(file, text);
      const r = loadSnapshotFile(file);
      expect(r.ok).toBe(true);
      if (!r.ok) return;
      expect(r.fast).toBe(true);
      expect(kept(r.snapshot)).toEqual(kept(validateSnapshot(JSON.parse(text), file)));
      // The reduction really left the bulk out: every all-zero EINVAL entry and the qdiscs.
      const red = reduce(Buffer.from(text))!;
      const unset = snap.rdma!.devices.flatMap((d) => d.ports).flatMap((p) => p.gids).filter((g) => g.gid === '0000:0000:0000:0000:0000:0000:0000:0000' && typeof g.type !== 'string').length;
      expect(text.length - red.text.length).toBeGreaterThan(unset * 150);
      expect(red.text).not.toContain('"0000:0000:0000:0000:0000:0000:0000:0000",\n');
      expect(red.tailLifted).toBe(2);
      // Unread parts are marked as such, never passed off as data.
      expect(r.snapshot.kernel?.qdiscs).toMatchObject({ ok: false, error: 'not read by ncclx compare' });
    });
  }

  it('unset entries first, last, between kept ones, a whole table of them, an empty table: all rebuilt in place', async () => {
    const snap = await probeNode({ root: join(FIXTURES, 'roce-rail-subnets'), env: {} });
    const ports = snap.rdma!.devices.flatMap((d) => d.ports);
    const unset = (index: number) => ({ index, gid: '0000:0000:0000:0000:0000:0000:0000:0000', type: { error: 'EINVAL' }, ndev: { error: 'EINVAL' } });
    ports[0]!.gids = Array.from({ length: 255 }, (_, i) => unset(i));
    ports[1]!.gids = [];
    const set = ports[2]!.gids.slice(0, 4);
    ports[2]!.gids = [unset(0), { ...set[1]!, index: 1 }, unset(2), unset(3), { ...set[3]!, index: 4 }, ...Array.from({ length: 250 }, (_, i) => unset(i + 5))];
    ports[3]!.gids = [{ ...set[0]!, index: 0 }, unset(1), { ...set[2]!, index: 2 }];
    const text = JSON.stringify(snap, null, 2);
    const r = parseSnapshotBytes(Buffer.from(text), 'shapes.json');
    expect(r.ok && r.fast).toBe(true);
    if (r.ok) expect(kept(r.snapshot)).toEqual(kept(validateSnapshot(JSON.parse(text), 'x')));
  });

  it('compact JSON (another writer) takes the plain path, with the same result', async () => {
    const snap = await probeNode({ root: join(FIXTURES, 'roce-healthy'), env: {} });
    const r = parseSnapshotBytes(Buffer.from(JSON.stringify(snap)), 'compact.json');
    expect(r.ok && r.fast).toBe(false);
    expect(r.ok && r.snapshot).toEqual(validateSnapshot(JSON.parse(JSON.stringify(snap)), 'x'));
  });

  it('an entry that only looks unset (a readable type) is kept as it is', async () => {
    const snap = await probeNode({ root: join(FIXTURES, 'roce-healthy'), env: {} });
    const port = snap.rdma!.devices[0]!.ports[0]!;
    port.gids[100] = { index: 100, gid: '0000:0000:0000:0000:0000:0000:0000:0000', type: 'RoCE v2', ndev: { error: 'EINVAL' } };
    const r = parseSnapshotBytes(Buffer.from(JSON.stringify(snap, null, 2)), 'odd.json');
    expect(r.ok && r.fast).toBe(true);
    expect(r.ok && r.snapshot.rdma!.devices[0]!.ports[0]!.gids[100]).toEqual(port.gids[100]);
    expect(r.ok && r.snapshot.rdma!.devices[0]!.ports[0]!.gids).toHaveLength(255);
  });
});

describe('bad files are reported by name, not thrown', () => {
  const good = (async () => JSON.stringify(await probeNode({ root: join(FIXTURES, 'mesh-direct'), env: {} }), null, 2))();
  const cases: [string, (g: string) => string, RegExp][] = [
    ['truncated.json', (g) => g.slice(0, Math.floor(g.length / 2)), /^not JSON \(/],
    ['malformed.json', () => '{"schemaVersion": 1, "host": }', /^not JSON \(/],
    ['empty.json', () => '', /^file is empty$/],
    ['wrongver.json', (g) => g.replace('"schemaVersion": 1', '"schemaVersion": 2'), /^schema version 2 is not supported/],
    ['shape.json', (g) => g.replace('"links": [', '"links": 7, "x": ['), /^not a valid ncclx snapshot: network\.links/],
  ];
  for (const [name, make, problem] of cases) {
    it(name, async () => {
      const file = join(tmp, name);
      writeFileSync(file, make(await good));
      const r = loadSnapshotFile(file);
      expect(r.ok).toBe(false);
      expect(!r.ok && r.problem).toMatch(problem);
    });
  }
  it('oversized: refused before reading, with the limit', async () => {
    const file = join(tmp, 'big.json');
    writeFileSync(file, await good);
    const r = loadSnapshotFile(file, 1000);
    expect(!r.ok && r.problem).toMatch(/^file is \d+ bytes, larger than the 1000-byte limit \(--max-bytes\)$/);
  });
  it('missing', () => {
    const r = loadSnapshotFile(join(tmp, 'nope.json'));
    expect(!r.ok && r.problem).toBe('cannot read: ENOENT');
  });
});
