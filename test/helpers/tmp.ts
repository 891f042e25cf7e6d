// Temporary directories for tests, removed after the test file: every test
// cleans up what it creates. Importing this module registers the cleanup for
// the importing file (vitest isolates modules per test file).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

const made: string[] = [];

afterAll(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A new directory under the system temp dir, named `<prefix>XXXXXX`, removed after this test file. */
export function tempDir(prefix: string): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  made.push(d);
  return d;
}
