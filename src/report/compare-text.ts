// `ncclx compare` as text: the symmetric set, the rail plan, the mesh, the
// bootstrap and the findings, flutter-doctor marks like `ncclx doctor`.
// Large comparisons print one consensus row per rail and name only the nodes
// that differ; small ones print every node.

import type { Severity } from '../model/result/types.js';
import { fixLines, remediationJson, remediationLines } from './remediation.js';
import type { Style } from './style.js';
import { columnWidths } from './table.js';
import type { CompareReport } from '../model/compare/analyze.js';
import { nameList, plural } from '../model/compare/groups.js';
import { RAIL_FIELDS, type RailCell, type RailField, type RailRow } from '../model/compare/rails.js';
import type { ValueGroup } from '../model/compare/types.js';
import { append } from '../model/list.js';

const MARK: Record<Severity, string> = { na: '-', ok: '✓', info: 'i', warn: '!', error: '✗', unknown: '?' };

function mark(sev: Severity, s: Style): string {
  const m = MARK[sev];
  return sev === 'ok' ? s.ok(m) : sev === 'error' ? s.err(m) : sev === 'warn' || sev === 'unknown' ? s.warn(m) : s.dim(m);
}

/** Columns padded to their widest cell (styling is applied after padding). */
function table(rows: string[][], indent = '  ', styleCell?: (r: number, c: number, text: string) => string): string[] {
  const widths = columnWidths(rows, (c) => [...c].length);
  return rows.map((r, ri) =>
    (
      indent +
      r
        .map((c, i) => {
          const padded = i === r.length - 1 ? c : c + ' '.repeat(Math.max(0, widths[i]! - [...c].length));
          return styleCell ? styleCell(ri, i, padded) : padded;
        })
        .join('  ')
    ).trimEnd(),
  );
}

const v = (x: unknown): string => (x === null || x === undefined ? '-' : String(x));
const rateShort = (r: string | null) => (r ? r.replace(/ Gb\/sec.*$/, 'G') : '-');
const groupsText = <T>(gs: ValueGroup<T>[], show: (x: T) => string = (x) => v(x)): string => gs.map((g) => `${show(g.value)} (${g.count})`).join(', ');

const HEAD: Record<RailField, string> = { hca: 'HCA', netdev: 'netdev', subnet: 'subnet', mtu: 'MTU', rate: 'rate', linkLayer: 'link', gidIndex: 'GID', gidType: 'GID type' };

function cellValue(c: RailCell, f: RailField): string {
  if (f === 'rate') return rateShort(c.rate);
  return v(c[f]);
}

function railBlock(row: RailRow, s: Style): string[] {
  const out: string[] = [];
  const majority = (f: RailField) => row.values[f][0]?.value;
  out.push(`  ${s.bold(`rail ${row.rail}`)}${row.missingOn.length ? s.err(`  missing on ${nameList(row.missingOn)}`) : ''}${row.mismatches.length ? s.warn(`  differs: ${row.mismatches.map((f) => HEAD[f]).join(', ')}`) : ''}`);
  if (!row.perNode) return out;
  const header = ['node', 'HCA', 'netdev', 'IPv4', 'subnet', 'MTU', 'rate', 'link', 'GID', 'GID type'];
  const colField: (RailField | 'ipv4' | 'node')[] = ['node', 'hca', 'netdev', 'ipv4', 'subnet', 'mtu', 'rate', 'linkLayer', 'gidIndex', 'gidType'];
  // A cell that differs from the rail's most common value is marked ≠.
  const rows = row.perNode.map((c) =>
    colField.map((f) => {
      if (f === 'node') return c.node;
      if (f === 'ipv4') return v(c.ipv4);
      const text = cellValue(c, f);
      return row.mismatches.includes(f) && (f === 'rate' ? c.rate : c[f]) !== majority(f) ? `${text} ≠` : text;
    }),
  );
  append(out, table([header, ...rows], '    ', (ri, _ci, text) => (ri === 0 ? s.dim(text) : text.includes(' ≠') ? s.err(text) : text)));
  return out;
}

function consensusRails(rails: RailRow[], s: Style): string[] {
  const header = ['rail', 'nodes', ...RAIL_FIELDS.map((f) => HEAD[f]), 'differs'];
  const rows = rails.map((r) => [
    String(r.rail),
    String(r.nodes),
    ...RAIL_FIELDS.map((f) => {
      const gs = r.values[f];
      const top = f === 'rate' ? rateShort((gs[0]?.value as string | null) ?? null) : v(gs[0]?.value);
      return gs.length > 1 ? `${top} ≠${gs.slice(1).reduce((n, g) => n + g.count, 0)}` : top;
    }),
    r.mismatches.map((f) => HEAD[f]).join(',') || '-',
  ]);
  return table([header, ...rows], '  ', (ri, _ci, text) => (ri === 0 ? s.dim(text) : text.includes('≠') ? s.warn(text) : text));
}

type NodeField = 'ncclVersion' | 'network' | 'rails' | 'netDevices' | 'bootstrap' | 'gdr';
const NODE_FIELDS: [NodeField, string][] = [['ncclVersion', 'NCCL'], ['network', 'network'], ['rails', 'rails'], ['netDevices', 'NET devs'], ['bootstrap', 'bootstrap'], ['gdr', 'GPUDirect RDMA']];

/** The most common value of each field, and each node's differences from it: the outliers first, the rest in one line. */
function outlierNodes(r: CompareReport, s: Style): string[] {
  // The bootstrap interface, not its address (every node has its own).
  const val = (n: CompareReport['nodes'][number], f: NodeField) => (f === 'bootstrap' ? v(n.bootstrap).split(' ')[0]! : v(n[f]));
  const mode = {} as Record<NodeField, string>;
  for (const [f] of NODE_FIELDS) {
    const counts = new Map<string, number>();
    for (const n of r.nodes) counts.set(val(n, f), (counts.get(val(n, f)) ?? 0) + 1);
    mode[f] = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]![0];
  }
  const diffs = r.nodes
    .map((n) => ({ node: n.node, how: NODE_FIELDS.filter(([f]) => val(n, f) !== mode[f]).map(([f, label]) => `${label} ${val(n, f)} (most: ${mode[f]})`) }))
    .filter((d) => d.how.length);
  const out = ['', s.bold(`Nodes that differ (${diffs.length} of ${r.nodes.length})`)];
  // Nodes that differ the same way are said once.
  const byHow = new Map<string, string[]>();
  for (const d of diffs) byHow.set(d.how.join(', '), [...(byHow.get(d.how.join(', ')) ?? []), d.node]);
  for (const [how, nodes] of byHow) out.push(`  ${mark('warn', s)} ${nameList(nodes, 8)}: ${how}`);
  if (diffs.length === 0) out.push(`  ${mark('ok', s)} none`);
  const rest = r.nodes.length - diffs.length;
  if (rest) out.push(`  ${s.dim(`${diffs.length ? 'the other' : 'all'} ${rest}:`)} ${NODE_FIELDS.map(([f, label]) => `${label} ${mode[f]}`).join(', ')}`);
  return out;
}

/** Per rail, the values that are not the majority's, with the nodes that have them. */
function railOutliers(rails: RailRow[], s: Style): string[] {
  const out: string[] = [];
  for (const row of rails) {
    if (row.missingOn.length) out.push(`  ${mark('error', s)} rail ${row.rail} missing on ${nameList(row.missingOn, 8)}`);
    for (const f of row.mismatches) {
      const [top, ...others] = row.values[f];
      for (const g of others) {
        const value = f === 'rate' ? rateShort((g.value as string | null) ?? null) : v(g.value);
        const most = f === 'rate' ? rateShort((top?.value as string | null) ?? null) : v(top?.value);
        out.push(`  ${mark('warn', s)} rail ${row.rail} ${HEAD[f]} ${value} (most: ${most}) on ${g.nodes ? nameList(g.nodes, 8) : plural(g.count, 'node')}`);
      }
    }
  }
  return out;
}

export function renderCompareText(r: CompareReport, s: Style, verbose: boolean): string {
  const out: string[] = [];
  const versions = r.consistency.ncclVersions.map((g) => g.value).join(', ');
  out.push(`${s.bold('ncclx compare')} — ${plural(r.inputs.analysed, 'node')}${r.inputs.skipped.length ? `, ${s.err(`${r.inputs.skipped.length} skipped`)}` : ''} — NCCL ${versions || '-'}`);

  if (r.inputs.skipped.length) {
    out.push('', s.bold('Inputs skipped'));
    for (const k of r.inputs.skipped) out.push(`  ${mark('error', s)} ${k.file}: ${k.problem}`);
  }

  if (r.nodes.length && verbose) {
    out.push('', s.bold('Nodes'));
    append(out, table([['node', 'NCCL', 'network', 'rails', 'NET devs', 'bootstrap', 'GDR'].map((h) => h), ...r.nodes.map((n) => [n.node, n.versionAssumed ? `? (${n.ncclVersion})` : n.ncclVersion, n.network, String(n.rails), String(n.netDevices), v(n.bootstrap), n.gdr])], '  ', (ri, _c, t) => (ri === 0 ? s.dim(t) : t)));
  } else if (r.nodes.length) append(out, outlierNodes(r, s));

  const sym = r.symmetric;
  out.push('', s.bold('Symmetric RDMA set'));
  if (sym.netdevs.length) {
    out.push(`  ${sym.peerIfacesLine}`);
    out.push(`  NCCL_IB_HCA=${sym.ncclIbHca ?? s.warn('(no single value: HCA names differ)')}`);
    for (const g of sym.ncclIbHcaByNode) out.push(`    ${g.value} on ${g.count === 1 ? g.nodes[0] : `${g.count} nodes (${nameList(g.nodes, 3)})`}`);
    for (const e of sym.exports) out.push(`  ${s.dim('$')} ${e}`);
  } else {
    out.push(`  ${s.warn('no RDMA netdev is usable on every node')}`);
  }
  for (const e of sym.notEverywhere) out.push(`  ${s.warn('not everywhere:')} ${e.netdev} usable on ${e.usableOn}/${r.inputs.analysed}${e.missingOn ? `, missing on ${nameList(e.missingOn)}` : `, only on ${nameList(e.onlyOn ?? [])}`}`);
  if (sym.majority) out.push(`  ${s.dim('without')} ${nameList(sym.majority.excluded)}: RDMA_PEER_IFACES=${sym.majority.netdevs.join(' ')} on ${sym.majority.nodes} nodes`);
  const dropLimit = verbose ? Infinity : 10;
  for (const pn of sym.perNode.slice(0, dropLimit)) out.push(`  ${s.dim(`dropped on ${pn.node}:`)} ${pn.dropped.map((d) => `${d.netdev} (${d.hcas.join(', ')}): ${d.reason}`).join('; ')}`);
  if (sym.perNode.length > dropLimit) out.push(`  ${s.dim(`… and ${sym.perNode.length - dropLimit} more nodes with dropped netdevs (-v or --json)`)}`);

  const rp = r.rails;
  out.push('', s.bold('Rail plan') + s.dim(`  (rail k = NCCL device [k]; devices per node: ${groupsText(rp.counts)}; fabric: ${rp.fabric})`));
  if (rp.rails.length === 0) out.push(`  ${s.dim('no node uses NCCL\'s IB transport')}`);
  else if (verbose && rp.rails.every((x) => x.perNode)) for (const row of rp.rails) append(out, railBlock(row, s));
  else {
    // One line per rail (the majority), then the nodes that differ on each rail and how.
    append(out, consensusRails(rp.rails, s));
    append(out, railOutliers(rp.rails, s));
  }

  if (r.mesh) {
    const m = r.mesh;
    out.push('', s.bold('Direct-connect mesh') + s.dim(`  (${m.detected})`));
    const pairLimit = verbose ? Infinity : 20;
    for (const p of m.pairs.slice(0, pairLimit)) {
      out.push(`  ${p.a} ↔ ${p.b}: ${p.links.map((l) => `${l.a.hca}${l.a.netdev ? ` ${l.a.netdev}` : ''} ${l.a.ipv4} ↔ ${l.b.hca}${l.b.netdev ? ` ${l.b.netdev}` : ''} ${l.b.ipv4}`).join('; ')}`);
    }
    if (m.pairs.length > pairLimit) out.push(`  ${s.dim(`… ${m.pairs.length - pairLimit} more pairs (-v or --json)`)}`);
    if (m.unreachable.count) out.push(`  ${s.warn('no common subnet:')} ${m.unreachable.pairs.slice(0, 10).map(([a, b]) => `${a}–${b}`).join(', ')}${m.unreachable.count > 10 ? ` and ${m.unreachable.count - 10} more` : ''}`);
    for (const st of m.settings) out.push(`  ${st.notOk.length ? mark('warn', s) : mark('ok', s)} ${st.variable}=${st.want}${st.notOk.length ? ` missing on ${nameList(st.notOk)}` : ' on every node'}`);
    if (m.subnetPrefixLen.recommended !== null) out.push(`  ${s.dim('links')} ${m.subnetPrefixLen.linkPrefixes.map((p) => `/${p}`).join(', ')}${s.dim(': NCCL_IB_SUBNET_PREFIX_LEN')} ${m.subnetPrefixLen.recommended}${m.subnetPrefixLen.conflicts.length ? s.warn(` (at the default 24: ${m.subnetPrefixLen.conflicts.slice(0, 2).join('; ')})`) : ''}`);
    for (const e of m.exports) out.push(`  ${s.dim('$')} ${e}`);
  }

  const b = r.bootstrap;
  out.push('', s.bold('Bootstrap'));
  out.push(`  ${s.dim('root:')} ${b.target.variable ? `${b.target.address ?? '?'}${b.target.root ? ` on ${b.target.root}` : ''}` : '-'} ${s.dim(`(${b.target.how})`)}`);
  out.push(`  ${s.dim('interfaces:')} ${groupsText(b.interfaces)}   ${s.dim('subnets:')} ${groupsText(b.subnets)}`);
  out.push(`  ${s.dim('reach:')} ${groupsText(b.reach)}`);
  const probLimit = verbose ? Infinity : 10;
  for (const p of b.problems.filter((x) => x.reach !== 'no-target').slice(0, probLimit)) out.push(`  ${p.reach === 'unreachable' || p.reach === 'no-interface' ? mark('error', s) : mark('warn', s)} ${p.node}: ${p.detail}`);

  const c = r.consistency;
  out.push('', s.bold('Consistency'));
  out.push(`  ${s.dim('NCCL:')} ${groupsText(c.ncclVersions)}   ${s.dim('GPUDirect RDMA:')} ${groupsText(c.gdr)}`);
  const differing = c.settings.filter((x) => x.values.length > 1);
  for (const st of verbose ? c.settings : differing) out.push(`  ${st.variable}: ${groupsText(st.values, (x) => JSON.stringify(x))}`);
  if (!verbose && c.settings.length > differing.length) out.push(`  ${s.dim(`${plural(c.settings.length - differing.length, 'NCCL_* setting')} identical on every node (-v to list)`)}`);

  out.push('', s.bold('Findings'));
  for (const f of r.findings) {
    if (f.checkId === 'CMP-001') continue; // listed under "Inputs skipped"
    out.push(`  ${mark(f.severity, s)} ${s.dim(f.checkId)} ${f.summary}`);
    if (!verbose) continue;
    if (f.why) out.push(`      ${s.dim('why:')} ${f.why}`);
    if (f.nodes.length) out.push(`      ${s.dim('nodes:')} ${nameList(f.nodes, 20)}`);
    append(out, fixLines(remediationLines(f.remediation), s));
  }
  const sum = r.summary;
  out.push('', `${plural(sum.errors, 'error')}, ${plural(sum.warnings, 'warning')}, ${sum.ok} ok${sum.info ? `, ${sum.info} info` : ''}${r.inputs.skipped.length ? `, ${r.inputs.skipped.length} skipped` : ''}`);
  return out.join('\n') + '\n';
}

/** `compare --json` (docs/compare-json.md): findings with the doctor's remediation shape. */
export function compareJson(r: CompareReport) {
  return { ...r, findings: r.findings.map((f) => ({ checkId: f.checkId, severity: f.severity, summary: f.summary, evidence: f.evidence, why: f.why, remediation: remediationJson(f.remediation), fixIds: f.remediation?.fixIds ?? [], nodes: f.nodes })) };
}
