// Host facts. systeminformation is thorough but slow to load, so it is used
// only by `ncclx snapshot`; reasoning commands take the cheap node:os view.

import { arch, hostname, release, type as osType } from 'node:os';
import type { HostPart, ProbeWarning } from '../model/snapshot/types.js';
import { BOUNDS, clip } from './bound.js';
import type { Root } from './root.js';

function osRelease(root: Root): string | null {
  const text = root.readTrim('/etc/os-release');
  if (!text) return null;
  const m = /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(text);
  return m?.[1] !== undefined ? clip(m[1]) : null;
}

/**
 * The node name a tree gives: /etc/hostname, else /proc/sys/kernel/hostname.
 * The kernel holds at most 64 characters (__NEW_UTS_LEN): a longer file is not
 * a host name that a node could have, and is passed over with a warning.
 */
function treeHostname(root: Root, warnings: ProbeWarning[] | undefined): string {
  for (const p of ['/etc/hostname', '/proc/sys/kernel/hostname']) {
    const r = root.read(p, 4096);
    const name = r.ok ? r.value.replace(/\n$/, '') : null;
    if (name !== null && name.length <= BOUNDS.hostname) return name;
    if (name !== null || (!r.ok && r.error.startsWith('EFBIG'))) warnings?.push({ source: 'host', message: `${p}: more than the ${BOUNDS.hostname} characters a host name holds (__NEW_UTS_LEN): ignored` });
  }
  return 'unknown';
}

export function quickHost(root: Root, warnings?: ProbeWarning[]): HostPart {
  if (!root.isLive) {
    return {
      hostname: treeHostname(root, warnings),
      os: osRelease(root),
      kernel: clip(root.readTrim('/proc/sys/kernel/osrelease') ?? '') || null,
      arch: null,
      source: `files under ${root.dir}`,
    };
  }
  return { hostname: hostname(), os: osRelease(root) ?? osType(), kernel: release(), arch: arch(), source: 'node:os' };
}

export async function fullHost(root: Root, warnings?: ProbeWarning[]): Promise<HostPart> {
  if (!root.isLive) return quickHost(root, warnings);
  try {
    const si = await import('systeminformation');
    const info = await si.osInfo();
    return {
      hostname: info.hostname || hostname(),
      os: [info.distro, info.release].filter(Boolean).join(' ') || null,
      kernel: info.kernel || release(),
      arch: info.arch || arch(),
      source: 'systeminformation',
    };
  } catch {
    return quickHost(root);
  }
}
