// ncclx's own version: the single executable's bundle states it, else
// package.json; a module of its own so that the command line can state it
// without loading the probes.

import { readFileSync } from 'node:fs';
import { currentBundle } from './bundle.js';

export function toolVersion(): string {
  const bundled = currentBundle();
  if (bundled) return bundled.version;
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    return pkg.version;
  } catch {
    return '0.0.0';
  }
}
