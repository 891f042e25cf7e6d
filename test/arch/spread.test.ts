// No array is spread into a call's arguments in src/: `out.push(...xs)` or
// Math.max over `...xs` puts every element on the stack and throws "Maximum
// call stack size exceeded" past about 100,000 of them — a snapshot with
// 130,000 addresses crashed explain that way. Use append/maxOf/minOf
// (src/model/list.ts) instead. The one form allowed forwards a function's own
// rest parameter (a fixed number of arguments). Read from the syntax tree, so
// formatting cannot hide a case.

import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { append, maxOf, minOf } from '../../src/model/list.js';

const SRC = resolve(__dirname, '../../src');

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : []));
}

/** The spread is `...name` where `name` is a rest parameter of the function it is in. */
function forwardsRestParameter(spread: ts.SpreadElement): boolean {
  if (!ts.isIdentifier(spread.expression)) return false;
  const name = spread.expression.text;
  for (let n: ts.Node | undefined = spread.parent; n; n = n.parent) {
    if (ts.isFunctionLike(n)) return n.parameters.some((p) => !!p.dotDotDotToken && ts.isIdentifier(p.name) && p.name.text === name);
  }
  return false;
}

function spreadCalls(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const out: string[] = [];
  const visit = (n: ts.Node): void => {
    if ((ts.isCallExpression(n) || ts.isNewExpression(n)) && n.arguments?.some((a) => ts.isSpreadElement(a) && !forwardsRestParameter(a))) {
      out.push(`${relative(SRC, file)}:${sf.getLineAndCharacterOfPosition(n.getStart()).line + 1}: ${n.getText().split('\n')[0]!.slice(0, 100)}`);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

describe('no array spread into call arguments', () => {
  it('src/ has none (use append, maxOf, minOf from src/model/list.ts)', () => {
    expect(files(SRC).flatMap(spreadCalls)).toEqual([]);
  });
  it('the scan finds one (control)', () => {
    const probe = join(__dirname, 'spread-control.ts');
    const sf = ts.createSourceFile(probe, 'const a: number[] = []; a.push(...b); Math.max(...c); f(...[1]); function g(...args: number[]) { return h(...args); }', ts.ScriptTarget.Latest, true);
    const found: string[] = [];
    const visit = (n: ts.Node): void => {
      if (ts.isCallExpression(n) && n.arguments.some((a) => ts.isSpreadElement(a) && !forwardsRestParameter(a))) found.push(n.getText());
      ts.forEachChild(n, visit);
    };
    visit(sf);
    expect(found).toEqual(['a.push(...b)', 'Math.max(...c)', 'f(...[1])']);
  });
  it('the helpers hold 1,000,000 elements where a spread overflows the stack', () => {
    const big = Array.from({ length: 1_000_000 }, (_, i) => i);
    expect(() => [].push(...(big as never[]))).toThrow(RangeError);
    expect(append([-1], big).length).toBe(1_000_001);
    expect(maxOf(big)).toBe(999_999);
    expect(minOf(big)).toBe(0);
    expect(maxOf([], 7)).toBe(7);
    expect(minOf([3, NaN])).toBeNaN();
  });
});
