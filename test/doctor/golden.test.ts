// Golden text of the doctor report on every fixture node, default and -v: a
// change to what a user reads shows up as a diff to review. Regenerate with
// `npm run golden` and read `git diff test/doctor/golden` before committing.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixtureNodes } from '../advice/suite.js';

// The built CLI, with the fixtures' failing reads (EINVAL on hidden GID entries) as a real kernel has them: test/helpers/faults.mjs.
const CLI = join(__dirname, '../helpers/ncclx.mjs');
const FIXTURES = join(__dirname, '../fixtures');
const GOLDEN = join(__dirname, 'golden');
const UPDATE = process.env['NCCLX_GOLDEN_UPDATE'] === '1';

function report(fx: string, verbose: boolean): string {
  const r = spawnSync(process.execPath, [CLI, 'doctor', '--root', join(FIXTURES, fx), '--nccl-version', '2.28.3', '--no-tui', '--no-color', ...(verbose ? ['-v'] : [])], {
    encoding: 'utf8',
    env: { PATH: process.env['PATH'] ?? '', HOME: '/nonexistent', NO_COLOR: '1' },
  });
  // The fixture directory's absolute path differs per checkout: the goldens hold <fixtures>.
  return r.stdout.split(FIXTURES).join('<fixtures>');
}

describe('doctor report golden text', () => {
  for (const fx of fixtureNodes()) {
    for (const verbose of [false, true]) {
      const file = join(GOLDEN, `${fx.replace(/\//g, '__')}${verbose ? '.v' : ''}.txt`);
      it(`${fx}${verbose ? ' -v' : ''}`, () => {
        const text = report(fx, verbose);
        if (UPDATE || !existsSync(file)) {
          if (!UPDATE && process.env['CI']) throw new Error(`${file} is missing: run npm run golden and commit it`);
          mkdirSync(GOLDEN, { recursive: true });
          writeFileSync(file, text);
        }
        expect(text).toBe(readFileSync(file, 'utf8'));
      });
    }
  }
});
