// Plain-text tables for the reports: columns padded to a width measured in
// characters. Colour markers may only sit in the last column (it is not padded).

/**
 * The widest a cell makes its column. A longer cell (a 30 MB GID string in a
 * snapshot) overflows its own row instead of padding every row to its width:
 * the table stays linear in its input.
 */
export const COLUMN_MAX = 80;

/** Each column's width: its widest cell up to COLUMN_MAX. */
export function columnWidths(rows: string[][], length: (c: string) => number = (c) => c.length): number[] {
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, Math.min(COLUMN_MAX, length(c)))));
  return widths;
}

export function table(rows: string[][], sep = '  '): string[] {
  const widths = columnWidths(rows);
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join(sep).trimEnd());
}
