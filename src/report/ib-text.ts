// Plain-text rendering of an IbReport: the port table, the show_gids-style
// GID table and the ibdev2netdev-style map.

import type { RemediationVerdict } from '../model/result/types.js';
import { findingJson, fixLines, remediationLines, verdictLines } from './remediation.js';
import type { DeviceReport, IbReport, PortReport } from '../model/nccl/ib-report.js';
import { gidIPv4, parseGid, typeLabel } from '../model/nccl/gid.js';
import type { Finding } from '../model/nccl/socket-findings.js';
import type { RdmaPart, SysfsRead } from '../model/snapshot/rdma-types.js';
import type { Style } from './style.js';
import { table } from './table.js';
import { append } from '../model/list.js';


const ll = (p: PortReport) => (p.linkLayer === 'InfiniBand' ? 'IB' : p.linkLayer === 'Ethernet' ? 'RoCE' : p.linkLayer ?? '?');

function gidCell(p: PortReport): string {
  const o = p.gidSelection?.outcome;
  if (!o) return '-';
  if (o.kind === 'index') return String(o.index);
  if (o.kind === 'indeterminate') return `?${o.candidates.join('|')}`;
  if (o.kind === 'failure') return 'FAIL';
  return 'LID';
}

function ncclCell(p: PortReport, virtualNets: Set<number>): string {
  if (p.usedByNccl === true) return `yes [${p.ncclIndex}]${p.netDevice !== null && virtualNets.has(p.netDevice) ? ` → NET ${p.netDevice}` : ''}`;
  if (p.usedByNccl === null) return `? ${p.reason}`;
  return `no — ${p.reason}`;
}

export function renderFinding(f: Finding, s: Style): string[] {
  const mark = f.severity === 'error' ? s.err('✗') : f.severity === 'warn' ? s.warn('!') : s.dim('i');
  return [`  ${mark} ${s.bold(f.id)} ${f.message}`, ...fixLines(remediationLines(f.remediation), s), ...verdictLines((f as { verdict?: RemediationVerdict | null }).verdict, s)];
}

function transportLine(r: IbReport, s: Style): string {
  const t = r.transport;
  const n = r.ncclDevices.length;
  const oob = t.oob.interface ? `, OOB ${t.oob.interface} ${t.oob.address}` : '';
  if (t.used === true) return `IB transport: ${s.ok(`used — ${n} device${n === 1 ? '' : 's'}`)}${r.netDevices.length !== n ? ` as ${r.netDevices.length} NET devices` : ''}${oob}`;
  if (t.used === null) return `IB transport: ${s.warn('?')} ${t.why}`;
  const net = t.network === 'none' ? s.err('no network — initialisation fails') : `NCCL uses ${t.network}`;
  return `IB transport: ${s.warn('not used')} — ${t.why} (${net})`;
}

function deviceNotes(d: DeviceReport): string[] {
  const notes: string[] = [];
  if (d.bond) notes.push(`bond${d.bond.netdev ? ` ${d.bond.netdev}` : ''}${d.bond.members.length ? ` over ${d.bond.members.join('+')}` : ''}`);
  if (d.device.kind !== 'symlink') notes.push(`device is ${d.device.kind === 'directory' ? 'a plain directory' : d.device.kind}`);
  else if (d.device.subsystem !== 'pci') notes.push(`device is not PCI (${d.device.subsystem ?? 'unresolved'})`);
  if (d.pci) notes.push(`PCI ${d.pci.bdf}${d.pci.numaNode !== null ? ` numa ${d.pci.numaNode}` : ''}`);
  return notes;
}

export function renderIb(r: IbReport, s: Style, verbose: boolean): string {
  const out: string[] = [];
  out.push(`${s.bold('ncclx ib')} — ${r.host}`);
  out.push(`NCCL ${r.ncclVersion} ${s.dim(`(profile ${r.profile})`)}; version from ${r.versionSource}`);
  const set = Object.entries(r.inputs).filter(([k, v]) => v.value !== null || k === 'NCCL_IB_HCA' || k === 'NCCL_IB_GID_INDEX');
  out.push(`Inputs: ${set.map(([k, v]) => (v.value === null ? `${k} unset` : `${k}=${JSON.stringify(v.value)} ${s.dim(`(${v.source})`)}`)).join('; ')}`);
  out.push(transportLine(r, s));
  for (const l of r.transport.log) out.push(s.dim(`  NCCL ${l.level} ${l.text}`));
  out.push(s.dim(`  order: ${r.transport.orderNote}`));
  out.push('');
  if (r.devices.length === 0) {
    out.push('No RDMA devices under /sys/class/infiniband.');
  } else {
    const virtualNets = new Set(r.netDevices.filter((n) => n.virtual).map((n) => n.index));
    const rows: string[][] = [['DEV:PORT', 'STATE', 'PHYS', 'LINK', 'RATE', 'NETDEV', 'IPv4', 'GID', 'TYPE', 'GID ADDRESS', 'NCCL']];
    for (const d of r.devices) {
      for (const p of d.ports) {
        rows.push([
          `${d.name}:${p.port}`,
          p.state ?? '?',
          p.physState ?? '?',
          ll(p),
          p.rate ?? '?',
          p.netdev ?? '-',
          p.ipv4 ?? '-',
          gidCell(p),
          p.gidType ?? '-',
          p.gidAddress ?? '-',
          ncclCell(p, virtualNets),
        ]);
      }
    }
    const lines = table(rows);
    out.push(s.bold(lines[0]!));
    append(out, lines.slice(1));
    const notes = r.devices.map((d) => ({ d, n: deviceNotes(d) })).filter((x) => x.n.length);
    if (notes.length && verbose) {
      out.push('');
      for (const { d, n } of notes) out.push(s.dim(`${d.name}: ${n.join('; ')}`));
    }
  }
  if (r.netDevices.some((n) => n.virtual)) {
    out.push('');
    out.push(`Virtual NICs: ${r.netDevices.filter((n) => n.virtual).map((n) => `NET ${n.index} = ${n.name} (${n.members.map((m) => `[${m}]`).join('+')})`).join('; ')}`);
  }
  if (verbose) {
    for (const d of r.devices) {
      for (const p of d.ports) {
        out.push('');
        out.push(s.bold(`Trace — ${d.name}:${p.port}`));
        append(out, compressTrace(p).map((l) => `  ${l}`));
      }
    }
  }
  out.push('');
  if (r.findings.length === 0) out.push(`${s.ok('✓')} No findings.`);
  else {
    out.push(s.bold('Findings:'));
    for (const f of r.findings) append(out, renderFinding(f, s));
  }
  for (const w of r.warnings) out.push(s.warn(`warning: ${w}`));
  return out.join('\n') + '\n';
}

/** One line per trace entry, with runs of identical GID verdicts (hundreds of unset entries) folded into one. */
function compressTrace(p: PortReport): string[] {
  const lines: string[] = [];
  const tr = p.trace;
  for (let i = 0; i < tr.length; i++) {
    const t = tr[i]!;
    if (t.stage === 'gid' && t.index !== undefined) {
      let j = i;
      while (j + 1 < tr.length && tr[j + 1]!.stage === 'gid' && tr[j + 1]!.verdict === t.verdict && tr[j + 1]!.reason === t.reason && tr[j + 1]!.index === tr[j]!.index! + 1) j++;
      const idx = j > i ? `${t.index}–${tr[j]!.index}` : String(t.index);
      lines.push(`gid ${idx.padEnd(7)} ${t.verdict.padEnd(14)} ${t.reason}`);
      i = j;
      continue;
    }
    lines.push(`${t.stage.padEnd(11)} ${t.verdict.padEnd(14)} ${t.reason}`);
  }
  return lines;
}

// ---------------------------------------------------------------------------
// ncclx ib gids

export interface GidRow {
  dev: string;
  port: number;
  index: number;
  gid: string | null;
  error: string | null;
  ipv4: string | null;
  type: string;
  ndev: string | null;
  /** NCCL uses this entry on this port ("maybe" when the choice is indeterminate). */
  nccl: 'yes' | 'maybe' | 'no';
}

export function gidRows(r: IbReport, rdma: RdmaPart | undefined, all: boolean): GidRow[] {
  const rows: GidRow[] = [];
  for (const d of rdma?.devices ?? []) {
    for (const p of d.ports) {
      const pr = r.devices.find((x) => x.name === d.name)?.ports.find((x) => x.port === p.port);
      const o = pr?.gidSelection?.outcome;
      const ll = typeof p.linkLayer === 'string' ? p.linkLayer : null;
      for (const g of p.gids) {
        const text = typeof g.gid === 'string' ? g.gid : null;
        const b = text ? parseGid(text) : null;
        const zero = b ? b.every((x) => x === 0) || (b[0] === 0xfe && b[1] === 0x80 && b.slice(2).every((x) => x === 0)) : false;
        if (!all && zero) continue;
        rows.push({
          dev: d.name,
          port: p.port,
          index: g.index,
          gid: text,
          error: text === null && typeof g.gid !== 'string' ? g.gid.error : null,
          ipv4: b ? gidIPv4(b) : null,
          type: typeLabel(g.type, ll),
          ndev: typeof g.ndev === 'string' ? g.ndev : null,
          nccl: o?.kind === 'index' && o.index === g.index ? 'yes' : o?.kind === 'indeterminate' && o.candidates.includes(g.index) ? 'maybe' : 'no',
        });
      }
    }
  }
  return rows;
}

export function renderGids(rows: GidRow[], s: Style): string {
  if (rows.length === 0) return 'No GID entries.\n';
  const t = table([
    ['DEV', 'PORT', 'INDEX', 'GID', 'IPv4', 'VER', 'NETDEV', 'NCCL'],
    ...rows.map((g) => [g.dev, String(g.port), String(g.index), g.gid ?? `?(${g.error})`, g.ipv4 ?? '', g.type.replace(/^RoCE /, ''), g.ndev ?? '', g.nccl === 'yes' ? '*' : g.nccl === 'maybe' ? '?' : '']),
  ]);
  // show_gids' footer exactly (scripts `cut -d= -f2` it); the legend on a line of its own.
  return [s.bold(t[0]!), ...t.slice(1)].join('\n') + `\nn_gids_found=${rows.length}\n${s.dim('* = the index NCCL uses on that port, ? = one it may use')}\n`;
}

// ---------------------------------------------------------------------------
// ncclx ib map

export interface MapRow {
  dev: string;
  port: number;
  netdev: string | null;
  /** ibdev2netdev's state: Up when /sys/class/net/<netdev>/carrier reads 1, Down otherwise (an admin-down link fails the read), NA without the file. */
  state: 'Up' | 'Down' | 'NA' | null;
  linkLayer: string | null;
  portState: string | null;
}

/** ibdev2netdev: `cat carrier` = 1 → Up; any other value or a failed read → Down; no carrier file → NA. */
function carrierState(c: SysfsRead | undefined): MapRow['state'] {
  if (c === undefined) return null;
  if (typeof c === 'string') return c.trim() === '1' ? 'Up' : 'Down';
  return c.error === 'ENOENT' ? 'NA' : 'Down';
}

export function mapRows(r: IbReport, rdma: RdmaPart | null): MapRow[] {
  return r.devices.flatMap((d) =>
    d.ports.map((p) => {
      const nd = p.netdevs[0] ?? null;
      return {
        dev: d.name,
        port: p.port,
        netdev: nd?.name ?? null,
        // A snapshot taken before the carrier was recorded says nothing rather than guess from operstate.
        state: nd ? carrierState(rdma?.netdevs[nd.name]?.carrier) : null,
        linkLayer: p.linkLayer,
        portState: p.state,
      };
    }),
  );
}

export function renderMap(rows: MapRow[], verbose: boolean): string {
  if (rows.length === 0) return 'No RDMA devices.\n';
  return (
    rows
      .map((m) => `${m.dev} port ${m.port} ==> ${m.netdev ?? '(none)'} (${m.state ?? (m.netdev ? 'carrier not recorded' : 'no netdev')})${verbose ? `  [${m.linkLayer ?? '?'}, port ${m.portState ?? '?'}]` : ''}`)
      .join('\n') + '\n'
  );
}

/** `ib --json` (docs/ib-json.md): the report, each finding with its remediation as data and as text. */
export function ibJson(r: IbReport) {
  return { ...r, findings: r.findings.map(findingJson) };
}
