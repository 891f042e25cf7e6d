// Entry of the interactive doctor, loaded by `ncclx doctor` on a terminal only
// (the JSON and text paths never import Ink or React). This module imports
// neither itself: it prepares the environment, then loads the UI.

import type { TuiOptions } from './options.js';

export type { TuiOptions };

/** Runs the UI until the user quits; resolves with the doctor's exit code for the node. */
export async function runTui(o: TuiOptions): Promise<number> {
  // Ink decides once, when it is first loaded, whether it runs in CI (CI or
  // CONTINUOUS_INTEGRATION set) and then prints only the last frame at exit.
  // Here stdout and stdin are a terminal and a person is at the keyboard, so
  // hide those variables while Ink loads; they are back before anything runs.
  const saved: Record<string, string | undefined> = { CI: process.env['CI'], CONTINUOUS_INTEGRATION: process.env['CONTINUOUS_INTEGRATION'] };
  for (const k of Object.keys(saved)) delete process.env[k];
  let main: typeof import('./main.js');
  try {
    main = await import('./main.js');
  } finally {
    for (const [k, v] of Object.entries(saved)) if (v !== undefined) process.env[k] = v;
  }
  return main.startTui(o);
}
