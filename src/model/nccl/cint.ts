// C library number parsing, reproduced so that ncclx reads a value exactly as
// NCCL does. NCCL never validates: `010` is 8, `5abc` is 5 and `true` is 0.

const WHITESPACE = new Set([' ', '\t', '\n', '\v', '\f', '\r']);

function skipSpace(s: string, i: number): number {
  while (i < s.length && WHITESPACE.has(s[i]!)) i++;
  return i;
}

/** `atoi(3)`: optional whitespace and sign, decimal digits, stops at the first other character. */
export function atoi(s: string): number {
  let i = skipSpace(s, 0);
  let sign = 1;
  if (s[i] === '+' || s[i] === '-') {
    if (s[i] === '-') sign = -1;
    i++;
  }
  let n = 0;
  while (i < s.length && s[i]! >= '0' && s[i]! <= '9') {
    n = n * 10 + (s.charCodeAt(i) - 48);
    i++;
  }
  // glibc's atoi is (int)strtol: out-of-range values wrap through a long; keep
  // the common 32-bit truncation so absurd ports behave like NCCL's int field.
  return toInt32(sign * n);
}

export function toInt32(n: number): number {
  if (!Number.isFinite(n)) return 0;
  return Number(BigInt.asIntN(32, BigInt(Math.trunc(n))));
}

export interface StrtollResult {
  /** The parsed value (what NCCL uses). */
  value: bigint;
  /** Characters consumed after leading whitespace; 0 means "no digits" (value 0). */
  consumed: number;
  /** Text after the number that C silently ignores. */
  trailing: string;
  /** strtoll set ERANGE: NCCL falls back to the default. */
  overflow: boolean;
  base: 8 | 10 | 16;
  /** The digits that were read (without sign or 0x). */
  digits: string;
}

const LLONG_MAX = (1n << 63n) - 1n;
const LLONG_MIN = -(1n << 63n);

/** `strtoll(s, NULL, 0)`: base auto-detection (`0x` hex, leading `0` octal). */
export function strtoll0(s: string): StrtollResult {
  let i = skipSpace(s, 0);
  const start = i;
  let neg = false;
  if (s[i] === '+' || s[i] === '-') {
    neg = s[i] === '-';
    i++;
  }
  let base: 8 | 10 | 16 = 10;
  if (s[i] === '0' && (s[i + 1] === 'x' || s[i + 1] === 'X') && isDigitOf(s[i + 2], 16)) {
    base = 16;
    i += 2;
  } else if (s[i] === '0') {
    base = 8;
  }
  const digitsStart = i;
  let v = 0n;
  while (i < s.length && isDigitOf(s[i], base)) {
    v = v * BigInt(base) + BigInt(parseInt(s[i]!, base));
    i++;
  }
  if (i === digitsStart) {
    return { value: 0n, consumed: 0, trailing: s.slice(start), overflow: false, base, digits: '' };
  }
  if (neg) v = -v;
  let overflow = false;
  if (v > LLONG_MAX) {
    v = LLONG_MAX;
    overflow = true;
  } else if (v < LLONG_MIN) {
    v = LLONG_MIN;
    overflow = true;
  }
  return { value: v, consumed: i - start, trailing: s.slice(i), overflow, base, digits: s.slice(digitsStart, i) };
}

function isDigitOf(c: string | undefined, base: number): boolean {
  if (c === undefined) return false;
  const d = parseInt(c, 36);
  return !Number.isNaN(d) && d < base && /^[0-9a-zA-Z]$/.test(c);
}

export interface NcclIntParam {
  /** The value NCCL ends up with. */
  value: number;
  /** How it got there, in words, for traces and findings. */
  how: 'default' | 'parsed' | 'overflow-default';
  /** The parse was surprising: octal, trailing garbage, or no digits at all. */
  surprising: string | null;
}

/**
 * An `NCCL_PARAM` integer: unset or empty → default; otherwise strtoll base 0,
 * where only ERANGE falls back to the default (docs/nccl/params.md §2).
 */
export function parseNcclInt(raw: string | undefined, defaultValue: number): NcclIntParam {
  if (raw === undefined || raw === '') return { value: defaultValue, how: 'default', surprising: null };
  const r = strtoll0(raw);
  if (r.overflow) {
    return {
      value: defaultValue,
      how: 'overflow-default',
      surprising: `'${raw}' overflows a 64-bit integer; NCCL logs "Invalid value" and uses the default ${defaultValue}`,
    };
  }
  const value = Number(r.value);
  let surprising: string | null = null;
  if (r.consumed === 0) {
    surprising = `'${raw}' has no digits; NCCL reads it as 0 without any message`;
  } else if (r.base === 8 && r.digits.length > 1) {
    surprising = `'${raw}' starts with 0, so C reads it as octal: ${value}`;
  } else if (r.trailing.length > 0) {
    surprising = `'${raw}' has trailing text '${r.trailing}' that NCCL ignores: ${value}`;
  }
  return { value, how: 'parsed', surprising };
}
