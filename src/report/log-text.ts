// `ncclx log` as text (a summary first, then per host, then the problems with
// what to check, then the prediction) and as JSON (docs/log-json.md).

import type { Asymmetry, DetailKind, HostFacts, LogAnalysis, LogProblem } from '../model/log/analyze.js';
import type { Endpoint, IbEntry } from '../model/log/facts.js';
import type { Prediction } from '../model/log/predict.js';
import type { Style } from './style.js';
import { append } from '../model/list.js';

export interface LogInputSummary {
  name: string;
  bytes: number;
  lines: number;
  gzip: boolean;
}

export const LOG_JSON_SCHEMA = 1;

export function logJson(a: LogAnalysis, inputs: LogInputSummary[], prediction: Prediction | null): object {
  return {
    schemaVersion: LOG_JSON_SCHEMA,
    input: { files: inputs, ...a.input },
    summary: a.summary,
    hosts: a.hosts,
    ranks: a.ranks,
    asymmetries: a.asymmetries,
    prediction,
  };
}

const ep = (e: Endpoint | null) => (e ? (e.address ? `${e.ifname} ${e.address}` : e.ifname) : '-');
const ibList = (l: IbEntry[]) => l.map((d) => `[${d.index}]${d.device}:${d.port}/${d.linkLayer}`).join(' ');

/** `0-7,9,12-13` */
export function ranges(nums: number[]): string {
  const out: string[] = [];
  for (let i = 0; i < nums.length; ) {
    let j = i;
    while (j + 1 < nums.length && nums[j + 1] === nums[j]! + 1) j++;
    out.push(i === j ? String(nums[i]) : `${nums[i]}-${nums[j]}`);
    i = j + 1;
  }
  return out.join(',');
}

function names(hosts: string[], max = 6): string {
  return hosts.length <= max ? hosts.join(', ') : `${hosts.slice(0, max).join(', ')} and ${hosts.length - max} more`;
}

/** The distinct values a problem's occurrences name (model/log/analyze.ts keeps at most 8 of each). */
const DETAIL_LABELS: [DetailKind, string][] = [
  ['peer', 'peers'],
  ['localGid', 'local GIDs'],
  ['remoteGid', 'remote GIDs'],
  ['device', 'devices'],
  ['rank', 'ranks'],
  ['message', 'PyTorch says'],
];

function problemLines(p: LogProblem, s: Style, verbose: boolean): string[] {
  const mark = p.severity === 'error' ? s.err('✗') : s.warn('!');
  const where = p.hosts.length ? ` on ${names(p.hosts)}` : '';
  const out = [`${mark} ${s.bold(p.title)} ×${p.count}${where}`, `    line: ${p.line.trim()}`];
  for (const [kind, label] of DETAIL_LABELS) {
    const vs = p.details?.[kind];
    if (vs?.length) out.push(`    ${label}: ${vs.join(', ')}`);
  }
  if (p.note) out.push(`    note: ${p.note}`);
  out.push(`    means: ${p.meaning}`);
  const causes = verbose ? p.causes : p.causes.slice(0, 3);
  if (causes.length) append(out, ['    usual causes:'], causes.map((c) => `      - ${c}`));
  if (p.next.length) append(out, ['    next:'], p.next.map((n) => `      - ${n}`));
  if (verbose && p.reports.length) out.push(`    seen in: ${p.reports.join(', ')} (field reports)`);
  return out;
}

function asymmetryLines(x: Asymmetry, s: Style): string[] {
  const mark = x.severity === 'error' ? s.err('✗') : s.warn('!');
  const label: Record<Asymmetry['fact'], string> = {
    ncclVersion: 'NCCL version', transport: 'network transport', netPlugin: 'net plugin', ibCount: 'IB device count', ibDevices: 'IB devices',
    bootstrap: 'bootstrap interface', socket: 'socket interfaces', ibOob: 'IB OOB interface', gidIndex: 'GID index',
  };
  return [`${mark} ${s.bold(label[x.fact])} differs: ${x.meaning}`, ...x.values.map((v, i) => `    ${i === 0 ? 'most' : 'but '}: ${v.value} — ${names(v.hosts)}${v.hosts.length > 6 ? '' : ''} (${v.hosts.length} host${v.hosts.length === 1 ? '' : 's'})`)];
}

function hostLine(h: HostFacts): string {
  const ib = h.ib ? (h.ib.length ? `IB ${h.ib.length} dev` : 'IB none') : h.ibNoDevice ? 'IB none' : 'IB -';
  const errs = Object.values(h.problems).reduce((a, b) => a + b, 0);
  return `  ${h.host}  ranks ${h.ranks.length ? ranges(h.ranks) : '-'}  NCCL ${h.ncclVersion ?? '-'}  bootstrap ${ep(h.bootstrap)}  ${ib}  net ${h.transport ?? '-'}${h.netPlugin ? ` (plugin ${h.netPlugin})` : ''}${errs ? `  problems ${errs}` : ''}`;
}

function predictionLines(p: Prediction, s: Style): string[] {
  const out = [s.bold(`Against the prediction for ${p.node} (log host ${p.logHost || '-'}, NCCL ${p.ncclVersion} from ${p.versionSource})`)];
  if (p.hostNote) out.push(`  note: ${p.hostNote}`);
  if (p.envDifferences.length) out.push(`  the job's environment differs from this node's: ${p.envDifferences.map((d) => `${d.name}=${d.log} (here ${d.node ?? 'unset'})`).join(', ')}`);
  const label: Record<string, string> = { bootstrap: 'bootstrap', socket: 'socket', ibDevices: 'IB devices', ibOob: 'IB OOB', gidIndex: 'GID index', transport: 'network' };
  for (const c of p.consumers) {
    const name = label[c.consumer]!.padEnd(10);
    if (c.status === 'agree') out.push(`  ${s.ok('✓')} ${name} ${c.log}`);
    else if (c.status === 'not-in-log') out.push(`  ${s.dim('-')} ${name} not in the log${c.predicted ? ` (predicted: ${c.predicted})` : ''}`);
    else if (c.status === 'not-predicted') out.push(`  ${s.warn('?')} ${name} log: ${c.log}; not predicted: ${c.evidence.join('; ')}`);
    else {
      out.push(`  ${s.err('✗')} ${name} log: ${c.log}`, `               predicted: ${c.predicted}`, `               likely: ${c.likely}: ${c.evidence.join('; ')}`);
    }
  }
  out.push(p.agree ? s.ok('  The log agrees with the prediction.') : s.warn('  The log and the prediction disagree (above).'));
  return out;
}

export function renderLog(a: LogAnalysis, inputs: LogInputSummary[], prediction: Prediction | null, s: Style, verbose: boolean): string {
  const out: string[] = [];
  const sm = a.summary;
  const files = inputs.length === 1 ? (inputs[0]!.name === '-' ? 'standard input' : inputs[0]!.name) : `${inputs.length} files`;
  out.push(s.bold(`NCCL log: ${files} — ${a.input.lines} lines, ${a.input.ncclLines} from NCCL, ${a.hosts.length} host${a.hosts.length === 1 ? '' : 's'}, ${a.ranks.length} rank${a.ranks.length === 1 ? '' : 's'}`));
  if (a.input.truncatedLines) out.push(s.warn(`  ${a.input.truncatedLines} line(s) longer than 64 KiB were cut`));
  if (a.input.capped) out.push(s.warn(`  ${a.input.capped} fact(s) not kept: more hosts, ranks or distinct warnings than ncclx holds (docs/log-json.md)`));
  out.push('', s.bold('Summary (first line stating each)'));
  const rows: [string, string][] = [
    ['NCCL version', sm.ncclVersion ?? '-'],
    ['bootstrap', ep(sm.bootstrap)],
    ['socket', sm.socket.length ? sm.socket.map(ep).join(', ') : '-'],
    ['IB devices', sm.ib.length ? `${ibList(sm.ib)}${sm.ib[0]!.relaxedOrdering ? ' [RO]' : ''}` : '-'],
    ['IB OOB', ep(sm.ibOob)],
    ['net plugin', sm.netPlugin ?? '-'],
    ['network', sm.transport ?? '-'],
  ];
  for (const [k, v] of rows) out.push(`  ${k.padEnd(13)}${v}`);
  const env = Object.entries(sm.env);
  if (env.length) out.push(`  ${'environment'.padEnd(13)}${env.map(([k, v]) => `${k}=${v}`).join(' ')}`);
  out.push('', s.bold(`Hosts (${a.hosts.length})`));
  const shown = verbose ? a.hosts : a.hosts.slice(0, 20);
  for (const h of shown) out.push(hostLine(h));
  if (shown.length < a.hosts.length) out.push(s.dim(`  … ${a.hosts.length - shown.length} more (-v lists every host)`));
  if (verbose && a.ranks.length) {
    out.push('', s.bold(`Ranks (${a.ranks.length})`));
    for (const r of a.ranks) {
      const t = Object.entries(r.transports).map(([k, v]) => `${k}×${v}`).join(' ');
      out.push(`  rank ${r.rank}${r.nranks !== null ? `/${r.nranks}` : ''} ${r.host} pid ${r.pid ?? '-'} cudaDev ${r.cudaDev ?? '-'}  ${t || '-'}${r.netChannels ? `  GDR ${r.gdrChannels}/${r.netChannels} net channels` : ''}${r.initComplete ? '' : '  (no Init COMPLETE)'}`);
    }
  }
  if (a.asymmetries.length) {
    out.push('', s.bold(`Hosts that differ (${a.asymmetries.length})`));
    for (const x of a.asymmetries) append(out, asymmetryLines(x, s));
  }
  const problems = [...sm.errors, ...sm.warnings];
  out.push('', s.bold(`Problems (${problems.length})`));
  if (!problems.length) out.push(`  ${s.ok('✓')} no WARN lines and no silent fallback in the log`);
  for (const p of problems) append(out, problemLines(p, s, verbose).map((l) => `  ${l}`));
  if (prediction) append(out, [''], predictionLines(prediction, s));
  const errs = sm.errors.length + a.asymmetries.filter((x) => x.severity === 'error').length;
  const warns = sm.warnings.length + a.asymmetries.filter((x) => x.severity === 'warn').length;
  out.push('', `${errs} error${errs === 1 ? '' : 's'}, ${warns} warning${warns === 1 ? '' : 's'}${prediction ? `, prediction ${prediction.agree ? 'agrees' : 'disagrees'}` : ''}`);
  return out.join('\n') + '\n';
}
