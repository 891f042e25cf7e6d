// IB-034: a snapshot without its RDMA part: nothing can be said about the IB transport.
import { advise } from '../../result/build.js';
import type { Finding } from '../socket-findings.js';
import { finding, type IbView } from './view.js';

export function ib034(v: IbView): Finding[] {
  if (v.report.transport.status !== 'no-data') return [];
  return [finding('IB-034', 'warn', 'This snapshot has no RDMA part (it was taken by an older ncclx): nothing can be said about the IB transport', advise('Take a new snapshot with `ncclx snapshot` on the node'))];
}
