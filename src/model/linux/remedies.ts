// What would make an `unknown` result known: every unknown says so (issue
// #16). Derived from the reason the check gave, which names what was missing:
// a tool, root, a part of the snapshot, a name only the live node resolves.

import { advise } from '../result/build.js';
import type { Remediation } from '../result/types.js';

/** Debian packages of the tools ncclx runs. */
const PACKAGE: Record<string, string> = {
  ip: 'iproute2',
  tc: 'iproute2',
  nft: 'nftables',
  'iptables-save': 'iptables',
  'ip6tables-save': 'iptables',
  iptables: 'iptables',
  ethtool: 'ethtool',
  lspci: 'pciutils',
};

export function remedyForUnknown(summary: string, reason: string): Remediation {
  const text = `${summary} ${reason}`;
  if (/the check itself failed/.test(text)) return advise('This is a bug in ncclx: please report it with the output of `ncclx doctor --json` and the snapshot (`ncclx snapshot`)');
  const missing = [...text.matchAll(/\b([a-z0-9-]+): not installed/g)].map((m) => m[1]!);
  const single = /\b(nft|iptables-save|ip6tables-save|ip|tc|ethtool|lspci) (?:is )?not installed/.exec(text)?.[1];
  const tools = [...new Set([...missing, ...(single ? [single] : [])])];
  if (tools.length) {
    const pkgs = [...new Set(tools.map((t) => PACKAGE[t] ?? t))];
    return advise(`Install ${tools.join(', ')} (apt-get install ${pkgs.join(' ')}) and run ncclx again`);
  }
  if (/\b(EACCES|EPERM|permission denied|Operation not permitted|not root|as root)\b/i.test(text)) return advise('Run ncclx as root (sudo): reading this needs privileges');
  if (/snapshot has no .* part|taken by an (older )?ncclx|re-take/i.test(text)) return advise('Take the snapshot again with this ncclx (`ncclx snapshot` on the node): it records the missing part');
  if (/not resolved when the node was read|no route lookup|changed after the node was read|came from a flag/i.test(text)) return advise('Run ncclx on the node itself, with the job\'s environment: names are resolved and routes looked up there');
  if (/commands\/|--root|fixture|recorded/i.test(text)) return advise('Record the missing command output under commands/ in the --root tree (docs/snapshot.md), or run ncclx on the node itself');
  return advise('Run ncclx doctor on the node itself, as root, with iproute2, nftables and iptables installed');
}
