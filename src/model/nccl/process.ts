// A running NCCL process held against the prediction for it (`ncclx ps`):
// what NCCL in that process would pick for bootstrap, the socket transport
// and the IB out-of-band socket (explain's model, on the process's own
// environment, NCCL version and network namespace), and what its TCP sockets
// show. NCCL binds its listeners to the address it picked, with an ephemeral
// port (docs/nccl/socket.md), and connects without binding, so listeners tell
// which interface NCCL chose and connections tell where routing sends it.
// A connection stuck in SYN_SENT to the bootstrap root (NCCL_COMM_ID) or to
// PyTorch's store (MASTER_ADDR:MASTER_PORT) is the classic hang. Pure.

import { explain } from './explain.js';
import type { TcpSocket } from '../snapshot/process-types.js';
import type { NodeSnapshot } from '../snapshot/types.js';

export type ConsumerName = 'bootstrap' | 'socket' | 'ibOob';

export interface PsConsumer {
  consumer: ConsumerName;
  /** "eth0 10.0.0.2", one per interface; empty when NCCL would find none. */
  predicted: string[];
  /** What the sockets show for it. */
  observed: string;
  status: 'agree' | 'differ' | 'not-seen' | 'not-predicted';
}

export interface PsSocketNote {
  severity: 'error' | 'warn' | 'info';
  /** What the socket is: bootstrap root, PyTorch store, NCCL listener, peer … */
  role: string;
  socket: TcpSocket;
  message: string;
}

export interface PsPrediction {
  ncclVersion: string;
  versionSource: string;
  profile: string;
  consumers: PsConsumer[];
  notes: PsSocketNote[];
  /** The classic hang, when a socket shows it: one line. */
  hang: string | null;
}

const ep = (a: string, p: number) => (a.includes(':') ? `[${a}]:${p}` : `${a}:${p}`);
const plain = (a: string) => a.replace(/^::ffff:/, '');

interface Target {
  address: string;
  port: number;
  label: string;
}

/** The host:port a variable names, when it is a numeric address (names are not resolved here). */
function targetOf(value: string | undefined, defaultPort: number | null, label: string): Target | null {
  if (!value) return null;
  const v6 = /^\[([^\]%]+)(?:%[^\]]*)?\](?::(\d+))?$/.exec(value);
  const v4 = /^(\d+\.\d+\.\d+\.\d+)(?::(\d+))?$/.exec(value);
  const m = v6 ?? v4;
  const port = m?.[2] !== undefined ? Number(m[2]) : defaultPort;
  return m && port !== null ? { address: m[1]!, port, label } : null;
}

export function judgeProcess(snap: NodeSnapshot, sockets: TcpSocket[], ncclVersion?: string): PsPrediction {
  const ex = explain(snap, { ncclVersion });
  const vars = snap.env.process;
  const masterPort = vars['MASTER_PORT'] !== undefined && /^\d{1,5}$/.test(vars['MASTER_PORT']) ? Number(vars['MASTER_PORT']) : vars['MASTER_ADDR'] ? 29500 : null;
  const commId = targetOf(vars['NCCL_COMM_ID'], 65535, 'the bootstrap root (NCCL_COMM_ID)');
  const master = targetOf(vars['MASTER_ADDR'] && masterPort !== null ? `${vars['MASTER_ADDR'].includes(':') ? `[${vars['MASTER_ADDR']}]` : vars['MASTER_ADDR']}:${masterPort}` : undefined, null, "PyTorch's store (MASTER_ADDR:MASTER_PORT)");
  const predictedOf = (c: ConsumerName) => ex[c].selected.map((s) => ({ name: s.name, address: s.address }));
  const ours = new Map<string, ConsumerName[]>();
  for (const c of ['bootstrap', 'socket', 'ibOob'] as const) for (const s of predictedOf(c)) ours.set(s.address, [...(ours.get(s.address) ?? []), c]);
  const isTarget = (s: TcpSocket, t: Target | null) => t !== null && plain(s.remote) === t.address && s.remotePort === t.port;
  const where = (s: TcpSocket) => `${s.interface && s.interface !== '*' ? `${s.interface} ` : ''}${ep(plain(s.local), s.localPort)}`;

  const notes: PsSocketNote[] = [];
  let hang: string | null = null;
  for (const s of sockets) {
    if (s.state === 'LISTEN') {
      const who = ours.get(plain(s.local));
      if (masterPort !== null && s.localPort === masterPort) notes.push({ severity: 'info', role: "PyTorch's store server", socket: s, message: `listens on ${where(s)}: the store of rank 0` });
      else if (s.localPort === 28028 && /^(127\.|::1$)/.test(plain(s.local))) notes.push({ severity: 'info', role: 'NCCL RAS', socket: s, message: `NCCL's RAS client listener on ${where(s)}` });
      else if (who) notes.push({ severity: 'info', role: `NCCL listener (${who.join(', ')})`, socket: s, message: `listens on ${where(s)}, the address predicted for ${who.join(', ')}` });
      else if (s.interface !== '*') notes.push({ severity: 'warn', role: 'listener', socket: s, message: `listens on ${where(s)}, an address no NCCL consumer is predicted to use: this NCCL chose otherwise (the environment or the interfaces changed after it started?)` });
      continue;
    }
    const t = isTarget(s, commId) ? commId : isTarget(s, master) ? master : null;
    if (s.state === 'SYN_SENT') {
      if (t) {
        const line = `${where(s)} → ${ep(plain(s.remote), s.remotePort)} stuck in SYN_SENT: ${t.label} does not answer — the classic hang (${t === commId ? 'every rank waits for the root in bootstrap' : 'the rendezvous never completes'})`;
        hang ??= line;
        notes.push({ severity: 'error', role: t.label, socket: s, message: line });
      } else {
        notes.push({ severity: 'warn', role: 'connection', socket: s, message: `${where(s)} → ${ep(plain(s.remote), s.remotePort)} stuck in SYN_SENT: a peer (NCCL's bootstrap ring or a proxy connection) does not answer from this interface` });
      }
      continue;
    }
    if (s.state !== 'ESTABLISHED') continue;
    const boot = predictedOf('bootstrap')[0];
    const role = t ? t.label : 'peer connection';
    // Outgoing connections are not bound: routing picks the interface, which may not be NCCL's.
    if (t !== null && t === commId && boot && s.interface && s.interface !== boot.name) notes.push({ severity: 'warn', role, socket: s, message: `${where(s)} → ${ep(plain(s.remote), s.remotePort)}: the connection to ${commId!.label} leaves through ${s.interface}, while NCCL bootstraps on ${boot.name} (routing decides outgoing connections)` });
    else notes.push({ severity: 'info', role, socket: s, message: `${where(s)} → ${ep(plain(s.remote), s.remotePort)}` });
  }

  const listeners = sockets.filter((s) => s.state === 'LISTEN' && s.interface !== '*' && s.localPort !== masterPort && s.localPort !== 28028);
  // A listener on an address no consumer is predicted to use is what a different choice looks like; a
  // consumer whose address has no listener is only not seen (the socket transport listens only when used).
  const unexplained = listeners.filter((l) => !ours.has(plain(l.local)));
  const consumers: PsConsumer[] = (['bootstrap', 'socket', 'ibOob'] as const).map((c) => {
    const predicted = predictedOf(c);
    const text = predicted.map((p) => `${p.name} ${p.address}`);
    const seen = listeners.filter((l) => predicted.some((p) => p.address === plain(l.local)));
    if (seen.length) return { consumer: c, predicted: text, observed: `listening on ${seen.map(where).join(', ')}`, status: 'agree' };
    if (unexplained.length) return { consumer: c, predicted: text, observed: `listening on ${unexplained.map(where).join(', ')} instead`, status: 'differ' };
    if (predicted.length === 0) return { consumer: c, predicted: [], observed: 'no listener', status: 'not-predicted' };
    return { consumer: c, predicted: text, observed: c === 'bootstrap' ? 'no NCCL listener yet (not initialised, or the process holds no socket)' : 'no listener (this transport listens only when the job uses it)', status: 'not-seen' };
  });
  return { ncclVersion: ex.ncclVersion, versionSource: ex.versionSource, profile: ex.profile, consumers, notes, hang };
}
