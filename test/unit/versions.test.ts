import { describe, expect, it } from 'vitest';
import { beyondModel, parseVersion, profileFor, profileOfStated, VersionError, versionString, type Profile } from '../../src/model/nccl/versions.js';

const p = (v: string) => profileFor(parseVersion(v));

describe('behaviour profiles (docs/nccl/versions.md)', () => {
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
    // torchcomms 59426ba4 comms/ncclx/v2_31: upstream's socket selection, and src/os/linux.cc reads no NCCL_SOCKET_IPADDR_PREFIX.
    expect(p('ncclx-2.31')).toMatchObject({ virbrStep: true, autoExclude: '^docker,lo,virbr', ipaddrPrefix: false });
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

/**
 * Every release threshold of profileFor, on both sides: the last release
 * number before it and the first one at it (docs/nccl/versions.md).
 */
const THRESHOLDS: [what: string, read: (p: Profile) => unknown, before: string, at: string][] = [
  ['runningFilter', (x) => x.runningFilter, '2.28.2', '2.28.3'],
  ['virbrStep', (x) => x.virbrStep, '2.28.2', '2.28.3'],
  ['autoExclude', (x) => x.autoExclude, '2.28.2', '2.28.3'],
  ['listParser', (x) => x.listParser, '2.30.6', '2.30.7'],
  ['confFileVar', (x) => x.confFileVar, '2.23.3', '2.23.4'],
  ['confComments', (x) => x.confComments, '2.26.1', '2.26.2'],
  ['confCrlf', (x) => x.confCrlf, '2.30.2', '2.30.3'],
  ['confHomeFromEnv', (x) => x.confHomeFromEnv, '2.30.2', '2.30.3'],
  ['bootstrapLogPrefix', (x) => x.bootstrapLogPrefix, '2.24.2', '2.24.3'],
  ['ibMaxDevs', (x) => x.ibMaxDevs, '2.18.4', '2.18.5'],
  ['ibMergeVfsParam', (x) => x.ibMergeVfsParam, '2.18.0', '2.18.1'],
  ['ibMerge (transport)', (x) => x.ibMerge, '2.20.2', '2.20.3'],
  ['ibMerge (core vNICs)', (x) => x.ibMerge, '2.24.2', '2.24.3'],
  ['ibMergeRefusalInfo', (x) => x.ibMergeRefusalInfo, '2.27.2', '2.27.3'],
  ['vnicMode (every group)', (x) => x.vnicMode, '2.24.2', '2.24.3'],
  ['vnicMode (fused only)', (x) => x.vnicMode, '2.27.2', '2.27.3'],
  ['vnicRefusal', (x) => x.vnicRefusal, '2.26.1', '2.26.2'],
  ['mergePolicy', (x) => x.mergePolicy, '2.30.6', '2.30.7'],
  ['vnicMaxDevs', (x) => x.vnicMaxDevs, '2.30.2', '2.30.3'],
  ['ibPciOrder', (x) => x.ibPciOrder, '2.29.6', '2.29.7'],
  ['gidAuto', (x) => x.gidAuto, '2.21.4', '2.21.5'],
  ['gidIbFlid', (x) => x.gidIbFlid, '2.22.2', '2.22.3'],
  ['gidEinvalTolerant', (x) => x.gidEinvalTolerant, '2.26.1', '2.26.2'],
  ['gidReadWarns', (x) => x.gidReadWarns, '2.23.3', '2.23.4'],
  ['peerMemPaths (nvidia-peermem)', (x) => x.peerMemPaths, '2.9.7', '2.9.8'],
  ['peerMemPaths (nv_mem_nc)', (x) => x.peerMemPaths, '2.22.2', '2.22.3'],
  ['peerMemPaths (module)', (x) => x.peerMemPaths, '2.23.3', '2.23.4'],
  ['peerMemModule', (x) => x.peerMemModule, '2.23.3', '2.23.4'],
  ['dmabuf', (x) => x.dmabuf, '2.13.3', '2.13.4'],
  ['gdrLevelNames (C2C)', (x) => x.gdrLevelNames, '2.26.1', '2.26.2'],
  ['gdrLevelNames (P2C)', (x) => x.gdrLevelNames, '2.27.2', '2.27.3'],
  ['ibTcDefaultUnset', (x) => x.ibTcDefaultUnset, '2.26.1', '2.26.2'],
  ['vnic.firstPciParent', (x) => x.vnic.firstPciParent, '2.27.2', '2.27.3'],
  ['vnic.cpuMadeUp', (x) => x.vnic.cpuMadeUp, '2.28.2', '2.28.3'],
  ['vnic.widen (chain)', (x) => x.vnic.widen, '2.28.2', '2.28.3'],
  ['vnic.widen (parent)', (x) => x.vnic.widen, '2.30.6', '2.30.7'],
  ['vnic.numaFatal', (x) => x.vnic.numaFatal, '2.30.6', '2.30.7'],
  ['vnicRefusalQuiet', (x) => x.vnicRefusalQuiet, '2.28.6', '2.28.7'],
  ['vnicLinkLayerLog', (x) => x.vnicLinkLayerLog, '2.26.1', '2.26.2'],
  ['searchFallbackNetZero (from)', (x) => x.searchFallbackNetZero, '2.24.2', '2.24.3'],
  ['searchFallbackNetZero (fixed)', (x) => x.searchFallbackNetZero, '2.29.1', '2.29.2'],
  ['ibSubnetAwareRouting', (x) => x.ibSubnetAwareRouting, '2.30.6', '2.30.7'],
  ['netFilterBeforeInit', (x) => x.netFilterBeforeInit, '2.29.1', '2.29.2'],
  ['netNotFoundLog', (x) => x.netNotFoundLog, '2.27.2', '2.27.3'],
  ['logsBootstrap', (x) => x.logsBootstrap, '2.4.7', '2.4.8'],
  ['logsNetwork', (x) => x.logsNetwork, '2.6.3', '2.6.4'],
  ['invertedV4Subnet (from)', (x) => x.invertedV4Subnet, '2.29.1', '2.29.2'],
  ['invertedV4Subnet (fixed)', (x) => x.invertedV4Subnet, '2.30.2', '2.30.3'],
];

describe('every release threshold, on both sides', () => {
  it.each(THRESHOLDS)('%s changes between %s and %s', (_what, read, before, at) => {
    expect(read(p(before))).not.toEqual(read(p(at)));
    // The release before the boundary behaves like every earlier one in that respect, the release at it like every later one.
    const [maj, min, pat] = at.split('.').map(Number) as [number, number, number];
    expect(read(p(`${maj}.${min}.${pat + 1}`))).toEqual(read(p(at)));
  });

  it('the values on each side', () => {
    expect([p('2.28.2'), p('2.28.3')].map((x) => [x.runningFilter, x.virbrStep, x.autoExclude, x.vnic.cpuMadeUp, x.vnic.widen])).toEqual([
      [false, false, '^docker,lo', false, 'none'],
      [true, true, '^docker,lo,virbr', true, 'chain'],
    ]);
    expect([p('2.18.4').ibMaxDevs, p('2.18.5').ibMaxDevs, p('2.30.2').vnicMaxDevs, p('2.30.3').vnicMaxDevs]).toEqual([16, 32, 4, 8]);
    expect([p('2.20.2'), p('2.20.3'), p('2.24.3')].map((x) => x.ibMerge)).toEqual(['none', 'ib-transport', 'core-vnic']);
    expect([p('2.24.2'), p('2.24.3'), p('2.27.3')].map((x) => x.vnicMode)).toEqual(['none', 'every-group', 'fused-only']);
    expect([p('2.26.1').gdrLevelNames, p('2.27.3').gdrLevelNames]).toEqual([
      ['LOC', 'NVL', 'NVB', 'PIX', 'PXB', 'PXN', 'PHB', 'SYS'],
      ['LOC', 'NVL', 'NVB', 'PIX', 'PXB', 'PXN', 'PHB', 'SYS', 'C2C', 'P2C'],
    ]);
    expect(p('2.9.7').peerMemPaths).toEqual(['/sys/kernel/mm/memory_peers/nv_mem/version']);
    expect(p('2.22.2').peerMemPaths).toEqual(['/sys/kernel/mm/memory_peers/nv_mem/version', '/sys/kernel/mm/memory_peers/nvidia-peermem/version']);
    expect(p('2.23.4').peerMemPaths).toEqual(['/sys/kernel/mm/memory_peers/nv_mem/version', '/sys/kernel/mm/memory_peers/nv_mem_nc/version', '/sys/module/nvidia_peermem/version']);
    expect([p('2.26.1'), p('2.26.2')].map((x) => [x.vnicRefusal, x.vnicLinkLayerLog, x.ibTcDefaultUnset])).toEqual([
      ['fatal', 'link-layer', false],
      ['retry', 'incompatible', true],
    ]);
    expect([p('2.27.2').netNotFoundLog, p('2.27.3').netNotFoundLog]).toEqual(['Error: network %s not found.', 'Failed to initialize any NET plugin']);
    expect([p('2.24.2').bootstrapLogPrefix, p('2.24.3').bootstrapLogPrefix]).toEqual(['Bootstrap : Using', 'Bootstrap: Using']);
    expect(['2.24.2', '2.24.3', '2.29.1', '2.29.2'].map((v) => p(v).searchFallbackNetZero)).toEqual([false, true, true, false]);
  });

  it('NCCLX branches take the thresholds of the upstream release they fork', () => {
    // v2_29 = 2.29.2, v2_30 = 2.30.3, v2_31 = 2.31.0 (whatever patch level is written).
    expect(p('ncclx-2.29')).toMatchObject({ vnicRefusalQuiet: true, searchFallbackNetZero: false, ibSubnetAwareRouting: false, listParser: 'scanner', vnicMaxDevs: 4 });
    expect(p('ncclx-2.30')).toMatchObject({ confCrlf: true, vnicMaxDevs: 8, ibSubnetAwareRouting: false, listParser: 'scanner' });
    expect(p('ncclx-2.30.9')).toMatchObject({ ibSubnetAwareRouting: false, listParser: 'scanner' });
    expect(p('ncclx-2.31')).toMatchObject({ ibSubnetAwareRouting: true, mergePolicy: true, listParser: 'tokenizer' });
  });
});

describe('the release a log states', () => {
  it('is read up to its third number; anything not a modelled 2.x release has no profile', () => {
    expect(profileOfStated('2.18.3+cuda12.2')?.version).toMatchObject({ major: 2, minor: 18, patch: 3 });
    expect(profileOfStated('2.4.7')?.logsBootstrap).toBe(false);
    expect(profileOfStated('2.4.8')?.logsBootstrap).toBe(true);
    expect(profileOfStated('3.0.0')).toBeNull();
    expect(profileOfStated('2.18')).toBeNull();
    expect(profileOfStated('unknown')).toBeNull();
  });
});

describe('the newest modelled release', () => {
  it('2.30.7 is modelled; 2.30.8 is answered with its rules', () => {
    expect(beyondModel(parseVersion('2.30.7'))).toBeNull();
    expect(beyondModel(parseVersion('2.30.8'))?.modelledAs).toBe('2.30.7');
    expect(beyondModel(parseVersion('ncclx-2.31'))).toBeNull();
  });
});
