// `ncclx ps` as text and JSON (schema in docs/ps-json.md).

import type { PsPrediction } from '../model/nccl/process.js';
import type { PsEntry, PsScan } from '../model/snapshot/process-types.js';
import type { Style } from './style.js';

export interface PsRow {
  entry: PsEntry;
  prediction: PsPrediction;
}

export function psJson(scan: PsScan, rows: PsRow[]): unknown {
  return {
    processes: rows.map(({ entry: e, prediction: p }) => ({
      pid: e.pid,
      command: e.command,
      comm: e.comm,
      user: e.user,
      uid: e.uid,
      container: e.container,
      ncclLibrary: e.ncclLibrary,
      env: e.env,
      envError: e.envError,
      netns: e.netns,
      network: { from: e.snapshot.process?.networkFrom ?? null, interfaces: e.snapshot.network.addresses.map((a) => ({ name: a.name, address: a.address, prefixlen: a.prefixlen, family: a.family })) },
      sockets: e.sockets,
      socketsError: e.socketsError,
      prediction: p,
    })),
    scanned: scan.scanned,
    unreadable: scan.unreadable,
    asRoot: scan.asRoot,
    warnings: scan.warnings,
  };
}

const MARK = { agree: '✓', differ: '✗', 'not-seen': '·', 'not-predicted': '-' } as const;
const LABEL = { bootstrap: 'bootstrap', socket: 'socket transport', ibOob: 'IB OOB' } as const;

function containerText(e: PsEntry): string {
  const c = e.container;
  if (c.kind === 'host') return 'host';
  const bits = [c.otherNetNs && `its own network namespace ${c.netNs}`, c.otherMountNs && 'its own mount namespace', c.ownRoot && 'its own root'].filter(Boolean);
  return `container (${bits.join(', ')})${c.cgroup && c.cgroup !== '/' ? ` cgroup ${c.cgroup}` : ''}`;
}

export function renderPs(scan: PsScan, rows: PsRow[], s: Style, verbose: boolean): string {
  const out: string[] = [];
  const what = rows.length === 1 ? '1 process' : `${rows.length} processes`;
  const denied = scan.unreadable ? `, ${scan.unreadable} not readable${scan.asRoot ? ' (refused even to root)' : ': run as root to see every process'}` : '';
  out.push(`${s.bold('ncclx ps')} — ${what} with an NCCL library mapped (${scan.scanned} scanned${denied})`);
  for (const { entry: e, prediction: p } of rows) {
    out.push('');
    out.push(`${s.bold(`PID ${e.pid}`)}  ${(e.command || e.comm).replace(/\s+/g, ' ')}`);
    out.push(`  user ${e.user ?? '?'} (${e.uid ?? '?'}), ${containerText(e)}`);
    const lib = e.ncclLibrary;
    out.push(`  NCCL ${lib.version ?? '?'}  ${lib.path}${lib.static ? ' (NCCL linked in)' : ''}  ${s.dim(lib.readThrough ? `read through ${lib.readThrough}` : `version unknown: ${lib.error}`)}`);
    if (lib.alsoMapped?.length) out.push(`  ${s.warn(`also mapped: ${lib.alsoMapped.map((o) => `${o.path} (${o.version ?? '?'})`).join(', ')}`)} ${s.dim(`— ${lib.chosenBy ?? ''}`)}`);
    if (p.ncclVersion !== lib.version) out.push(`  ${s.dim(`modelled as NCCL ${p.ncclVersion} (${p.versionSource})`)}`);
    const env = Object.entries(e.env).filter(([k]) => verbose || /^(NCCL_|MASTER_|RANK$|LOCAL_RANK$|WORLD_SIZE$|CUDA_VISIBLE_DEVICES$)/.test(k));
    out.push(`  env  ${env.length ? env.map(([k, v]) => `${k}=${v}`).join(' ') : s.dim(e.envError ? `unreadable (${e.envError})` : 'no NCCL variable')}`);
    out.push(`  network  ${e.snapshot.process?.networkFrom ?? ''}`);
    for (const c of p.consumers) {
      const mark = c.status === 'agree' ? s.ok(MARK.agree) : c.status === 'differ' ? s.err(MARK.differ) : s.dim(MARK[c.status]);
      out.push(`  ${mark} ${LABEL[c.consumer].padEnd(16)} predicted ${c.predicted.join(', ') || 'none'} — ${c.observed}`);
    }
    for (const n of p.notes) {
      if (!verbose && n.severity === 'info') continue;
      const mark = n.severity === 'error' ? s.err('✗') : n.severity === 'warn' ? s.warn('!') : s.dim('i');
      out.push(`  ${mark} ${n.socket.state.padEnd(11)} ${n.message}`);
    }
    if (!verbose) {
      const quiet = p.notes.filter((n) => n.severity === 'info').length;
      if (quiet) out.push(`  ${s.dim(`${quiet} more socket${quiet === 1 ? '' : 's'} (-v)`)}`);
    }
  }
  if (rows.length === 0) out.push('', 'No process has an NCCL library mapped.');
  for (const w of scan.warnings) out.push(s.dim(`warning: ${w}`));
  return out.join('\n') + '\n';
}
