// The JSON and text paths never load Ink or React: every module the process
// resolves is recorded by a resolve hook, and none of them may be Ink's or React's.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = join(__dirname, '../..');
const CLI = join(ROOT, 'dist/cli.js');
const TRACE = join(__dirname, 'import-trace.mjs');
const FIXTURE = join(ROOT, 'test/fixtures/ib8-storage');

function traced(args: string[]): { code: number | null; urls: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'ncclx-trace-'));
  const file = join(dir, 'trace.txt');
  try {
    const r = spawnSync(process.execPath, ['--import', TRACE, ...args], {
      cwd: ROOT,
      encoding: 'utf8',
      // stdout is a pipe here: not a terminal, exactly like `ncclx doctor > file`.
      env: { PATH: process.env['PATH'] ?? '', HOME: dir, NCCLX_IMPORT_TRACE: file },
    });
    if (r.status !== 0 && r.status !== 1) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
    return { code: r.status, urls: readFileSync(file, 'utf8').split('\n').filter(Boolean) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const uiModules = (urls: string[]) => urls.filter((u) => /\/node_modules\/(ink|react|react-reconciler|yoga-layout)\/|\/dist\/tui\//.test(u));

describe('Ink and React stay out of the JSON and text paths', () => {
  it.each([
    ['doctor --json', ['doctor', '--json', '--root', FIXTURE]],
    ['doctor (text, stdout not a terminal)', ['doctor', '--root', FIXTURE]],
    ['doctor --format prom', ['doctor', '--format', 'prom', '--root', FIXTURE]],
    ['explain --json', ['explain', '--json', '--root', FIXTURE]],
    ['ib --json', ['ib', '--json', '--root', FIXTURE]],
    ['env', ['env', '--root', FIXTURE]],
  ])('%s', (_name, args) => {
    const { urls } = traced([CLI, ...args]);
    // The hook saw the program itself, so an empty list means something.
    expect(urls.some((u) => u.endsWith('/dist/model/nccl/explain.js'))).toBe(true);
    expect(uiModules(urls)).toEqual([]);
  });

  it('the tracer does see the UI when it is loaded (control)', () => {
    const main = join(ROOT, 'dist/tui/main.js');
    const { urls } = traced(['--input-type=module', '-e', `await import(${JSON.stringify(main)})`]);
    expect(uiModules(urls)).toContain(pathToFileURL(main).href);
    // `npm run build` bundles Ink and React into that one file (scripts/bundle-tui.mjs);
    // after a bare `tsc` they are resolved from node_modules. Either way the tracer sees them.
    const text = readFileSync(main, 'utf8');
    const bundled = /Raw mode is not supported/.test(text) && /react\.dev\/errors|Invalid hook call/.test(text);
    expect(bundled || (urls.some((u) => /\/node_modules\/ink\//.test(u)) && urls.some((u) => /\/node_modules\/react\//.test(u)))).toBe(true);
  });
});
