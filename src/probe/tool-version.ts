// ncclx's own version, from its package.json; a module of its own so that the
// command line can state it without loading the probes.

import { readFileSync } from 'node:fs';

export function toolVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    return pkg.version;
  } catch {
    return '0.0.0';
  }
}
