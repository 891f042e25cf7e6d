// Quoting for generated text. Interface names may legally contain `$ ; ( '`
// and other shell metacharacters, so everything we print for pasting is quoted.

const SAFE_SH = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** POSIX sh single-word quoting: safe words stay bare, everything else goes in '…'. */
export function shQuote(s: string): string {
  // A leading '=' is legal bare, but `X==eth1` reads like a typo: quote it.
  if (SAFE_SH.test(s) && !s.startsWith('=')) return s;
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** A command line for pasting: each argument quoted on its own. */
export function shJoin(argv: readonly string[]): string {
  return argv.map(shQuote).join(' ');
}

/** `export NAME=value`, value quoted. */
export function shExport(name: string, value: string): string {
  return `export ${name}=${shQuote(value)}`;
}
