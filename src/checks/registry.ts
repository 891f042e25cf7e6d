// Every check ncclx runs, in report order. Each family module exports its
// checks; adding a family means one import and one spread here.

import { arpChecks } from './arp.js';
import { envChecks } from './env.js';
import { qosChecks } from './qos.js';
import { routingChecks } from './routing.js';
import { socketChecks } from './socket.js';
import type { Check } from './types.js';

export const ALL_CHECKS: Check[] = [...socketChecks, ...routingChecks, ...envChecks, ...arpChecks, ...qosChecks];

export function checkById(id: string): Check | undefined {
  return ALL_CHECKS.find((c) => c.id === id);
}
