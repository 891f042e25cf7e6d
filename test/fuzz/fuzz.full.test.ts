// `npm run test:full`: the fuzz suite (model.test.ts, log.test.ts,
// cli.test.ts) with ten times the inputs `npm test` gives it, same seed
// unless NCCLX_FUZZ_SEED says otherwise. The scale is read when lib.ts is
// first imported, so it is set before the suites are.
process.env['NCCLX_FUZZ_RUNS'] ??= '10';
await import('./model.test.js');
await import('./log.test.js');
await import('./cli.test.js');
