import { describe, expect, it } from 'vitest';
import { matchList, parseList } from '../../src/model/nccl/ifname-list.js';

const scan = (s: string, max = 16) => parseList(s, { parser: 'scanner', maxEntries: max, fieldsMatter: true });
const tok = (s: string, max = 16) => parseList(s, { parser: 'tokenizer', maxEntries: max, fieldsMatter: true });
const accepts = (list: ReturnType<typeof scan>, name: string, port = -1) => matchList(name, port, list).accepted;

describe('NCCL_SOCKET_IFNAME / NCCL_IB_HCA grammar (docs/nccl/socket.md §3)', () => {
  it('modifiers: ^ then =, in that order only', () => {
    expect(scan('^=eth0')).toMatchObject({ not: true, exact: true });
    const eq = scan('=^eth0');
    expect(eq).toMatchObject({ not: false, exact: true });
    expect(eq.entries[0]!.prefix).toBe('^eth0');
    expect(accepts(eq, 'eth0')).toBe(false);
    expect(accepts(eq, '^eth0')).toBe(true);
  });
  it('prefix matching: eth1 matches eth10, eth1.100, eth1:0; =eth1 only eth1', () => {
    const p = scan('eth1');
    for (const n of ['eth1', 'eth10', 'eth1.100', 'eth1:0']) expect(accepts(p, n)).toBe(true);
    expect(accepts(p, 'eth2')).toBe(false);
    const e = scan('=eth1');
    expect(accepts(e, 'eth1')).toBe(true);
    expect(accepts(e, 'eth10')).toBe(false);
  });
  it('exclusion with ^ and ^=', () => {
    const x = scan('^docker,lo');
    expect(accepts(x, 'docker0')).toBe(false);
    expect(accepts(x, 'docker_gwbridge')).toBe(false);
    expect(accepts(x, 'local0')).toBe(false);
    expect(accepts(x, 'eth0')).toBe(true);
    const xe = scan('^=docker0');
    expect(accepts(xe, 'docker0')).toBe(false);
    expect(accepts(xe, 'docker1')).toBe(true);
  });
  it('an empty list matches everything: ^= excludes everything, ^ alone excludes all', () => {
    expect(accepts(scan('^='), 'eth0')).toBe(false);
    expect(accepts(scan('^'), 'mlx5_0')).toBe(false);
    expect(accepts(scan(''), 'eth0')).toBe(true);
  });
  it(':port is parsed; for sockets the port never matters', () => {
    const l = scan('eth0:1,eth1');
    expect(l.entries.map((e) => [e.prefix, e.port])).toEqual([['eth0', 1], ['eth1', -1]]);
    expect(accepts(l, 'eth0', -1)).toBe(true);
  });
  it('a name containing ":" cannot be written: eth0:1 is prefix eth0, port 1', () => {
    expect(scan('eth0:1').entries[0]).toMatchObject({ prefix: 'eth0', port: 1 });
  });
  it('17th entry is dropped (MAX_IFS = 16)', () => {
    const spec = Array.from({ length: 17 }, (_, i) => `n${i}x`).join(',');
    for (const l of [scan(spec), tok(spec)]) {
      expect(l.entries).toHaveLength(16);
      expect(l.dropped).toEqual(['n16x']);
      expect(accepts(l, 'n16x')).toBe(false);
      expect(accepts(l, 'n15x')).toBe(true);
    }
  });
  it('empty names and empty items are skipped by both parsers', () => {
    expect(scan(',:1,eth0,').entries.map((e) => e.prefix)).toEqual(['eth0']);
    expect(tok(',:1,eth0,').entries.map((e) => e.prefix)).toEqual(['eth0']);
  });
  it('empty port: scanner reads 0 (never matches), tokenizer reads unset (all ports)', () => {
    expect(scan('mlx5_0:').entries[0]!.port).toBe(0);
    expect(matchList('mlx5_0', 1, scan('mlx5_0:')).accepted).toBe(false);
    expect(tok('mlx5_0:').entries[0]!.port).toBe(-1);
    expect(matchList('mlx5_0', 1, tok('mlx5_0:')).accepted).toBe(true);
  });
  it('rail and plane fields only in the tokenizer', () => {
    expect(tok('mlx5_0::0:1').entries[0]).toMatchObject({ prefix: 'mlx5_0', port: -1, rail: 0, plane: 1 });
    expect(scan('mlx5_0:1:2').entries[0]).toMatchObject({ prefix: 'mlx5_0', port: 1, rail: -1 });
  });
  it('non-numeric port reads 0 and never matches', () => {
    const l = scan('mlx5_0:x');
    expect(l.entries[0]!.port).toBe(0);
    expect(matchList('mlx5_0', 1, l).accepted).toBe(false);
    expect(l.notes.map((n) => n.kind)).toContain('non-numeric-field');
  });
  it('no whitespace trimming, case-sensitive', () => {
    const l = scan('eth0, eth1');
    expect(accepts(l, 'eth1')).toBe(false);
    expect(l.notes.map((n) => n.kind)).toContain('whitespace');
    expect(accepts(scan('ETH0'), 'eth0')).toBe(false);
  });
  it('text longer than 63: tokenizer truncates, scanner flags overflow', () => {
    const long = 'x'.repeat(70);
    expect(tok(long).entries[0]!.prefix).toHaveLength(63);
    expect(scan(long).notes.map((n) => n.kind)).toContain('overlong');
  });
});
