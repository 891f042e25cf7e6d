// What the NCCL_IB_HCA findings share: the entries of the list and the devices each one matches.
import { entryHits } from '../ib-hca.js';
import type { IbView } from './view.js';

export type EntryHit = ReturnType<typeof entryHits>[number];

/** The verbs device names of this node. */
export const deviceNames = (v: IbView) => v.report.devices.map((d) => d.name);

/** Each NCCL_IB_HCA entry with the devices it matches (empty when there is no list). */
export function hcaHits(v: IbView): EntryHit[] {
  return v.selection.inputs.hca.list ? entryHits(v.selection.inputs.hca, deviceNames(v)) : [];
}
