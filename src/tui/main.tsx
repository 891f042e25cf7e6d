// Mounts the App on the terminal's alternate screen and gives the terminal
// back exactly as it was on every way out (q, Ctrl-C, an error, a signal).

import chalk from 'chalk';
import { render } from 'ink';
import { exitCodeFor } from '../report/doctor.js';
import { App } from './App.js';
import type { TuiOptions } from './options.js';
import { verdict, type Model } from './model.js';
import { sourceLabel } from './Header.js';

const ENTER_ALT = '\x1b[?1049h\x1b[H';
const LEAVE_ALT = '\x1b[?1049l';
const SHOW_CURSOR = '\x1b[?25h';

export async function startTui(o: TuiOptions): Promise<number> {
  const out = process.stdout;
  // Ink styles through chalk, whose own detection turns everything off under
  // CI=…. This is a terminal: keep styles (bold, inverse for the selection,
  // dim); whether there is colour is the doctor's rule (wantColor: NO_COLOR,
  // --no-color), applied by the components (useColor).
  chalk.level = Math.max(chalk.level, 1) as typeof chalk.level;
  let inAlt = true;
  const leave = () => {
    if (!inAlt) return;
    inAlt = false;
    out.write(SHOW_CURSOR + LEAVE_ALT);
  };
  // Last resort: whatever ends the process, the user's screen comes back.
  process.once('exit', leave);
  out.write(ENTER_ALT);
  let base: Model | null = null;
  let failure: unknown = null;
  const app = render(
    <App
      {...o}
      onReady={(m) => {
        base = m;
      }}
      onError={(e) => {
        failure = e;
        app.unmount();
      }}
    />,
    { exitOnCtrlC: true, maxFps: 60, patchConsole: true },
  );
  try {
    await app.waitUntilExit();
  } finally {
    app.cleanup();
    leave();
    process.off('exit', leave);
  }
  if (failure) throw failure;
  const b = base as Model | null;
  if (!b) return 130; // quit before the node was read
  const v = verdict(b.run.results);
  out.write(`ncclx doctor · ${b.run.context.snapshot.host.hostname} (${sourceLabel(o.source)}): ${v.text}\n`);
  return exitCodeFor(b.run.results);
}
