// Docs that stand alone: every repository path a doc or a comment names
// exists, and nothing cites a file outside the repository (the NCCL
// reference lives in docs/nccl/, in the project's own words). NCCL's own
// source is cited by tag, file and function ("NVIDIA/nccl v2.30.7-1
// src/misc/socket.cc ncclFindInterfaces"); such paths are NCCL's, not ours,
// and are told apart by what precedes them.

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '../..');
/** Where docs and code live; generated, vendored and fixture trees are left out. */
const SCANNED = ['README.md', 'docs', 'src', 'test', 'bench', 'scripts', 'lab', 'wasm', '.ci', 'package.json', 'vitest.config.ts', 'vitest.mutate.config.ts', 'stryker.config.mjs'];
const SKIPPED = /^(test\/fixtures|test\/log\/corpus|test\/doctor\/golden|test\/topo\/files|node_modules|dist)(\/|$)/;
const TEXT = /\.(md|ts|tsx|mjs|js|c|json|yaml|yml)$|^\.ci\/run$/;
/** Top-level folders of this repository: a path that starts with one is ours. */
const OURS = /^(?:src|test|docs|bench|scripts|lab|wasm|\.ci)\//;
/** Citations of material outside the repository. */
const OUTSIDE = /nccl-behavior\.md|\.\.\/shared\b|\/work\/shared|shared\/(?:docs|fixtures)\//;
/** Words before a path that make it another repository's: NCCL's source at a tag, NCCLX's branch, a plugin, a commit. */
const FOREIGN = /(?:NVIDIA\/nccl|torchcomms|aws-ofi-nccl|\bv\d+\.\d+\.\d+-\d+|\bv2_\d+|@[0-9a-f]{7,})[^\n]{0,60}$/;

function walk(rel: string): string[] {
  const abs = join(ROOT, rel);
  if (!existsSync(abs) || SKIPPED.test(rel)) return [];
  if (statSync(abs).isFile()) return TEXT.test(rel) || rel === '.ci/run' ? [rel] : [];
  return readdirSync(abs).flatMap((e) => walk(rel === '' ? e : `${rel}/${e}`));
}

/** Whether a path (possibly with * globs or {a,b}) names something in the repository; `x.js` is the module built from `x.ts`. */
export function exists(path: string): boolean {
  const clean = path.replace(/[.,:;)]+$/, '');
  if (!/[*{]/.test(clean)) return existsSync(join(ROOT, clean)) || (/\.js$/.test(clean) && ['.ts', '.tsx'].some((x) => existsSync(join(ROOT, clean.replace(/\.js$/, x)))));
  const alternatives = /\{([^}]*)\}/.exec(clean);
  if (alternatives) return alternatives[1]!.split(',').every((a) => exists(clean.replace(alternatives[0], a)));
  const dir = clean.slice(0, clean.lastIndexOf('/', clean.indexOf('*')));
  const pattern = new RegExp(`^${clean.slice(dir.length + 1).replace(/[.+?^$()|[\]\\]/g, '\\$&').replace(/\*\*\/?/g, '(?:.*/)?').replace(/\*/g, '[^/]*')}$`);
  return walk(dir).some((f) => pattern.test(f.slice(dir.length + 1)));
}

/** NCCL's (and plugins') source files: C and C++; ours are TypeScript, and wasm/*.c. */
const FOREIGN_FILE = /\.(?:cc|cpp|cu|h|hpp|in)$|^src\/(?:graph|transport|misc|plugin|include|os|device|enqueue|init|bootstrap)\b/;

/** The parts of a source file that are prose: its comments (code is checked by the compiler). */
export function commentText(file: string, text: string): string {
  if (/\.(md|json|yaml|yml)$/.test(file) || file === '.ci/run') return text;
  if (file === '.ci/run') return text;
  let inBlock = false;
  return text
    .split('\n')
    .map((l) => {
      if (inBlock) {
        if (l.includes('*/')) inBlock = false;
        return l;
      }
      const block = l.indexOf('/*');
      if (block >= 0 && !l.slice(block).includes('*/')) {
        inBlock = true;
        return l.slice(block);
      }
      if (block >= 0) return l.slice(block);
      const line = /(?:^|\s)\/\/(.*)$/.exec(l);
      return line ? line[1]! : '';
    })
    .join('\n');
}

/** Repository paths a text names (`src/…`, `docs/…`, markdown links), with their line. */
export function namedPaths(file: string, text: string): { line: number; path: string }[] {
  const out: { line: number; path: string }[] = [];
  commentText(file, text).split('\n').forEach((l, i) => {
    for (const m of l.matchAll(/(?<![\w./-])((?:\.\.?\/)*(?:src|test|docs|bench|scripts|lab|wasm|\.ci)\/[\w.*{},/-]*[\w*}])/g)) {
      const before = l.slice(0, m.index);
      if ((FOREIGN.test(before) || FOREIGN_FILE.test(m[1]!)) && !/^(?:\.\.\/)*docs\//.test(m[1]!)) continue;
      // A path starting ./ or ../ is relative to the file that names it; others are from the root.
      const p = /^\.\.?\//.test(m[1]!) ? relative(ROOT, resolve(ROOT, dirname(file), m[1]!)) : m[1]!;
      if (!OURS.test(p)) continue;
      if (p.includes('${')) continue;
      out.push({ line: i + 1, path: p });
    }
    if (file.endsWith('.md')) {
      for (const m of l.matchAll(/\]\((?!https?:|#|mailto:)([^)\s#]+)/g)) {
        const p = relative(ROOT, resolve(ROOT, dirname(file), m[1]!));
        if (!out.some((x) => x.line === i + 1 && x.path === p)) out.push({ line: i + 1, path: p });
      }
    }
  });
  return out;
}

describe('docs and comments stand alone', () => {
  // This file's own examples name paths that do not exist on purpose.
  const files = SCANNED.flatMap((s) => walk(s)).filter((f) => f !== 'test/arch/doc-paths.test.ts');

  it('reads the repository (control)', () => {
    expect(files).toContain('README.md');
    expect(files.filter((f) => f.startsWith('docs/')).length).toBeGreaterThan(10);
    expect(files.filter((f) => f.startsWith('src/')).length).toBeGreaterThan(100);
  });

  it('every repository path they name exists', () => {
    const missing = files.flatMap((f) => namedPaths(f, readFileSync(join(ROOT, f), 'utf8')).filter((p) => !exists(p.path)).map((p) => `${f}:${p.line}: ${p.path}`));
    expect(missing).toEqual([]);
  });

  it('nothing cites a file outside the repository', () => {
    const outside = files.flatMap((f) =>
      readFileSync(join(ROOT, f), 'utf8')
        .split('\n')
        .flatMap((l, i) => (OUTSIDE.test(l) ? [`${f}:${i + 1}: ${l.trim().slice(0, 100)}`] : [])),
    );
    expect(outside).toEqual([]);
  });

  it('the checks see what they look for (control)', () => {
    expect(namedPaths('docs/x.md', 'see src/nccl/socket.ts and [tests](../test/unit/) and NVIDIA/nccl v2.30.7-1 src/misc/socket.cc').map((p) => p.path)).toEqual(['src/nccl/socket.ts', 'test/unit']);
    // In code only comments count; a C++ file is NCCL's.
    expect(namedPaths('src/x.ts', "import { a } from '../src/nope.js';\n// see docs/nope.md and src/transport/net_ib/gdr.cc\n/* and\n * src/none.ts */").map((p) => p.path)).toEqual(['docs/nope.md', 'src/none.ts']);
    expect(exists('src/nccl/socket.ts')).toBe(false);
    expect(exists('src/model/nccl/socket.ts')).toBe(true);
    expect(exists('test/netns/kernel-*.test.ts')).toBe(true);
    expect(exists('test/compare/{mesh,cluster}.test.ts')).toBe(true);
    expect(exists('test/compare/{mesh,nothing}.test.ts')).toBe(false);
    expect(OUTSIDE.test('(nccl-behavior.md §1.5)')).toBe(true);
    expect(OUTSIDE.test('../shared/fixtures/sysfs')).toBe(true);
  });
});
