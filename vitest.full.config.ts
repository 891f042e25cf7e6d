// `npm run test:full`: only the slow files, `test/**/*.full.test.ts`, which
// `npm test` leaves out (vitest.config.ts). CI runs both (.ci/run).
import { configDefaults, defineConfig } from 'vitest/config';
import base from './vitest.config.js';

export default defineConfig({
  test: {
    ...base.test,
    include: ['test/**/*.full.test.ts'],
    exclude: [...configDefaults.exclude, 'test/fixtures/**'],
    testTimeout: 300_000,
    hookTimeout: 600_000,
  },
});
