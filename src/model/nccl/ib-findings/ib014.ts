// IB-014: the locked-memory limit is not unlimited; NCCL's ibv_reg_mr fails once it is reached.
import { advise, run } from '../../result/build.js';
import type { Finding } from '../socket-findings.js';
import { finding, type IbView } from './view.js';

/** Below this soft limit registration fails early enough to be an error. */
const SMALL_MEMLOCK = 64 * 1024 * 1024;

export function humanBytes(n: number): string {
  if (n >= 1 << 30) return `${(n / (1 << 30)).toFixed(1)} GiB`;
  if (n >= 1 << 20) return `${(n / (1 << 20)).toFixed(0)} MiB`;
  if (n >= 1024) return `${(n / 1024).toFixed(0)} KiB`;
  return `${n} bytes`;
}

export function ib014(v: IbView): Finding[] {
  const rdma = v.snapshot.rdma;
  if (!rdma || !v.hasRdma) return [];
  const ml = rdma.memlock;
  if (ml.soft === null || ml.soft === 'unlimited' || !(v.kept.length || v.used.length)) return [];
  const bytes = Number(ml.soft);
  const small = Number.isFinite(bytes) && bytes < SMALL_MEMLOCK;
  return [
    finding(
      'IB-014',
      small ? 'error' : 'warn',
      `The locked-memory limit is ${Number.isFinite(bytes) ? humanBytes(bytes) : ml.soft} (soft; hard ${ml.hard === 'unlimited' || !Number.isFinite(Number(ml.hard)) ? ml.hard : humanBytes(Number(ml.hard))})${rdma.container.detected ? ' inside a container' : ''}: NCCL registers its buffers with ibv_reg_mr, which fails (ENOMEM / "Cannot allocate memory") once the limit is reached`,
      rdma.container.detected ? advise('Raise it for the container: docker run --ulimit memlock=-1:-1 … (or LimitMEMLOCK=infinity for the container runtime service)') : run([['ulimit', '-l', 'unlimited']], 'Raise the limit in the shell that starts the job, and make it permanent in /etc/security/limits.conf (* - memlock unlimited)'),
    ),
  ];
}
