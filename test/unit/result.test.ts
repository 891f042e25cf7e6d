// src/model/result: how results, counts, severities and remediations are built
// (the shape every check and model shares).
import { describe, expect, it } from 'vitest';
import { advise, findingResults, isEmpty, notApplicable, ok, result, run, setEnv, unknownResult, unsetEnv, withFixes } from '../../src/model/result/build.js';
import { countResults, exitCodeFor, worstSeverity, type Severity } from '../../src/model/result/types.js';

const of = (...s: Severity[]) => s.map((severity) => ({ severity }));

describe('results', () => {
  it('an empty remediation is no remediation', () => {
    expect(result('warn', 's', [], 'w', {}).remediation).toBeNull();
    expect(result('warn', 's', [], 'w', { env: {} }).remediation).toBeNull();
    expect(result('warn', 's', [], 'w', setEnv({ A: '1' })).remediation).toEqual({ env: { A: '1' } });
  });
  it('not applicable, ok and unknown read the same everywhere', () => {
    expect(notApplicable('no RDMA device')).toEqual({ severity: 'na', summary: 'no RDMA device', evidence: [], why: '', remediation: null });
    expect(ok('fine')).toEqual({ severity: 'ok', summary: 'fine', evidence: [], why: '', remediation: null });
    expect(unknownResult('ARP sysctls', 'EACCES')).toMatchObject({ severity: 'unknown', summary: 'ARP sysctls: EACCES', why: expect.stringMatching(/could not read/) });
  });
  it('findings become one result each, with the check\'s fixes; none is ok', () => {
    const ev = [{ kind: 'value' as const, source: 's', value: 'v' }];
    expect(findingResults([], { ok: 'all good', why: 'w' }, ev)).toEqual([ok('all good', ev)]);
    const [r] = findingResults([{ id: 'X-1', severity: 'warn', message: 'm', remediation: setEnv({ A: '1' }) }], { ok: 'all good', why: 'because' }, ev, ['arp-sysctl']);
    expect(r).toEqual({ severity: 'warn', summary: 'm', evidence: ev, why: 'because', remediation: { env: { A: '1' }, fixIds: ['arp-sysctl'] } });
    const [plain] = findingResults([{ id: 'X-1', severity: 'info', message: 'm', remediation: advise('a') }], { ok: '', why: 'w' }, []);
    expect(plain!.remediation).toEqual({ advice: 'a' });
  });
});

describe('remediations', () => {
  it('isEmpty: nothing to set, run, read or apply', () => {
    expect(isEmpty({})).toBe(true);
    expect(isEmpty({ env: {} })).toBe(true);
    expect(isEmpty({ commands: [] })).toBe(true);
    expect(isEmpty({ fixIds: [] })).toBe(true);
    expect(isEmpty({ env: { A: null } })).toBe(false);
    expect(isEmpty({ advice: 'a' })).toBe(false);
    expect(isEmpty({ commands: [['true']] })).toBe(false);
    expect(isEmpty({ fixIds: ['rp-filter'] })).toBe(false);
  });
  it('the builders', () => {
    expect(setEnv({ A: '1' }, 'why')).toEqual({ advice: 'why', env: { A: '1' } });
    expect(unsetEnv('A', 'B')).toEqual({ env: { A: null, B: null } });
    expect(run([['ip', 'link']], 'why')).toEqual({ advice: 'why', commands: [['ip', 'link']] });
    expect(run([['ip', 'link']])).toEqual({ commands: [['ip', 'link']] });
    expect(withFixes(null, ['rp-filter'])).toEqual({ fixIds: ['rp-filter'] });
    expect(withFixes({ advice: 'a', fixIds: ['arp-sysctl'] }, ['rp-filter'])).toEqual({ advice: 'a', fixIds: ['arp-sysctl', 'rp-filter'] });
  });
});

describe('counts, exit codes, the worst severity', () => {
  it('each severity is counted in its own box', () => {
    expect(countResults(of('error', 'warn', 'warn', 'ok', 'ok', 'ok', 'info', 'info', 'info', 'info', 'na', 'na', 'unknown'))).toEqual({ errors: 1, warnings: 2, ok: 3, info: 4, notApplicable: 2, unknown: 1 });
    expect(countResults([])).toEqual({ errors: 0, warnings: 0, ok: 0, info: 0, notApplicable: 0, unknown: 0 });
  });
  it('exit 1 only with an error', () => {
    expect(exitCodeFor(of('warn', 'unknown', 'info'))).toBe(0);
    expect(exitCodeFor(of('ok', 'error'))).toBe(1);
  });
  it('error > warn > unknown > info > ok > na; empty is ok', () => {
    expect(worstSeverity([])).toBe('ok');
    expect(worstSeverity(of('na'))).toBe('ok');
    expect(worstSeverity(of('ok', 'info'))).toBe('info');
    expect(worstSeverity(of('info', 'unknown', 'ok'))).toBe('unknown');
    expect(worstSeverity(of('warn', 'unknown'))).toBe('warn');
    expect(worstSeverity(of('warn', 'error', 'warn'))).toBe('error');
  });
});
