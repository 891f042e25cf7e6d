// The kernel probe: /proc/sys reads through the Root, commands through the
// Runner (live stubs and recorded output under --root), failures recorded
// rather than thrown, route targets, the nft summary, and the snapshot schema
// (older snapshots without `kernel` still load).

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { probeNode } from '../../src/probe/index.js';
import { KERNEL_COMMANDS, probeKernel, routeGetCommand, summariseNft, targetHost } from '../../src/probe/kernel.js';
import { Root } from '../../src/probe/root.js';
import { recordedRunner, type CommandResult, type CommandSpec, type Runner } from '../../src/probe/runner.js';
import { validateSnapshot } from '../../src/model/snapshot/schema.js';
import type { EnvPart } from '../../src/model/snapshot/types.js';
import { link, snapshotOf } from './helpers.js';
import { kernelPart } from './kernel-fixtures.js';
import { faultsFile, injectFaults } from '../helpers/faults.mjs';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'ncclx-kernel-'));
  dirs.push(dir);
  for (const [p, c] of Object.entries(files)) {
    mkdirSync(join(dir, p, '..'), { recursive: true });
    writeFileSync(join(dir, p), c);
  }
  return dir;
}

/** A runner answering from a table keyed by the joined argv; unknown commands are "not installed". */
function stubRunner(answers: Record<string, CommandResult>): Runner & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    run(spec: CommandSpec) {
      const key = spec.argv.join(' ');
      calls.push(key);
      return answers[key] ?? { ok: false, error: `${key}: ENOENT`, missing: true, from: 'live' };
    },
  };
}

const live = (stdout: string): CommandResult => ({ ok: true, stdout, from: 'live' });

const conf = (name: string, v: Record<string, string>) => Object.fromEntries(Object.entries(v).map(([k, x]) => [`proc/sys/net/ipv4/conf/${name}/${k}`, `${x}\n`]));

const ENV = (process: Record<string, string>, confFiles: EnvPart['confFiles'] = []): EnvPart => ({ process, confFiles, home: { passwd: null, env: null } });

describe('probeKernel', () => {
  const snap = snapshotOf([link('lo', ['127.0.0.1/8']), link('ens1f0np0', ['10.0.0.1/24'])]);
  const files = {
    ...conf('all', { arp_announce: '2', arp_ignore: '1', arp_filter: '0', rp_filter: '2' }),
    ...conf('default', { arp_announce: '0', arp_ignore: '0', arp_filter: '0', rp_filter: '2' }),
    ...conf('ens1f0np0', { arp_announce: '0', arp_ignore: '0', arp_filter: '1', rp_filter: '1' }),
    'proc/sys/net/ipv4/ip_local_port_range': '32768\t60999\n',
  };

  it('reads all, default and every link; a failed read is kept as its errno', () => {
    const dir = tree(files);
    // Make one read fail the way a hardened /proc does (the tests' fault seam).
    writeFileSync(faultsFile(dir), JSON.stringify({ reads: { '/proc/sys/net/ipv4/conf/ens1f0np0/rp_filter': 'EACCES' } }));
    dirs.push(faultsFile(dir));
    class Faulty extends Root {}
    injectFaults(Faulty);
    const k = probeKernel(new Faulty(dir), stubRunner({}), { network: snap.network, env: ENV({}), resolutions: {} });
    expect(Object.keys(k.conf)).toEqual(['all', 'default', 'lo', 'ens1f0np0']);
    expect(k.conf['all']).toEqual({ arp_announce: '2', arp_ignore: '1', arp_filter: '0', rp_filter: '2' });
    expect(k.conf['ens1f0np0']!.rp_filter).toEqual({ error: 'EACCES' });
    expect(k.conf['lo']!.arp_ignore).toEqual({ error: 'ENOENT' });
    expect(k.localPortRange).toBe('32768\t60999');
  });

  it('every command is an argv with a record name; missing tools and permission errors are recorded, not thrown', () => {
    const runner = stubRunner({
      'ip -j rule show': live('[{"priority":0,"src":"all","table":"local"},{"priority":32766,"src":"all","table":"main"}]\n'),
      'ip -j route show table all': live('[{"dst":"10.0.0.0/24","dev":"ens1f0np0","protocol":"kernel","scope":"link","prefsrc":"10.0.0.1","flags":[]}]\n'),
      'tc -j qdisc show': live('[{"kind":"mq","handle":"0:","dev":"ens1f0np0","root":true,"options":{}}]'),
      'nft -j list ruleset': { ok: false, error: 'nft -j list ruleset exited 1: Operation not permitted (you must be root)', missing: false, from: 'live' },
      'iptables-save -t mangle': live('*mangle\n:OUTPUT ACCEPT [0:0]\nCOMMIT\n'),
    });
    const k = probeKernel(new Root(tree(files)), runner, { network: snap.network, env: ENV({}), resolutions: {} });
    expect(runner.calls).toEqual(['ip -j rule show', 'ip -j route show table all', 'tc -j qdisc show', 'nft -j list ruleset', 'iptables-save -t mangle', 'ip6tables-save -t mangle']);
    expect(k.rules).toMatchObject({ ok: true, argv: ['ip', '-j', 'rule', 'show'], record: 'ip-rule.json' });
    expect(k.qdiscs.ok && k.qdiscs.data[0]!.kind).toBe('mq');
    expect(k.nft).toMatchObject({ ok: false, missing: false, error: expect.stringMatching(/Operation not permitted/) });
    expect(k.ip6tablesMangle).toMatchObject({ ok: false, missing: true });
    expect(k.iptablesMangle).toMatchObject({ ok: true, data: '*mangle\n:OUTPUT ACCEPT [0:0]\nCOMMIT\n' });
    for (const spec of Object.values(KERNEL_COMMANDS)) expect(spec.record).toMatch(/^[a-z0-9.-]+$/);
  });

  it('unparsable output is a recorded failure, not an exception; empty iproute2 output is an empty list', () => {
    const runner = stubRunner({ 'ip -j rule show': live('not json'), 'ip -j route show table all': live(''), 'nft -j list ruleset': live('{"nope":1}') });
    const k = probeKernel(new Root(tree({})), runner, { network: snap.network, env: ENV({}), resolutions: {} });
    expect(k.rules).toMatchObject({ ok: false, missing: false, error: expect.stringMatching(/^cannot parse the output of ip -j rule show/) });
    expect(k.routes).toMatchObject({ ok: true, data: [] });
    expect(k.nft).toMatchObject({ ok: false, error: expect.stringMatching(/expected \{"nftables"/) });
  });

  it('route targets: NCCL_COMM_ID (literal, [v6]:port, name), MASTER_ADDR, conf files; one command per address', () => {
    const runner = stubRunner({
      'ip -j route get 10.0.0.9': live('[{"dst":"10.0.0.9","dev":"ens1f0np0","prefsrc":"10.0.0.1","flags":[],"uid":0,"cache":[]}]'),
      'ip -j route get fd00::9': { ok: false, error: 'ip -j route get fd00::9 exited 2: RTNETLINK answers: Network is unreachable', missing: false, from: 'live' },
    });
    const env = ENV({ NCCL_COMM_ID: '10.0.0.9:5000', MASTER_ADDR: 'node0' }, [
      { path: '/etc/nccl.conf', role: 'etc', content: 'NCCL_COMM_ID=[fd00::9%ens1f0np0]:5000\nNCCL_COMM_ID=ghost:1\n', error: null },
    ]);
    const k = probeKernel(new Root(tree({})), runner, {
      network: snap.network,
      env,
      resolutions: { node0: { addresses: [{ address: '10.0.0.9', family: 'AF_INET' }], error: null }, ghost: { addresses: [], error: 'Name or service not known' } },
    });
    expect(k.routeTargets.map((t) => [t.variable, t.source, t.host, t.address, t.unresolved, t.route?.ok ?? null])).toEqual([
      ['NCCL_COMM_ID', 'environment', '10.0.0.9', '10.0.0.9', null, true],
      ['NCCL_COMM_ID', '/etc/nccl.conf', 'fd00::9', 'fd00::9', null, false],
      ['NCCL_COMM_ID', '/etc/nccl.conf', 'ghost', null, "host name 'ghost' does not resolve (Name or service not known)", null],
      ['MASTER_ADDR', 'environment', 'node0', '10.0.0.9', null, true],
    ]);
    expect(runner.calls.filter((c) => c.startsWith('ip -j route get'))).toEqual(['ip -j route get 10.0.0.9', 'ip -j route get fd00::9']);
    expect(routeGetCommand('fd00::9').record).toBe('ip-route-get-fd00__9.json');
  });

  it('targetHost reads values as NCCL (COMM_ID) and PyTorch (MASTER_ADDR) do', () => {
    expect(targetHost('NCCL_COMM_ID', '10.1.2.3:5000')).toBe('10.1.2.3');
    expect(targetHost('NCCL_COMM_ID', 'host,other:5000')).toBe('host');
    expect(targetHost('NCCL_COMM_ID', '[fe80::1%eth0]:5000')).toBe('fe80::1');
    expect(targetHost('MASTER_ADDR', 'fd00::1')).toBe('fd00::1');
  });
});

describe('summariseNft', () => {
  it('counts everything, keeps DSCP rules with their chain hook, counts iptables-nft (xt) rules', () => {
    const doc = {
      nftables: [
        { metainfo: { version: '1.0.6', json_schema_version: 1 } },
        { table: { family: 'inet', name: 'qos', handle: 1 } },
        { chain: { family: 'inet', table: 'qos', name: 'out', handle: 1, type: 'filter', hook: 'output', prio: -150, policy: 'accept' } },
        { chain: { family: 'inet', table: 'qos', name: 'sub', handle: 2 } },
        { rule: { family: 'inet', table: 'qos', chain: 'out', handle: 3, expr: [{ mangle: { key: { payload: { protocol: 'ip', field: 'dscp' } }, value: 'af31' } }] } },
        { rule: { family: 'inet', table: 'qos', chain: 'sub', handle: 4, expr: [{ mangle: { key: { payload: { protocol: 'ip6', field: 'dscp' } }, value: 26 } }] } },
        { rule: { family: 'inet', table: 'qos', chain: 'out', handle: 5, expr: [{ accept: null }] } },
        { rule: { family: 'ip', table: 'mangle', chain: 'OUTPUT', handle: 6, expr: [{ xt: { type: 'target', name: 'DSCP' } }] } },
      ],
    };
    const s = summariseNft(JSON.stringify(doc));
    expect([s.tables, s.chains, s.rules, s.xtRules]).toEqual([1, 2, 4, 1]);
    expect(s.dscpRules.map((r) => [r.chain, r.handle, r.hook])).toEqual([['out', 3, 'output'], ['sub', 4, null]]);
  });
});

describe('under --root: recorded command output, /proc from the tree', () => {
  it('reads commands/<record>; a missing record is a "missing" failure naming the file', async () => {
    const dir = tree({
      'commands/ip-addr.json': JSON.stringify([{ ifindex: 1, ifname: 'ens1f0np0', flags: ['UP', 'LOWER_UP'], operstate: 'UP', addr_info: [{ family: 'inet', local: '10.0.0.1', prefixlen: 24 }] }]),
      'commands/ip-rule.json': '[{"priority":0,"src":"all","table":"local"}]',
      'commands/tc-qdisc.json': '[{"kind":"tbf","handle":"8001:","dev":"ens1f0np0","root":true,"options":{"rate":1000}}]',
      ...conf('all', { arp_announce: '2', arp_ignore: '1', arp_filter: '1', rp_filter: '0' }),
    });
    const snap = await probeNode({ root: dir, env: {} });
    const k = snap.kernel!;
    expect(k.rules).toMatchObject({ ok: true, from: 'recorded' });
    expect(k.qdiscs.ok && k.qdiscs.data[0]!.kind).toBe('tbf');
    expect(k.routes).toMatchObject({ ok: false, missing: true, from: 'recorded', error: expect.stringMatching(/commands\/ip-route-all\.json/) });
    expect(k.conf['all']!.arp_filter).toBe('1');
    // The snapshot (kernel part included) survives a JSON round trip through the schema.
    expect(validateSnapshot(JSON.parse(JSON.stringify(snap)), 'x').kernel).toEqual(k);
    expect(recordedRunner(new Root(dir)).run(KERNEL_COMMANDS.nft)).toMatchObject({ ok: false, missing: true });
  });
  it('kernel: false (the explain path) skips the probe entirely', async () => {
    const snap = await probeNode({ root: tree({}), env: {}, kernel: false });
    expect(snap.kernel).toBeUndefined();
  });
});

describe('snapshot schema', () => {
  const base = snapshotOf([link('eth0', ['10.0.0.1/24'])]);
  it('an older snapshot without `kernel` still loads', () => {
    const old = JSON.parse(JSON.stringify(base));
    delete old.kernel;
    expect(validateSnapshot(old, 'old.json').kernel).toBeUndefined();
  });
  it('a kernel part validates, iproute2 extra fields pass through; a malformed one is refused', () => {
    const snap = { ...base, kernel: kernelPart(base, { routes: [{ dst: 'default', gateway: '10.0.0.254', dev: 'eth0', flags: [], uid: 0 }] }) };
    const v = validateSnapshot(JSON.parse(JSON.stringify(snap)), 's.json');
    expect(v.kernel!.routes.ok && v.kernel!.routes.data.at(-1)).toMatchObject({ uid: 0, gateway: '10.0.0.254' });
    const bad = JSON.parse(JSON.stringify(snap));
    bad.kernel.rules = { ok: true, argv: [], record: 'x', from: 'live' };
    expect(() => validateSnapshot(bad, 'bad.json')).toThrow(/kernel\.rules/);
  });
});
