// globalSetup of vitest.mutate.config.ts. StrykerJS runs the tests in a copy
// of the repository (.stryker-tmp/sandbox-*/) and cannot copy the fixture
// trees (their /sys symlinks dangle or loop by design), so stryker.config.mjs
// leaves them out of its copy and they are copied here, links as links. A
// symlink to the originals would not do: the probe resolves /sys links
// against the root it is given, and a root behind a link is another path.
import { cpSync, existsSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

export default function setup(): void {
  const here = resolve('.');
  if (basename(dirname(here)) !== '.stryker-tmp') return;
  const fixtures = join(here, 'test', 'fixtures');
  if (!existsSync(fixtures)) cpSync(join(dirname(dirname(here)), 'test', 'fixtures'), fixtures, { recursive: true, verbatimSymlinks: true });
}
