// Topology checks (docs/nccl/topology.md): NIC functions with no RDMA device and
// GPU↔NIC NUMA placement. (RDMA devices off the PCI tree are IB-011, in this family.)


import type { Check, CheckContext } from '../model/doctor/types.js';
import { rdmaNetdevs } from '../model/linux/rdma-netdevs.js';
import { advise, ok, result, run } from '../model/result/build.js';
import type { Outcome } from '../model/result/types.js';
import type { RdmaDevice } from '../model/snapshot/rdma-types.js';
import { versionString } from '../model/nccl/versions.js';
import { topoReport } from '../model/topo/report.js';

const unknownBecause = (summary: string, why: string): Outcome => result('unknown', summary, [], why);

const rdmaOf = (ctx: CheckContext) => ctx.snapshot.rdma ?? null;
const pciOf = (ctx: CheckContext) => ctx.snapshot.pci ?? null;

// Vendors whose network functions normally come with an RDMA device.
const RDMA_VENDORS: Record<string, string> = { '0x15b3': 'NVIDIA/Mellanox (mlx5_ib)', '0x14e4': 'Broadcom (bnxt_re)', '0x1d0f': 'AWS (efa)', '0x8086': 'Intel (irdma)' };

const nicWithoutRdma: Check = {
  id: 'TOPO-001',
  title: 'RDMA-capable NIC functions have an RDMA device',
  family: 'topology',
  run(ctx) {
    const rdma = rdmaOf(ctx);
    const pci = pciOf(ctx);
    if (!rdma || !pci || !pci.present) return unknownBecause('no PCI or RDMA data in this snapshot', 'Cannot compare NIC functions with RDMA devices.');
    const rdmaBdfs = new Set(rdma.devices.map((d) => d.pci?.bdf).filter((b): b is string => !!b));
    // Netdevs an RDMA port carries, and the members of bonds among them: the second port of a
    // RoCE LAG has no RDMA device of its own, because mlx5_bond_0 serves both functions.
    const carried = [...rdma.devices.flatMap((d) => d.pciNetdevs), ...rdmaNetdevs(ctx.snapshot).map((r) => r.netdev)];
    const rdmaNetdevSet = new Set([...carried, ...carried.flatMap((n) => rdma.netdevs[n]?.bondSlaves ?? [])]);
    const orphans = pci.nics.filter((n) => {
      const capable = n.class.startsWith('0x0207') || (n.vendor === '0x15b3' && n.class.startsWith('0x02'));
      return capable && !rdmaBdfs.has(n.bdf) && !n.netdevs.some((nd) => rdmaNetdevSet.has(nd));
    });
    if (orphans.length === 0) return ok('every RDMA-capable NIC function has an RDMA device');
    return orphans.map((n) =>
      result(
        'warn',
        `PCI ${n.bdf} (${RDMA_VENDORS[n.vendor] ?? n.vendor}${n.netdevs.length ? `, netdev ${n.netdevs.join(', ')}` : ''}) has no RDMA device: NCCL's IB transport cannot use it`,
        [{ kind: 'file', source: `/sys/bus/pci/devices/${n.bdf}/class`, value: `${n.class} vendor ${n.vendor} driver ${n.driver ?? 'none'}` }],
        'A NIC without an RDMA device (RDMA driver not loaded, or not passed into the container) is invisible to NCCL_IB_HCA and leaves a rail unused or makes this node differ from its peers.',
        n.vendor === '0x15b3' ? run([['modprobe', 'mlx5_ib']], 'Load the RDMA driver, and pass /dev/infiniband into the container') : advise("Load the NIC vendor's RDMA driver"),
      ),
    );
  },
};

const numaPlacement: Check = {
  id: 'TOPO-002',
  title: 'Every GPU has an RDMA NIC on its NUMA node',
  family: 'topology',
  run(ctx) {
    const rdma = rdmaOf(ctx);
    const pci = pciOf(ctx);
    if (!rdma || !pci || !pci.present) return unknownBecause('no PCI or RDMA data in this snapshot (/sys/bus/pci/devices not readable)', 'Cannot compare GPU and NIC placement.');
    if (pci.gpus.length === 0 || rdma.devices.length === 0) return result('na', pci.gpus.length === 0 ? 'no NVIDIA GPUs visible: nothing to place' : 'no RDMA devices: nothing to place', [], '');
    const numaOf = (d: RdmaDevice): number | null => {
      const n = d.pci?.numaNode;
      return typeof n === 'string' && /^-?\d+$/.test(n) ? Number(n) : null;
    };
    const nicNuma = new Map<number, string[]>();
    for (const d of rdma.devices) {
      const n = numaOf(d);
      if (n === null || n < 0) continue;
      nicNuma.set(n, [...(nicNuma.get(n) ?? []), d.name]);
    }
    const gpuNumas = pci.gpus.map((g) => g.numaNode).filter((n): n is number => n !== null && n >= 0);
    if (nicNuma.size === 0 && rdma.devices.every((d) => !d.pci)) {
      return unknownBecause('no RDMA device sits on the PCI tree (see IB-011), so NIC NUMA nodes are unknown', 'Placement cannot be judged without the NICs\' PCI functions.');
    }
    if (nicNuma.size === 0 || gpuNumas.length === 0) return unknownBecause('NUMA nodes are not reported (numa_node is -1 or missing)', 'Single-socket platforms and VMs often report -1; placement cannot be judged.');
    const lonely = [...new Set(gpuNumas)].filter((n) => !nicNuma.has(n));
    if (lonely.length === 0) return ok(`GPUs on NUMA ${[...new Set(gpuNumas)].join(', ')} each have RDMA NICs on the same node`);
    return lonely.map((n) =>
      result(
        'warn',
        `GPUs ${pci.gpus.filter((g) => g.numaNode === n).map((g) => g.bdf).join(', ')} on NUMA ${n} have no RDMA NIC on that node (NICs are on ${[...nicNuma.entries()].map(([k, v]) => `${k}: ${v.join(',')}`).join('; ')})`,
        pci.gpus.filter((g) => g.numaNode === n).map((g) => ({ kind: 'file' as const, source: `/sys/bus/pci/devices/${g.bdf}/numa_node`, value: String(n) })),
        'Traffic from these GPUs crosses the inter-socket link to reach a NIC; NCCL may also disable GPUDirect RDMA for them (distance SYS > PXB).',
        advise('Check cabling/slot placement; NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=GRAPH shows the GPU↔NIC paths NCCL chose'),
      ),
    );
  },
};

// NCCL's own topology (src/model/topo): one check per finding kind, all from one report.
// Without the graph search: no check reads it (TopoOverrides.graphs).
const report = (ctx: CheckContext) => ctx.memo('topo-report-checks', () => topoReport(ctx.snapshot, { ncclVersion: versionString(ctx.reasoning.choice.version), graphs: false }));

function topoCheck(id: string, title: string, okText: string, why: string, family: Check['family'] = 'topology'): Check {
  return {
    id,
    title,
    family,
    run(ctx) {
      const r = report(ctx);
      if (r.unavailable) return unknownBecause(`no PCI topology: ${r.unavailable}`, 'NCCL\'s GPU ↔ NIC paths cannot be rebuilt without the PCI tree.');
      if (r.gpus.length === 0 || r.nics.length === 0) return result('na', r.gpus.length === 0 ? 'no NVIDIA GPUs visible' : 'no NIC that NCCL\'s IB transport places', [], '');
      const mine = r.findings.filter((f) => f.id === id);
      if (mine.length === 0) return ok(okText);
      const evidence = [{ kind: 'value' as const, source: `ncclx model of NCCL ${r.ncclVersion} topology (ncclx topo)`, value: r.pairs.map((p) => `GPU${p.gpu}→${p.nic === null ? '-' : r.nics[p.nic]!.device} ${p.path ?? '-'}`).join(', ') }];
      return mine.map((f) => result(f.severity, f.message, evidence, why, f.remediation));
    },
  };
}

// GPUDirect RDMA per GPU: in the GPUDirect RDMA family, next to the NIC side (GDR-001), so the family shows the one verdict (topo/gdr-verdict.ts).
const topoGdr = topoCheck('TOPO-010', 'GPUDirect RDMA is not disabled by distance', 'every GPU reaches its NIC within the GPUDirect RDMA distance', 'Beyond NCCL_NET_GDR_LEVEL (default PXB) NCCL does not use GPUDirect RDMA and stages every transfer through host memory: a copy per transfer, lower inter-node bandwidth, more CPU and memory-bus load.', 'gdr');
const topoFunnel = topoCheck('TOPO-011', 'GPUs are spread over the NICs', 'each GPU\'s first channel uses its own NIC', 'GPUs that share a NIC while another sits idle halve their network bandwidth.');
const topoLink = topoCheck('TOPO-012', 'PCIe links run at the speed and width they support', 'every GPU and NIC PCIe link runs at its maximum speed and width', 'A link trained down (x8 instead of x16, a lower generation) silently halves bandwidth; NCCL reads the maximum and does not notice.');
const topoCross = topoCheck('TOPO-013', 'Every GPU has a NIC on its side of the CPU interconnect', 'no GPU reaches its NIC across sockets', 'Traffic across the CPU interconnect is slower and GPUDirect RDMA is off at SYS distance.');

const nvlinksActive: Check = {
  id: 'TOPO-014',
  title: 'Every NVLink is active',
  family: 'topology',
  run(ctx) {
    const r = report(ctx);
    if (r.unavailable) return unknownBecause(`no PCI topology: ${r.unavailable}`, 'The GPUs are not known without the PCI tree.');
    if (r.gpus.length === 0) return result('na', 'no NVIDIA GPUs visible', [], '');
    const seen = r.gpus.filter((g) => g.nvlinks);
    if (seen.length === 0) {
      // Without any nvidia-smi output ncclx knows no NVLink here (ncclx topo models PCIe paths only); with NV# in topo -m it knows links it cannot judge.
      const nvl = ctx.snapshot.pci?.topology?.nvlink?.links.some((row) => row.some((n) => n > 0));
      if (!nvl) return result('na', 'no NVLink known on this node (no nvidia-smi topo -m or nvlink -s output)', [], '');
      return unknownBecause('nvidia-smi topo -m shows NVLinks but there is no `nvidia-smi nvlink -s` output (not recorded in this snapshot)', 'NVLink states come from NVML through nvidia-smi.');
    }
    const evidence = [{ kind: 'command' as const, source: 'nvidia-smi nvlink -s', value: seen.map((g) => `GPU${g.index} ${g.nvlinks!.active} active${g.nvlinks!.inactive.length ? `, ${g.nvlinks!.inactive.length} inactive` : ''}`).join('; ') }];
    const why = 'NCCL builds its graph from the active NVLinks only: an inactive link lowers that GPU\'s NVLink bandwidth, and a GPU with none left talks to its peers over PCIe.';
    const mine = r.findings.filter((f) => f.id === 'TOPO-014');
    if (mine.length === 0) return result('ok', seen.every((g) => g.nvlinks!.active === 0) ? 'no GPU has NVLinks (nvidia-smi nvlink -s lists none)' : 'every NVLink nvidia-smi lists is active', evidence, '');
    return mine.map((f) => result(f.severity, f.message, evidence, why, f.remediation));
  },
};

const topoFileAccepted: Check = {
  id: 'TOPO-015',
  title: 'NCCL accepts the topology file',
  family: 'topology',
  run(ctx) {
    const r = report(ctx);
    const mine = r.findings.filter((f) => f.id === 'TOPO-015');
    const path = ctx.reasoning.env.vars['NCCL_TOPO_FILE'];
    if (mine.length === 0) return path === undefined ? result('na', 'NCCL_TOPO_FILE is not set', [], '') : ok(`NCCL reads NCCL_TOPO_FILE=${path}`);
    const evidence = [{ kind: 'value' as const, source: 'NCCL_TOPO_FILE', value: path ?? '' }];
    const why = 'NCCL reads only <system version="1"> (any other version fails ncclTopoGetSystem), and some releases crash loading some trees: either way every communicator on the node fails with it.';
    return mine.map((f) => result(f.severity, f.message, evidence, why, f.remediation));
  },
};

export const topologyChecks: Check[] = [nicWithoutRdma, numaPlacement, topoGdr, topoFunnel, topoLink, topoCross, nvlinksActive, topoFileAccepted];
