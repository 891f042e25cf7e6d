// Host facts. systeminformation is thorough but slow to load, so it is used
// only by `ncclx snapshot`; reasoning commands take the cheap node:os view.

import { arch, hostname, release, type as osType } from 'node:os';
import type { HostPart } from '../model/snapshot/types.js';
import type { Root } from './root.js';

function osRelease(root: Root): string | null {
  const text = root.readTrim('/etc/os-release');
  if (!text) return null;
  const m = /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(text);
  return m?.[1] ?? null;
}

export function quickHost(root: Root): HostPart {
  if (!root.isLive) {
    return {
      hostname: root.readTrim('/etc/hostname') ?? root.readTrim('/proc/sys/kernel/hostname') ?? 'unknown',
      os: osRelease(root),
      kernel: root.readTrim('/proc/sys/kernel/osrelease'),
      arch: null,
      source: `files under ${root.dir}`,
    };
  }
  return { hostname: hostname(), os: osRelease(root) ?? osType(), kernel: release(), arch: arch(), source: 'node:os' };
}

export async function fullHost(root: Root): Promise<HostPart> {
  if (!root.isLive) return quickHost(root);
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
