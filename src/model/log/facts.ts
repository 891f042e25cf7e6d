// What one NCCL message states, in every release's wording (2.4 → today):
// the version, a variable read from the environment, the bootstrap and socket
// interfaces, the IB devices and OOB, the network plugin and transport, a
// communicator rank, a channel's transport, a GID index. Pure.

import { parseIPv6 } from '../linux/ip.js';
import { own } from './line.js';

export interface Endpoint {
  ifname: string;
  /** The bare address, without NCCL's `<port>`; null for the OOB-net form `dev:port`. */
  address: string | null;
}

export interface IbEntry {
  /** NCCL's device index `[i]` (inside a merged `[n]={…}` group, the physical index). */
  index: number;
  device: string;
  port: number;
  linkLayer: 'IB' | 'RoCE' | string;
  relaxedOrdering: boolean;
  /** The fused NET device `[n]={…}` this port belongs to (2.20.3–2.23.x), else null. */
  mergedInto: number | null;
}

export type Fact =
  | { kind: 'version'; version: string; cuda: string | null }
  | { kind: 'env'; name: string; value: string }
  | { kind: 'bootstrap'; endpoint: Endpoint | null }
  | { kind: 'socket'; endpoints: Endpoint[] }
  | { kind: 'ib'; devices: IbEntry[]; relaxedOrdering: boolean; oob: Endpoint | null }
  | { kind: 'ib-none' }
  | { kind: 'plugin'; name: string }
  | { kind: 'plugin-missing'; text: string }
  | { kind: 'network'; name: string }
  | { kind: 'rank'; comm: string | null; rank: number; nranks: number; cudaDev: number | null; busId: string | null; commId: string | null; stage: 'start' | 'complete' | null }
  | { kind: 'channel'; rank: number; peer: number; transport: string; netDev: number | null; gdr: boolean; direction: 'send' | 'receive' | null }
  | { kind: 'gid'; ibDev: number; port: number; gidIndex: number }
  | { kind: 'gdr-hca'; hca: number; name: string; enabled: boolean };

/** Longest name or address kept from a line (Linux interface names are ≤ 15 bytes; a crafted line must not make facts huge). */
export const FIELD_MAX = 256;
/** Kept facts are cut to `max` and copied (own: a slice would keep its whole read alive). */
const clip = (v: string, max = FIELD_MAX) => own(v.length > max ? `${v.slice(0, max)}…` : v);

/**
 * `name:addr<port>` as NCCL prints an interface (`%s:%s`, the address from
 * getnameinfo); `name:<int>` (bootstrap over a net device) has no address.
 * NCCL prints no blank inside it, so the first one ends it (a collector's
 * export may run on into the next column). An IPv4 alias's name holds a colon
 * (`eno1:avahi:10.0.0.1`): the address is the IPv6 address after the first
 * colon, else the IPv4-shaped text after the last one (masked `x.x.x.x` too).
 */
export function parseEndpoint(text: string): Endpoint | null {
  let t = text.trim();
  const blank = t.search(/\s/);
  if (blank >= 0) t = t.slice(0, blank);
  if (t.length > 4 * FIELD_MAX) {
    const e = parseEndpoint(t.slice(0, 4 * FIELD_MAX));
    return e && { ifname: clip(e.ifname), address: e.address && clip(e.address) };
  }
  if (!t) return null;
  const first = t.indexOf(':');
  if (first === 0) return null;
  if (first < 0) return { ifname: t, address: null };
  const port = /<-?\d*>$/.exec(t);
  const body = port ? t.slice(0, port.index) : t;
  const last = body.lastIndexOf(':');
  const afterFirst = body.slice(first + 1);
  const c = last > first && !parseIPv6(afterFirst.replace(/%[^%]*$/, '')) && /^[^:.]+\.[^:.]+\.[^:.]+\.[^:.]+$/.test(body.slice(last + 1)) ? last : first;
  const ifname = clip(t.slice(0, c));
  const rest = body.slice(c + 1);
  if (!port && /^-?\d+$/.test(rest)) return { ifname, address: null };
  return { ifname, address: rest ? clip(rest) : null };
}

/** `[0]eth0:10.0.0.1<0> [1]…` (also the ≤ 2.7 indexed bootstrap list) or a single `eth0:10.0.0.1<0>`. */
function endpointList(text: string): Endpoint[] {
  const t = text.trim();
  if (!t) return [];
  if (!t.startsWith('[')) {
    const e = parseEndpoint(t);
    return e ? [e] : [];
  }
  const out: Endpoint[] = [];
  for (const m of t.matchAll(/\[\d+\](\S+)/g)) {
    const e = parseEndpoint(m[1]!);
    if (e) out.push(e);
  }
  return out;
}

const IB_DEV = /\[(\d+)\] ?([^\s:=,{}[\]]+):(\d+)(?::\d*)?(?::\d+)?\/([A-Za-z]+)/g;

/** The devices of `NET/IB : Using …` before `[RO]` / `; OOB`. */
function ibDevices(list: string, ro: boolean): IbEntry[] {
  const out: IbEntry[] = [];
  // Merged groups `[n]={[a] dev:port/LL, [b] …}` (2.20.3–2.23.x).
  let rest = list;
  for (const g of list.matchAll(/\[(\d+)\]=\{([^}]*)\}/g)) {
    for (const m of g[2]!.matchAll(IB_DEV)) out.push({ index: Number(m[1]), device: clip(m[2]!), port: Number(m[3]), linkLayer: clip(m[4]!), relaxedOrdering: ro, mergedInto: Number(g[1]) });
    rest = rest.replace(g[0], ' ');
  }
  for (const m of rest.matchAll(IB_DEV)) {
    out.push({ index: Number(m[1]), device: clip(m[2]!), port: Number(m[3]), linkLayer: clip(m[4]!), relaxedOrdering: ro, mergedInto: null });
    // NCCL prints at most a few dozen devices; a crafted line is not kept whole.
    if (out.length >= 1024) break;
  }
  return out.sort((a, b) => a.index - b.index);
}

const ENV = /^(NCCL_[A-Z0-9_]+) set by environment to (.*)$/;
const RANK = /\bcomm (0x[0-9a-fA-F]+|\(nil\)) rank (\d+) n[Rr]anks (\d+)(?: cudaDev (-?\d+))?(?: nvmlDev -?\d+)?(?: busId ([0-9a-fA-F]+))?(?: commId (0x[0-9a-fA-F]+))?(?:.*?- (?:Init )?(START|COMPLETE))?/;
const CHANNEL = /^Channel \d+(?:\/\d+)? : (\d+)\[[0-9a-fA-Fx]+\] -> (\d+)\[[0-9a-fA-Fx]+\] (?:\[(send|receive)\] )?via (.+)$/;
const RING = /^Ring \d+ : (\d+)(?:\[[0-9a-fA-Fx]+\])? -> (\d+)(?:\[[0-9a-fA-Fx]+\])? (?:\[(send|receive)\] )?via (.+)$/;
const USING_IB = /^NET\/IB ?: ?Using/;
const SET_TO = /^(NCCL_SOCKET_IFNAME|NCCL_IB_HCA|NCCL_OOB_NET_IFNAME) set to (.*)$/;
/** A regex `\\w` character's code (undefined, past the text, is none): what `\\b` tests on either side. */
export const isWordChar = (c: number | undefined): boolean => c !== undefined && ((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95);

/**
 * What `/\bIbDev (\d+) Port (\d+) .*?\bGID (\d+)/` finds in msg, in linear time (the regex backtracks over
 * the rest of the message for each `IbDev`): the first `IbDev d Port p ` and the first `GID g` after it, each
 * after a non-word character; when none follows one `IbDev`, the next `IbDev` is tried.
 */
const IB_DEV_AT = /IbDev (\d+) Port (\d+) /y;
const DIGITS_AT = /\d+/y;

function gidOf(msg: string): [number, number, number] | null {
  // Where each `GID <digits>` with a word boundary before it starts, in order.
  const gids: number[] = [];
  for (let q = msg.indexOf('GID '); q >= 0; q = msg.indexOf('GID ', q + 1)) {
    const c = msg.charCodeAt(q + 4);
    if (c >= 48 && c <= 57 && (q === 0 || !isWordChar(msg.charCodeAt(q - 1)))) gids.push(q);
  }
  if (!gids.length) return null;
  let g = 0;
  for (let i = msg.indexOf('IbDev '); i >= 0; i = msg.indexOf('IbDev ', i + 1)) {
    if (i > 0 && isWordChar(msg.charCodeAt(i - 1))) continue;
    IB_DEV_AT.lastIndex = i;
    const m = IB_DEV_AT.exec(msg);
    if (!m) continue;
    const from = i + m[0].length;
    while (g < gids.length && gids[g]! < from) g++;
    if (g === gids.length) return null;
    const q = gids[g]!;
    DIGITS_AT.lastIndex = q + 4;
    return [Number(m[1]), Number(m[2]), Number(DIGITS_AT.exec(msg)![0])];
  }
  return null;
}
const GDR_HCA = /^NET\/\S+ ?: GPU Direct RDMA (Enabled|Disabled) for HCA (\d+) '([^']*)'/;

export interface Via {
  transport: string;
  netDev: number | null;
  gdr: boolean;
}

// A job prints the same few `via` texts millions of times.
const viaCache = new Map<string, Via>();

/** The transport a channel's `via` text names, cached by the text. */
export function channelVia(via: string): Via {
  let v = viaCache.get(via);
  if (!v) {
    if (viaCache.size > 10_000) viaCache.clear();
    const key = clip(via, 128);
    viaCache.set(key, (v = channelTransport(key)));
  }
  return v;
}

/** A channel's `via` text: `NET/IB/0/GDRDMA`, `NET/Socket/1`, `NET/IB/2(5)/GDRDMA(PCI)/Shared`, `P2P/IPC`, `SHM/direct/direct`. */
function channelTransport(via: string): Via {
  if (via.startsWith('NET/')) {
    const parts = via.split('/');
    const dev = /^(\d+)/.exec(parts[2] ?? '');
    return { transport: `NET/${parts[1] ?? ''}`, netDev: dev ? Number(dev[1]) : null, gdr: parts.slice(3).some((p) => p.startsWith('GDRDMA')) };
  }
  if (via.startsWith('P2P/')) return { transport: via.split('/').slice(0, 2).join('/'), netDev: null, gdr: false };
  if (via.startsWith('SHM')) return { transport: 'SHM', netDev: null, gdr: false };
  return { transport: via.split('/')[0]!, netDev: null, gdr: false };
}

/** Digits at i: [value, end], or null. */
function digitsAt(s: string, i: number): [number, number] | null {
  let v = 0;
  let j = i;
  for (; j < s.length; j++) {
    const c = s.charCodeAt(j) - 48;
    if (c < 0 || c > 9) break;
    v = v * 10 + c;
  }
  return j > i ? [v, j] : null;
}

/**
 * `Channel NN[/N] : R[x] -> P[y] [[send]|[receive] ]via T`, parsed by hand:
 * these lines are most of a log. Anything unexpected falls back to the regex.
 */
function channelFast(msg: string): Fact | null {
  let i = 8; // after 'Channel '
  const ch = digitsAt(msg, i);
  if (!ch) return null;
  i = ch[1];
  if (msg.charCodeAt(i) === 47 /* / */) {
    const c = digitsAt(msg, i + 1);
    if (!c) return null;
    i = c[1];
  }
  if (!msg.startsWith(' : ', i)) return null;
  const a = digitsAt(msg, i + 3);
  if (!a || msg.charCodeAt(a[1]) !== 91 /* [ */) return null;
  i = msg.indexOf('] -> ', a[1]);
  if (i < 0) return null;
  const b = digitsAt(msg, i + 5);
  if (!b || msg.charCodeAt(b[1]) !== 91) return null;
  i = msg.indexOf('] ', b[1]);
  if (i < 0) return null;
  i += 2;
  let direction: 'send' | 'receive' | null = null;
  if (msg.startsWith('[send] ', i)) {
    direction = 'send';
    i += 7;
  } else if (msg.startsWith('[receive] ', i)) {
    direction = 'receive';
    i += 10;
  }
  if (!msg.startsWith('via ', i) || i + 4 >= msg.length) return null;
  return channelFact(a[0], b[0], direction, msg.slice(i + 4));
}

/** A channel line's fact from its two ranks as printed (`from -> to`), its direction and its `via` text. */
export function channelFact(from: number, to: number, direction: 'send' | 'receive' | null, via: string): Fact {
  const t = channelVia(via);
  // A [receive] line names the peer first and this rank second.
  const recv = direction === 'receive';
  return { kind: 'channel', rank: recv ? to : from, peer: recv ? from : to, transport: t.transport, netDev: t.netDev, gdr: t.gdr, direction };
}

/** The fact an INFO/VERSION message states, or null. WARN lines are judged by signatures.ts. */
export function factOf(msg: string): Fact | null {
  switch (msg.charCodeAt(0)) {
    case 67 /* C */: {
      if (!msg.startsWith('Channel ')) return null;
      const fast = channelFast(msg);
      if (fast) return fast;
      const m = CHANNEL.exec(msg);
      return m ? channelFact(Number(m[1]), Number(m[2]), (m[3] as 'send' | 'receive' | undefined) ?? null, m[4]!) : null;
    }
    case 82 /* R */: {
      const m = msg.startsWith('Ring ') ? RING.exec(msg) : null;
      if (!m) break;
      return channelFact(Number(m[1]), Number(m[2]), (m[3] as 'send' | 'receive' | undefined) ?? null, m[4]!);
    }
    case 78 /* N */: {
      if (msg.startsWith('NCCL version ')) {
        const m = /^NCCL version (\d+\.\d+\.\d+)([^+\s]*)(?:\+cuda(\d+\.\d+))?/.exec(msg);
        return m ? { kind: 'version', version: clip(m[1]!, 32), cuda: m[3] ? clip(m[3], 32) : null } : null;
      }
      if (msg.startsWith('NCCL_')) {
        const m = ENV.exec(msg);
        if (!m) {
          // Variables NCCL reads with getenv and states as `NCCL_X set to %s` (findInterfaces, the IB transport, bootstrap's OOB net).
          const t = SET_TO.exec(msg);
          return t ? { kind: 'env', name: t[1]!, value: clip(t[2]!, 4096) } : null;
        }
        let value = m[2]!;
        // Integer parameters print `%lld.`; strings print as they are.
        if (/^-?\d+\.$/.test(value)) value = value.slice(0, -1);
        return { kind: 'env', name: clip(m[1]!), value: clip(value, 4096) };
      }
      if (msg.startsWith('NET/Socket')) {
        const m = /^NET\/Socket ?: ?Using ?(.*)$/.exec(msg);
        return m ? { kind: 'socket', endpoints: endpointList(m[1]!) } : null;
      }
      if (msg.startsWith('NET/IB')) {
        if (/^NET\/IB ?: ?No device found/.test(msg)) return { kind: 'ib-none' };
        // The capturing form is slow on long lines that are not `Using` lines (IbDev/GID lines are frequent): an anchored test first.
        const u = USING_IB.test(msg) ? /^NET\/IB ?: ?Using(.*?)(?:;\s*OOB ?(.*))?$/.exec(msg) : null;
        if (u) {
          let list = u[1]!;
          const ro = /\[RO\]\s*$/.test(list);
          if (ro) list = list.replace(/\[RO\]\s*$/, '');
          return { kind: 'ib', devices: ibDevices(list, ro), relaxedOrdering: ro, oob: u[2] !== undefined ? parseEndpoint(u[2]) : null };
        }
        const g = gidOf(msg);
        if (g) return { kind: 'gid', ibDev: g[0], port: g[1], gidIndex: g[2] };
        const d = GDR_HCA.exec(msg);
        if (d) return { kind: 'gdr-hca', hca: Number(d[2]), name: clip(d[3]!), enabled: d[1] === 'Enabled' };
        return null;
      }
      if (msg.startsWith('NET/Plugin')) {
        const l = /Loaded (?:net )?plugin (.+?)(?: \(v\d+\))?\.?$/.exec(msg);
        if (l && !/collnet/i.test(msg)) return { kind: 'plugin', name: clip(l[1]!) };
        if (/No plugin found|Could not find|Using internal network plugin/i.test(msg)) return { kind: 'plugin-missing', text: msg };
        return null;
      }
      const d = GDR_HCA.exec(msg);
      if (d) return { kind: 'gdr-hca', hca: Number(d[2]), name: clip(d[3]!), enabled: d[1] === 'Enabled' };
      return null;
    }
    case 66 /* B */: {
      const m = /^Bootstrap ?: ?Using ?(.*)$/.exec(msg);
      if (!m) return null;
      const list = endpointList(m[1]!);
      return { kind: 'bootstrap', endpoint: list[0] ?? null };
    }
    case 80 /* P */: {
      // nccl-rdma-sharp-plugins (HPC-X) and other net plugins name themselves as they load: `P2P plugin IBext`.
      const m = /^P2P plugin (\S+)\s*$/.exec(msg);
      return m ? { kind: 'plugin', name: clip(m[1]!) } : null;
    }
    case 85 /* U */: {
      const m = /^Using network (.+?)\s*$/.exec(msg);
      return m ? { kind: 'network', name: clip(m[1]!) } : null;
    }
  }
  if (msg.includes('rank ') && msg.includes('comm ')) {
    const m = RANK.exec(msg);
    if (m) {
      const stage = m[7] === 'START' ? 'start' : m[7] === 'COMPLETE' ? 'complete' : null;
      // Not copied here (rank lines are frequent): the collector copies what it keeps when it changes.
      return { kind: 'rank', comm: m[1]!.slice(0, 32), rank: Number(m[2]), nranks: Number(m[3]), cudaDev: m[4] !== undefined ? Number(m[4]) : null, busId: m[5] ? m[5].slice(0, 32) : null, commId: m[6] ? m[6].slice(0, 32) : null, stage };
    }
  }
  return null;
}
