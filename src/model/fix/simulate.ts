// A fix plan's end state, in the model: the snapshot as the kernel and the
// conf files will be once every operation is applied. The doctor's checks run
// on it before the plan is shown (src/fix/check-plan.ts), the way `ncclx fix
// --apply` later verifies each operation in the kernel.

import type { ConfKey, IpRouteJson, IpRuleJson, KernelPart, NftDscpRule, TcQdiscJson } from '../snapshot/kernel-types.js';
import type { NodeSnapshot } from '../snapshot/types.js';
import { markRules, type Spec } from './describe.js';
import type { Fix, OpSpec } from './types.js';
import { minOf } from '../list.js';

/** The nft JSON expression of one marking rule, as `nft -j list ruleset` prints it. */
function nftExpr(op: Spec<'nft-mark'>, parts: ReturnType<typeof markRules>[number]): unknown[] {
  const expr: unknown[] = [];
  for (const p of parts.parts) {
    if (p.by === 'oif') expr.push({ match: { op: '==', left: { meta: { key: 'oifname' } }, right: p.iface } });
    else if (p.by === 'daddr') expr.push({ match: { op: '==', left: { payload: { protocol: p.family === 4 ? 'ip' : 'ip6', field: 'daddr' } }, right: p.prefix } });
    else if (p.by === 'ports') expr.push({ match: { op: '==', left: { payload: { protocol: 'tcp', field: p.dir } }, right: p.lo === p.hi ? p.lo : { range: [p.lo, p.hi] } } });
  }
  if (!parts.parts.some((p) => p.by === 'ports')) expr.push({ match: { op: '==', left: { meta: { key: 'l4proto' } }, right: 'tcp' } });
  expr.push({ mangle: { key: { payload: { protocol: parts.family === 4 ? 'ip' : 'ip6', field: 'dscp' } }, value: op.dscp } });
  return expr;
}

/** iptables-save lines of the fallback chain (see describe.ts iptRestoreInput). */
function iptLines(op: Spec<'iptables-mark'>, family: 4 | 6): string[] {
  return [
    `-A OUTPUT -j ${op.chain}`,
    ...markRules(op.selectors, op.dscp, op.ipv6)
      .filter((r) => r.family === family)
      .map((r) => {
        const sel = r.parts.flatMap((p) => (p.by === 'oif' ? ['-o', p.iface] : p.by === 'daddr' ? ['-d', p.prefix] : []));
        return ['-A', op.chain, ...sel, '-p', 'tcp', '-j', 'DSCP', '--set-dscp', `0x${op.dscp.toString(16).padStart(2, '0')}`].join(' ');
      }),
  ];
}

function applyKernel(k: KernelPart, op: OpSpec): KernelPart {
  switch (op.kind) {
    case 'sysctl': {
      const m = /^net\/ipv4\/conf\/(.+)\/(arp_announce|arp_ignore|arp_filter|rp_filter)$/.exec(op.key);
      if (!m) return k;
      const [, ifname, key] = m as unknown as [string, string, ConfKey];
      return { ...k, conf: { ...k.conf, [ifname]: { ...k.conf[ifname]!, [key]: op.value } } };
    }
    case 'ip-rule': {
      if (!k.rules.ok) return k;
      // A rule without a priority goes just below the lowest non-local one, as the kernel does.
      const prio = op.priority ?? Math.min(32766, minOf(k.rules.data.map((r) => r.priority ?? 0).filter((p) => p > 0))) - 1;
      const rule: IpRuleJson = { priority: prio, src: op.from, table: String(op.table) };
      return { ...k, rules: { ...k.rules, data: [...k.rules.data, rule].sort((a, b) => (a.priority ?? 0) - (b.priority ?? 0)) } };
    }
    case 'ip-route': {
      if (!k.routes.ok) return k;
      const route: IpRouteJson = { dst: op.dst, dev: op.dev, prefsrc: op.src, table: String(op.table), scope: 'link' };
      const rest = k.routes.data.filter((r) => !(r.table === String(op.table) && r.dst === op.dst));
      return { ...k, routes: { ...k.routes, data: [route, ...rest] } };
    }
    case 'qdisc': {
      if (!k.qdiscs.ok) return k;
      const root: TcQdiscJson = { kind: op.scheduler, handle: '1:', dev: op.dev, root: true, options: op.scheduler === 'htb' ? { default: '0x20', ncclx: true } : { ncclx: true } };
      return { ...k, qdiscs: { ...k.qdiscs, data: [...k.qdiscs.data.filter((q) => q.dev !== op.dev), root] } };
    }
    case 'nft-mark': {
      if (!k.nft.ok) return k;
      const rules: NftDscpRule[] = markRules(op.selectors, op.dscp).map((r) => ({ family: 'inet', table: op.table, chain: 'output', handle: null, hook: 'output', expr: nftExpr(op, r) }));
      const others = k.nft.data.dscpRules.filter((r) => r.table !== op.table);
      return { ...k, nft: { ...k.nft, data: { ...k.nft.data, dscpRules: [...others, ...rules] } } };
    }
    case 'iptables-mark': {
      let out = k;
      for (const [family, key] of [[4, 'iptablesMangle'], [6, 'ip6tablesMangle']] as const) {
        const cap = out[key];
        if (!cap.ok || (family === 6 && !op.ipv6)) continue;
        const kept = cap.data.split('\n').filter((l) => !l.startsWith(`-A ${op.chain} `) && l !== `-A OUTPUT -j ${op.chain}`);
        const commit = kept.lastIndexOf('COMMIT');
        const lines = commit >= 0 ? [...kept.slice(0, commit), ...iptLines(op, family), ...kept.slice(commit)] : ['*mangle', ...kept.filter(Boolean), ...iptLines(op, family), 'COMMIT'];
        out = { ...out, [key]: { ...cap, data: lines.join('\n') } };
      }
      return out;
    }
    case 'file':
      return k;
  }
}

/** The snapshot with every operation of these fixes applied (blocked fixes change nothing). */
export function planEndState(snapshot: NodeSnapshot, fixes: Fix[]): NodeSnapshot {
  let snap = snapshot;
  for (const op of fixes.filter((f) => !f.blocked).flatMap((f) => f.ops)) {
    if (op.kind === 'file') {
      // A conf file NCCL reads gets the planned content; other files (the sysctl.d drop-in) matter only at boot.
      const recs = snap.env.confFiles;
      if (!recs.some((r) => r.path === op.path) && op.path !== '/etc/nccl.conf') continue;
      const confFiles = recs.some((r) => r.path === op.path) ? recs.map((r) => (r.path === op.path ? { ...r, content: op.content, error: null } : r)) : [...recs, { path: op.path, role: 'etc' as const, content: op.content, error: null }];
      snap = { ...snap, env: { ...snap.env, confFiles } };
      continue;
    }
    if (snap.kernel) snap = { ...snap, kernel: applyKernel(snap.kernel, op) };
  }
  return snap;
}
