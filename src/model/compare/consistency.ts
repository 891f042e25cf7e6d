// What must be identical on every node besides the rails: the NCCL version
// (NCCL refuses mismatches at init: "Mismatched NCCL version detected : rank %d
// version %d rank %d version %d", ncclInvalidUsage), the NCCL_* settings, and
// GPUDirect RDMA. Plus identities: one node per snapshot, one node per address.

import { setEnv } from '../result/build.js';
import { finding } from './finding.js';
import { groupNodes, nameList, outliers, plural, valueGroups } from './groups.js';
import type { CompareFinding, NodeFacts, ValueGroup } from './types.js';

export interface Consistency {
  ncclVersions: ValueGroup<string>[];
  /** Every NCCL_* variable set on some node: its values ("(unset)" where it is not set). */
  settings: { variable: string; values: ValueGroup<string>[] }[];
  /** The doctor's GPUDirect RDMA verdict per node (topo/gdr-verdict.ts labels). */
  gdr: ValueGroup<string>[];
}

const UNSET = '(unset)';
/** Variables that only change logging: a difference is worth knowing, not worth failing a job. */
const DEBUG_VARS = new Set(['NCCL_DEBUG', 'NCCL_DEBUG_SUBSYS', 'NCCL_DEBUG_FILE', 'NCCL_DEBUG_TIMESTAMP_FORMAT', 'NCCL_DEBUG_TIMESTAMP_LEVELS', 'NCCL_TOPO_DUMP_FILE', 'NCCL_TOPO_DUMP_FILE_RANK', 'NCCL_GRAPH_DUMP_FILE', 'NCCL_GRAPH_DUMP_FILE_RANK']);

const describe = <T>(gs: { value: T; members: number[] }[], names: string[], show: (v: T) => string = String) =>
  gs.map((g) => `${show(g.value)} on ${g.members.length === 1 ? names[g.members[0]!] : plural(g.members.length, 'node')}`).join(', ');

export function consistency(facts: NodeFacts[], names: string[]): { consistency: Consistency; findings: CompareFinding[] } {
  const n = facts.length;
  const findings: CompareFinding[] = [];

  // NCCL versions: an assumed version is not a version (the library was not found).
  const versions = groupNodes(n, (i) => (facts[i]!.nccl.assumed ? `unknown (assumed ${facts[i]!.nccl.version})` : facts[i]!.nccl.version), (v) => v);
  const known = groupNodes(n, (i) => (facts[i]!.nccl.assumed ? undefined : facts[i]!.nccl.version), (v) => v);
  const unknownNodes = facts.flatMap((f, i) => (f.nccl.assumed ? [names[i]!] : []));
  if (known.length > 1) {
    findings.push(
      finding(
        'CMP-010',
        'error',
        `NCCL versions differ: ${describe(known, names)}`,
        outliers(known).map((i) => names[i]!),
        'NCCL compares versions at init and fails every rank with "Mismatched NCCL version detected : rank r version v rank r\' version v\'" (ncclInvalidUsage). The version NCCL uses is the library the process loads (LD_LIBRARY_PATH, the Python wheel, …).',
        `Install the same NCCL on every node (${known[0]!.value} is the most common)`,
      ),
    );
  } else if (known.length === 1 && unknownNodes.length === 0) {
    const modelled = facts.every((f) => f.nccl.source.startsWith('--nccl-version'));
    findings.push(finding('CMP-010', 'ok', `NCCL ${known[0]!.value} on every node${modelled ? ' (as given by --nccl-version, not read from the nodes)' : ''}`, [], ''));
  }
  if (unknownNodes.length) {
    findings.push(finding('CMP-010', 'warn', `no NCCL library found on ${plural(unknownNodes.length, 'node')} (${nameList(unknownNodes)}): their version cannot be compared`, unknownNodes, 'ncclx reads the version from the library on the node; inside a container or a Python environment it may not be on the searched paths.', 'Take the snapshot where the job runs (same container / virtualenv), or pass --nccl-version when every node is known to run the same one'));
  }

  // NCCL_* settings: every variable set anywhere, compared across all nodes.
  const vars = [...new Set(facts.flatMap((f) => Object.keys(f.settings)))].sort();
  const settings: Consistency['settings'] = [];
  for (const v of vars) {
    const gs = groupNodes(n, (i) => facts[i]!.settings[v]?.value ?? UNSET, (x) => x);
    settings.push({ variable: v, values: valueGroups(gs, names) });
    if (gs.length <= 1) continue;
    const severity = v === 'NCCL_COMM_ID' ? 'error' : DEBUG_VARS.has(v) ? 'info' : 'warn';
    const quote = (x: string) => (x === UNSET ? x : JSON.stringify(x));
    findings.push(
      finding(
        'CMP-011',
        severity,
        `${v} differs: ${describe(gs, names, quote)}`,
        outliers(gs).map((i) => names[i]!),
        v === 'NCCL_COMM_ID'
          ? 'Every rank must connect to the same root: ranks with another NCCL_COMM_ID wait for a root that never hears from them.'
          : 'Ranks that read different NCCL_* values can choose different transports, devices, GIDs or protocols and then fail to connect or disagree on buffers. Conf files (/etc/nccl.conf, ~/.nccl.conf) count as much as the environment.',
        gs[0]!.value === UNSET ? setEnv({ [v]: null }, `On ${nameList(outliers(gs).map((i) => names[i]!), 3)}`) : setEnv({ [v]: gs[0]!.value }),
      ),
    );
  }

  // GPUDirect RDMA: on some nodes only.
  const gdrAll = groupNodes(n, (i) => facts[i]!.gdr.verdict, (v) => v);
  const gdr = groupNodes(n, (i) => (['peer-memory', 'dma-buf', 'disabled'].includes(facts[i]!.gdr.status) ? facts[i]!.gdr.status : undefined), (v) => v);
  if (gdr.length > 1) {
    const noPeerMem = facts.flatMap((f, i) => (f.gdr.status !== 'peer-memory' && f.gdr.status !== 'unknown' && f.gdr.status !== 'no-rdma' && gdr.some((g) => g.value === 'peer-memory') ? [i] : []));
    findings.push(
      finding(
        'CMP-012',
        'warn',
        `GPUDirect RDMA differs between nodes: ${describe(gdr, names, (s) => ({ 'peer-memory': 'peer memory (nvidia_peermem)', 'dma-buf': 'DMA-BUF only', disabled: 'disabled' })[s as string] ?? String(s))}`,
        (noPeerMem.length ? noPeerMem : outliers(gdr)).map((i) => names[i]!),
        'Each rank decides GPUDirect RDMA for itself; nodes without it stage every transfer through host memory and hold back every collective they take part in.',
        'sudo modprobe nvidia_peermem on those nodes (ncclx doctor --only GDR there)',
      ),
    );
  }

  // NCCL's GPU → NIC choice (ncclx topo): the same on every node with the same hardware, or ranks pair unlike rails.
  const mapOf = (i: number) => {
    const t = facts[i]!.topo;
    return t && t.gpus.length ? t.gpus.map((g, k) => `GPU${k}→${g.nic ?? 'none'}${g.path ? ` ${g.path}` : ''}`).join(', ') : undefined;
  };
  const maps = groupNodes(n, mapOf, (v) => v);
  if (maps.length > 1) {
    findings.push(
      finding(
        'CMP-070',
        'warn',
        `GPUs map onto NICs differently: ${maps.length} layouts; most nodes: ${maps[0]!.value}`,
        outliers(maps).map((i) => names[i]!),
        'NCCL pairs each GPU with the NIC nearest to it (ncclx topo). Nodes whose GPUs reach other NICs, or the same NICs at another distance, run rings and trees whose rails do not line up and whose GPUDirect RDMA differs.',
        'Run `ncclx topo` on an outlier and on a majority node and compare the PCI placement and NCCL_IB_HCA',
      ),
    );
  }
  const slow = facts.flatMap((f, i) => (f.topo?.degraded.length ? [i] : []));
  if (slow.length) {
    findings.push(
      finding(
        'CMP-071',
        'warn',
        `PCIe links below their maximum on ${plural(slow.length, 'node')}: ${slow.slice(0, 3).map((i) => `${names[i]} (${facts[i]!.topo!.degraded.join('; ')})`).join(', ')}${slow.length > 3 ? ', …' : ''}`,
        slow.map((i) => names[i]!),
        'A NIC or GPU link trained down (x8 instead of x16, a lower generation) silently halves that rail on that node, and every collective waits for the slowest rail.',
        'Reseat the cards or check the slots on those nodes (`lspci -vv -s <bdf> | grep LnkSta`)',
      ),
    );
  }

  // One snapshot per node, one node per address.
  const hosts = groupNodes(n, (i) => facts[i]!.host, (v) => v).filter((g) => g.members.length > 1);
  for (const g of hosts) {
    findings.push(finding('CMP-002', 'warn', `host ${g.value} appears in ${plural(g.members.length, 'snapshot')}: ${g.members.map((i) => facts[i]!.file).join(', ')}`, g.members.map((i) => names[i]!), 'The same node taken twice (or nodes sharing a hostname) skews every count in this comparison.', 'Keep one snapshot per node'));
  }
  const owners = new Map<string, Set<number>>();
  facts.forEach((f, i) => {
    // Rails are active ports, so active ports and the bootstrap address cover both.
    const add = (a: string | null) => {
      if (!a) return;
      const set = owners.get(a);
      if (set) set.add(i);
      else owners.set(a, new Set([i]));
    };
    for (const p of f.ports) if (p.active && p.ipv4) add(p.ipv4.slice(0, p.ipv4.indexOf('/')));
    add(f.bootstrap.address);
  });
  for (const [addr, set] of owners) {
    if (set.size < 2 || hosts.some((g) => [...set].every((i) => g.members.includes(i)))) continue;
    const who = [...set].map((i) => names[i]!);
    findings.push(finding('CMP-060', 'error', `${addr} is used by ${plural(set.size, 'node')}: ${nameList(who)}`, who, 'Two nodes with one address on an RDMA or bootstrap interface answer each other\'s ARP and connections at random: RoCE GIDs collide and TCP connections reach the wrong node.', null));
  }

  return { consistency: { ncclVersions: valueGroups(versions, names), settings, gdr: valueGroups(gdrAll, names) }, findings };
}
