// CAND-001: the RDMA candidate set (src/model/linux/candidates.ts) as a check.

import { rdmaCandidates } from '../model/linux/candidates.js';
import type { Check } from '../model/doctor/types.js';
import { advise, result, setEnv } from '../model/result/build.js';
import type { Outcome } from '../model/result/types.js';

const candidateSet: Check = {
  id: 'CAND-001',
  title: 'RDMA candidate set (RDMA_PEER_IFACES)',
  family: 'candidates',
  run(ctx) {
    if (!ctx.snapshot.rdma) {
      return result('unknown', 'no RDMA data in this snapshot', [], 'The candidate set is built from the RDMA devices.');
    }
    const set = rdmaCandidates(ctx.snapshot, ctx.options);
    if (set.verdicts.length === 0) return result('na', 'no RDMA netdevs: there is no candidate set to judge', [], '');
    const out: Outcome[] = [];
    for (const v of set.verdicts.filter((x) => !x.kept && !/uplink/.test(x.reason))) {
      out.push(
        result(
          'warn',
          `${v.netdev} (${v.devices.join(', ')}) is left out of the candidate set: ${v.reason}`,
          [{ kind: 'value', source: `addresses of ${v.netdev}`, value: v.ipv4.length ? v.ipv4.join(', ') : 'no IPv4' }],
          'A RoCE port whose netdev has no IPv4 address has no IPv4 GID: RoCE v2 cannot route and QPs time out with IBV_WC_RETRY_EXC_ERR.',
          advise(`Give ${v.netdev} its rail's IPv4 address (or attach the network to the pod), or leave it out of RDMA_PEER_IFACES: ncclx env prints the set without it (${set.peerLine})`),
        ),
      );
    }
    for (const n of set.unknownIncludes) {
      out.push(result('warn', `--include ${n}: not an RDMA netdev on this node`, [], 'Only netdevs behind an RDMA port can carry RDMA traffic.'));
    }
    const dropped = set.verdicts.filter((v) => !v.kept).map((v) => `${v.netdev} (${v.reason})`);
    out.push(
      result(
        set.kept.length ? 'ok' : 'warn',
        set.kept.length ? `${set.kept.length} RDMA netdev${set.kept.length === 1 ? '' : 's'} for the job: ${set.peerLine}` : 'no RDMA netdev qualifies for the job',
        set.verdicts.map((v) => ({ kind: 'value' as const, source: `${v.netdev} (${v.devices.join(', ')})`, value: `${v.kept ? 'kept' : 'dropped'}: ${v.reason}` })),
        dropped.length ? `Dropped: ${dropped.join('; ')}.` : '',
        set.kept.length ? setEnv({ RDMA_PEER_IFACES: set.kept.join(' ') }) : null,
      ),
    );
    return out;
  },
};

export const candidateChecks: Check[] = [candidateSet];
