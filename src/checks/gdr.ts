// GPUDirect RDMA readiness (nccl-behavior.md §5): which peer-memory paths this
// NCCL version looks at, the DMA-BUF alternative, and the knobs that disable it.

import { parseNcclInt } from '../nccl/cint.js';
import { atLeast } from '../nccl/versions.js';
import { shExport } from '../report/quote.js';
import type { RdmaPart } from '../snapshot/rdma-types.js';
import { ok, result } from './result.js';
import type { Check, CheckContext, CheckResult, Evidence } from './types.js';

function rdmaOf(ctx: CheckContext): RdmaPart | null {
  return (ctx.snapshot.rdma as RdmaPart | undefined) ?? null;
}

function unknown(summary: string): CheckResult {
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
  title: 'GPUDirect RDMA: a peer-memory path NCCL checks, or DMA-BUF',
  family: 'gdr',
  run(ctx) {
    const rdma = rdmaOf(ctx);
    if (!rdma) return unknown('no RDMA data in this snapshot');
    if (rdma.devices.length === 0) return ok('no RDMA devices: GPUDirect RDMA does not apply');
    const profile = ctx.reasoning.profile;
    const v = profile.version;
    const evidence: Evidence[] = [
      ...profile.peerMemPaths.map((p) => ({ kind: 'file' as const, source: p, value: present(rdma, p) ? 'present' : 'absent' })),
      ...rdma.modules.map((m) => ({ kind: 'file' as const, source: m.path, value: m.present ? 'present' : 'absent' })),
    ];
    const found = profile.peerMemPaths.filter((p) => present(rdma, p));
    if (found.length) {
      return ok(`peer memory available to NCCL ${v.raw} through ${found.join(', ')}`, evidence);
    }
    // NCCL_DMABUF_ENABLE is an NCCL_PARAM integer: `false` reads 0 like `0` does.
    const dmabufOff = parseNcclInt(ctx.reasoning.env.vars['NCCL_DMABUF_ENABLE'], 1).value === 0;
    if (!atLeast(v, '2.13.4') || dmabufOff) {
      return {
        checkId: '',
        severity: 'error',
        summary: `GPUDirect RDMA disabled: none of the peer-memory paths NCCL ${v.raw} checks exists${dmabufOff ? ' and NCCL_DMABUF_ENABLE=0 turns DMA-BUF off' : ' and this version has no DMA-BUF path'}`,
        evidence,
        why: 'Without GPUDirect RDMA every transfer is staged through host memory: NCCL logs "GPU Direct RDMA Disabled for HCA" and inter-node bandwidth drops sharply.',
        remediation: dmabufOff ? 'unset NCCL_DMABUF_ENABLE' : 'sudo modprobe nvidia_peermem',
        fixIds: [],
      };
    }
    return {
      checkId: '',
      severity: 'warn',
      summary: `no peer-memory module visible to NCCL ${v.raw}; GPUDirect RDMA depends on DMA-BUF`,
      evidence,
      why: 'DMA-BUF needs a CUDA driver ≥ 11.7 with DMA-BUF support on the GPU (NCCL logs "DMA-BUF is available on GPU device"), a kernel and NIC driver that support it; otherwise NCCL silently stages through host memory.',
      remediation: 'Check NCCL_DEBUG=INFO for "DMA-BUF is available on GPU device" and "GPU Direct RDMA Enabled for HCA", or load the module: sudo modprobe nvidia_peermem',
      fixIds: [],
    };
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
    const out: CheckResult[] = [];
    const nvidiaPeermem = moduleLoaded(rdma, 'nvidia_peermem');
    const seen = profile.peerMemPaths.some((p) => present(rdma, p));
    if (nvidiaPeermem && !seen && !atLeast(v, '2.23.4')) {
      out.push({
        checkId: '',
        severity: 'warn',
        summary: `nvidia_peermem is loaded, but NCCL ${v.raw} only looks for ${profile.peerMemPaths.join(', ')} — it learned /sys/module/nvidia_peermem/version in 2.23.4`,
        evidence: profile.peerMemPaths.map((p) => ({ kind: 'file', source: p, value: 'absent' })),
        why: 'With the inbox RDMA stack nvidia_peermem creates no memory_peers entry, so older NCCL reports GPU Direct RDMA disabled unless DMA-BUF works.',
        remediation: 'Upgrade to NCCL ≥ 2.23.4, or use MLNX_OFED/DOCA whose peer-memory API creates the memory_peers files',
        fixIds: [],
      });
    }
    const oldPath = '/sys/kernel/mm/memory_peers/nvidia-peermem/version';
    if (rdma.peerMem.some((p) => p.path === oldPath && p.present) && !profile.peerMemPaths.includes(oldPath) && !seen) {
      out.push({
        checkId: '',
        severity: 'warn',
        summary: `${oldPath} exists, but NCCL ${v.raw} no longer checks it (only 2.9.8–2.21.x did)`,
        evidence: [{ kind: 'file', source: oldPath, value: 'present' }],
        why: 'NCCL 2.22.x checks nv_mem and nv_mem_nc only; the nvidia-peermem entry is ignored, so GPUDirect RDMA depends on DMA-BUF.',
        remediation: 'Upgrade to NCCL ≥ 2.23.4 (which checks /sys/module/nvidia_peermem/version)',
        fixIds: [],
      });
    }
    if (out.length === 0) out.push(ok(`no peer-memory version caveat applies to NCCL ${v.raw}`));
    return out;
  },
};

// Names NCCL_NET_GDR_LEVEL accepts, by the version that added them (case-sensitive).
const GDR_LEVELS: [string, string][] = [['LOC', '2.0.0'], ['NVL', '2.0.0'], ['NVB', '2.0.0'], ['PIX', '2.0.0'], ['PXB', '2.0.0'], ['PXN', '2.0.0'], ['PHB', '2.0.0'], ['SYS', '2.0.0'], ['C2C', '2.26.2'], ['P2C', '2.27.3']];

const gdrLevel: Check = {
  id: 'GDR-003',
  title: 'NCCL_NET_GDR_LEVEL is a value NCCL accepts',
  family: 'gdr',
  run(ctx) {
    const raw = ctx.reasoning.env.vars['NCCL_NET_GDR_LEVEL'];
    if (raw === undefined) return ok('NCCL_NET_GDR_LEVEL unset (default distance)');
    const v = ctx.reasoning.profile.version;
    const names = GDR_LEVELS.filter(([, since]) => atLeast(v, since)).map(([n]) => n);
    if (/^\d/.test(raw) || names.includes(raw)) {
      return ok(`NCCL_NET_GDR_LEVEL=${raw} is accepted`, [{ kind: 'value', source: 'environment', value: `NCCL_NET_GDR_LEVEL=${raw}` }]);
    }
    const upper = raw.toUpperCase();
    return {
      checkId: '',
      severity: 'warn',
      summary: `NCCL_NET_GDR_LEVEL=${raw} is not a level NCCL ${v.raw} knows (${names.join(' ')}, or an integer): it is silently ignored`,
      evidence: [{ kind: 'value', source: 'environment', value: `NCCL_NET_GDR_LEVEL=${raw}` }],
      why: 'Level names are case-sensitive; an unknown value leaves the default distance (PXB) in place without any message.',
      remediation: names.includes(upper) ? shExport('NCCL_NET_GDR_LEVEL', upper) : 'unset NCCL_NET_GDR_LEVEL',
      fixIds: [],
    };
  },
};

export const gdrChecks: Check[] = [peerMemory, versionCaveats, gdrLevel];
