import { describe, expect, it } from 'vitest';
import { atoi, parseNcclInt, strtoll0 } from '../../src/model/nccl/cint.js';

describe('C integer parsing (docs/nccl/params.md §2)', () => {
  it('strtoll base 0: octal, hex, decimal', () => {
    expect(parseNcclInt('010', 0).value).toBe(8);
    expect(parseNcclInt('0x10', 0).value).toBe(16);
    expect(parseNcclInt('10', 0).value).toBe(10);
    expect(parseNcclInt('-1', 0).value).toBe(-1);
  });
  it('non-numeric is 0, silently; trailing garbage ignored', () => {
    expect(parseNcclInt('true', 5)).toMatchObject({ value: 0, how: 'parsed' });
    expect(parseNcclInt('yes', 5).value).toBe(0);
    expect(parseNcclInt('5abc', 0).value).toBe(5);
    expect(parseNcclInt('5abc', 0).surprising).toMatch(/trailing/);
    expect(parseNcclInt('010', 0).surprising).toMatch(/octal/);
    expect(parseNcclInt('true', 0).surprising).toMatch(/no digits/);
  });
  it('empty or unset is the default; overflow falls back to the default', () => {
    expect(parseNcclInt('', 7)).toMatchObject({ value: 7, how: 'default' });
    expect(parseNcclInt(undefined, 7)).toMatchObject({ value: 7, how: 'default' });
    expect(parseNcclInt('99999999999999999999', 7)).toMatchObject({ value: 7, how: 'overflow-default' });
  });
  it('leading whitespace is skipped; 0x without digits reads 0', () => {
    expect(parseNcclInt('  12', 0).value).toBe(12);
    expect(strtoll0('0x').value).toBe(0n);
    expect(strtoll0('08').value).toBe(0n); // octal stops at 8
  });
  it('atoi', () => {
    expect(atoi('')).toBe(0);
    expect(atoi('1:2')).toBe(1);
    expect(atoi('abc')).toBe(0);
    expect(atoi(' -3x')).toBe(-3);
  });
});
