// Findings about the IB transport: each names what NCCL will do that the user
// probably did not intend, on which device and port, and one fix. One finding
// id, one small function, one test module (test/unit/ib-findings/ib001.ts …,
// run by test/unit/ib-findings.test.ts), as the doctors ncclx learns from do
// it; this file is the list, in the order the report shows them. IDs are
// stable (IB-001 …) and listed in docs/ib-json.md.
//
// Where an id is raised for each item of a walk (a NCCL_IB_HCA entry, a
// refused merge, a port's GID choice) its function takes that item, so the
// findings keep the walk's order.

import { dedupeFindings, type Finding } from '../socket-findings.js';
import { hcaHits } from './hca.js';
import { ib001, ib001Entry } from './ib001.js';
import { ib002 } from './ib002.js';
import { ib003 } from './ib003.js';
import { ib004 } from './ib004.js';
import { ib005 } from './ib005.js';
import { ib006 } from './ib006.js';
import { ib007 } from './ib007.js';
import { ib008 } from './ib008.js';
import { ib009 } from './ib009.js';
import { ib010 } from './ib010.js';
import { ib011 } from './ib011.js';
import { ib012 } from './ib012.js';
import { ib013 } from './ib013.js';
import { ib014 } from './ib014.js';
import { ib015, ib015Refused } from './ib015.js';
import { ib016 } from './ib016.js';
import { ib017 } from './ib017.js';
import { ib018 } from './ib018.js';
import { ib019 } from './ib019.js';
import { ib020 } from './ib020.js';
import { ib021 } from './ib021.js';
import { ib022 } from './ib022.js';
import { ib023 } from './ib023.js';
import { ib024, ib024Default } from './ib024.js';
import { ib025 } from './ib025.js';
import { ib026 } from './ib026.js';
import { ib027 } from './ib027.js';
import { ib028, ib028Refused } from './ib028.js';
import { ib029 } from './ib029.js';
import { ib030 } from './ib030.js';
import { ib031 } from './ib031.js';
import { ib032 } from './ib032.js';
import { ib033 } from './ib033.js';
import { ib034 } from './ib034.js';
import { ib035 } from './ib035.js';
import { ib036 } from './ib036.js';
import { ib037 } from './ib037.js';
import { ib038 } from './ib038.js';
import { ib039, ib039Refused } from './ib039.js';
import { ibView, type IbFindingContext, type IbView } from './view.js';

export type { IbFindingContext } from './view.js';

/** NCCL_IB_HCA: its grammar, each entry that matches nothing (a netdev name, IB-033, or nothing at all), the whole value, prefixes, ports it names that are down, bonds. */
function hcaFindings(v: IbView): Finding[] {
  const hits = hcaHits(v);
  const unmatched = hits.filter((h) => h.hits.length === 0).flatMap((h) => {
    const netdev = ib033(v, h, hits);
    return netdev ? [netdev] : ib001Entry(v, h);
  });
  return [...ib030(v), ...unmatched, ...ib001(v), ...ib002(v, hits), ...ib004(v), ...ib003(v)];
}

/** Merging: a forced merge that hangs, each refused merge, then what was fused. */
function mergeFindings(v: IbView): Finding[] {
  const refused = v.selection.merge.refusals.flatMap((r) => [...ib015Refused(v, r), ...ib039Refused(v, r), ...ib037(v, r), ...ib028Refused(v, r)]);
  return [...ib039(v), ...refused, ...ib032(v), ...ib038(v), ...ib028(v), ...ib035(v)];
}

/** The GID choice: its variables, then each port NCCL keeps, then what spans ports. */
function gidFindings(v: IbView): Finding[] {
  const perPort = v.kept.flatMap((r) => [...ib031(v, r), ...ib020(v, r), ...ib005(v, r), ...ib007(v, r), ...ib006(v, r), ...ib024(v, r), ...ib019(v, r)]);
  return [...ib026(v), ...perPort, ...ib024Default(v, v.kept), ...ib008(v)];
}

export function ibFindings(c: IbFindingContext): Finding[] {
  const v = ibView(c);
  if (v.report.transport.status === 'no-data') return [...ib021(v), ...ib034(v)];
  return dedupeFindings([
    ...ib021(v),
    // The transport.
    ...ib016(v),
    ...ib025(v),
    ...ib029(v),
    ...ib017(v),
    ...hcaFindings(v),
    ...ib018(v),
    // Devices and ports NCCL skips.
    ...ib009(v),
    ...ib022(v),
    ...ib023(v),
    // The environment: device nodes, memlock, GPUDirect RDMA.
    ...ib013(v),
    ...ib014(v),
    ...ib012(v),
    // PCI placement.
    ...ib011(v),
    ...ib036(v),
    ...mergeFindings(v),
    // Link layers and rails.
    ...ib015(v),
    ...ib010(v),
    ...ib027(v),
    ...gidFindings(v),
  ]);
}
