// Every bench figure that has a target goes through `target()`: printed beside
// its target, marked when missed, and collected so `npm run bench` can end
// with a table of all of them and a non-zero exit when any was missed.
import { cpus, loadavg } from 'node:os';

/** @type {{ bench: string; name: string; value: string; target: string; ok: boolean; load: string }[]} */
export const results = [];
let current = '';

export function setBench(name) {
  current = name;
}

export const loadText = () => `${loadavg()[0].toFixed(2)} on ${cpus().length} CPUs`;

/**
 * Record a figure: `{ max }` (at most) or `{ min }` (at least), `unit` appended
 * to numbers, `digits` for rounding. Prints `name: value (target …) OK|MISSED`.
 */
export function target(name, value, { max, min, unit = '', digits = 1 }) {
  const ok = max !== undefined ? value <= max : value >= min;
  const fmt = (v) => `${Number.isInteger(v) ? v : v.toFixed(digits)}${unit}`;
  const goal = max !== undefined ? `≤ ${fmt(max)}` : `≥ ${fmt(min)}`;
  const row = { bench: current, name, value: fmt(value), target: goal, ok, load: loadText() };
  results.push(row);
  console.log(`${name}: ${row.value} (target ${goal}) ${ok ? 'OK' : 'MISSED'}`);
  return ok;
}

/** A target that could not be measured here (a tool missing): listed, not failed. */
export function notMeasured(name, why) {
  results.push({ bench: current, name, value: '—', target: '—', ok: true, load: loadText(), skipped: why });
  console.log(`${name}: not measured (${why})`);
}
