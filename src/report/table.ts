// Plain-text tables for the reports: columns padded to a width measured in
// characters. Colour markers may only sit in the last column (it is not padded).

export function table(rows: string[][], sep = '  '): string[] {
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join(sep).trimEnd());
}
