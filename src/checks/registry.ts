// Every check ncclx runs, in report order. Each family module exports its
// checks; adding a family means one import and one spread here.

import { envChecks } from './env.js';
import { socketChecks } from './socket.js';
import type { Check } from './types.js';

export const ALL_CHECKS: Check[] = [...socketChecks, ...envChecks];

export function checkById(id: string): Check | undefined {
  return ALL_CHECKS.find((c) => c.id === id);
}
