// `ncclx env` output formats. Each value is quoted for its target, because
// interface and device names may contain `$ ; ( '` and other characters Linux
// allows: pasting the output must set exactly these variables, nothing else.

import type { EnvVar } from '../model/advice/env-plan.js';
import { UserError } from '../model/errors.js';
import { shQuote } from '../model/shell/quote.js';
import { visible } from './display.js';

export type { EnvVar };

export type EnvFormat = 'bash' | 'fish' | 'dotenv' | 'json' | 'nccl-conf' | 'k8s';
export const ENV_FORMATS: EnvFormat[] = ['bash', 'fish', 'dotenv', 'json', 'nccl-conf', 'k8s'];

export class EnvFormatError extends UserError {}

/** fish: inside single quotes only \\ and \' are escapes. */
export function fishQuote(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/**
 * dotenv: one file read the same by every reader it targets — POSIX shells
 * (`set -a; . file` in bash and dash), python-dotenv (with its default
 * interpolation), npm dotenv, docker `--env-file` and `kubectl create
 * configmap --from-env-file`. The last two take the value verbatim (quotes
 * would become part of it), so a value is written unquoted when it holds
 * nothing any reader treats specially: no quote, `$`, backquote, backslash,
 * `#`, whitespace, `~`, `;`, `(`, `)`, `&`, `|`, `<`, `>`, `*`, `?`, `[`, `]`,
 * `{`, `}`, `!` or control character.
 */
const DOTENV_SAFE = /^[A-Za-z0-9_.,:/=+@%^-]*$/;

/**
 * A list of such words separated by single spaces (RDMA_PEER_IFACES) is
 * written double-quoted: bash, dash, npm dotenv and python-dotenv read it
 * exactly (nothing inside a double quote is special to them without `$`,
 * backquote, backslash or `"`); docker and kubectl keep the quotes, which
 * a comment in the file says (dotenvNote). Anything else is refused: left out
 * of the file, with a note naming the variable (docs/env-formats.md).
 */
const DOTENV_QUOTABLE = /^[A-Za-z0-9_.,:/=+@%^-]+( [A-Za-z0-9_.,:/=+@%^-]+)+$/;

/** Why a value cannot be written for every dotenv reader, or null when it can. */
export function dotenvRefusal(value: string): string | null {
  if (DOTENV_SAFE.test(value) || DOTENV_QUOTABLE.test(value)) return null;
  const bad = [...new Set([...value].filter((c) => !DOTENV_SAFE.test(c)))].map((c) => JSON.stringify(c)).join(' ');
  return `its value holds ${bad}, which dotenv readers do not read alike (docker keeps quotes, shells expand $ and backquotes, python-dotenv interpolates \${…})`;
}

/** The dotenv line of a value dotenvRefusal accepts. */
function dotenvLine(v: EnvVar): string {
  return DOTENV_SAFE.test(v.value) ? `${v.name}=${v.value}\n` : `${v.name}="${v.value}"\n`;
}

/** What a dotenv file must say about its quoted values (docker and kubectl keep the quotes), or null when it has none. */
export function dotenvNote(vars: EnvVar[]): string | null {
  const quoted = vars.filter((v) => !DOTENV_SAFE.test(v.value) && DOTENV_QUOTABLE.test(v.value)).map((v) => v.name);
  if (quoted.length === 0) return null;
  return `${quoted.join(', ')} ${quoted.length === 1 ? 'is' : 'are'} double-quoted (a list with spaces): bash, dash (set -a; . file), npm dotenv and python-dotenv read the exact value; docker --env-file and kubectl --from-env-file keep the quotes, so pass ${quoted.length === 1 ? 'it' : 'them'} there with --format k8s or json`;
}

/**
 * A YAML double-quoted scalar that YAML 1.1 readers (PyYAML, the Go library
 * kubectl uses) and YAML 1.2 readers read back alike. Only printable ASCII is
 * written as itself: YAML 1.1 takes U+0085, U+2028 and U+2029 as line breaks
 * (JSON leaves them raw, so a value could start a new entry), and refuses C0,
 * C1 and DEL controls. Every other code point is written as `\u` and four
 * hex digits, or `\U` and eight, escapes both versions define.
 */
export function yamlQuote(s: string): string {
  let out = '"';
  for (const c of s) {
    const n = c.codePointAt(0)!;
    if (c === '"' || c === '\\') out += `\\${c}`;
    else if (n >= 0x20 && n <= 0x7e) out += c;
    else if (n <= 0xffff) out += `\\u${n.toString(16).toUpperCase().padStart(4, '0')}`;
    else out += `\\U${n.toString(16).toUpperCase().padStart(8, '0')}`;
  }
  return out + '"';
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function checkName(name: string) {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new EnvFormatError(`'${name}' is not a valid environment variable name`);
}

export function formatEnv(vars: EnvVar[], format: EnvFormat): string {
  for (const v of vars) {
    checkName(v.name);
    if (v.value.includes('\0')) throw new EnvFormatError(`${v.name}: a value cannot contain a NUL byte`);
    // Half of a UTF-16 pair (only a hand-made snapshot has one) is no character: UTF-8 output would turn it into U+FFFD.
    if (LONE_SURROGATE.test(v.value)) throw new EnvFormatError(`${v.name}: a value cannot contain a lone UTF-16 surrogate (not a Unicode character)`);
  }
  switch (format) {
    case 'bash':
      return vars.map((v) => `export ${v.name}=${shQuote(v.value)}\n`).join('');
    case 'fish':
      return vars.map((v) => `set -gx ${v.name} ${fishQuote(v.value)}\n`).join('');
    case 'dotenv':
      // Values that are not safe for every reader are left out by envText (dotenvRefusal), never quoted otherwise.
      for (const v of vars) if (dotenvRefusal(v.value)) throw new EnvFormatError(`${v.name}: ${dotenvRefusal(v.value)}`);
      return vars.map(dotenvLine).join('');
    case 'json':
      return JSON.stringify(Object.fromEntries(vars.map((v) => [v.name, v.value])), null, 2) + '\n';
    case 'nccl-conf':
      // NCCL reads NAME=VALUE verbatim: no quotes (they would become part of the value), one per line.
      // Only what NCCL itself reads belongs here (envText leaves the rest out: readerOf in model/advice/env-plan.ts).
      for (const v of vars) {
        if (/[\r\n]/.test(v.value)) throw new EnvFormatError(`${v.name}: nccl.conf cannot hold a value with a line break`);
      }
      return vars.map((v) => `${v.name}=${v.value}\n`).join('');
    case 'k8s':
      return ['env:', ...vars.flatMap((v) => [`  - name: ${v.name}`, `    value: ${yamlQuote(v.value)}`])].join('\n') + '\n';
  }
}

/**
 * A comment line in the given format (json has none: returns null). The text
 * echoes the node (host name, interface names, NCCL_* values), so it is kept
 * on its one line for every reader: line breaks become spaces, and every
 * other control, U+0085, U+2028, U+2029 (line breaks to YAML 1.1 readers and
 * to JavaScript's multiline regular expressions, which npm dotenv uses), bidi
 * and invisible format character is written escaped (`\x1b`, `\u2028`).
 */
export function commentLine(text: string, format: EnvFormat): string | null {
  if (format === 'json') return null;
  return `# ${visible(text.replace(/[\r\n]+/g, ' '))}`;
}
