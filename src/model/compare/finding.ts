// Compare findings share the doctor's result shape (src/model/result), so
// exit codes, counts and renderers treat them alike; `nodes` says which nodes
// a finding is about.

import type { CompareFinding } from './types.js';
import { advise } from '../result/build.js';
import type { Evidence, Remediation, Severity } from '../result/types.js';

/** Every compare finding id, with what it checks (docs/compare-json.md). */
export const COMPARE_IDS = {
  'CMP-001': 'Every input is a readable snapshot',
  'CMP-002': 'Every node appears once',
  'CMP-010': 'Every node runs the same NCCL version',
  'CMP-011': 'Every node has the same NCCL_* settings',
  'CMP-012': 'GPUDirect RDMA is available on every node or on none',
  'CMP-020': 'The symmetric RDMA set: netdevs usable on every node',
  'CMP-021': 'One NCCL_IB_HCA value names the symmetric set on every node',
  'CMP-030': 'Every node has the same number of NCCL network devices (rails) and the same transport',
  'CMP-031': 'Rail k has the same HCA and netdev names on every node',
  'CMP-032': 'Rail k is on the same IPv4 subnet on every node (switched fabrics)',
  'CMP-033': 'Rail k has the same MTU on every node',
  'CMP-034': 'Rail k has the same link rate on every node',
  'CMP-035': 'Rail k has the same link layer on every node',
  'CMP-036': 'Rail k uses the same kind of GID on every node',
  'CMP-037': 'Rail k uses the same GID index on every node',
  'CMP-038': 'NCCL finds a routable GID on every rail',
  'CMP-040': 'Direct-connect mesh: every pair of nodes shares a subnet',
  'CMP-041': 'Direct-connect mesh: NCCL can pick the port that faces each peer',
  'CMP-042': 'Direct-connect mesh: NCCL_IB_SUBNET_PREFIX_LEN separates the links',
  'CMP-050': "Each node's bootstrap interface reaches the NCCL root (NCCL_COMM_ID / MASTER_ADDR host)",
  'CMP-051': 'Bootstrap interfaces are on one subnet',
  'CMP-052': 'The NCCL_COMM_ID / MASTER_ADDR host is one of the nodes',
  'CMP-060': 'No IPv4 address is used by two nodes',
  'CMP-070': 'Every node maps its GPUs onto NICs the same way (NCCL topology)',
  'CMP-071': 'No node has a GPU or NIC PCIe link running below its maximum',
} as const;

export type CompareId = keyof typeof COMPARE_IDS;

export function finding(
  id: CompareId,
  severity: Severity,
  summary: string,
  nodes: string[],
  why: string,
  remediation: Remediation | string | null = null,
  evidence: Evidence[] = [],
): CompareFinding {
  // Compare's advice names nodes and values across the cluster: a sentence, unless the caller has data.
  return { checkId: id, severity, summary, evidence, why, remediation: typeof remediation === 'string' ? advise(remediation) : remediation, nodes };
}
