import { describe, expect, it } from 'vitest';
import { parseCommId, type CommIdContext } from '../../src/model/nccl/comm-id.js';
import { parseVersion, profileFor } from '../../src/model/nccl/versions.js';

const ctx = (v = '2.28.3', res: Record<string, { address: string; family: 'AF_INET' | 'AF_INET6' }[] | string> = {}): CommIdContext => ({
  profile: profileFor(parseVersion(v)),
  ifindexOf: (n) => ({ eth0: 2, ib0: 4 } as Record<string, number>)[n] ?? null,
  resolve: (h) => {
    const r = res[h];
    if (r === undefined) return undefined;
    return typeof r === 'string' ? { addresses: [], error: r } : { addresses: r, error: null };
  },
});

describe('NCCL_COMM_ID parsing (docs/nccl/socket.md §5)', () => {
  it('ip:port', () => {
    const r = parseCommId('10.0.0.1:5000', ctx());
    expect(r).toMatchObject({ ok: true, target: { family: 'AF_INET', address: '10.0.0.1', port: 5000, scopeId: 0 } });
  });
  it('missing port is 65535', () => {
    expect(parseCommId('10.0.0.1', ctx())).toMatchObject({ ok: true, target: { port: 65535 } });
  });
  it('[v6]:port and [v6%if]:port with the scope id from if_nametoindex', () => {
    expect(parseCommId('[2001:db8::1]:29500', ctx())).toMatchObject({ ok: true, target: { family: 'AF_INET6', address: '2001:db8::1', port: 29500, scopeId: 0 } });
    expect(parseCommId('[fe80::1%eth0]:1', ctx())).toMatchObject({ ok: true, target: { address: 'fe80::1', scopeId: 2 } });
    const unknown = parseCommId('[fe80::1%nope]:1', ctx());
    expect(unknown).toMatchObject({ ok: true, target: { scopeId: 0 } });
  });
  it('[ without ] is an error with NCCL\'s WARN', () => {
    expect(parseCommId('[fe80::1:5000', ctx())).toMatchObject({ ok: false, log: 'Net : No valid [IPv6]:port pair found', indeterminate: false });
  });
  it('an invalid IPv6 literal is not validated by NCCL: indeterminate', () => {
    expect(parseCommId('[zz::1]:1', ctx())).toMatchObject({ ok: false, indeterminate: true, log: null });
  });
  it('bare IPv6 without brackets is cut at the first ":"', () => {
    const r = parseCommId('fe80::1:5000', ctx('2.28.3', { fe80: 'Name or service not known' }));
    expect(r).toMatchObject({ ok: false, log: 'Net : error encountered when getting address info : Name or service not known' });
  });
  it('host names use the first resolver answer, which may be IPv6 (scope 0)', () => {
    const r = parseCommId('master:1234', ctx('2.28.3', { master: [{ address: '2001:db8::9', family: 'AF_INET6' }, { address: '10.0.0.9', family: 'AF_INET' }] }));
    expect(r).toMatchObject({ ok: true, target: { family: 'AF_INET6', address: '2001:db8::9', scopeId: 0, port: 1234 } });
  });
  it('unresolved names are indeterminate, failures print the gai error', () => {
    expect(parseCommId('nohost:1', ctx())).toMatchObject({ ok: false, indeterminate: true });
    expect(parseCommId('bad:1', ctx('2.28.3', { bad: 'Name or service not known' }))).toMatchObject({ ok: false, indeterminate: false });
  });
  it('length ≤ 1 is "string is null"; ":5000" has no host', () => {
    expect(parseCommId('', ctx())).toMatchObject({ ok: false, log: 'Net : string is null' });
    expect(parseCommId('x', ctx())).toMatchObject({ ok: false, log: 'Net : string is null' });
    expect(parseCommId(':5000', ctx())).toMatchObject({ ok: false, log: 'Net : No valid <IPv4_or_hostname>:<port> pair found' });
  });
  it('ports wrap like htons', () => {
    expect(parseCommId('10.0.0.1:70000', ctx())).toMatchObject({ ok: true, target: { port: 70000 & 0xffff } });
  });
});

describe('numeric hosts are read the way getaddrinfo reads them (inet_aton)', () => {
  it('leading zeros are octal, 0x is hex, short forms fill the last part', () => {
    expect(parseCommId('010.011.002.001:5000', ctx())).toMatchObject({ ok: true, target: { address: '8.9.2.1', port: 5000 } });
    expect(parseCommId('0x0a.1:1', ctx())).toMatchObject({ ok: true, target: { address: '10.0.0.1' } });
    expect(parseCommId('10.1:1', ctx())).toMatchObject({ ok: true, target: { address: '10.0.0.1' } });
    expect(parseCommId('167772161:1', ctx())).toMatchObject({ ok: true, target: { address: '10.0.0.1' } });
  });
  it('an invalid octal part is not numeric: it goes to the resolver', () => {
    expect(parseCommId('10.11.2.08:1', ctx())).toMatchObject({ ok: false, indeterminate: true });
    expect(parseCommId('10.11.2.08:1', ctx('2.28.3', { '10.11.2.08': 'Name or service not known' }))).toMatchObject({
      ok: false,
      log: 'Net : error encountered when getting address info : Name or service not known',
    });
  });
});

describe('NCCL_COMM_ID ports outside 1–65535: htons keeps the low 16 bits', () => {
  it('999999 is used as 16959, and said so', () => {
    const r = parseCommId('10.0.0.1:999999', ctx());
    expect(r).toMatchObject({ ok: true, target: { port: 16959 } });
    expect(r.ok && r.notes).toEqual(['port 999999 is outside 1–65535: NCCL keeps the low 16 bits (htons) and uses port 16959']);
  });
  it('65536 wraps to 0: the ranks cannot reach the root', () => {
    const r = parseCommId('10.0.0.1:65536', ctx());
    expect(r).toMatchObject({ ok: true, target: { port: 0 } });
    expect(r.ok && r.notes[0]).toMatch(/uses port 0, so the root listens on a port the kernel picks .* fail$/);
  });
  it('a literal port 0 is outside the range too: the same failure as a wrapped one', () => {
    const r = parseCommId('10.0.0.1:0', ctx());
    expect(r).toMatchObject({ ok: true, target: { port: 0 } });
    expect(r.ok && r.notes).toEqual(['port 0 is outside 1–65535: NCCL keeps the low 16 bits (htons) and uses port 0, so the root listens on a port the kernel picks and the other ranks, connecting to port 0, fail']);
    const v6 = parseCommId('[2001:db8::1]:0', ctx());
    expect(v6.ok && v6.notes[0]).toMatch(/^port 0 is outside 1–65535: .*uses port 0, so the root listens/);
    // Nothing after `]:`: NCCL reads port 0 (atoi of an empty string).
    const empty = parseCommId('[2001:db8::1]:', ctx());
    expect(empty).toMatchObject({ ok: true, target: { port: 0 } });
    expect(empty.ok && empty.notes).toEqual(['no port after the address: NCCL reads port 0']);
  });
  it('[v6]:70000 the same (4464); 1 and 65535 are fine', () => {
    const r = parseCommId('[2001:db8::1]:70000', ctx());
    expect(r).toMatchObject({ ok: true, target: { port: 4464 } });
    expect(r.ok && r.notes).toEqual(['port 70000 is outside 1–65535: NCCL keeps the low 16 bits (htons) and uses port 4464']);
    for (const p of ['1', '65535']) expect(parseCommId(`10.0.0.1:${p}`, ctx())).toMatchObject({ ok: true, notes: [] });
  });
});
