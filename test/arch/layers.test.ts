// The layer rule of docs/architecture.md, read from the source's imports so it
// cannot erode silently: model imports only model (and stays pure); probe and
// checks build on model; fix and compare on model and checks; report on model;
// cli, commands and tui may use anything. No folder-level import cycle.

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(__dirname, '../../src');

type Layer = 'model' | 'probe' | 'checks' | 'fix' | 'compare' | 'report' | 'commands' | 'tui' | 'cli' | 'vendor';

const ALLOWED: Record<Layer, Layer[] | 'any'> = {
  model: ['model'],
  probe: ['model', 'probe'],
  checks: ['model', 'checks'],
  fix: ['model', 'checks', 'fix'],
  compare: ['model', 'checks', 'compare'],
  report: ['model', 'report'],
  commands: 'any',
  tui: 'any',
  cli: 'any',
  // A package re-exported (src/vendor/commander.ts): nothing of ncclx.
  vendor: [],
};

/** Imports a pure module must not use: I/O, processes, threads, the UI. */
const IMPURE = /^(node:)?(fs|fs\/promises|child_process|worker_threads|net|dgram|readline|readline\/promises|os|process)$|^(ink|react|react-dom|ink-.*)$/;

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : []));
}

function layerOf(file: string): Layer {
  const rel = relative(SRC, file);
  if (!rel.includes('/')) return 'cli';
  return rel.split('/')[0] as Layer;
}

/** Every module specifier: static imports and re-exports, and dynamic import(). */
export function specifiers(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'";]*?from\s*['"]([^'"]+)['"]/g)) out.push(m[1]!);
  for (const m of text.matchAll(/(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g)) out.push(m[1]!);
  for (const m of text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) out.push(m[1]!);
  return out;
}

interface Edge {
  from: string;
  to: string;
  spec: string;
}

function edges(): { edges: Edge[]; external: { from: string; spec: string }[] } {
  const out: Edge[] = [];
  const external: { from: string; spec: string }[] = [];
  for (const f of files(SRC)) {
    for (const spec of specifiers(readFileSync(f, 'utf8'))) {
      if (spec.startsWith('.')) out.push({ from: f, to: resolve(dirname(f), spec), spec });
      else external.push({ from: f, spec });
    }
  }
  return { edges: out, external };
}

describe('layers', () => {
  const { edges: all, external } = edges();

  it('the import scanner sees static, re-exported and dynamic imports (control)', () => {
    expect(specifiers("import a from './a.js';\nexport { b } from '../b.js';\nconst c = await import('./c.js');\nimport type {\n  D,\n} from './d.js';")).toEqual(['./a.js', '../b.js', './d.js', './c.js']);
    expect(all.length).toBeGreaterThan(200);
  });

  it('every import goes down the layers', () => {
    const bad = all
      .filter((e) => {
        const allowed = ALLOWED[layerOf(e.from)];
        return allowed !== 'any' && !allowed.includes(layerOf(e.to));
      })
      .map((e) => `${relative(SRC, e.from)} → ${e.spec} (${layerOf(e.from)} may not import ${layerOf(e.to)})`);
    expect(bad).toEqual([]);
  });

  it('src/model is pure: no I/O, processes, environment or UI', () => {
    const modelFiles = files(join(SRC, 'model'));
    expect(modelFiles.length).toBeGreaterThan(30);
    const badImports = external.filter((x) => layerOf(x.from) === 'model' && IMPURE.test(x.spec)).map((x) => `${relative(SRC, x.from)} imports ${x.spec}`);
    const badGlobals = modelFiles.filter((f) => /\bprocess\.|\brequire\(/.test(readFileSync(f, 'utf8').replace(/\/\/.*$|\/\*[\s\S]*?\*\//gm, ''))).map((f) => `${relative(SRC, f)} uses process or require`);
    expect([...badImports, ...badGlobals]).toEqual([]);
  });

  it('no import cycle between folders', () => {
    // Folder = a top-level directory under src, and each part of the model (model/nccl, model/linux, …); cli.ts is its own.
    const folderOf = (f: string) => {
      const parts = relative(SRC, f).split('/');
      if (parts.length === 1) return 'cli';
      return parts[0] === 'model' && parts.length > 2 ? `model/${parts[1]}` : parts[0]!;
    };
    const graph = new Map<string, Set<string>>();
    for (const e of all) {
      const a = folderOf(e.from);
      const b = folderOf(e.to);
      if (a === b) continue;
      if (!graph.has(a)) graph.set(a, new Set());
      graph.get(a)!.add(b);
    }
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (n: string, path: string[]) => {
      if (state.get(n) === 'done') return;
      if (state.get(n) === 'open') {
        cycles.push([...path.slice(path.indexOf(n)), n].join(' → '));
        return;
      }
      state.set(n, 'open');
      for (const m of graph.get(n) ?? []) visit(m, [...path, n]);
      state.set(n, 'done');
    };
    for (const n of graph.keys()) visit(n, []);
    expect(cycles).toEqual([]);
  });
});
