// What the recommended environment says about loopback rendezvous addresses
// (src/model/advice/env-plan.ts): 127.0.0.0/8, localhost and ::1 are this
// node's loopback; anything else is not, however close it looks.
import { describe, expect, it } from 'vitest';
import { envPlan } from '../../src/model/advice/env-plan.js';
import { makeContext } from '../../src/model/doctor/context.js';
import { link, snapshotOf } from './helpers.js';

const opts = { uplinkRegex: /^eth[0-9]+$/, include: [] as string[] };
function plan(env: Record<string, string>, version = '2.28.3') {
  const snap = snapshotOf([link('lo', ['127.0.0.1/8', '::1/128']), link('ens1', ['10.0.0.5/24'])], { env });
  return envPlan(makeContext(snap, { ncclVersion: version }, opts), { debug: false });
}
const says = (env: Record<string, string>, what: RegExp) => plan(env).statements.some((s) => what.test(s.text));

describe('loopback rendezvous addresses', () => {
  it('MASTER_ADDR on 127.0.0.0/8, localhost or ::1 is said to be unreachable; others are not', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', 'localhost.localdomain', '::1']) expect(says({ MASTER_ADDR: host }, /is this node's loopback/), host).toBe(true);
    for (const host of ['10.0.0.127', '10.127.0.1', '1.127.0.0', '128.0.0.1', '12.7.0.0', '1270.example.com', 'mylocalhost', '::2']) expect(says({ MASTER_ADDR: host }, /is this node's loopback/), host).toBe(false);
  });
  it('NCCL_COMM_ID pointing at the loopback, IPv4 or bracketed IPv6', () => {
    expect(says({ NCCL_COMM_ID: '127.0.0.1:5000' }, /points at this node's loopback/)).toBe(true);
    expect(says({ NCCL_COMM_ID: '[::1]:5000' }, /points at this node's loopback/)).toBe(true);
    expect(says({ NCCL_COMM_ID: '10.0.0.127:5000' }, /points at this node's loopback/)).toBe(false);
  });
  it('NCCLX: a prefix only loopback addresses start with keeps nothing routable; one of a data address is fine', () => {
    expect(plan({ NCCL_SOCKET_IPADDR_PREFIX: '127.' }, 'ncclx-2.30').unset.map((u) => u.name)).toContain('NCCL_SOCKET_IPADDR_PREFIX');
    expect(plan({ NCCL_SOCKET_IPADDR_PREFIX: '10.' }, 'ncclx-2.30').unset.map((u) => u.name)).not.toContain('NCCL_SOCKET_IPADDR_PREFIX');
  });
});
