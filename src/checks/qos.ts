// QoS checks: root qdiscs on NCCL's socket interfaces, DSCP marking in
// nftables / iptables, NCCL_IB_TC against the DSCP the site marks
// (docs/nccl/qos.md §1: TC = DSCP × 4, DSCP = TC >> 2), and NCCLX's
// NCCL_SOCKET_TOS_CONFIG. The marking rules are read by src/model/linux/dscp.ts.
//
// tc and netfilter only ever see packets of the kernel's IP stack — NCCL's
// TCP sockets (bootstrap, IB out-of-band, NET/Socket). RoCE data is built by
// the NIC and never passes through them; its class is NCCL_IB_TC. NCCL's
// sockets listen on ephemeral ports (§1.9), so port-based rules cannot select
// NCCL traffic: 29500–29999 is PyTorch's TCPStore.

import { dscpLabel, intendedDscp, isEgress, localPortRange, markingInventory, markingKnown, siteDscps, type MarkingRule } from '../model/linux/dscp.js';
import { rdmaLinkLayer, rdmaNetdevs, rdmaUnknownReason } from '../model/linux/rdma-netdevs.js';
import { captureFailure, commandEvidence, NO_KERNEL_PART } from '../model/linux/routes.js';
import type { Check, CheckContext } from '../model/doctor/types.js';
import { parseNcclInt } from '../model/nccl/cint.js';
import { socketLinks } from '../model/nccl/socket-links.js';
import { result, run, setEnv, unknownResult, withFixes } from '../model/result/build.js';
import type { Evidence, Outcome, Remediation } from '../model/result/types.js';
import type { TcQdiscJson } from '../model/snapshot/kernel-types.js';
import { isOwnQdisc } from '../model/fix/describe.js';
import { append } from '../model/list.js';

const socketLinksOf = (ctx: CheckContext) => socketLinks(ctx.snapshot, ctx.selection);
/** The NICs the site's marking is judged on: the RDMA netdevs and NCCL's socket links. */
const nicsOf = (ctx: CheckContext) => new Set([...rdmaNetdevs(ctx.snapshot).map((r) => r.netdev), ...socketLinksOf(ctx)]);

function commIdPort(ctx: CheckContext): number | null {
  const v = ctx.reasoning.env.vars['NCCL_COMM_ID'];
  const m = v ? /:(\d+)$/.exec(v) : null;
  return m ? Number(m[1]) : null;
}

// nft parses its arguments itself: names beyond [A-Za-z0-9_.-] need nft's own double quotes.
const nftString = (s: string) => (/^[A-Za-z0-9_.-]+$/.test(s) ? s : `"${s.replace(/(["\\])/g, '\\$1')}"`);

/** How to mark NCCL's sockets for real: NCCLX sets the TOS itself; otherwise mark by outgoing interface. */
function markingRemediation(ctx: CheckContext, dscp: number): Remediation | null {
  if (ctx.reasoning.profile.version.vendor === 'ncclx') return withFixes(setEnv({ NCCL_SOCKET_TOS_CONFIG: String(dscp * 4) }), ['dscp-marking']);
  const links = socketLinksOf(ctx);
  if (links.length === 0) return withFixes(null, ['dscp-marking']);
  return withFixes(
    run([
      ['nft', 'add', 'table', 'inet', 'ncclx_qos'],
      ['nft', 'add', 'chain', 'inet', 'ncclx_qos', 'output', '{ type filter hook output priority mangle; }'],
      ...links.map((l) => ['nft', 'add', 'rule', 'inet', 'ncclx_qos', 'output', 'oifname', nftString(l), 'meta', 'l4proto', 'tcp', 'ip', 'dscp', 'set', String(dscp)]),
    ]),
    ['dscp-marking'],
  );
}

// Evidence of one qdisc of one capture: written once (the doctor runs again for every environment and kernel change it verifies advice under).
const qdiscEvidenceMemo = new WeakMap<object, WeakMap<object, Evidence>>();

function qdiscEvidence<Q extends object>(capture: Parameters<typeof commandEvidence>[0], q: Q): Evidence {
  let byQdisc = qdiscEvidenceMemo.get(capture);
  if (!byQdisc) qdiscEvidenceMemo.set(capture, (byQdisc = new WeakMap()));
  let ev = byQdisc.get(q);
  if (!ev) byQdisc.set(q, (ev = commandEvidence(capture, JSON.stringify(q))));
  return ev;
}

const LEADING_ZEROS = /^0+(?=.)/;

/**
 * A qdisc handle's major number as text without leading zeros: tc prints the
 * default mq as handle "0:" and its children with parent ":1"…":N" (empty = 0).
 */
function handleMajor(h: string): string {
  const colon = h.indexOf(':');
  return (h.slice(0, colon < 0 ? h.length : colon) || '0').replace(LEADING_ZEROS, '');
}

// ---------------------------------------------------------------------------
// QOS-001: root qdiscs

const SHAPING = new Set(['tbf', 'netem']);
const CLASSFUL_OR_AQM = new Set(['htb', 'hfsc', 'cbq', 'drr', 'qfq', 'ets', 'red', 'gred', 'choke', 'sfb', 'pie', 'fq_pie', 'cake', 'codel', 'multiq', 'taprio', 'mqprio', 'cbs', 'etf']);

function describeQdisc(q: TcQdiscJson): string {
  const o = q.options ?? {};
  const bits: string[] = [];
  for (const k of ['rate', 'burst', 'limit', 'delay', 'loss', 'default', 'bandwidth']) {
    const v = o[k];
    if (v !== undefined && typeof v !== 'object') bits.push(`${k} ${String(v)}`);
    else if (v && typeof v === 'object' && 'delay' in (v as object)) bits.push(`${k} ${JSON.stringify(v)}`);
  }
  return `${q.kind}${q.handle ? ` ${q.handle}` : ''}${bits.length ? ` (${bits.join(', ')})` : ''}`;
}

const rootQdisc: Check = {
  id: 'QOS-001',
  title: 'Root qdisc of each interface NCCL uses',
  family: 'qos',
  run(ctx) {
    const kernel = ctx.snapshot.kernel;
    if (!kernel) return unknownResult('root qdiscs', NO_KERNEL_PART);
    const links = socketLinksOf(ctx);
    if (links.length === 0) return result('ok', 'NCCL selects no socket interface (see SOCK-001): no qdisc to report', [], '');
    if (!kernel.qdiscs.ok) return unknownResult('root qdiscs', captureFailure(kernel.qdiscs));
    const all = kernel.qdiscs.data;
    const out: Outcome[] = [];
    const fine: string[] = [];
    const fineEv: Evidence[] = [];
    for (const link of links) {
      const mine = all.filter((q) => q.dev === link);
      const root = mine.find((q) => q.root === true);
      if (!root) {
        fine.push(`${link}: none listed`);
        continue;
      }
      // Under a multiqueue root (mq), each queue has its own child qdisc.
      const rootMajor = root.handle ? handleMajor(root.handle) : null;
      const children = rootMajor !== null ? mine.filter((q) => q !== root && q.parent !== undefined && handleMajor(q.parent) === rootMajor) : [];
      const kinds = [root, ...children];
      const ev = kinds.map((q) => qdiscEvidence(kernel.qdiscs, q));
      const shaping = kinds.filter((q) => SHAPING.has(q.kind));
      const classful = kinds.filter((q) => CLASSFUL_OR_AQM.has(q.kind));
      const desc = `${describeQdisc(root)}${children.length ? ` over ${[...new Set(children.map((c) => c.kind))].join(', ')}` : ''}`;
      if (isOwnQdisc(root)) {
        // What `ncclx fix --only qdisc-priority` installed: marked traffic first, nothing to report.
        fine.push(`${link}: ncclx's priority qdisc (${desc})`);
        append(fineEv, ev);
        continue;
      }
      if (shaping.length) {
        out.push(
          result(
            'warn',
            `${link}: ${desc} — ${shaping.map(describeQdisc).join('; ')} limits or delays NCCL's socket traffic`,
            ev,
            `${shaping[0]!.kind === 'netem' ? 'netem adds delay or loss' : 'tbf caps the rate'} for every TCP connection on ${link}: NCCL's bootstrap, IB out-of-band handshakes and NET/Socket data. It never touches RoCE.`,
            withFixes(run([['tc', 'qdisc', 'del', 'dev', link, 'root']]), ['qdisc-priority']),
          ),
        );
      } else if (classful.length) {
        out.push(
          result(
            'info',
            `${link}: ${desc} — classful or dropping qdisc; NCCL's sockets use ephemeral ports, so only interface- or address-based filters can class them`,
            ev,
            'A classful qdisc puts unclassified traffic in its default class; NCCL cannot be classified by port (docs/nccl/socket.md §9). It applies to TCP only, never RoCE.',
            withFixes(null, ['qdisc-priority']),
          ),
        );
      } else {
        fine.push(`${link}: ${desc}`);
        append(fineEv, ev);
      }
    }
    if (fine.length) out.unshift(result('ok', `no shaping on NCCL's interfaces (${fine.join('; ')})`, fineEv, ''));
    return out;
  },
};

// ---------------------------------------------------------------------------
// QOS-002: DSCP marking rules

const STORE_PORTS: [number, number] = [29400, 29999];

const covers = (ranges: [number, number][], lo: number, hi: number) => {
  // Merge and check that [lo, hi] is covered.
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  let reach = lo - 1;
  for (const [a, b] of sorted) {
    if (a > reach + 1) break;
    reach = Math.max(reach, b);
  }
  return reach >= hi;
};

function describeRule(r: MarkingRule): string {
  const sel = [
    ...(r.proto ? [r.proto] : []),
    ...r.ifaces.map((i) => `on ${i}`),
    ...r.addrs,
    ...r.ports.map((p) => `${p.negated ? 'not ' : ''}${p.dir} ${p.ranges.map(([a, b]) => (a === b ? `${a}` : `${a}-${b}`)).join(',')}`),
  ];
  return `${r.source} ${r.location}: ${sel.length ? sel.join(' ') : 'all traffic'} → DSCP ${r.dscp !== null ? dscpLabel(r.dscp) : r.dscpText}`;
}

const dscpMarking: Check = {
  id: 'QOS-002',
  title: 'DSCP marking rules (nftables / iptables) and what they catch',
  family: 'qos',
  run(ctx) {
    const inv = markingInventory(ctx.snapshot.kernel);
    if (!inv) return unknownResult('DSCP marking rules', NO_KERNEL_PART);
    const out: Outcome[] = inv.unreadable.map((u) => unknownResult(`DSCP marking in ${u.what}`, u.reason, [u.evidence]));
    if (inv.read.length === 0 && inv.unreadable.length === 0) {
      return unknownResult('DSCP marking rules', `none of nft, iptables-save, ip6tables-save could be read (${inv.missing.join('; ')})`);
    }
    const [eLo, eHi] = localPortRange(ctx.snapshot.kernel);
    const cPort = commIdPort(ctx);
    const links = socketLinksOf(ctx);
    // Whether rules already mark NCCL's sockets with a DSCP: egress rules without port selection that, together,
    // cover every interface NCCL uses (one rule per interface, as the remediation writes them, or one for all).
    const marksNccl = (dscp: number | null) => {
      if (dscp === null || links.length === 0) return false;
      const by = inv.rules.filter((o) => o.dscp === dscp && isEgress(o) && o.ports.length === 0);
      return links.every((l) => by.some((o) => o.ifaces.length === 0 || o.ifaces.includes(l)));
    };
    for (const r of inv.rules) {
      const summary = describeRule(r);
      const ev = [r.evidence];
      if (!isEgress(r)) {
        out.push(result('info', `${summary} — in ${r.hook}, so it marks packets this node receives, not what it sends`, ev, 'DSCP set on ingress does not change what this node sends.'));
        continue;
      }
      const portSel = r.ports.filter((p) => !p.negated);
      if (portSel.length) {
        const ranges = portSel.flatMap((p) => p.ranges);
        const storeOnly = ranges.every(([a, b]) => a >= STORE_PORTS[0] && b <= STORE_PORTS[1]);
        const ephemeral = covers(ranges, eLo, eHi);
        const commId = cPort !== null && ranges.some(([a, b]) => a <= cPort && cPort <= b);
        const rem = r.dscp !== null ? markingRemediation(ctx, r.dscp) : withFixes(null, ['dscp-marking']);
        if (!ephemeral && !commId && marksNccl(r.dscp)) {
          // The port rule misses NCCL, but another rule marks NCCL's sockets with the same DSCP: nothing is left unmarked.
          out.push(result('info', `${summary} — port-based, but NCCL's sockets are marked DSCP ${dscpLabel(r.dscp!)} by an interface rule`, ev, 'NCCL binds every socket to port 0 (an ephemeral port); an interface-based rule with the same DSCP marks its traffic.'));
        } else if (ephemeral) {
          out.push(result('info', `${summary} — covers the whole ephemeral range ${eLo}-${eHi}: NCCL's sockets, and every other client connection`, ev, 'NCCL listens on ephemeral ports, so only a rule over the whole ip_local_port_range catches it by port — together with everything else on the node.'));
        } else if (storeOnly) {
          out.push(
            result(
              'warn',
              `${summary} — catches only PyTorch's TCPStore / rendezvous (MASTER_PORT), not NCCL`,
              ev,
              'NCCL binds every socket to port 0 and gets an ephemeral port (docs/nccl/socket.md §9); 29500-29999 is PyTorch\'s store, so NCCL\'s traffic leaves unmarked.',
              rem,
            ),
          );
        } else if (commId) {
          out.push(result('info', `${summary} — catches connections to the NCCL_COMM_ID port ${cPort} (bootstrap root) only`, ev, 'With NCCL_COMM_ID rank 0 listens on that port; every other NCCL socket uses an ephemeral port.', rem));
        } else {
          out.push(result('warn', `${summary} — port-based: NCCL's sockets use ephemeral ports, so this does not select NCCL traffic`, ev, 'NCCL binds every socket to port 0; the kernel assigns a port from ip_local_port_range, different on every run.', rem));
        }
        continue;
      }
      const touches = r.ifaces.length === 0 || r.ifaces.some((i) => links.includes(i));
      out.push(
        touches
          ? result('ok', `${summary} — marks NCCL's socket traffic${r.ifaces.length ? '' : ' (and everything else)'}`, ev, '')
          : result('info', `${summary} — not on an interface NCCL uses (${links.join(', ') || 'none'})`, ev, 'The rule is limited to interfaces NCCL does not select.'),
      );
    }
    if (inv.rules.length === 0 && out.length === 0) {
      out.push(result('ok', `no DSCP marking rules (read: ${inv.read.join('; ')}${inv.missing.length ? `; ${inv.missing.join('; ')}` : ''})`, [], ''));
    }
    return out;
  },
};

// ---------------------------------------------------------------------------
// QOS-003: NCCL_IB_TC against the site's DSCP

function envEvidence(ctx: CheckContext, name: string): Evidence {
  const o = ctx.reasoning.env.origins[name];
  const value = `${name}=${ctx.reasoning.env.vars[name] ?? ''}`;
  if (o?.source === 'conf') return { kind: 'file', source: `${o.path}:${o.line}`, value };
  return { kind: 'value', source: o?.source === 'flag' ? o.flag : 'environment', value };
}

const ibTc: Check = {
  id: 'QOS-003',
  title: 'NCCL_IB_TC agrees with the DSCP the site marks',
  family: 'qos',
  run(ctx) {
    const raw = ctx.reasoning.env.vars['NCCL_IB_TC'];
    // ≥ 2.26.2 the default is -1 ("unset": the communicator's trafficClass, else 0); 0 before.
    const dflt = ctx.reasoning.profile.ibTcDefaultUnset ? -1 : 0;
    const p = parseNcclInt(raw, dflt);
    const set = raw !== undefined && raw !== '' && p.value !== -1;
    const tc = set ? p.value & 0xff : 0;
    const dscp = tc >> 2;
    const ecn = tc & 3;
    const ev: Evidence[] = raw !== undefined ? [envEvidence(ctx, 'NCCL_IB_TC')] : [];
    const noRdma = rdmaUnknownReason(ctx.snapshot);
    const roce = noRdma ? null : rdmaNetdevs(ctx.snapshot).some((r) => rdmaLinkLayer(ctx.snapshot, r.dev, r.port) === 'Ethernet');
    if (roce === false) {
      return set
        ? result('info', `NCCL_IB_TC=${raw} has no effect: no RoCE port here (InfiniBand uses NCCL_IB_SL)`, ev, 'The traffic class goes only into the GRH of RoCE address vectors.')
        : result('na', 'no RoCE port: NCCL_IB_TC does not apply', [], '');
    }
    const inv = markingInventory(ctx.snapshot.kernel);
    const site = inv ? siteDscps(inv) : [];
    if (inv) for (const r of inv.rules.filter((x) => isEgress(x) && x.dscp !== null)) ev.push(r.evidence);
    const notes: string[] = [];
    if (set && p.value > 255) notes.push(`NCCL stores TC in 8 bits: ${p.value} becomes ${tc}`);
    if (set && ecn) notes.push(`the low two bits (${ecn}) are ECN${ecn === 3 ? ': 3 marks every packet Congestion Experienced' : ecn === 2 ? ' (ECT(0), as in the common NCCL_IB_TC=106)' : ''}`);
    const tcText = set ? `NCCL_IB_TC=${raw} (TC ${tc} → DSCP ${dscpLabel(dscp)})` : `NCCL_IB_TC ${raw === undefined ? 'unset' : `=${raw}`} (RoCE TC 0, DSCP 0${dflt === -1 ? ', unless the application sets ncclConfig_t.trafficClass' : ''})`;
    const why = 'RoCE packets carry the GRH traffic class NCCL_IB_TC = DSCP × 4 (the sending side decides from NCCL 2.26.2); switches class RoCE by that DSCP, so it must be the value the fabric is configured for.';
    const note = notes.length ? `; ${notes.join('; ')}` : '';
    if (!inv || !markingKnown(inv)) {
      const reason = inv ? `no DSCP marking source could be read (${inv.missing.join('; ') || inv.unreadable.map((u) => u.reason).join('; ')})` : NO_KERNEL_PART;
      if (!set) return unknownResult('NCCL_IB_TC vs site DSCP', reason, ev);
      return result(ecn === 3 || p.value > 255 ? 'warn' : 'info', `${tcText}; the site's DSCP marking is unknown: ${reason}${note}`, ev, why);
    }
    if (site.length === 0) {
      if (!set) return result('ok', `${tcText}; the site marks no DSCP on sockets`, ev, '');
      return result(ecn === 3 || p.value > 255 ? 'warn' : 'info', `${tcText}; no socket DSCP marking found to compare with — the fabric's RoCE class must use DSCP ${dscp}${note}`, ev, why);
    }
    const siteText = site.map(dscpLabel).join(', ');
    const meant = intendedDscp(inv, nicsOf(ctx));
    if (!set) {
      return result('warn', `${tcText}, while the site marks DSCP ${siteText}`, ev, why, meant !== null ? setEnv({ NCCL_IB_TC: String(meant * 4) }) : null);
    }
    if (!site.includes(dscp)) {
      return result('warn', `${tcText} does not match the DSCP the site marks (${siteText})${note}`, ev, why, meant !== null ? setEnv({ NCCL_IB_TC: String(meant * 4 + ecn) }) : null);
    }
    return result(ecn === 3 || p.value > 255 ? 'warn' : 'ok', `${tcText} matches the site's DSCP marking${note}`, ev, ecn === 3 || p.value > 255 ? why : '');
  },
};

// ---------------------------------------------------------------------------
// QOS-004: what tc and iptables can and cannot touch

const scope: Check = {
  id: 'QOS-004',
  title: 'tc / iptables reach NCCL\'s TCP sockets only, never RoCE; NCCL ports are ephemeral',
  family: 'qos',
  run(ctx) {
    const [lo, hi] = localPortRange(ctx.snapshot.kernel);
    const kernel = ctx.snapshot.kernel;
    const ev: Evidence[] = kernel ? [{ kind: 'file', source: '/proc/sys/net/ipv4/ip_local_port_range', value: typeof kernel.localPortRange === 'string' ? kernel.localPortRange : kernel.localPortRange.error }] : [];
    const inv = markingInventory(ctx.snapshot.kernel);
    const configured =
      (inv?.rules.length ?? 0) > 0 ||
      ctx.reasoning.env.vars['NCCL_IB_TC'] !== undefined ||
      ctx.reasoning.env.vars['NCCL_SOCKET_TOS_CONFIG'] !== undefined ||
      (kernel?.qdiscs.ok ? kernel.qdiscs.data.some((q) => q.root && (SHAPING.has(q.kind) || CLASSFUL_OR_AQM.has(q.kind))) : false);
    const text = `tc qdiscs and nftables/iptables act only on NCCL's TCP sockets (bootstrap, IB out-of-band, NET/Socket); RoCE data bypasses both — its class is NCCL_IB_TC. NCCL listens on ephemeral ports (${lo}-${hi}), so a rule for ports 29500-29999 catches PyTorch's TCPStore, not NCCL`;
    if (configured) return result('info', text, ev, 'RoCE frames are built by the NIC from the QP\'s address vector and never enter the kernel\'s IP stack; NCCL binds every socket to port 0 (docs/nccl/socket.md §9).');
    // Rules that could not be read may be there: that is not a pass (the unknown says how to know).
    if (!inv || !markingKnown(inv)) return unknownResult('socket QoS rules', inv ? `the marking rules could not be read (${inv.missing.join('; ') || inv.unreadable.map((u) => u.reason).join('; ')})` : NO_KERNEL_PART, ev);
    return result('na', `no socket QoS configured: nothing for tc / iptables to get wrong (${lo}-${hi} are NCCL's ephemeral ports)`, ev, '');
  },
};

// ---------------------------------------------------------------------------
// QOS-005: NCCLX NCCL_SOCKET_TOS_CONFIG

const socketTos: Check = {
  id: 'QOS-005',
  title: 'NCCLX: NCCL_SOCKET_TOS_CONFIG marks NCCL\'s own sockets',
  family: 'qos',
  run(ctx) {
    const raw = ctx.reasoning.env.vars['NCCL_SOCKET_TOS_CONFIG'];
    if (ctx.reasoning.profile.version.vendor !== 'ncclx') {
      return result('na', `not NCCLX (${ctx.reasoning.choice.version.raw}): NCCL_SOCKET_TOS_CONFIG does not apply${raw !== undefined ? ' (ENV-001 reports it)' : ''}`, [], '');
    }
    const inv = markingInventory(ctx.snapshot.kernel);
    const site = inv ? siteDscps(inv) : [];
    const p = parseNcclInt(raw, -1);
    const ev: Evidence[] = raw !== undefined ? [envEvidence(ctx, 'NCCL_SOCKET_TOS_CONFIG')] : [];
    const why = 'NCCLX sets IP_TOS (IPv4) / IPV6_TCLASS (IPv6) on its sockets with this value, the only reliable way to mark NCCL socket traffic: its ports are ephemeral.';
    if (p.value === -1) {
      if (site.length === 0) return result('ok', 'NCCL_SOCKET_TOS_CONFIG unset and the site marks no DSCP', ev, '');
      const meant = intendedDscp(inv!, nicsOf(ctx));
      return result('info', `NCCL_SOCKET_TOS_CONFIG unset while the site marks DSCP ${site.map(dscpLabel).join(', ')}: NCCLX can mark its own sockets`, ev, why, meant !== null ? setEnv({ NCCL_SOCKET_TOS_CONFIG: String(meant * 4) }) : null);
    }
    const tos = p.value;
    if (tos < -1 || tos > 255) {
      const meant = inv ? intendedDscp(inv, nicsOf(ctx)) : null;
      return result('warn', `NCCL_SOCKET_TOS_CONFIG=${raw}: outside 0-255 — IPV6_TCLASS rejects it (EINVAL) and IP_TOS keeps only the low byte`, ev, why, meant !== null ? setEnv({ NCCL_SOCKET_TOS_CONFIG: String(meant * 4) }) : null);
    }
    const dscp = tos >> 2;
    const ecnNote = tos & 3 ? `; the low two bits (${tos & 3}) are ECN, which the kernel manages itself for TCP` : '';
    if (site.length && !site.includes(dscp)) {
      const meant = intendedDscp(inv!, nicsOf(ctx));
      return result('warn', `NCCL_SOCKET_TOS_CONFIG=${raw} (DSCP ${dscpLabel(dscp)}) differs from the DSCP the site marks (${site.map(dscpLabel).join(', ')})${ecnNote}`, ev, why, meant !== null ? setEnv({ NCCL_SOCKET_TOS_CONFIG: String(meant * 4) }) : null);
    }
    return result('ok', `NCCL_SOCKET_TOS_CONFIG=${raw}: NCCLX marks its sockets with DSCP ${dscpLabel(dscp)}${ecnNote}`, ev, '');
  },
};

export const qosChecks: Check[] = [rootQdisc, dscpMarking, ibTc, scope, socketTos];
