// Every check ncclx runs, in report order. Each family module exports its
// checks; adding a family means one import and one spread here.

import { arpChecks } from './arp.js';
import { candidateChecks } from './candidates.js';
import { envChecks } from './env.js';
import { gdrChecks } from './gdr.js';
import { libraryChecks } from './library.js';
import { networkChecks } from './network.js';
import { qosChecks } from './qos.js';
import { rdmaChecks } from './rdma.js';
import { routingChecks } from './routing.js';
import { socketChecks } from './socket.js';
import { topologyChecks } from './topology.js';
import type { Check } from '../model/doctor/types.js';

export const ALL_CHECKS: Check[] = [
  ...socketChecks,
  ...routingChecks,
  ...envChecks,
  ...libraryChecks,
  ...networkChecks,
  ...rdmaChecks,
  ...candidateChecks,
  ...arpChecks,
  ...qosChecks,
  ...gdrChecks,
  ...topologyChecks,
];

export function checkById(id: string): Check | undefined {
  return ALL_CHECKS.find((c) => c.id === id);
}
