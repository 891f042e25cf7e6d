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
    const dropped0 = set.verdicts.filter((x) => !x.kept && !/uplink/.test(x.reason));
    const label = (v: (typeof dropped0)[number]) => `${v.netdev} (${v.devices.join(', ')})`;
    // One result per kind, each naming every netdev: ports that are down are IB-009's; the others need an address.
    const down = dropped0.filter((v) => v.notActive);
    const noAddress = dropped0.filter((v) => !v.notActive);
    if (noAddress.length) {
      out.push(
        result(
          'warn',
          `${noAddress.map(label).join(', ')} ${noAddress.length === 1 ? 'is' : 'are'} left out of the candidate set: no IPv4 address, so RoCE v2 cannot route over ${noAddress.length === 1 ? 'it' : 'them'} (NCCL would fall back to GID 0)`,
          noAddress.map((v) => ({ kind: 'value' as const, source: `addresses of ${v.netdev}`, value: 'no IPv4' })),
          'A RoCE port whose netdev has no IPv4 address has no IPv4 GID: RoCE v2 cannot route and QPs time out with IBV_WC_RETRY_EXC_ERR.',
          advise(`Give ${noAddress.map((v) => v.netdev).join(', ')} ${noAddress.length === 1 ? 'its' : 'their'} rail's IPv4 address (or attach the network to the pod); until then ncclx env leaves ${noAddress.length === 1 ? 'it' : 'them'} out of RDMA_PEER_IFACES (the set below)`),
        ),
      );
    }
    if (down.length) {
      out.push(
        result(
          'info',
          `${down.map((v) => `${label(v)} ${v.notActive}`).join(', ')}: left out of the candidate set, ${down.length === 1 ? 'its port is' : 'their ports are'} not ACTIVE (IB-009)`,
          down.map((v) => ({ kind: 'value' as const, source: `ports of ${v.netdev}`, value: `${v.notActive}; ${v.ipv4.length ? v.ipv4.join(', ') : 'no IPv4'}` })),
          'NCCL uses only ACTIVE ports, so a port that is down is no rail of this job whatever its address; it matters only if other nodes use that rail.',
          advise('Nothing to do if the port is unused on purpose; if it is meant to be a rail, cable and enable it first (IB-009), then give its netdev the rail\'s IPv4 address'),
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
