// `ncclx compare SNAPSHOT...`: many nodes' snapshots side by side. Everything
// is loaded inside the action, so other commands (explain --json above all)
// never load the compare modules.

import { Option, type Command } from 'commander';

class CompareUsageError extends Error {}

interface CompareCommandOptions {
  json?: boolean;
  format: 'text' | 'json';
  ncclVersion?: string;
  commId?: string;
  masterAddr?: string;
  uplinkRegex: string;
  include?: string;
  topology: 'auto' | 'mesh' | 'switched';
  maxBytes: string;
  jobs?: string;
  verbose?: boolean;
  color?: boolean;
}

/** Default --max-bytes: 16× the largest realistic snapshot (32 ports × 255 GID entries ≈ 1 MiB). */
const DEFAULT_MAX_BYTES = 16 * 1024 * 1024;

export function registerCompareCommand(program: Command): void {
  program
    .command('compare')
    .description("compare many nodes' snapshots: the symmetric RDMA set, the rail plan, mesh and bootstrap reachability")
    .argument('<snapshot...>', 'snapshot files (ncclx snapshot -o FILE), or directories of *.json (and *.json.HOST) snapshots')
    .option('--json', 'print JSON (schema in docs/compare-json.md)')
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text'))
    .option('--nccl-version <version>', 'model this NCCL version on every node (default: the library found on each node)')
    .option('--comm-id <addr>', 'NCCL_COMM_ID of the job, on every node (overrides the snapshots)')
    .option('--master-addr <host>', "MASTER_ADDR of the job (PyTorch: rank 0's host)")
    .option('--uplink-regex <regex>', 'netdevs that look like uplinks, left out of the RDMA set', '^eth[0-9]+$')
    .option('--include <netdevs>', 'netdevs always in the RDMA set (comma list)')
    .addOption(new Option('--topology <kind>', 'fabric: detect a direct-connect mesh, or force one view').choices(['auto', 'mesh', 'switched']).default('auto'))
    .option('--max-bytes <n>', 'skip snapshot files larger than this many bytes', String(DEFAULT_MAX_BYTES))
    .option('--jobs <n>', 'worker threads reading snapshots (default: one per core; 1 = none)')
    .option('-v, --verbose', 'why, nodes and fix for every finding; every pair and setting')
    .option('--no-color', 'no colour')
    .action(async (args: string[], opts: CompareCommandOptions) => {
      try {
        await compare(args, opts);
      } catch (e) {
        if (!(e instanceof CompareUsageError)) throw e;
        process.stderr.write(`ncclx: ${e.message}\n`);
        process.exitCode = 2;
      }
    });
}

function int(name: string, raw: string | undefined, min: number): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < min) throw new CompareUsageError(`${name}: expected an integer ≥ ${min}, got '${raw}'`);
  return Number(raw);
}

async function compare(args: string[], opts: CompareCommandOptions): Promise<void> {
  const [{ runCompare }, { renderCompareText }, { makeStyle, wantColor }, { parseVersion }] = await Promise.all([
    import('../compare/run.js'),
    import('../compare/text.js'),
    import('../report/style.js'),
    import('../nccl/versions.js'),
  ]);
  let uplinkRegex: RegExp;
  try {
    uplinkRegex = new RegExp(opts.uplinkRegex);
  } catch (e) {
    throw new CompareUsageError(`--uplink-regex: ${(e as Error).message}`);
  }
  // A bad version is a usage error (VersionError, exit 2) before any file is read.
  if (opts.ncclVersion !== undefined) parseVersion(opts.ncclVersion);
  const report = await runCompare(args, {
    ncclVersion: opts.ncclVersion,
    commId: opts.commId,
    masterAddr: opts.masterAddr,
    uplinkRegex,
    include: opts.include?.split(',').map((x) => x.trim()).filter(Boolean) ?? [],
    topology: opts.topology,
    maxBytes: int('--max-bytes', opts.maxBytes, 1)!,
    jobs: int('--jobs', opts.jobs, 1),
  });
  const format = opts.json ? 'json' : opts.format;
  process.stdout.write(format === 'json' ? JSON.stringify(report, null, 2) + '\n' : renderCompareText(report, makeStyle(wantColor(opts.color)), !!opts.verbose));
  process.exitCode = report.exitCode;
}
