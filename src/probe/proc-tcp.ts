// TCP sockets as the kernel lists them in /proc/PID/net/tcp and tcp6 (the
// process's network namespace), and which of them a process holds (the
// socket:[inode] links under /proc/PID/fd). Pure parsers; the reading is in
// src/probe/process.ts.

import { formatIPv6 } from '../model/linux/ip.js';
import type { TcpSocket, TcpState } from '../model/snapshot/process-types.js';

// include/net/tcp_states.h
const STATES: Record<number, TcpState> = {
  1: 'ESTABLISHED', 2: 'SYN_SENT', 3: 'SYN_RECV', 4: 'FIN_WAIT1', 5: 'FIN_WAIT2', 6: 'TIME_WAIT', 7: 'CLOSE', 8: 'CLOSE_WAIT', 9: 'LAST_ACK', 10: 'LISTEN', 11: 'CLOSING',
};

/** An address as /proc/net/tcp prints it: IPv4 one little-endian word, IPv6 four, then :PORT in hex. */
function endpoint(text: string, v6: boolean): { address: string; port: number } | null {
  const [hex, port] = text.split(':');
  if (!hex || !port) return null;
  if (!v6) {
    if (!/^[0-9A-Fa-f]{8}$/.test(hex)) return null;
    const n = parseInt(hex, 16) >>> 0;
    return { address: [n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, n >>> 24].join('.'), port: parseInt(port, 16) };
  }
  if (!/^[0-9A-Fa-f]{32}$/.test(hex)) return null;
  const b = new Uint8Array(16);
  // Each 32-bit word is in host (little-endian) order.
  for (let w = 0; w < 4; w++) for (let i = 0; i < 4; i++) b[w * 4 + i] = parseInt(hex.slice(w * 8 + (3 - i) * 2, w * 8 + (3 - i) * 2 + 2), 16);
  let address = formatIPv6(b);
  // An IPv4 peer on an IPv6 socket: ::ffff:a.b.c.d.
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(address);
  if (mapped) {
    const hi = parseInt(mapped[1]!, 16);
    const lo = parseInt(mapped[2]!, 16);
    address = `::ffff:${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
  }
  return { address, port: parseInt(port, 16) };
}

/** /proc/net/tcp or tcp6, by socket inode. */
export function parseProcTcp(text: string, v6: boolean): Map<number, TcpSocket> {
  const out = new Map<number, TcpSocket>();
  const lines = text.split('\n');
  for (let i = 1; i < lines.length; i++) {
    const f = lines[i]!.trim().split(/\s+/);
    if (f.length < 10) continue;
    const local = endpoint(f[1]!, v6);
    const remote = endpoint(f[2]!, v6);
    const state = STATES[parseInt(f[3]!, 16)];
    const inode = Number(f[9]);
    if (!local || !remote || !state || !Number.isSafeInteger(inode) || inode === 0) continue;
    out.set(inode, { family: v6 ? 'AF_INET6' : 'AF_INET', local: local.address, localPort: local.port, remote: remote.address, remotePort: remote.port, state, inode, interface: null });
  }
  return out;
}

/** The inode of a `socket:[N]` link, or null. */
export function socketInode(link: string | null): number | null {
  const m = link ? /^socket:\[(\d+)\]$/.exec(link) : null;
  return m ? Number(m[1]) : null;
}
