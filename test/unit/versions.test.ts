import { describe, expect, it } from 'vitest';
import { parseVersion, profileFor, VersionError, versionString } from '../../src/model/nccl/versions.js';

const p = (v: string) => profileFor(parseVersion(v));

describe('behaviour profiles (nccl-behavior.md §1.5, §8)', () => {
  it('before 2.28.3: no RUNNING filter, ^docker,lo, no virbr step', () => {
    expect(p('2.27.7')).toMatchObject({ runningFilter: false, autoExclude: '^docker,lo', virbrStep: false, id: 'nccl<2.28.3' });
    expect(p('2.28.2').runningFilter).toBe(false);
  });
  it('2.28.3 and later: RUNNING filter, ^docker,lo,virbr, virbr last', () => {
    expect(p('2.28.3')).toMatchObject({ runningFilter: true, autoExclude: '^docker,lo,virbr', virbrStep: true, invertedV4Subnet: false });
    expect(p('2.30.7')).toMatchObject({ listParser: 'tokenizer', invertedV4Subnet: false });
    expect(p('2.30.4').listParser).toBe('scanner');
  });
  it('2.29.2–2.29.7 invert the IPv4 subnet match; fixed in 2.30.3', () => {
    expect(p('2.29.2').invertedV4Subnet).toBe(true);
    expect(p('2.29.7').invertedV4Subnet).toBe(true);
    expect(p('2.28.9').invertedV4Subnet).toBe(false);
    expect(p('2.30.3').invertedV4Subnet).toBe(false);
  });
  it('X.Y means the first release of that minor', () => {
    expect(parseVersion('2.28')).toMatchObject({ patch: 3, patchAssumed: true });
    expect(p('2.28').runningFilter).toBe(true);
    expect(parseVersion('v2.21.5-1')).toMatchObject({ minor: 21, patch: 5 });
  });
  it('NCCLX v2_29/v2_30: RUNNING, no virbr, IPADDR_PREFIX; v2_29 inherits the subnet bug', () => {
    expect(p('ncclx-2.29')).toMatchObject({ runningFilter: true, autoExclude: '^docker,lo', virbrStep: false, ipaddrPrefix: true, invertedV4Subnet: true, id: 'ncclx-v2_29' });
    expect(p('ncclx-2.30')).toMatchObject({ virbrStep: false, ipaddrPrefix: true, invertedV4Subnet: false });
    expect(p('ncclx-2.31')).toMatchObject({ virbrStep: true, autoExclude: '^docker,lo,virbr' });
  });
  it('conf-file features by version (§0.1)', () => {
    expect(p('2.23.3').confFileVar).toBe(false);
    expect(p('2.23.4').confFileVar).toBe(true);
    expect(p('2.26.2').confComments).toBe(true);
    expect(p('2.30.3')).toMatchObject({ confCrlf: true, confHomeFromEnv: true });
  });
  it('rejects garbage and unknown NCCLX branches', () => {
    expect(() => parseVersion('latest')).toThrow(VersionError);
    expect(() => parseVersion('ncclx-2.10')).toThrow(VersionError);
  });
});

describe('versions newer than the newest modelled release', () => {
  it('2.99.99 and 2.31: answered with 2.30.7 rules, said in the source and as data; no invented 2.31.0', async () => {
    const { chooseVersion } = await import('../../src/model/nccl/version-choice.js');
    const lib = { ncclLibrary: { candidates: [] } } as unknown as Parameters<typeof chooseVersion>[1];
    const far = chooseVersion('2.99.99', lib);
    expect(far.beyond).toEqual({ modelledAs: '2.30.7', certain: false, note: expect.stringMatching(/^2\.99\.99 is newer than 2\.30\.7, the newest release this ncclx models/) });
    expect(far.source).toMatch(/answered with 2\.30\.7's rules/);
    const minor = chooseVersion('2.31', lib);
    expect(versionString(minor.version)).toBe('2.31');
    expect(minor.source).not.toMatch(/first 2\.31 release/);
    expect(minor.source).toMatch(/no 2\.31 release is known to this ncclx/);
    expect(minor.beyond?.modelledAs).toBe('2.30.7');
    expect(chooseVersion('2.30.7', lib).beyond).toBeNull();
    expect(chooseVersion('2.28', lib).source).toBe('--nccl-version 2.28 (read as 2.28.3, the first 2.28 release)');
  });
});
