// Every case of the conf-file and NCCL_COMM_ID scenarios (conf.test.ts,
// commid.test.ts) run both ways: in the one ncclx process per scenario that
// `npm test` uses, and each as a process of its own, exactly as a user runs
// ncclx; every answer must be the same byte for byte. Conf files, HOME,
// variables set in one case and unset in the next, and names resolved or not
// are where one process running many cases could carry something over
// (docs/testing.md, "One process per scenario"). `npm test` compares the last
// case of every scenario and every case of commid.test.ts D06; this compares
// all of them (~2 min here).

import { compareEveryCase } from './scenario.js';

compareEveryCase();
await import('./conf.test.js');
await import('./commid.test.js');
