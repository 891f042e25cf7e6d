// Every case of the conf-file scenarios (conf.test.ts) run both ways: in the
// one ncclx process per scenario that `npm test` uses, and each as a process of
// its own, exactly as a user runs ncclx; every answer must be the same byte for
// byte. Conf files, HOME and variables set in one case and unset in the next
// are where one process running many cases could carry something over
// (docs/testing.md, "One process per scenario"). `npm test` compares a sample
// of every scenario; this compares all of them, ~40 s here.

import { compareEveryCase } from './scenario.js';

compareEveryCase();
await import('./conf.test.js');
