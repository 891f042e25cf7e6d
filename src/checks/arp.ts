// Multi-rail ARP checks (ARP-001..004). The kernel model they judge with —
// sysctl combination, shared subnets, the policy-routing simulation — is in
// src/model/linux/arp.ts, shared with `ncclx fix` and `ncclx compare`.

import {
  allConfError,
  arpSettings,
  confEvidence,
  decisionEvidence,
  effectiveValue,
  memberHealthy,
  memberNetdevs,
  policyRoutingCommands,
  routeDecisions,
  routingNeeds,
  sharedSubnets,
  sysctlArgv,
} from '../model/linux/arp.js';
import { rdmaNetdevs, rdmaUnknownReason } from '../model/linux/rdma-netdevs.js';
import { NO_KERNEL_PART } from '../model/linux/routes.js';
import type { Check, CheckContext } from '../model/doctor/types.js';
import { advise, result, run, unknownResult, withFixes } from '../model/result/build.js';
import type { Evidence, FixId, Outcome } from '../model/result/types.js';
import { append } from '../model/list.js';

export const WHY_ARP =
  'With several RDMA netdevs in one subnet, Linux answers ARP for any local address on any NIC; a peer then learns the wrong MAC for a rail, its RoCE frames are dropped, and the QP fails with IBV_WC_RETRY_EXC_ERR (status 12).';

const groupsOf = (ctx: CheckContext) => sharedSubnets(ctx.snapshot);

/** Common preamble: null when the check can go on, else its only result. */
function preconditions(ctx: CheckContext, what: string, needKernel: boolean): Outcome | null {
  const noRdma = rdmaUnknownReason(ctx.snapshot);
  if (noRdma) return unknownResult(what, noRdma);
  if (rdmaNetdevs(ctx.snapshot).length === 0) return result('na', 'no RDMA netdevs: multi-rail ARP does not apply', [], '');
  if (groupsOf(ctx).length === 0) return result('ok', 'no two RDMA netdevs share an IPv4 subnet', [], '');
  if (needKernel && !ctx.snapshot.kernel) return unknownResult(what, NO_KERNEL_PART);
  return null;
}

const sharedSubnet: Check = {
  id: 'ARP-001',
  title: 'RDMA netdevs on one IPv4 subnet',
  family: 'arp',
  run(ctx) {
    const pre = preconditions(ctx, 'RDMA netdev subnets', false);
    if (pre) return pre;
    return groupsOf(ctx).map((g) => {
      const netdevs = [...new Set(g.members.map((m) => m.netdev))];
      const ev: Evidence[] = g.members.map((m) => ({
        kind: 'value',
        source: `${m.ports.map((p) => `${p.dev}:${p.port}`).join(', ')} → ${m.netdev}`,
        value: `${m.addr.address}/${m.addr.prefixlen}`,
      }));
      const healthy = ctx.snapshot.kernel ? netdevs.every((n) => memberHealthy(ctx.snapshot, n)) : false;
      return result(
        healthy ? 'info' : 'warn',
        `${netdevs.length} RDMA netdevs share ${g.subnet}: ${netdevs.join(', ')}${healthy ? ' (ARP, rp_filter and policy routing are set up for it)' : ' — see ARP-002..ARP-004'}`,
        ev,
        `${WHY_ARP} One subnet per rail avoids the problem entirely; otherwise every NIC needs the ARP sysctls and source-based policy routing.`,
        healthy ? null : withFixes(null, ['arp-sysctl', 'policy-routing']),
      );
    });
  },
};

const arpSysctls: Check = {
  id: 'ARP-002',
  title: 'arp_announce=2, arp_ignore=1, arp_filter=1 on RDMA netdevs sharing a subnet',
  family: 'arp',
  run(ctx) {
    const pre = preconditions(ctx, 'ARP sysctls', true);
    if (pre) return pre;
    const kernel = ctx.snapshot.kernel!;
    // conf/all unreadable (no /proc/sys in a fixture, a hardened /proc): one answer, not one per rail.
    const allUnreadable = allConfError(kernel, ['arp_announce', 'arp_ignore', 'arp_filter']);
    if (allUnreadable) return unknownResult('ARP sysctls', allUnreadable);
    const out: Outcome[] = [];
    const good: string[] = [];
    const dec = routeDecisions(ctx.snapshot);
    const needs = routingNeeds(ctx.snapshot);
    for (const { netdev, addrs } of memberNetdevs(groupsOf(ctx))) {
      const need0 = arpSettings(kernel, netdev);
      if ('unreadable' in need0) {
        out.push(unknownResult(`ARP sysctls of ${netdev}`, need0.unreadable, need0.evidence));
        continue;
      }
      const { problems, settings, severity, evidence: ev } = need0;
      if (problems.length === 0) {
        good.push(netdev);
        continue;
      }
      // arp_filter=1 answers only where the route back leaves through this NIC: it needs policy routing, and
      // carries it (ARP-004's commands for this NIC, first), so the lines are safe to paste on their own.
      const routed = 'error' in dec ? false : addrs.every((a) => dec.get(a.address)?.dev === netdev);
      const needsRouting = settings.some(([, k]) => k === 'arp_filter') && !routed;
      const need = needsRouting && !('error' in needs) ? needs.find((n) => n.netdev === netdev) : undefined;
      const prereq = need ? policyRoutingCommands(need) : null;
      const fixIds: FixId[] = ['arp-sysctl', ...(needsRouting ? (['policy-routing'] as const) : [])];
      // Without a policy routing this NIC can be given with certainty, arp_filter=1 stays out: alone it would silence the NIC.
      const sysctls = needsRouting && !prereq ? settings.filter(([, k]) => k !== 'arp_filter') : settings;
      const commands = [...(prereq ?? []), ...(sysctls.length ? [sysctlArgv(sysctls)] : [])];
      const advice = prereq
        ? 'Policy routing first where a NIC is routed through another (as ARP-004), then the ARP sysctls — arp_filter=1 without it would stop that NIC answering ARP for its own address'
        : needsRouting
          ? `arp_filter=1 is left out: ${netdev} needs source-based policy routing first (ARP-004), which ncclx cannot write for it here`
          : undefined;
      out.push(
        result(
          severity,
          `${netdev}: ${problems.join('; ')}`,
          ev,
          `${WHY_ARP}${needsRouting ? ' arp_filter=1 also needs the per-NIC policy routing of ARP-004 first, or this NIC stops answering for its own address.' : ''}`,
          withFixes(commands.length ? run(commands, advice) : advice ? advise(advice) : null, fixIds),
        ),
      );
    }
    if (good.length) out.unshift(result('ok', `arp_announce=2, arp_ignore=1 or 2, arp_filter=1 in effect on ${good.join(', ')}`, [], ''));
    return out;
  },
};

const rpFilter: Check = {
  id: 'ARP-003',
  title: 'rp_filter is loose (2) unless each NIC has policy routing',
  family: 'arp',
  run(ctx) {
    const pre = preconditions(ctx, 'rp_filter', true);
    if (pre) return pre;
    const kernel = ctx.snapshot.kernel!;
    const allUnreadable = allConfError(kernel, ['rp_filter']);
    if (allUnreadable) return unknownResult('rp_filter', allUnreadable);
    const out: Outcome[] = [];
    const good: string[] = [];
    for (const { netdev, addrs } of memberNetdevs(groupsOf(ctx))) {
      const v = effectiveValue(kernel, netdev, 'rp_filter');
      if ('error' in v) {
        out.push(unknownResult(`rp_filter of ${netdev}`, v.error));
        continue;
      }
      const ev = confEvidence(netdev, v);
      if (v.effective !== 1) {
        good.push(`${netdev} (rp_filter=${v.effective})`);
        continue;
      }
      const dec = routeDecisions(ctx.snapshot);
      if ('error' in dec) {
        out.push(unknownResult(`strict rp_filter on ${netdev}`, dec.error, ev));
        continue;
      }
      const wrong = addrs.filter((a) => dec.get(a.address)?.dev !== netdev);
      if (wrong.length === 0) {
        good.push(`${netdev} (strict, routed back through itself)`);
        continue;
      }
      for (const a of wrong) append(ev, decisionEvidence(kernel, dec.get(a.address)!));
      const via = wrong.map((a) => `${a.address} → ${dec.get(a.address)?.dev ?? 'nothing'}`).join(', ');
      out.push(
        result(
          'error',
          `${netdev}: strict rp_filter=1, but the kernel routes this NIC's traffic back through another device (${via})`,
          ev,
          'Strict reverse-path filtering drops packets, ARP requests included, that arrive on a NIC other than the one the kernel would reply through; without source-based policy routing that is every rail but one, so peers cannot resolve this NIC and its QPs time out.',
          withFixes(run([sysctlArgv([[netdev, 'rp_filter', 2]])]), ['rp-filter', 'policy-routing']),
        ),
      );
    }
    if (good.length) out.unshift(result('ok', `rp_filter safe on ${good.join(', ')}`, [], ''));
    return out;
  },
};

const policyRoutingCheck: Check = {
  id: 'ARP-004',
  title: 'Source-based policy routing for each RDMA netdev sharing a subnet',
  family: 'arp',
  run(ctx) {
    const pre = preconditions(ctx, 'policy routing', true);
    if (pre) return pre;
    const kernel = ctx.snapshot.kernel!;
    const dec = routeDecisions(ctx.snapshot);
    const needs = routingNeeds(ctx.snapshot);
    if ('error' in dec) return unknownResult('policy routing', dec.error);
    if ('error' in needs) return unknownResult('policy routing', needs.error);
    const out: Outcome[] = [];
    const good: string[] = [];
    needs.forEach(({ netdev, addrs, group, wrong, unsure, table: t }) => {
      if (wrong.length === 0) {
        const d = dec.get(addrs[0]!.address)!;
        good.push(`${netdev} (${d.rule && d.rule.table !== 'main' ? `table ${d.rule.table}` : 'main table'})`);
        return;
      }
      const ev: Evidence[] = wrong.flatMap((a) => decisionEvidence(kernel, dec.get(a.address)!));
      if (unsure) {
        out.push(unknownResult(`policy routing of ${netdev}`, unsure, ev));
        return;
      }
      const af = effectiveValue(kernel, netdev, 'arp_filter');
      const arpFilterOn = !('error' in af) && af.effective === 1;
      if (!('error' in af)) append(ev, confEvidence(netdev, af));
      const cmds = policyRoutingCommands({ netdev, addrs, group, wrong, unsure, table: t })!;
      const via = wrong.map((a) => `${a.address} → ${dec.get(a.address)!.dev ?? 'no route'}`).join(', ');
      out.push(
        result(
          arpFilterOn ? 'error' : 'warn',
          `${netdev}: no source-based policy routing; traffic from its address leaves through another device (${via})${arpFilterOn ? ', and with arp_filter=1 this NIC does not answer ARP for its own address' : ''}`,
          ev,
          arpFilterOn
            ? 'arp_filter=1 answers an ARP request only if the reply would leave through the NIC that received it; without `ip rule from <ip> lookup <table>` the reply routes through the first rail, so nobody answers for this NIC and its QPs fail with IBV_WC_RETRY_EXC_ERR (status 12).'
            : 'Without `ip rule from <ip> lookup <table>` every rail replies and sends through the first connected route, so socket traffic collapses onto one NIC (NVIDIA/nccl#1269), arp_filter=1 cannot be used and strict rp_filter drops this rail.',
          withFixes(run(cmds), ['policy-routing']),
        ),
      );
    });
    if (good.length) out.unshift(result('ok', `traffic from each address leaves through its own NIC: ${good.join(', ')}`, [], ''));
    return out;
  },
};

export const arpChecks: Check[] = [sharedSubnet, arpSysctls, rpFilter, policyRoutingCheck];
