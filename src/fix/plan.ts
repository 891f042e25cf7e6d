// From the doctor's results to a plan: which fixes the node needs and the
// exact operations of each. Pure: the node's data, the options and a few facts
// read beforehand (tools on PATH, schedulers the kernel has, link speeds,
// current file contents) in; a FixPlan out.

import { envPlan, readerOf } from '../model/advice/env-plan.js';
import type { CheckContext, DoctorRun } from '../model/doctor/types.js';
import { contentDigest, iptQuotable, markRules, nftQuotable } from '../model/fix/describe.js';
import { PLAN_SCHEMA, type Fix, type FixPlan, type MarkSelector, type OpSpec, type PlanFacts, type PlanOrigin } from '../model/fix/types.js';

export type { PlanFacts };
import { arpSettings, effectiveValue, memberNetdevs, routingNeeds, sharedSubnets } from '../model/linux/arp.js';
import { parseIPv4, prefixText } from '../model/linux/ip.js';
import { rdmaNetdevs } from '../model/linux/rdma-netdevs.js';
import { captureFailure } from '../model/linux/routes.js';
import { parseNcclInt } from '../model/nccl/cint.js';
import { socketLinks as selectionLinks } from '../model/nccl/socket-links.js';
import type { CheckResult, FixId } from '../model/result/types.js';
import { append } from '../model/list.js';

export { FIX_ORDER, type FixId } from '../model/result/types.js';

const socketLinks = (ctx: CheckContext) => selectionLinks(ctx.snapshot, ctx.selection);

export interface PlanOptions {
  /** Where the data came from and, live, which node: recorded in the plan (`--plan … --apply` checks it). */
  origin?: PlanOrigin;
  /** Fix ids asked for by name (--only): planned even when no finding proposes them. */
  only?: string[];
  /** Replace a multi-queue root qdisc (mq). */
  force: boolean;
  /** Also write the sysctl settings to a drop-in. */
  persist: boolean;
  sysctlFile: string;
  confFile: string;
  dscp?: number;
  markIfaces?: string[];
  markSubnets?: boolean;
  markUid?: number;
  markCgroup?: string;
  markPorts?: { lo: number; hi: number }[];
  markPortDir?: 'dport' | 'sport';
  rateMbit?: number;
}

export const DEFAULT_PLAN_OPTIONS: PlanOptions = {
  force: false,
  persist: false,
  sysctlFile: '/etc/sysctl.d/90-ncclx.conf',
  confFile: '/etc/nccl.conf',
};

/** The doctor results a fix resolves: the non-ok ones that name it. */
function resolvedBy(results: CheckResult[], id: FixId) {
  return results.filter((r) => r.severity !== 'ok' && (r.remediation?.fixIds ?? []).includes(id)).map((r) => ({ checkId: r.checkId, severity: r.severity, summary: r.summary }));
}

const confKey = (ifname: string, key: string) => `net/ipv4/conf/${ifname}/${key}`;

// ---------------------------------------------------------------------------
// Multi-rail ARP: policy routing, ARP sysctls, rp_filter

function policyRouting(ctx: CheckContext, facts: PlanFacts): { ops: OpSpec[]; notes: string[]; blocked: string | null } {
  const kernel = ctx.snapshot.kernel;
  if (!kernel || !ctx.snapshot.rdma) return { ops: [], notes: [], blocked: 'the node\'s kernel or RDMA data could not be read' };
  if (!facts.tools.ip) return { ops: [], notes: [], blocked: 'ip is not installed (apt-get install iproute2)' };
  const needs = routingNeeds(ctx.snapshot);
  if ('error' in needs) return { ops: [], notes: [], blocked: needs.error };
  if (needs.length === 0) return { ops: [], notes: [NOT_APPLICABLE_SHARED], blocked: null };
  const ops: OpSpec[] = [];
  const notes: string[] = [];
  const assigned: string[] = [];
  for (const { netdev, group, wrong, unsure, table } of needs) {
    if (unsure) notes.push(`${netdev} left alone: ${unsure}`);
    if (table === null) continue;
    // The route first, so the rule never points at an empty table.
    ops.push({ kind: 'ip-route', dst: group.subnet, dev: netdev, src: wrong[0]!.address, table });
    for (const a of wrong) ops.push({ kind: 'ip-rule', from: a.address, table });
    assigned.push(`${netdev} → ${table}`);
  }
  if (assigned.length) {
    notes.push(`one routing table per NIC, the first unused ids from 100: ${assigned.join(', ')}`);
    // --persist writes sysctls only: rules and routes live in the distribution's network configuration.
    notes.push('rules and routes last until reboot: add them to the network configuration (netplan routing-policy, NetworkManager, ifupdown) to keep them');
  }
  return { ops, notes, blocked: null };
}

function arpSysctl(ctx: CheckContext): OpSpec[] {
  const kernel = ctx.snapshot.kernel;
  if (!kernel) return [];
  const seen = new Set<string>();
  const ops: OpSpec[] = [];
  for (const { netdev } of memberNetdevs(sharedSubnets(ctx.snapshot))) {
    const need = arpSettings(kernel, netdev);
    if ('unreadable' in need) continue;
    for (const [ifname, key, value] of need.settings) {
      const k = confKey(ifname, key);
      if (seen.has(k)) continue;
      seen.add(k);
      ops.push({ kind: 'sysctl', key: k, value: String(value) });
    }
  }
  return ops;
}

function rpFilter(ctx: CheckContext): OpSpec[] {
  const kernel = ctx.snapshot.kernel;
  if (!kernel) return [];
  const needs = routingNeeds(ctx.snapshot);
  const ops: OpSpec[] = [];
  for (const { netdev } of memberNetdevs(sharedSubnets(ctx.snapshot))) {
    const v = effectiveValue(kernel, netdev, 'rp_filter');
    if ('error' in v || v.effective !== 1) continue;
    // Unknown routing counts as not routed back: loose rp_filter is the safe side.
    const routedBack = !('error' in needs) && needs.find((n) => n.netdev === netdev)!.wrong.length === 0;
    // max(all, if): setting the interface to 2 makes it loose whatever `all` holds (all ≤ 1 here).
    if (!routedBack) ops.push({ kind: 'sysctl', key: confKey(netdev, 'rp_filter'), value: '2' });
  }
  return ops;
}

// ---------------------------------------------------------------------------
// DSCP marking and the priority qdisc

/** The DSCP to mark: --dscp, else the one NCCL_IB_TC gives RoCE (so sockets and RoCE agree), else EF. */
function markingDscp(ctx: CheckContext, opts: PlanOptions): { dscp: number; notes: string[] } {
  const raw = ctx.reasoning.env.vars['NCCL_IB_TC'];
  const tc = raw !== undefined && raw !== '' ? parseNcclInt(raw, -1).value : -1;
  const tcDscp = tc >= 0 ? (tc & 0xff) >> 2 : null;
  if (opts.dscp !== undefined) {
    const notes = tcDscp !== null && tcDscp !== opts.dscp ? [`NCCL_IB_TC=${raw} gives RoCE DSCP ${tcDscp}, not ${opts.dscp}: set NCCL_IB_TC=${opts.dscp * 4} so both classes agree`] : [];
    return { dscp: opts.dscp, notes };
  }
  if (tcDscp !== null) return { dscp: tcDscp, notes: [`DSCP ${tcDscp} from NCCL_IB_TC=${raw} (TC >> 2), so socket and RoCE traffic share one class`] };
  return { dscp: 46, notes: ['DSCP 46 (EF), the default; NCCL_IB_TC is unset — `ncclx env` exports NCCL_IB_TC=184 to match once the marking is in place'] };
}

function railSubnets(ctx: CheckContext): string[] {
  const netdevs = new Set(rdmaNetdevs(ctx.snapshot).map((r) => r.netdev));
  const out = new Set<string>();
  for (const a of ctx.snapshot.network.addresses) {
    if (!netdevs.has(a.link) || a.family !== 'AF_INET') continue;
    const bytes = parseIPv4(a.address);
    if (bytes) out.add(prefixText({ bytes, len: a.prefixlen }));
  }
  return [...out];
}

function selectors(ctx: CheckContext, opts: PlanOptions): { selectors: MarkSelector[]; notes: string[] } {
  const sel: MarkSelector[] = [];
  const notes: string[] = [];
  if (opts.markIfaces?.length) append(sel, opts.markIfaces.map((iface) => ({ by: 'oif' as const, iface })));
  if (opts.markSubnets) {
    const subnets = railSubnets(ctx);
    append(sel, subnets.map((prefix) => ({ by: 'daddr' as const, prefix, family: 4 as const })));
    notes.push(subnets.length ? `destination subnets of the rails: ${subnets.join(', ')}` : 'no rail has an IPv4 subnet: --mark-subnets selects nothing');
  }
  if (opts.markUid !== undefined) sel.push({ by: 'uid', uid: opts.markUid });
  if (opts.markCgroup !== undefined) sel.push({ by: 'cgroup', path: opts.markCgroup });
  for (const p of opts.markPorts ?? []) sel.push({ by: 'ports', lo: p.lo, hi: p.hi, dir: opts.markPortDir ?? 'dport' });
  if (sel.length === 0) {
    const links = socketLinks(ctx);
    append(sel, links.map((iface) => ({ by: 'oif' as const, iface })));
    // NCCL binds every socket to port 0: the interface, not a port, identifies its traffic.
    if (links.length) notes.push(`TCP leaving ${links.join(', ')}: the interfaces NCCL's sockets use (NCCL's ports are ephemeral, so ports cannot select it)`);
  }
  return { selectors: sel, notes };
}

function dscpMarking(ctx: CheckContext, opts: PlanOptions, facts: PlanFacts): Omit<Fix, 'id' | 'title' | 'resolves'> {
  const { dscp, notes } = markingDscp(ctx, opts);
  const s = selectors(ctx, opts);
  append(notes, s.notes);
  if (ctx.reasoning.profile.version.vendor === 'ncclx') notes.push(`NCCLX can mark its own sockets instead: NCCL_SOCKET_TOS_CONFIG=${dscp * 4}`);
  if (s.selectors.length === 0) return { ops: [], notes, blocked: 'NCCL selects no socket interface here: name the traffic with --mark-iface, --mark-subnets, --mark-uid, --mark-cgroup or --mark-ports' };
  const strings = s.selectors.flatMap((x) => (x.by === 'oif' ? [x.iface] : x.by === 'cgroup' ? [x.path] : []));
  const rules = markRules(s.selectors, dscp).length;
  if (rules === 0) return { ops: [], notes, blocked: 'the selectors match nothing together (an IPv4 and an IPv6 destination in one rule)' };
  if (facts.tools.nft) {
    const bad = strings.filter((x) => !nftQuotable(x));
    if (bad.length) return { ops: [], notes, blocked: `nft cannot quote ${bad.map((b) => JSON.stringify(b)).join(', ')} (a double quote or line break)` };
    notes.push(`nftables table inet ncclx_qos, ${rules} rule(s), one per selector combination and IP family`);
    return { ops: [{ kind: 'nft-mark', table: 'ncclx_qos', dscp, selectors: s.selectors }], notes, blocked: null };
  }
  if (facts.tools.iptables) {
    const bad = strings.filter((x) => !iptQuotable(x));
    if (bad.length) return { ops: [], notes, blocked: `iptables-restore cannot quote ${bad.map((b) => JSON.stringify(b)).join(', ')}` };
    const ipv6 = facts.tools.ip6tables;
    notes.push(`nft is not installed: iptables mangle chain NCCLX_QOS instead${ipv6 ? ' (and ip6tables)' : '; ip6tables is missing, so IPv6 is not marked'}`);
    return { ops: [{ kind: 'iptables-mark', chain: 'NCCLX_QOS', dscp, selectors: s.selectors, ipv6 }], notes, blocked: null };
  }
  return { ops: [], notes, blocked: 'neither nft nor iptables is installed (apt-get install nftables)' };
}

/** Root qdisc kinds the kernel attaches by itself (handle 0:). */
const SINGLE_QUEUE_DEFAULTS = new Set(['noqueue', 'pfifo_fast', 'fq_codel', 'fq', 'sfq', 'pfifo', 'cake']);

function qdiscPriority(ctx: CheckContext, opts: PlanOptions, facts: PlanFacts): Omit<Fix, 'id' | 'title' | 'resolves'> {
  const { dscp, notes } = markingDscp(ctx, opts);
  const devs = opts.markIfaces?.length ? opts.markIfaces : socketLinks(ctx);
  if (devs.length === 0) return { ops: [], notes, blocked: 'NCCL selects no socket interface here: name one with --mark-iface' };
  if (!facts.tools.tc) return { ops: [], notes, blocked: 'tc is not installed (apt-get install iproute2)' };
  const kernel = ctx.snapshot.kernel;
  if (!kernel) return { ops: [], notes, blocked: 'the node\'s kernel data could not be read' };
  if (!kernel.qdiscs.ok) return { ops: [], notes, blocked: `the root qdiscs could not be read (${captureFailure(kernel.qdiscs)})` };
  const sched = facts.schedulers();
  const scheduler: 'prio' | 'htb' | null = sched.prio !== false ? 'prio' : sched.htb !== false ? 'htb' : null;
  if (!scheduler) return { ops: [], notes, blocked: `the kernel has neither prio nor htb (${sched.how})` };
  notes.push(
    scheduler === 'prio'
      ? `scheduler prio (${sched.prio ? sched.how : `not verified: ${sched.how}`}): DSCP ${dscp} to band 0, everything else by the default priomap`
      : `scheduler htb (the kernel has no prio: ${sched.how}): DSCP ${dscp} in class 1:10 (prio 0, may take the whole link), the rest in 1:20 (prio 1, guaranteed a tenth)`,
  );
  const ops: OpSpec[] = [];
  const refused: string[] = [];
  for (const dev of devs) {
    const root = kernel.qdiscs.data.find((q) => q.dev === dev && q.root);
    const kind = root?.kind ?? 'noqueue';
    if (root && root.handle !== '0:' && !(root.kind === scheduler && root.handle === '1:')) {
      refused.push(`${dev}: root is ${root.kind} ${root.handle ?? ''}, configured on purpose; ncclx does not replace it (it could not restore it exactly on rollback)`);
      continue;
    }
    if (kind === 'mq' && !opts.force) {
      refused.push(`${dev}: root is mq (one queue per TX ring); a single ${scheduler} root serialises every ring behind one lock — --force replaces it anyway (rollback restores mq)`);
      continue;
    }
    if (root && !SINGLE_QUEUE_DEFAULTS.has(kind) && kind !== 'mq' && kind !== scheduler) {
      refused.push(`${dev}: root ${kind} is not a kernel default`);
      continue;
    }
    let rateMbit: number | undefined;
    if (scheduler === 'htb') {
      const r = opts.rateMbit ?? facts.linkSpeedMbit(dev);
      if (!r || r <= 0) {
        refused.push(`${dev}: htb needs the link rate and ${dev} reports no speed: give --rate MBIT`);
        continue;
      }
      rateMbit = r;
      notes.push(`${dev}: htb at ${r} Mbit/s (${opts.rateMbit ? '--rate' : `/sys/class/net/${dev}/speed`})`);
    }
    ops.push({ kind: 'qdisc', dev, scheduler, dscp, replaces: kind, ...(rateMbit ? { rateMbit } : {}) });
  }
  append(notes, refused);
  notes.push('a priority qdisc acts only on traffic DSCP-marked before it (dscp-marking), and only on TCP: RoCE never passes the kernel qdisc');
  return { ops, notes, blocked: ops.length ? null : refused.join('; ') || 'nothing to do' };
}

// ---------------------------------------------------------------------------
// Config files

/** NAME=value lines NCCL reads; the first line for a name wins (setenv without overwrite), so that one is replaced. */
export function mergeNcclConf(current: string | null, vars: { name: string; value: string }[]): string {
  const lines = current === null || current === '' ? [] : current.replace(/\n$/, '').split('\n');
  const added: string[] = [];
  for (const v of vars) {
    const i = lines.findIndex((l) => !l.startsWith('#') && l.replace(/\r$/, '').split('=')[0] === v.name && l.includes('='));
    const line = `${v.name}=${v.value}`;
    if (i >= 0) {
      if (lines[i]!.replace(/\r$/, '') !== line) lines[i] = line + (lines[i]!.endsWith('\r') ? '\r' : '');
    } else added.push(line);
  }
  if (added.length) append(lines, current === null || current === '' ? ['# written by ncclx fix (see ncclx env)'] : [], added);
  return lines.length ? lines.join('\n') + '\n' : '';
}

/** `key = value` lines as sysctl.d reads them; keys compared with '/' and '.' as written. */
export function mergeSysctlConf(current: string | null, settings: { key: string; value: string }[]): string {
  const lines = current === null || current === '' ? [] : current.replace(/\n$/, '').split('\n');
  const added: string[] = [];
  for (const s of settings) {
    const i = lines.findIndex((l) => {
      const m = /^\s*-?([^#;=\s][^=]*?)\s*=/.exec(l);
      return m !== null && m[1] === s.key;
    });
    const line = `${s.key} = ${s.value}`;
    if (i >= 0) lines[i] = line;
    else added.push(line);
  }
  if (added.length) append(lines, current === null || current === '' ? ['# written by ncclx fix: ARP and rp_filter settings for multi-rail RDMA (see ncclx doctor)'] : [], added);
  return lines.length ? lines.join('\n') + '\n' : '';
}

/** The exports `ncclx env` would print, computed once per run (both the claim and the file use them). */
const envOf = (ctx: CheckContext) => ctx.memo('advice.envPlan', () => envPlan(ctx, { debug: false }));

function ncclConf(ctx: CheckContext, opts: PlanOptions, facts: PlanFacts): Omit<Fix, 'id' | 'title' | 'resolves'> {
  const plan = envOf(ctx);
  const notes: string[] = [];
  // nccl.conf sets only what NCCL reads; GLOO_SOCKET_IFNAME and RDMA_PEER_IFACES belong in the job's environment.
  const vars = plan.vars.filter((v) => readerOf(v.name).ncclConf && !/[\r\n]/.test(v.value));
  const others = plan.vars.filter((v) => !readerOf(v.name).ncclConf);
  if (others.length) notes.push(`not for nccl.conf, export in the job instead: ${others.map((v) => v.name).join(', ')}`);
  for (const v of vars) {
    const o = ctx.reasoning.env.origins[v.name];
    const cur = ctx.reasoning.env.vars[v.name];
    if (o && o.source === 'environment' && cur !== v.value) notes.push(`${v.name} is set in the environment (${cur}), which wins over ${opts.confFile}`);
    if (o && o.source === 'conf' && o.path !== opts.confFile && cur !== v.value) notes.push(`${v.name} is set in ${o.path}:${o.line}, which NCCL reads before ${opts.confFile}`);
  }
  if (vars.length === 0) return { ops: [], notes, blocked: 'ncclx env has no NCCL_* value to write' };
  const current = facts.readFile(opts.confFile);
  const content = mergeNcclConf(current, vars);
  notes.push(`${opts.confFile}: ${vars.map((v) => `${v.name}=${v.value}`).join(', ')}${current === null ? ' (new file)' : ', other lines kept'}`);
  return {
    ops: [{ kind: 'file', path: opts.confFile, content, mode: 0o644, expect: current === null ? null : contentDigest(current), what: `NCCL config: ${vars.map((v) => v.name).join(', ')}` }],
    notes,
    blocked: null,
  };
}

/**
 * Findings the nccl-conf fix really resolves: warnings and errors whose remediation
 * sets NCCL_* variables to exactly the values the planned file holds (a file
 * cannot unset a variable, so a remediation that unsets one is not resolved).
 */
function confResolves(ctx: CheckContext, results: CheckResult[]): CheckResult[] {
  const planned = new Map(envOf(ctx).vars.filter((v) => v.name.startsWith('NCCL_')).map((v) => [v.name, v.value]));
  return results.filter((r) => {
    if (r.severity !== 'warn' && r.severity !== 'error') return false;
    const env = Object.entries(r.remediation?.env ?? {});
    return env.length > 0 && !r.remediation?.commands?.length && env.every(([name, value]) => name.startsWith('NCCL_') && value !== null && planned.get(name) === value);
  });
}

// ---------------------------------------------------------------------------

const TITLES: Record<FixId, string> = {
  'policy-routing': 'Source-based policy routing, one table per RDMA netdev sharing a subnet',
  'arp-sysctl': 'ARP sysctls (arp_announce=2, arp_ignore=1, arp_filter=1) on RDMA netdevs sharing a subnet',
  'rp-filter': 'Loose rp_filter (2) where traffic is routed back through another NIC',
  'dscp-marking': 'DSCP marking of NCCL socket traffic',
  'qdisc-priority': 'Priority qdisc for DSCP-marked traffic on the socket interfaces',
  'nccl-conf': 'NCCL configuration file with the exports of `ncclx env`',
  'sysctl-persist': 'sysctl.d drop-in, so the sysctl settings survive a reboot',
};

const NOT_APPLICABLE_SHARED = 'not applicable: no two RDMA netdevs share a subnet on this node (ARP-001), so there is nothing for it to set';
/** A fix that has nothing to act on here (said once, instead of "already in place"). */
export const isNotApplicable = (note: string) => note.startsWith('not applicable:');

/** Every fix the doctor proposes, plus the ones asked for by name. */
export function planFixes(run: DoctorRun, opts: PlanOptions, facts: PlanFacts): FixPlan {
  const ctx = run.context;
  const results = run.results;
  const asked = new Set(opts.only ?? []);
  const markOpts = !!(opts.markIfaces?.length || opts.markSubnets || opts.markUid !== undefined || opts.markCgroup !== undefined || opts.markPorts?.length);
  const fixes: Fix[] = [];
  const add = (id: FixId, body: Omit<Fix, 'id' | 'title' | 'resolves'>) => fixes.push({ id, title: TITLES[id], resolves: resolvedBy(results, id), ...body });
  const wanted = (id: FixId) => asked.has(id) || resolvedBy(results, id).length > 0;

  const routing = wanted('policy-routing') || wanted('arp-sysctl') ? policyRouting(ctx, facts) : null;
  if (wanted('policy-routing')) add('policy-routing', routing!);
  // ARP sysctls and rp_filter matter only where RDMA netdevs share a subnet (ARP-001).
  const shared = ctx.snapshot.kernel && ctx.snapshot.rdma ? routingNeeds(ctx.snapshot) : null;
  const noSharing = shared !== null && !('error' in shared) && shared.length === 0;
  if (wanted('arp-sysctl')) {
    let ops = noSharing ? [] : arpSysctl(ctx);
    const notes: string[] = noSharing ? [NOT_APPLICABLE_SHARED] : [];
    // arp_filter=1 answers only where the route back leaves through the NIC: without the
    // policy routing this plan would make the other rails stop answering for their own address.
    const routingLeftOut = routing !== null && routing.ops.length > 0 && opts.only?.length && !opts.only.includes('policy-routing');
    if (routingLeftOut) {
      const dropped = ops.filter((o) => o.kind === 'sysctl' && o.key.endsWith('/arp_filter'));
      ops = ops.filter((o) => !dropped.includes(o));
      if (dropped.length) notes.push(`arp_filter=1 left out: it needs policy-routing first (add it to --only), or ${dropped.length} NIC(s) would stop answering ARP for their own address`);
    }
    add('arp-sysctl', { ops, notes, blocked: null });
  }
  if (wanted('rp-filter')) add('rp-filter', noSharing ? { ops: [], notes: [NOT_APPLICABLE_SHARED], blocked: null } : { ops: rpFilter(ctx), notes: [], blocked: null });
  if (wanted('dscp-marking') || markOpts) add('dscp-marking', dscpMarking(ctx, opts, facts));
  if (wanted('qdisc-priority')) add('qdisc-priority', qdiscPriority(ctx, opts, facts));
  const confFindings = confResolves(ctx, results);
  if (asked.has('nccl-conf') || confFindings.length) {
    const body = ncclConf(ctx, opts, facts);
    fixes.push({ id: 'nccl-conf', title: TITLES['nccl-conf'], resolves: confFindings.map((r) => ({ checkId: r.checkId, severity: r.severity, summary: r.summary })), ...body });
  }
  for (const f of fixes) if (f.ops.length === 0 && !f.blocked && !f.notes.some(isNotApplicable)) f.notes.push('nothing to change: already in place');
  return { schema: PLAN_SCHEMA, host: ctx.snapshot.host.hostname, origin: opts.origin ?? { kind: 'root', path: '(unknown)' }, fixes: selectAndPersist(fixes, opts, facts) };
}

/** Keep the fixes --only names (all when none), then add the sysctl.d drop-in for the sysctls kept. */
function selectAndPersist(fixes: Fix[], opts: PlanOptions, facts: PlanFacts): Fix[] {
  const only = opts.only?.length ? new Set(opts.only) : null;
  const kept = fixes.filter((f) => !only || only.has(f.id));
  if (!opts.persist) return kept;
  const settings = kept.filter((f) => !f.blocked).flatMap((f) => f.ops.filter((o): o is Extract<OpSpec, { kind: 'sysctl' }> => o.kind === 'sysctl'));
  if (settings.length === 0) return kept;
  const current = facts.readFile(opts.sysctlFile);
  kept.push({
    id: 'sysctl-persist',
    title: TITLES['sysctl-persist'],
    resolves: [],
    ops: [
      {
        kind: 'file',
        path: opts.sysctlFile,
        content: mergeSysctlConf(current, settings.map((s) => ({ key: s.key, value: s.value }))),
        mode: 0o644,
        expect: current === null ? null : contentDigest(current),
        what: `${settings.length} sysctl setting(s) for boot`,
      },
    ],
    notes: ['keys use / so interface names with dots (eth0.100) stay whole; systemd-sysctl and sysctl --system read both forms'],
    blocked: null,
  });
  return kept;
}
