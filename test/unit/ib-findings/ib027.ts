import { describe, expect, it } from 'vitest';
import { LINKS, device, findings, fixText, gids, ll, one, rdmaSnapshot, v4gid } from './helpers.js';
import { link } from '../helpers.js';

// IB-027: every RoCE rail's MTU below 4096.
describe('IB-027', () => {
  const snap = (mtu: number) => {
    const s = rdmaSnapshot([...LINKS, link('eth1', ['10.1.0.5/24'])], [device({ name: 'mlx5_0', netdevs: ['eth1'], ports: [{ gids: gids([[ll(), 'v1'], [ll(), 'v2'], [v4gid('10.1.0.5'), 'v1'], [v4gid('10.1.0.5'), 'v2']], 255) }] })]);
    return { ...s, network: { ...s.network, links: s.network.links.map((l) => (l.name === 'eth1' ? { ...l, mtu } : l)) } };
  };
  it('netdev MTU 1500 → RoCE 1024', () => {
    const f = one(findings(snap(1500), '2.28.3'), 'IB-027');
    expect(f.message).toMatch(/RoCE MTU is 1024 .* netdev MTU is 1500/);
    expect(fixText(f)).toBe('ip link set dev eth1 mtu 4200');
  });
  it('4192 allows 4096: nothing; 4191 does not', () => {
    expect(findings(snap(4192), '2.28.3').some((f) => f.id === 'IB-027')).toBe(false);
    expect(one(findings(snap(4191), '2.28.3'), 'IB-027').message).toMatch(/RoCE MTU is 2048/);
  });
});
