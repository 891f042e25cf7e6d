// readsMemo (src/model/snapshot/memo.ts): an answer is reused for an
// environment with the same values of exactly the variables the computation
// read, never for one that differs in any of them.
import { expect, it } from 'vitest';
import { readsMemo } from '../../src/model/snapshot/memo.js';

it('reuses the answer when only unread variables differ; computes again when a read one differs or is added', () => {
  const m = readsMemo<string>({ keys: 4, perKey: 8 });
  let runs = 0;
  const search = (v: Record<string, string | undefined>) => (runs++, `${v['NCCL_CROSS_NIC'] ?? '-'}${'NCCL_P2P_LEVEL' in v ? 'p' : ''}`);
  expect(m('xml', { NCCL_CROSS_NIC: '1', NCCL_SOCKET_IFNAME: 'eth0' }, search)).toBe('1');
  expect(m('xml', { NCCL_CROSS_NIC: '1', NCCL_SOCKET_IFNAME: 'ib0' }, search)).toBe('1');
  expect(runs).toBe(1);
  expect(m('xml', { NCCL_CROSS_NIC: '0' }, search)).toBe('0');
  // A variable tested with `in` counts as read: its appearance is a change.
  expect(m('xml', { NCCL_CROSS_NIC: '1', NCCL_P2P_LEVEL: 'NVL' }, search)).toBe('1p');
  expect(runs).toBe(3);
  // Another key (another XML or release) never shares an answer.
  expect(m('other', { NCCL_CROSS_NIC: '1' }, search)).toBe('1');
  expect(runs).toBe(4);
});

it('a computation that lists the variables depends on all of them', () => {
  const m = readsMemo<number>({ keys: 4, perKey: 8 });
  let runs = 0;
  const count = (v: Record<string, string | undefined>) => (runs++, Object.keys(v).length);
  expect(m('k', { A: '1' }, count)).toBe(1);
  expect(m('k', { A: '1' }, count)).toBe(1);
  expect(runs).toBe(1);
  expect(m('k', { A: '1', B: '2' }, count)).toBe(2);
  expect(runs).toBe(2);
});

it('is bounded per key: the oldest answer goes first', () => {
  const m = readsMemo<string>({ keys: 2, perKey: 2 });
  let runs = 0;
  const f = (v: Record<string, string | undefined>) => (runs++, v['X'] ?? '');
  for (const x of ['a', 'b', 'c']) m('k', { X: x }, f);
  expect(runs).toBe(3);
  m('k', { X: 'c' }, f);
  expect(runs).toBe(3);
  m('k', { X: 'a' }, f);
  expect(runs).toBe(4);
});
