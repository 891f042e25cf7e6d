// One place for version rules (docs/architecture.md, docs/nccl/versions.md):
// every difference between NCCL releases is a Profile flag set in
// src/model/nccl/versions.ts (profileFor). Anywhere else in src/, code asks the
// Profile; it never compares versions itself. Read from the syntax tree:
// - importing atLeast or compareVersion from versions.ts;
// - comparing a .major, .minor or .patch with <, >, <= or >=;
// - in src/model, a string that is a release number ('2.26.2', 'v2.18.5-1'):
//   a threshold waiting to be compared.

import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = resolve(__dirname, '../../src');
const HOME = 'model/nccl/versions.ts';

const RELEASE = /^v?\d+\.\d+(?:\.\d+)?(?:-\d+)?$/;
const VERSION_FIELD = new Set(['major', 'minor', 'patch']);
const RELATIONAL = new Set([ts.SyntaxKind.LessThanToken, ts.SyntaxKind.GreaterThanToken, ts.SyntaxKind.LessThanEqualsToken, ts.SyntaxKind.GreaterThanEqualsToken]);

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : []));
}

const isVersionField = (e: ts.Expression) => ts.isPropertyAccessExpression(e) && VERSION_FIELD.has(e.name.text);

/** Every raw version comparison in one file, as `file:line: what`. */
export function rawVersionRules(rel: string, text: string): string[] {
  // Parsing is the slow part: a file with none of the shapes below is clean.
  if (!/versions\.js|\.(?:major|minor|patch)\b|['"`]v?\d+\.\d+/.test(text)) return [];
  const sf = ts.createSourceFile(rel, text, ts.ScriptTarget.Latest, true, rel.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const out: string[] = [];
  const at = (n: ts.Node, what: string) => out.push(`${rel}:${sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1}: ${what}`);
  const inModel = rel.startsWith('model/');
  // Iterative walk: no recursion over the tree.
  const stack: ts.Node[] = [sf];
  while (stack.length) {
    const n = stack.pop()!;
    if (ts.isImportDeclaration(n) && ts.isStringLiteral(n.moduleSpecifier) && /(^|\/)versions\.js$/.test(n.moduleSpecifier.text)) {
      const named = n.importClause?.namedBindings;
      if (named && ts.isNamedImports(named)) for (const el of named.elements) if (['atLeast', 'compareVersion'].includes((el.propertyName ?? el.name).text)) at(el, `imports ${(el.propertyName ?? el.name).text}: ask the Profile instead`);
    } else if (ts.isBinaryExpression(n) && RELATIONAL.has(n.operatorToken.kind) && (isVersionField(n.left) || isVersionField(n.right))) {
      at(n, `compares a version field: ${n.getText(sf).slice(0, 80)}`);
    } else if (inModel && (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) && RELEASE.test(n.text) && !ts.isImportDeclaration(n.parent) && !ts.isExportDeclaration(n.parent)) {
      at(n, `a release number as a value ('${n.text}'): make it a Profile flag`);
    }
    stack.push(...n.getChildren(sf));
  }
  return out;
}

describe('release differences live in versions.ts', () => {
  it('nowhere else in src/ compares versions', () => {
    const found = files(SRC)
      .map((f) => [relative(SRC, f), f] as const)
      .filter(([rel]) => rel !== HOME)
      .flatMap(([rel, f]) => rawVersionRules(rel, readFileSync(f, 'utf8')));
    expect(found).toEqual([]);
  });

  it('the check sees each kind of raw comparison', () => {
    const seen = (text: string, rel = 'model/x.ts') => rawVersionRules(rel, text).length;
    expect(seen("import { atLeast } from '../nccl/versions.js';")).toBe(1);
    expect(seen("import { compareVersion as cv, profileFor } from './versions.js';")).toBe(1);
    expect(seen("import { profileFor } from './versions.js';")).toBe(0);
    expect(seen('const old = v.minor < 26;')).toBe(1);
    expect(seen('const old = 26 >= p.version.minor;')).toBe(1);
    expect(seen('const same = v.minor === w.minor;')).toBe(0);
    expect(seen("const since = '2.26.2';")).toBe(1);
    expect(seen("const since = 'v2.18.5-1';")).toBe(1);
    expect(seen("const since = '2.26.2';", 'checks/x.ts')).toBe(0);
    expect(seen("const text = 'NCCL 2.26.2 or later';")).toBe(0);
    // Comments are not code.
    expect(seen("// atLeast(v, '2.26.2')\n/* v.minor < 26 */")).toBe(0);
  });
});
