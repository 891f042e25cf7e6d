// What `ncclx doctor` hands the interactive doctor.

import type { Check, CheckOptions } from '../model/doctor/types.js';
import type { NodeSnapshot } from '../model/snapshot/types.js';
import type { FixApi } from './fix-api.js';
import type { NodeSource } from './model.js';

export interface TuiOptions {
  /** Reads the node (or loads the snapshot); `onStep` reports what is being read. */
  load: (onStep: (what: string) => void) => Promise<NodeSnapshot>;
  checks: Check[];
  options: CheckOptions;
  source: NodeSource;
  color: boolean;
  /** `ncclx fix` as a library, loaded when the Fixes view is first shown. */
  fixApi: () => Promise<FixApi>;
}
