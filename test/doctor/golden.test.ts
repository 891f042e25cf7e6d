// Golden text of the doctor report on every fixture node, default and -v: a
// change to what a user reads shows up as a diff to review. Regenerate with
// `npm run golden` and read `git diff test/doctor/golden` before committing.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { fixtureNodes } from '../advice/suite.js';
import { cliServer, sameAsOwnProcess, type ServerRun } from '../helpers/cli-server.js';

// The built CLI, with the fixtures' failing reads (EINVAL on hidden GID entries) as a real kernel has them:
// every report from the file's CLI server (test/helpers/cli-server.ts), one of them also as its own process.
const server = cliServer({ faults: true });
const FIXTURES = join(__dirname, '../fixtures');
const GOLDEN = join(__dirname, 'golden');
const UPDATE = process.env['NCCLX_GOLDEN_UPDATE'] === '1';
const ENV = { PATH: process.env['PATH'] ?? '', HOME: '/nonexistent', NO_COLOR: '1' };

const caseOf = (fx: string, verbose: boolean) => ({ args: ['doctor', '--root', join(FIXTURES, fx), '--nccl-version', '2.28.3', '--no-tui', '--no-color', ...(verbose ? ['-v'] : [])], env: ENV });
// The fixture directory's absolute path differs per checkout: the goldens hold <fixtures>.
const text = (r: ServerRun) => r.stdout.split(FIXTURES).join('<fixtures>');

describe('doctor report golden text', () => {
  const cases = fixtureNodes().flatMap((fx) => [false, true].map((verbose) => ({ fx, verbose, c: caseOf(fx, verbose) })));
  let runs: ServerRun[] = [];
  beforeAll(() => {
    runs = cases.map(({ c }) => server.run(c.args, c.env));
  }, 120_000);

  it('the CLI server answers as its own process does (the most detailed report, roce-one-subnet -v)', () => {
    const i = cases.findIndex((x) => x.fx === 'roce-one-subnet' && x.verbose);
    sameAsOwnProcess(server, cases[i]!.c.args, cases[i]!.c.env);
  });

  cases.forEach(({ fx, verbose }, i) => {
    const file = join(GOLDEN, `${fx.replace(/\//g, '__')}${verbose ? '.v' : ''}.txt`);
    it(`${fx}${verbose ? ' -v' : ''}`, () => {
      const got = text(runs[i]!);
      if (UPDATE || !existsSync(file)) {
        if (!UPDATE && process.env['CI']) throw new Error(`${file} is missing: run npm run golden and commit it`);
        mkdirSync(GOLDEN, { recursive: true });
        writeFileSync(file, got);
      }
      expect(got).toBe(readFileSync(file, 'utf8'));
    });
  });
});
