// The apply engine's ordering and bookkeeping, on an in-memory node: the
// journal exists before the first change, a failure undoes what was done newest
// first, a change that does not verify counts as a failure, a refusal found
// while reading changes nothing, a second apply changes nothing, and a later
// rollback leaves alone what someone changed since. The operations themselves
// are tested on a real kernel in test/netns/fix.test.ts.
import { describe, expect, it } from 'vitest';
import { applyFixes, rollbackJournal, type Journal } from '../../src/fix/apply.js';
import type { Host } from '../../src/fix/host.js';
import type { ApplyEvent, Fix, OpSpec } from '../../src/model/fix/types.js';

/** /proc/sys and files in a Map. `reject` keys fail on write; `clamp` keys silently keep their value. */
function memoryHost(files: Record<string, string>, o: { reject?: string[]; clamp?: string[] } = {}) {
  const fs = new Map(Object.entries(files));
  const writes: string[] = [];
  const host: Host = {
    run: () => ({ ok: false, stdout: '', error: 'no commands here' }),
    read: (p) => fs.get(p) ?? null,
    mode: (p) => (fs.has(p) ? 0o644 : null),
    write(p, c) {
      writes.push(p);
      fs.set(p, c);
    },
    writeInPlace(p, c) {
      if (!fs.has(p)) throw Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
      if (o.reject?.includes(p)) throw Object.assign(new Error('EINVAL'), { code: 'EINVAL' });
      writes.push(p);
      if (!o.clamp?.includes(p)) fs.set(p, c);
    },
    remove: (p) => void fs.delete(p),
  };
  return { host, fs, writes };
}

const P = '/proc/sys/net/ipv4/conf';
const sysctl = (ifname: string, key: string, value: string): OpSpec => ({ kind: 'sysctl', key: `net/ipv4/conf/${ifname}/${key}`, value });
const fixOf = (id: string, ops: OpSpec[]): Fix => ({ id, title: id, resolves: [], ops, notes: [], blocked: null });
const node = () => ({ [`${P}/a/arp_ignore`]: '0\n', [`${P}/a/arp_announce`]: '0\n', [`${P}/b/arp_announce`]: '0\n', [`${P}/c/arp_filter`]: '0\n', '/etc/nccl.conf': 'NCCL_DEBUG=WARN\n' });
const JOURNAL = '/var/lib/ncclx/test.json';
const journalOf = (fs: Map<string, string>) => JSON.parse(fs.get(JOURNAL)!) as Journal;

describe('applyFixes', () => {
  it('applies in order, journals each previous value, and reports changed and unchanged', async () => {
    const { host, fs } = memoryHost({ ...node(), [`${P}/b/arp_announce`]: '2\n' });
    const events: ApplyEvent[] = [];
    const out = await applyFixes([fixOf('arp-sysctl', [sysctl('a', 'arp_announce', '2'), sysctl('b', 'arp_announce', '2')])], { host, hostname: 'n', journal: JOURNAL, onEvent: (e) => events.push(e) });
    expect(out).toMatchObject({ status: 'applied', changed: 1, unchanged: 1, journal: JOURNAL });
    expect(fs.get(`${P}/a/arp_announce`)).toBe('2\n');
    const j = journalOf(fs);
    expect(j.status).toBe('applied');
    expect(j.ops.map((o) => [o.state, o.before])).toEqual([
      ['applied', '0'],
      ['unchanged', undefined],
    ]);
    expect(events[0]).toEqual({ type: 'journal', path: JOURNAL });
  });

  it('a failure in the middle undoes every earlier change, newest first, and leaves later ones untouched', async () => {
    const { host, fs } = memoryHost(node(), { reject: [`${P}/c/arp_filter`] });
    const events: ApplyEvent[] = [];
    const ops = [sysctl('a', 'arp_announce', '2'), sysctl('b', 'arp_announce', '2'), sysctl('c', 'arp_filter', '1'), sysctl('a', 'arp_ignore', '1')];
    const out = await applyFixes([fixOf('arp-sysctl', ops)], { host, hostname: 'n', journal: JOURNAL, onEvent: (e) => events.push(e) });
    expect(out.status).toBe('rolled-back');
    expect(out.failure).toMatchObject({ index: 2, error: expect.stringMatching(/EINVAL/) });
    expect(fs.get(`${P}/a/arp_announce`)).toBe('0\n');
    expect(fs.get(`${P}/b/arp_announce`)).toBe('0\n');
    expect(events.filter((e) => e.type === 'undo-done').map((e) => (e as { index: number }).index)).toEqual([1, 0]);
    expect(journalOf(fs).ops.map((o) => o.state)).toEqual(['undone', 'undone', 'failed', 'pending']);
    expect(fs.get(`${P}/a/arp_ignore`)).toBe('0\n');
    expect(journalOf(fs).status).toBe('rolled-back');
  });

  it('a change the kernel does not keep (verify fails) is a failure too', async () => {
    const { host, fs } = memoryHost(node(), { clamp: [`${P}/b/arp_announce`] });
    const out = await applyFixes([fixOf('x', [sysctl('a', 'arp_announce', '2'), sysctl('b', 'arp_announce', '2')])], { host, hostname: 'n', journal: JOURNAL });
    expect(out.status).toBe('rolled-back');
    expect(out.failure!.error).toMatch(/does not verify: .*reads 0, not 2/);
    expect(fs.get(`${P}/a/arp_announce`)).toBe('0\n');
  });

  it('something refused while reading (a file edited since the plan) stops everything before the first change; no journal', async () => {
    const { host, fs, writes } = memoryHost(node());
    const file: OpSpec = { kind: 'file', path: '/etc/nccl.conf', content: 'NCCL_IB_HCA=x\n', mode: 0o644, expect: 'not-the-digest', what: 't' };
    const out = await applyFixes([fixOf('x', [sysctl('a', 'arp_announce', '2'), file])], { host, hostname: 'n', journal: JOURNAL });
    expect(out.status).toBe('refused');
    expect(out.failure!.error).toMatch(/changed since the plan was made/);
    expect(writes).toEqual([]);
    expect(fs.has(JOURNAL)).toBe(false);
  });

  it('everything already in place: nothing written, not even a journal', async () => {
    const { host, writes } = memoryHost({ ...node(), [`${P}/a/arp_announce`]: '2\n' });
    const out = await applyFixes([fixOf('x', [sysctl('a', 'arp_announce', '2')])], { host, hostname: 'n', journal: JOURNAL });
    expect(out).toMatchObject({ status: 'unchanged', unchanged: 1, journal: null });
    expect(writes).toEqual([]);
  });

  it('blocked fixes are not applied', async () => {
    const { host, fs } = memoryHost(node());
    await applyFixes([{ ...fixOf('x', [sysctl('a', 'arp_announce', '2')]), blocked: 'no' }, fixOf('y', [sysctl('b', 'arp_announce', '2')])], { host, hostname: 'n', journal: JOURNAL });
    expect(fs.get(`${P}/a/arp_announce`)).toBe('0\n');
    expect(fs.get(`${P}/b/arp_announce`)).toBe('2\n');
  });
});

describe('rollbackJournal', () => {
  it('undoes a completed apply, restores files, and the second time has nothing to undo', async () => {
    const { host, fs } = memoryHost(node());
    const file: OpSpec = { kind: 'file', path: '/etc/sysctl.d/90-ncclx.conf', content: 'x = 1\n', mode: 0o644, expect: null, what: 't' };
    await applyFixes([fixOf('x', [sysctl('a', 'arp_announce', '2'), file])], { host, hostname: 'n', journal: JOURNAL });
    expect(fs.get('/etc/sysctl.d/90-ncclx.conf')).toBe('x = 1\n');
    const out = await rollbackJournal(JOURNAL, { host });
    expect(out).toMatchObject({ status: 'rolled-back', changed: 2 });
    expect(fs.get(`${P}/a/arp_announce`)).toBe('0\n');
    expect(fs.has('/etc/sysctl.d/90-ncclx.conf')).toBe(false);
    expect((await rollbackJournal(JOURNAL, { host })).status).toBe('unchanged');
  });

  it('leaves alone a value someone changed since the apply, unless forced', async () => {
    const { host, fs } = memoryHost(node());
    await applyFixes([fixOf('x', [sysctl('a', 'arp_announce', '2'), sysctl('b', 'arp_announce', '2')])], { host, hostname: 'n', journal: JOURNAL });
    fs.set(`${P}/a/arp_announce`, '1\n'); // an operator's later change
    const out = await rollbackJournal(JOURNAL, { host });
    expect(out.status).toBe('rollback-failed');
    expect(out.undoErrors[0]).toMatch(/changed since the apply .*left as it is/);
    // With the command that restores it, ready to paste.
    expect(out.undoErrors[0]).toContain(`To restore it by hand:\n      printf '%s\\n' 0 > ${P}/a/arp_announce`);
    expect(fs.get(`${P}/a/arp_announce`)).toBe('1\n');
    expect(fs.get(`${P}/b/arp_announce`)).toBe('0\n');
    // Running it again resumes: the skipped operation is looked at again, and still left alone.
    const again = await rollbackJournal(JOURNAL, { host });
    expect(again.status).toBe('rollback-failed');
    expect(fs.get(`${P}/a/arp_announce`)).toBe('1\n');
    // --force really forces: the skipped operation is undone, with no hand edit of the journal.
    expect((await rollbackJournal(JOURNAL, { host, force: true })).status).toBe('rolled-back');
    expect(fs.get(`${P}/a/arp_announce`)).toBe('0\n');
    expect(journalOf(fs).ops.map((o) => o.state)).toEqual(['undone', 'undone']);
  });

  it('a value someone already put back counts as restored, not as "not restored"', async () => {
    const { host, fs } = memoryHost(node());
    await applyFixes([fixOf('x', [sysctl('a', 'arp_announce', '2')])], { host, hostname: 'n', journal: JOURNAL });
    fs.set(`${P}/a/arp_announce`, '0\n'); // an operator undid it by hand
    const out = await rollbackJournal(JOURNAL, { host });
    expect(out).toMatchObject({ status: 'rolled-back', undoErrors: [] });
    expect(journalOf(fs).ops[0]!.state).toBe('undone');
  });

  it('an undo that failed is retried by the next rollback', async () => {
    const { host, fs } = memoryHost(node());
    await applyFixes([fixOf('x', [sysctl('c', 'arp_filter', '1')])], { host, hostname: 'n', journal: JOURNAL });
    const failing = { ...host, writeInPlace: () => { throw Object.assign(new Error('EBUSY'), { code: 'EBUSY' }); } };
    expect((await rollbackJournal(JOURNAL, { host: failing })).status).toBe('rollback-failed');
    expect(journalOf(fs).ops[0]!.state).toBe('undo-failed');
    expect((await rollbackJournal(JOURNAL, { host })).status).toBe('rolled-back');
    expect(fs.get(`${P}/c/arp_filter`)).toBe('0\n');
  });

  it('a file that is not a journal is refused by name', async () => {
    const { host } = memoryHost({ '/tmp/x.json': '{"schema":"other"}' });
    await expect(rollbackJournal('/tmp/x.json', { host })).rejects.toThrow(/\/tmp\/x\.json is not an ncclx fix journal/);
  });
});
