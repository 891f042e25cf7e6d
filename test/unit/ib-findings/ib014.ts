import { describe, expect, it } from 'vitest';
import { LINKS, device, findings, one, rdmaSnapshot, useNodes } from './helpers.js';

// IB-014: the locked-memory limit; below 64 MiB registration fails early: an error.
useNodes('sandbox');

describe('IB-014', () => {
  const snap = (soft: string, hard = 'unlimited', container = false) => rdmaSnapshot(LINKS, [device({ name: 'mlx5_0' })], { rdma: { memlock: { soft, hard, error: null }, container: { detected: container, evidence: [] } } });
  it('a 64 KiB limit inside a container is an error', () => {
    const f = one(findings('sandbox', '2.28.3'), 'IB-014');
    expect(f.severity).toBe('error');
    expect(f.message).toMatch(/64 KiB .* inside a container/);
  });
  it('64 MiB exactly is a warning; one byte less is an error', () => {
    expect(one(findings(snap(String(64 * 1024 * 1024)), '2.28.3'), 'IB-014').severity).toBe('warn');
    expect(one(findings(snap(String(64 * 1024 * 1024 - 1)), '2.28.3'), 'IB-014').severity).toBe('error');
  });
  it('sizes read as people write them; unlimited says nothing', () => {
    expect(one(findings(snap(String(8 * 2 ** 30), String(16 * 2 ** 30)), '2.28.3'), 'IB-014').message).toMatch(/8\.0 GiB \(soft; hard 16\.0 GiB\)/);
    expect(one(findings(snap('512', '2048'), '2.28.3'), 'IB-014').message).toMatch(/512 bytes \(soft; hard 2 KiB\)/);
    expect(findings(snap('unlimited'), '2.28.3').some((f) => f.id === 'IB-014')).toBe(false);
  });
});
