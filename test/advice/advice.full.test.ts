// The long advice sweep (npm run test:full, CI): every fixture node, 400 environments, and every kernel
// remediation re-checked under every one of them (npm test caps that at KERNEL_ENVS per remediation).
import { adviceSuite } from './suite.js';

adviceSuite(0, 1, { envs: Math.max(400, Number(process.env['ADVICE_ENVS'] ?? 400)), kernelEnvs: Infinity });
