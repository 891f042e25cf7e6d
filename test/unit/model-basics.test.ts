// Small pieces of src/model every part uses: quoting, sentence case, the
// user-error class, snapshot validation and environment overlays.
import { describe, expect, it } from 'vitest';
import { UserError } from '../../src/model/errors.js';
import { shExport, shJoin, shQuote } from '../../src/model/shell/quote.js';
import { SNAPSHOT_SCHEMA_VERSION } from '../../src/model/snapshot/types.js';
import { SnapshotError, validateSnapshot } from '../../src/model/snapshot/schema.js';
import { withEnv } from '../../src/model/snapshot/with-env.js';
import { lowerFirst } from '../../src/model/text.js';
import { link, snapshotOf } from './helpers.js';

describe('shell quoting', () => {
  it('safe words stay bare; the empty word, a leading = and metacharacters are quoted', () => {
    expect(shQuote('eth0')).toBe('eth0');
    expect(shQuote('a=b:c,d/e.f-g@h%i+j')).toBe('a=b:c,d/e.f-g@h%i+j');
    expect(shQuote('')).toBe("''");
    expect(shQuote('=eth1')).toBe("'=eth1'");
    expect(shQuote("e$x;(1")).toBe("'e$x;(1'");
    expect(shQuote("it's")).toBe("'it'\\''s'");
    expect(shJoin(['ip', 'link', 'set', 'dev', 'a b'])).toBe("ip link set dev 'a b'");
    expect(shExport('NCCL_IB_HCA', '=mlx5_0')).toBe("export NCCL_IB_HCA='=mlx5_0'");
  });
});

describe('lowerFirst', () => {
  it('lowers a first word, keeps acronyms and names, and one-letter words', () => {
    expect(lowerFirst('Hello World')).toBe('hello World');
    expect(lowerFirst('Ab')).toBe('ab');
    expect(lowerFirst('A')).toBe('A');
    expect(lowerFirst('')).toBe('');
    expect(lowerFirst('NCCL_IB_HCA is set')).toBe('NCCL_IB_HCA is set');
    expect(lowerFirst('IPv6 only')).toBe('IPv6 only');
    expect(lowerFirst('R2 rail')).toBe('R2 rail');
    expect(lowerFirst('E_x')).toBe('E_x');
  });
});

describe('UserError', () => {
  it('is named so, and is an Error', () => {
    const e = new UserError('bad flag');
    expect(e.name).toBe('UserError');
    expect(e).toBeInstanceOf(Error);
    expect(e.message).toBe('bad flag');
  });
});

describe('validateSnapshot', () => {
  it('anything but an object is refused by name, never a TypeError', () => {
    for (const v of [null, undefined, 42, 'text', true]) {
      expect(() => validateSnapshot(v, 'f.json'), String(v)).toThrow(SnapshotError);
    }
    expect(() => validateSnapshot(42, 'f.json')).toThrow(/^f\.json: not a valid ncclx snapshot: \(top level\): /);
  });
  it('another schema version is refused with both versions; a missing one is a schema error', () => {
    expect(() => validateSnapshot({ schemaVersion: 99 }, 'f.json')).toThrow(`f.json: schema version 99 is not supported (this ncclx reads version ${SNAPSHOT_SCHEMA_VERSION})`);
    expect(() => validateSnapshot({}, 'f.json')).toThrow(/not a valid ncclx snapshot: schemaVersion: /);
    const snap = snapshotOf([link('eth0', ['10.0.0.1/24'])]);
    expect(validateSnapshot(JSON.parse(JSON.stringify(snap)), 'f.json').schemaVersion).toBe(SNAPSHOT_SCHEMA_VERSION);
  });
});

describe('withEnv', () => {
  it('sets and unsets on top of the process environment, leaving the snapshot as it was', () => {
    const snap = snapshotOf([link('eth0', ['10.0.0.1/24'])], { env: { A: '1', B: '2' } });
    const next = withEnv(snap, { B: null, C: '3' });
    expect(next.env.process).toEqual({ A: '1', C: '3' });
    expect(snap.env.process).toEqual({ A: '1', B: '2' });
  });
});
