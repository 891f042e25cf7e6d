// The kernel part of a NodeSnapshot: the IPv4 ARP/reverse-path sysctls, policy
// routing, the routes NCCL's sockets will take, root qdiscs and DSCP marking
// rules. Filled by src/probe/kernel.ts; read by the pure checks in src/checks
// (arp.ts, routing.ts, qos.ts).
//
// Command output is kept as the tool printed it (iproute2 JSON objects as
// they are, iptables-save text as it is), so a result's evidence can quote it
// verbatim. A command that could not run is kept too, with why: checks then
// say "unknown" with that reason instead of passing silently.

/** A /proc/sys value (trailing newline removed), or the errno of the failed read. */
export type ProcRead = string | { error: string };

/** The four per-interface IPv4 knobs the multi-rail ARP checks read. */
export const CONF_KEYS = ['arp_announce', 'arp_ignore', 'arp_filter', 'rp_filter'] as const;
export type ConfKey = (typeof CONF_KEYS)[number];

export type ConfValues = Record<ConfKey, ProcRead>;

/**
 * Where a capture's data came from: the command run here (`live`), its output
 * recorded under --root (`recorded`), or, the tool missing, the same facts
 * read from /proc (`proc`: then `record` names the files).
 */
export type CaptureFrom = 'live' | 'recorded' | 'proc';

/** How one command went. `data` is present exactly when `ok`. */
export type Captured<T> =
  | { argv: string[]; record: string; from: CaptureFrom; ok: true; data: T }
  | {
      argv: string[];
      record: string;
      from: CaptureFrom;
      ok: false;
      /** The runner's message: exit status and stderr, ENOENT, EACCES, or a parse error. */
      error: string;
      /** The tool is not installed (or, under --root, no recorded output exists). */
      missing: boolean;
    };

/**
 * One object of iproute2's JSON output (`ip -j rule`, `ip -j route`, `tc -j
 * qdisc`), kept as printed. The fields ncclx reads are typed; the rest stays.
 */
export interface IpRuleJson {
  priority?: number;
  /** "all" or an address; `srclen` follows when the prefix is not a host prefix. */
  src?: string;
  srclen?: number;
  dst?: string;
  dstlen?: number;
  table?: string;
  /** Present for non-lookup rules: goto, nop, blackhole, unreachable, prohibit. */
  action?: string;
  not?: boolean;
  iif?: string;
  oif?: string;
  fwmark?: string;
  [key: string]: unknown;
}

export interface IpRouteJson {
  /** "default" or an address/prefix (no length for a host route). */
  dst?: string;
  /** Absent for the main table. */
  table?: string;
  type?: string;
  dev?: string;
  gateway?: string;
  prefsrc?: string;
  metric?: number;
  protocol?: string;
  scope?: string;
  nexthops?: { gateway?: string; dev?: string; [key: string]: unknown }[];
  /** `ip route get` prints these. */
  from?: string;
  [key: string]: unknown;
}

export interface TcQdiscJson {
  kind: string;
  handle?: string;
  dev: string;
  root?: boolean;
  parent?: string;
  options?: Record<string, unknown>;
  [key: string]: unknown;
}

/** Where an address to reach comes from: MASTER_ADDR or NCCL_COMM_ID, in the environment or a conf file. */
export interface RouteTarget {
  variable: 'MASTER_ADDR' | 'NCCL_COMM_ID';
  /** The variable's value as written. */
  value: string;
  /** "environment", or the conf file path. */
  source: string;
  /** The host part of the value (address literal or name). */
  host: string;
  /** The numeric address asked about: the literal, or the first resolver answer; null when it could not be known. */
  address: string | null;
  /** Why there is no address (name not resolved, value not parsable). */
  unresolved: string | null;
  /** `ip -j route get <address>`; null when there is no address. */
  route: Captured<IpRouteJson[]> | null;
}

/** An nftables rule that sets DSCP (statement `ip dscp set` / `ip6 dscp set`). */
export interface NftDscpRule {
  family: string;
  table: string;
  chain: string;
  handle: number | null;
  /** The chain's hook (output, postrouting, …) when the chain is a base chain. */
  hook: string | null;
  /** The rule's expression list as nft printed it. */
  expr: unknown[];
}

export interface NftSummary {
  tables: number;
  chains: number;
  rules: number;
  /** Rules that set DSCP. Other rules are only counted: a Kubernetes node's ruleset can be megabytes. */
  dscpRules: NftDscpRule[];
  /** Rules with an `xt` expression: made by iptables-nft; iptables-save shows them in full. */
  xtRules: number;
}

export interface KernelPart {
  /**
   * /proc/sys/net/ipv4/conf/<name>/<key> for `all`, `default` and every link
   * of the network part. The kernel combines `all` with the per-interface value
   * (max for arp_announce, arp_ignore and rp_filter; OR for arp_filter), so
   * both are kept; `default` only seeds interfaces created later.
   */
  conf: Record<string, ConfValues>;
  /** /proc/sys/net/ipv4/ip_local_port_range: where NCCL's listening ports come from. */
  localPortRange: ProcRead;
  /** `ip -j rule show` */
  rules: Captured<IpRuleJson[]>;
  /** `ip -j route show table all` */
  routes: Captured<IpRouteJson[]>;
  /** `ip -j route get` for MASTER_ADDR and the NCCL_COMM_ID host. */
  routeTargets: RouteTarget[];
  /** `tc -j qdisc show` */
  qdiscs: Captured<TcQdiscJson[]>;
  /** `nft -j list ruleset`, summarised. */
  nft: Captured<NftSummary>;
  /** `iptables-save -t mangle` (text). */
  iptablesMangle: Captured<string>;
  /** `ip6tables-save -t mangle` (text). */
  ip6tablesMangle: Captured<string>;
}
