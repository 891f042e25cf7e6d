// Which machine and which boot this is: what a fix plan records, so that it is
// applied only where and when it was made (`ncclx fix --plan … --apply`).

import { hostname } from 'node:os';
import type { NodeIdentity } from '../model/fix/types.js';
import { Root } from './root.js';

export function nodeIdentity(root = new Root('/')): NodeIdentity {
  const text = (p: string) => {
    const r = root.read(p, 4096);
    return r.ok ? r.value.trim() || null : null;
  };
  return {
    machineId: text('/etc/machine-id'),
    hostname: text('/proc/sys/kernel/hostname') ?? hostname(),
    bootId: text('/proc/sys/kernel/random/boot_id'),
  };
}
