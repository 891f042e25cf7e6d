// Imported for its effect: in the importing test file, every Root (the one
// probeNode builds included) fails the reads a fixture's `<tree>.faults.json`
// lists — EINVAL on hidden and unset GID entries — as a real kernel does.
// Vitest isolates modules per test file, so no other file is affected.

import { Root } from '../../src/probe/root.js';
import { injectFaults } from './faults.mjs';

injectFaults(Root);
