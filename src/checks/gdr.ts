// GPUDirect RDMA checks (docs/nccl/gdr.md): readiness (src/model/nccl/gdr.ts),
// peer-memory caveats of older NCCL, and NCCL_NET_GDR_LEVEL's accepted values.

import type { Check } from '../model/doctor/types.js';
import { gdrLevelFinding, gdrReadiness, gdrSummary, gpuCount } from '../model/nccl/gdr.js';
import { gdrVerdict } from '../model/topo/gdr-verdict.js';
import { advise, ok, result, run, unsetEnv } from '../model/result/build.js';
import type { Evidence, Outcome } from '../model/result/types.js';
import type { RdmaPart } from '../model/snapshot/rdma-types.js';

const rdmaOf = (ctx: Parameters<Check['run']>[0]): RdmaPart | null => ctx.snapshot.rdma ?? null;

function unknown(summary: string): Outcome {
  return result('unknown', summary, [], 'Without the RDMA part of the snapshot ncclx cannot tell whether GPUDirect RDMA works.');
}

function present(rdma: RdmaPart, path: string): boolean {
  return rdma.peerMem.some((p) => p.path === path && p.present) || rdma.modules.some((m) => m.path === path && m.present);
}

function moduleLoaded(rdma: RdmaPart, name: string): boolean {
  return rdma.modules.some((m) => m.present && m.path.endsWith(`/${name}`)) || rdma.peerMem.some((p) => p.present && p.path.startsWith(`/sys/module/${name}/`));
}

const peerMemory: Check = {
  id: 'GDR-001',
  title: 'GPUDirect RDMA: a peer-memory path NCCL checks, or DMA-BUF (the NIC side)',
  family: 'gdr',
  run(ctx) {
    const g = gdrReadiness(ctx.snapshot.rdma, ctx.reasoning.profile, ctx.reasoning.env.vars);
    const v = ctx.reasoning.profile.version;
    const summary = gdrSummary(g, v.raw);
    if (g.status === 'unknown') return unknown(summary);
    if (g.status === 'no-rdma') return result('na', summary, [], '');
    // No GPU, nothing to do GPUDirect RDMA from: not a reason to load nvidia_peermem (the one verdict, topo/gdr-verdict.ts).
    const gpus = gpuCount(ctx.snapshot);
    const verdict = gdrVerdict(g, null, gpus);
    if (verdict.state === 'na') return result('na', 'no NVIDIA GPU on this node: GPUDirect RDMA does not apply', [], '');
    const rdma = ctx.snapshot.rdma!;
    const evidence: Evidence[] = [
      ...g.checked.map((c) => ({ kind: 'file' as const, source: c.path, value: c.present ? 'present' : 'absent' })),
      ...rdma.modules.map((m) => ({ kind: 'file' as const, source: m.path, value: m.present ? 'present' : 'absent' })),
    ];
    const onGpus = gpus ? ` for all ${gpus} GPU${gpus === 1 ? '' : 's'}` : '';
    if (g.status === 'peer-memory') {
      return ok(summary, evidence);
    }
    if (g.status === 'disabled') {
      return result(
        'warn',
        `${summary}: GPUDirect RDMA is off${onGpus}`,
        evidence,
        'Without GPUDirect RDMA every transfer is staged through host memory — a copy per transfer, lower inter-node bandwidth, more CPU and memory-bus load; NCCL logs "GPU Direct RDMA Disabled for HCA". What enables it: a peer-memory module NCCL checks (nvidia_peermem) or DMA-BUF.',
        g.dmabufOff ? unsetEnv('NCCL_DMABUF_ENABLE') : run([['modprobe', 'nvidia_peermem']]),
      );
    }
    return result(
      'warn',
      summary,
      evidence,
      'DMA-BUF needs a CUDA driver ≥ 11.7 with DMA-BUF support on the GPU (NCCL logs "DMA-BUF is available on GPU device"), a kernel and NIC driver that support it; otherwise NCCL silently stages through host memory, a copy per transfer.',
      run([['modprobe', 'nvidia_peermem']], 'Check NCCL_DEBUG=INFO for "DMA-BUF is available on GPU device" and "GPU Direct RDMA Enabled for HCA", or load the module'),
    );
  },
};

const versionCaveats: Check = {
  id: 'GDR-002',
  title: 'The peer-memory module is one this NCCL version recognises',
  family: 'gdr',
  run(ctx) {
    const rdma = rdmaOf(ctx);
    if (!rdma) return unknown('no RDMA data in this snapshot');
    const profile = ctx.reasoning.profile;
    const v = profile.version;
    const out: Outcome[] = [];
    const nvidiaPeermem = moduleLoaded(rdma, 'nvidia_peermem');
    const seen = profile.peerMemPaths.some((p) => present(rdma, p));
    if (nvidiaPeermem && !seen && !profile.peerMemModule) {
      out.push(
        result(
          'warn',
          `nvidia_peermem is loaded, but NCCL ${v.raw} only looks for ${profile.peerMemPaths.join(', ')} — it learned /sys/module/nvidia_peermem/version in 2.23.4`,
          profile.peerMemPaths.map((p) => ({ kind: 'file', source: p, value: 'absent' })),
          'With the inbox RDMA stack nvidia_peermem creates no memory_peers entry, so older NCCL reports GPU Direct RDMA disabled unless DMA-BUF works.',
          advise('Upgrade to NCCL ≥ 2.23.4, or use MLNX_OFED/DOCA whose peer-memory API creates the memory_peers files'),
        ),
      );
    }
    const oldPath = '/sys/kernel/mm/memory_peers/nvidia-peermem/version';
    if (rdma.peerMem.some((p) => p.path === oldPath && p.present) && !profile.peerMemPaths.includes(oldPath) && !seen) {
      out.push(
        result(
          'warn',
          `${oldPath} exists, but NCCL ${v.raw} no longer checks it (only 2.9.8–2.21.x did)`,
          [{ kind: 'file', source: oldPath, value: 'present' }],
          'NCCL 2.22.x checks nv_mem and nv_mem_nc only; the nvidia-peermem entry is ignored, so GPUDirect RDMA depends on DMA-BUF.',
          advise('Upgrade to NCCL ≥ 2.23.4 (which checks /sys/module/nvidia_peermem/version)'),
        ),
      );
    }
    if (out.length === 0) out.push(ok(`no peer-memory version caveat applies to NCCL ${v.raw}`));
    return out;
  },
};

const gdrLevel: Check = {
  id: 'GDR-003',
  title: 'NCCL_NET_GDR_LEVEL is a value NCCL accepts',
  family: 'gdr',
  run(ctx) {
    const raw = ctx.reasoning.env.vars['NCCL_NET_GDR_LEVEL'];
    if (raw === undefined) return ok('NCCL_NET_GDR_LEVEL unset (default distance)');
    const evidence: Evidence[] = [{ kind: 'value', source: 'environment', value: `NCCL_NET_GDR_LEVEL=${raw}` }];
    const f = gdrLevelFinding(raw, ctx.reasoning.profile);
    if (!f) return ok(`NCCL_NET_GDR_LEVEL=${raw} is accepted`, evidence);
    return result(f.severity, f.message, evidence, 'Level names are case-sensitive; an unknown value leaves the default distance (PXB) in place without any message.', f.remediation);
  },
};

export const gdrChecks: Check[] = [peerMemory, versionCaveats, gdrLevel];
