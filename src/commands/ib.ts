// `ncclx ib`, `ncclx ib gids`, `ncclx ib map`: wiring only — read the node,
// run the pure model (ib-model.ts), render. Exit 0 without errors, 1 when a
// finding is an error, 2 for bad usage.

import type { Command } from '../vendor/commander.js';
import { UserError } from '../model/errors.js';
import type { IbOverrides } from '../model/nccl/ib-report.js';
import type { NodeSnapshot } from '../model/snapshot/types.js';
import { makeStyle, wantColor } from '../report/style.js';
import { addJobOptions, addSourceOptions, addVersionOption, candidateOptions, DEFAULT_UPLINK_REGEX, readNode, type SourceOptions } from './options.js';
import { terminalText } from '../report/display.js';

// The model and renderers load only when an ib command runs, so other commands start fast.
const loadIb = () => Promise.all([import('../model/nccl/ib-report.js'), import('../report/ib-text.js')]);

interface IbOptions extends SourceOptions {
  hca?: string;
  gidIndex?: string;
  ncclVersion?: string;
  set?: string[];
  json?: boolean;
  verbose?: boolean;
  color?: boolean;
  all?: boolean;
}


function overrides(o: IbOptions): IbOverrides {
  const set: Record<string, string> = {};
  for (const kv of o.set ?? []) {
    const eq = kv.indexOf('=');
    if (eq <= 0 || !/^NCCL_[A-Z0-9_]+$/.test(kv.slice(0, eq))) throw new UserError(`--set expects NCCL_NAME=VALUE, got '${kv}'`);
    set[kv.slice(0, eq)] = kv.slice(eq + 1);
  }
  return { hca: o.hca, gidIndex: o.gidIndex, ncclVersion: o.ncclVersion, set };
}

function withOptions(cmd: Command): Command {
  return addJobOptions(addSourceOptions(
    addVersionOption(
      cmd
        .option('--hca <spec>', 'NCCL_IB_HCA to model (overrides the environment)')
        .option('--gid-index <n>', 'NCCL_IB_GID_INDEX to model (read like NCCL reads it: 010 is octal)')
        .option('--set <NAME=VALUE>', 'model another NCCL_* variable, e.g. --set NCCL_IB_ADDR_FAMILY=AF_INET6 (repeatable)', (v: string, prev: string[] = []) => [...prev, v]),
    )
      .option('--json', 'print JSON (schema in docs/ib-json.md)')
      .option('-v, --verbose', 'show every trace')
      .option('--no-color', 'no colour'),
  ));
}

/**
 * Options given anywhere on the line: the root program is not positional, so
 * `ncclx ib gids --json` hands --json to `ib` before `gids` runs. Explicit
 * values win over defaults, nearest command last.
 */
function mergedOptions(cmd: Command): IbOptions {
  const chain: Command[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) chain.unshift(c);
  const out: Record<string, unknown> = {};
  for (const c of chain) {
    for (const [k, v] of Object.entries(c.opts())) {
      if (out[k] === undefined || c.getOptionValueSource(k) !== 'default') out[k] = v;
    }
  }
  return out as IbOptions;
}

function action(run: (snap: NodeSnapshot, o: IbOptions) => Promise<number>) {
  return async (_o: IbOptions, cmd: Command) => {
    const o = mergedOptions(cmd);
    // The kernel part (sysctls, routes, qdiscs, firewall) is not needed here and runs commands on a live node.
    const snap = await readNode(o, { rdma: true });
    process.exitCode = await run(snap, o);
  };
}

const print = (s: string) => process.stdout.write(s);

export function registerIbCommands(program: Command): void {
  const ib = withOptions(
    program
      .command('ib')
      .description('which RDMA devices, ports and GID indexes NCCL\'s IB transport will use, and why'),
  ).action(
    action(async (snap, o) => {
      const [{ ibModel }, { ibJson, renderIb }] = await loadIb();
      const ov = overrides(o);
      let { report } = ibModel(snap, ov);
      // Remediations that change the environment are aligned with \`ncclx env\` and checked in the model first.
      if (report.findings.some((f) => f.remediation.env)) {
        const { verifyFindings } = await import('../checks/verify.js');
        const flags: Record<string, string> = { ...ov.set, ...(ov.hca !== undefined ? { NCCL_IB_HCA: ov.hca } : {}), ...(ov.gidIndex !== undefined ? { NCCL_IB_GID_INDEX: ov.gidIndex } : {}) };
        // A new report: the model is shared (memoized), never changed in place.
        report = { ...report, findings: verifyFindings(snap, flags, { ncclVersion: o.ncclVersion, ...candidateOptions({ uplinkRegex: DEFAULT_UPLINK_REGEX }) }, report.findings) };
      }
      if (o.json) print(JSON.stringify(ibJson(report), null, 2) + '\n');
      else print(terminalText(renderIb(report, makeStyle(wantColor(o.color)), !!o.verbose)));
      return report.findings.some((f) => f.severity === 'error') ? 1 : 0;
    }),
  );

  withOptions(ib.command('gids').description('show_gids-style table of every GID entry, with the one NCCL uses marked'))
    .option('--all', 'include unset (all-zero) entries')
    .action(
      action(async (snap, o) => {
        const [{ ibModel }, { gidRows, renderGids }] = await loadIb();
        const { report } = ibModel(snap, overrides(o));
        const rows = gidRows(report, snap.rdma, !!o.all);
        if (o.json) print(JSON.stringify({ ncclVersion: report.ncclVersion, gids: rows }, null, 2) + '\n');
        else print(terminalText(renderGids(rows, makeStyle(wantColor(o.color)))));
        return 0;
      }),
    );

  withOptions(ib.command('map').description('ibdev2netdev-style map: dev port N ==> netdev (Up/Down)')).action(
    action(async (snap, o) => {
      const [{ ibModel }, { mapRows, renderMap }] = await loadIb();
      const { report } = ibModel(snap, overrides(o));
      const rows = mapRows(report, snap.rdma ?? null);
      if (o.json) print(JSON.stringify({ map: rows }, null, 2) + '\n');
      else print(terminalText(renderMap(rows, !!o.verbose)));
      return 0;
    }),
  );
}
