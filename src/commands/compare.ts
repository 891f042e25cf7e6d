// `ncclx compare SNAPSHOT...`: many nodes' snapshots side by side. Everything
// is loaded inside the action, so other commands (explain --json above all)
// never load the compare modules.

import { Option, type Command } from '../vendor/commander.js';
import { UserError } from '../model/errors.js';
import { addCandidateOptions, candidateOptions, type CandidateFlags } from './options.js';
import { terminalText } from '../report/display.js';

interface CompareCommandOptions extends CandidateFlags {
  json?: boolean;
  format: 'text' | 'json';
  ncclVersion?: string;
  commId?: string;
  masterAddr?: string;
  topology: 'auto' | 'mesh' | 'switched';
  maxBytes: string;
  jobs?: string;
  verbose?: boolean;
  color?: boolean;
}

/** Default --max-bytes: 16× the largest realistic snapshot (32 ports × 255 GID entries ≈ 1 MiB). */
const DEFAULT_MAX_BYTES = 16 * 1024 * 1024;

export function registerCompareCommand(program: Command): void {
  const cmd = program
    .command('compare')
    .description("compare many nodes' snapshots: the symmetric RDMA set, the rail plan, mesh and bootstrap reachability")
    .argument('<snapshot...>', 'snapshot files (ncclx snapshot -o FILE), or directories of *.json (and *.json.HOST) snapshots')
    .option('--json', 'print JSON (schema in docs/compare-json.md)')
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text'))
    .option('--nccl-version <version>', 'model this NCCL version on every node (default: the library found on each node)')
    .option('--comm-id <addr>', 'NCCL_COMM_ID of the job, on every node (overrides the snapshots)')
    .option('--master-addr <host>', "MASTER_ADDR of the job (PyTorch: rank 0's host)")
    .addOption(new Option('--topology <kind>', 'fabric: detect a direct-connect mesh, or force one view').choices(['auto', 'mesh', 'switched']).default('auto'))
    .option('--max-bytes <n>', 'skip snapshot files larger than this many bytes', String(DEFAULT_MAX_BYTES))
    .option('--jobs <n>', 'worker threads reading snapshots (default: one per core; 1 = none)')
    .option('-v, --verbose', 'why, nodes and fix for every finding; every pair and setting')
    .option('--no-color', 'no colour');
  addCandidateOptions(cmd, 'the RDMA set').action((args: string[], opts: CompareCommandOptions) => compare(args, opts));
}

function int(name: string, raw: string | undefined, min: number): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < min) throw new UserError(`${name}: expected an integer ≥ ${min}, got '${raw}'`);
  return Number(raw);
}

async function compare(args: string[], opts: CompareCommandOptions): Promise<void> {
  const [{ runCompare }, { compareJson, renderCompareText }, { makeStyle, wantColor }, { parseVersion }] = await Promise.all([
    import('../compare/run.js'),
    import('../report/compare-text.js'),
    import('../report/style.js'),
    import('../model/nccl/versions.js'),
  ]);
  const cand = candidateOptions(opts);
  // A bad version is a usage error (VersionError, exit 2) before any file is read.
  if (opts.ncclVersion !== undefined) parseVersion(opts.ncclVersion);
  // Host names in --comm-id / --master-addr: resolved here, used where a node did not capture its own answer.
  const [{ hostsToResolve, resolveHosts }, { currentBundle }] = await Promise.all([import('../probe/index.js'), import('../probe/bundle.js')]);
  const hosts = hostsToResolve([opts.commId, opts.masterAddr]);
  const resolutions = hosts.length ? await resolveHosts(hosts) : undefined;
  const report = await runCompare(args, {
    resolutions,
    ncclVersion: opts.ncclVersion,
    commId: opts.commId,
    masterAddr: opts.masterAddr,
    ...cand,
    topology: opts.topology,
    maxBytes: int('--max-bytes', opts.maxBytes, 1)!,
    jobs: int('--jobs', opts.jobs, 1),
    workerSource: currentBundle()?.workers.compare,
  });
  const format = opts.json ? 'json' : opts.format;
  process.stdout.write(format === 'json' ? JSON.stringify(compareJson(report), null, 2) + '\n' : terminalText(renderCompareText(report, makeStyle(wantColor(opts.color)), !!opts.verbose)));
  process.exitCode = report.exitCode;
}
