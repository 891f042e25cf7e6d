// The built CLI on fixture trees, many runs in one process (docs/testing.md,
// "One process per scenario"): a run of `node test/helpers/ncclx.mjs ARGS`
// costs ~0.3 s of CPU, almost all of it Node start-up and module loading; in
// the batch a run costs what ncclx itself does. Each case still gets exactly
// its argv and environment, and the answers equal separate processes' byte
// for byte: every caller checks at least one case both ways (sameAsOwnProcess).

import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { expect } from 'vitest';

const BATCH = join(__dirname, 'ncclx-batch.mjs');
const ONE = join(__dirname, 'ncclx.mjs');

export interface CliCase {
  args: string[];
  env: Record<string, string>;
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Every case in one ncclx process, in order. */
export function runBatch(cases: CliCase[]): CliRun[] {
  if (cases.length === 0) return [];
  const input = JSON.stringify(cases.map((c) => ({ argv: [process.execPath, ONE, ...c.args], env: c.env })));
  const r = spawnSync(process.execPath, [BATCH], { input, encoding: 'utf8', maxBuffer: 512 * 1024 * 1024, env: { PATH: process.env['PATH'] ?? '/usr/sbin:/usr/bin:/sbin:/bin' } });
  const out = r.status === 0 ? (JSON.parse(r.stdout) as CliRun[]) : null;
  if (!out || out.length !== cases.length) throw new Error(`ncclx-batch.mjs exited ${r.status} with ${out ? `${out.length} answers for ${cases.length} cases` : 'no JSON'}: ${r.stderr.slice(0, 2000)}`);
  return out;
}

/** One case as its own process (test/helpers/ncclx.mjs), exactly as a user runs it. */
export function runOwnProcess(c: CliCase): CliRun {
  const r = spawnSync(process.execPath, [ONE, ...c.args], { encoding: 'utf8', maxBuffer: 512 * 1024 * 1024, env: c.env });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The fidelity guard: the batch's answer for `c` is its own process's, byte for byte. */
export function sameAsOwnProcess(c: CliCase, batched: CliRun): void {
  expect(batched, `${c.args.join(' ')}: the batch and its own process differ`).toEqual(runOwnProcess(c));
}
