// The views and their keys, in one place: the tabs, the footer and the `?`
// help screen all read from here (docs/tui.md lists the same).

export const VIEWS = ['summary', 'interfaces', 'rdma', 'whatif', 'fixes', 'env', 'topo'] as const;
export type ViewId = (typeof VIEWS)[number];

export const VIEW_TITLE: Record<ViewId, string> = {
  summary: 'Summary',
  interfaces: 'Interfaces',
  rdma: 'RDMA',
  whatif: 'What-if',
  fixes: 'Fixes',
  env: 'Env',
  topo: 'Topology',
};

/** Short titles, for the tab bar of a narrow terminal. */
export const VIEW_SHORT: Record<ViewId, string> = {
  summary: 'Sum',
  interfaces: 'Iface',
  rdma: 'RDMA',
  whatif: 'What',
  fixes: 'Fix',
  env: 'Env',
  topo: 'Topo',
};

/** Tiny titles, for 40 columns: every view still named. */
export const VIEW_TINY: Record<ViewId, string> = {
  summary: 'Sum',
  interfaces: 'If',
  rdma: 'RD',
  whatif: 'WI',
  fixes: 'Fix',
  env: 'Env',
  topo: 'Top',
};

export const GLOBAL_KEYS: [string, string][] = [
  ['Tab / Shift-Tab', 'next / previous view'],
  [`1 … ${VIEWS.length}`, 'go to a view'],
  ['↑ ↓  j k', 'move; PgUp PgDn, Home End (g G) jump'],
  ['?', 'this help (any key closes it)'],
  ['q  Ctrl-C', 'quit (Ctrl-C also while editing)'],
];

export const VIEW_KEYS: Record<ViewId, [string, string][]> = {
  summary: [
    ['Enter', 'open the result: evidence, why, remediation'],
    ['Esc Enter', 'close it (← too, unless scrolled sideways)'],
    ['← →', 'in a result: scroll a wide command sideways'],
    ['f', 'all results / problems only'],
  ],
  interfaces: [['← →', 'bootstrap, socket transport, IB OOB trace']],
  rdma: [
    ['↑ ↓', 'select a port (or a GID entry)'],
    ['← →', 'scroll the columns sideways (◀ ▶ mark hidden ones)'],
    ['Enter', 'switch between the ports and the GID table'],
  ],
  whatif: [
    ['Enter', 'edit the field (Enter / Esc done, Ctrl-U clear)'],
    ['u', 'unset the variable (version: back to detected)'],
    ['r  R', 'reset the field / every field to the node'],
    ['c', 'copy the exports (OSC 52 clipboard, also shown)'],
    ['← →', 'scroll the copied text sideways'],
  ],
  fixes: [
    ['Space', 'select / deselect a fix'],
    ['a', 'select every applicable fix / none'],
    ['p', 'full-screen preview of the commands'],
    ['Enter', 'apply the selected fixes (asks y / n first)'],
    ['r', 'roll back from the journal, when offered'],
    ['← →', 'scroll the commands sideways'],
  ],
  env: [
    ['f  F', 'next / previous format: bash fish dotenv json nccl-conf k8s'],
    ['← →', 'scroll long lines sideways (◀ ▶ mark hidden text)'],
    ['d', 'add / remove the NCCL debug bundle'],
    ['w', 'write to a file (edit the name, Enter writes)'],
  ],
  topo: [
    ['↑ ↓', 'scroll'],
    ['← →', 'scroll long lines sideways (◀ ▶ mark hidden text)'],
  ],
};

/** The one-line hint under each view. */
export const FOOTER: Record<ViewId, string> = {
  summary: '↑↓ move  Enter open  f filter',
  interfaces: '←→ consumer  ↑↓ trace',
  rdma: '↑↓ port  ←→ columns  Enter ports/GIDs',
  whatif: '↑↓ field  Enter edit  u unset  r/R reset  c copy',
  fixes: 'Space select  a all  p preview  Enter apply',
  env: 'f/F format  ←→ scroll  d debug  w write',
  topo: '↑↓ scroll  ←→ sideways',
};
