// The committed fixture trees are what test/fixtures/generate.mjs writes: a
// node edited by hand (or a generator change not run) would make the next
// regeneration silently change what the tests read. Every node is built into a
// temporary directory and compared with its committed tree: the same paths,
// kinds, file bytes and symlink targets.
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: the generator is plain JavaScript without type declarations.
import { buildNode, NODES } from '../fixtures/generate.mjs';
import { tempDir } from '../helpers/tmp.js';

const FIXTURES = join(__dirname, '..', 'fixtures');
const tmp = tempDir('ncclx-fixtures-');

/** Every entry under dir: path → 'dir', 'link → target' or the file's content (base64). */
function tree(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (rel: string): void => {
    for (const name of readdirSync(join(dir, rel)).sort()) {
      const p = rel ? `${rel}/${name}` : name;
      const st = lstatSync(join(dir, p));
      if (st.isSymbolicLink()) out.set(p, `link → ${readlinkSync(join(dir, p))}`);
      else if (st.isDirectory()) {
        out.set(p, 'dir');
        walk(p);
      } else out.set(p, readFileSync(join(dir, p)).toString('base64'));
    }
  };
  walk('');
  return out;
}

describe('fixture trees', () => {
  for (const [name, build] of Object.entries(NODES as Record<string, unknown>)) {
    it(`${name} is what generate.mjs writes`, () => {
      const built = tree(buildNode(join(tmp, name), build));
      const committed = tree(join(FIXTURES, name));
      const differ = [...new Set([...built.keys(), ...committed.keys()])].filter((p) => built.get(p) !== committed.get(p));
      expect(differ, `run node test/fixtures/generate.mjs ${name}, or put the hand edit in the generator`).toEqual([]);
    });
  }
});
