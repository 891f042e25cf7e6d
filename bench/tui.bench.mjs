// Issue 6 targets for the interactive doctor on the largest fixture
// (test/fixtures/ib8-storage):
//   first full frame  < 1 s   — process start to the frame with the header
//                               and the summary, the built binary in a real
//                               pseudo-terminal (util-linux `script`, 80×24);
//   keystroke → frame < 50 ms — in process: Ink's own render() on TTY-like
//                               streams (maxFps 60 as in ncclx), the What-if
//                               editor typing into NCCL_SOCKET_IFNAME and the
//                               NCCL version; every keystroke is a new what-if
//                               (nothing cached), timed from the key written
//                               to stdin to the frame that shows it on stdout.
import { spawn, spawnSync } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { notMeasured, target } from './targets.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const ROOT = join(here, '..');
const cli = join(ROOT, 'dist', 'cli.js');
const FIXTURE = 'test/fixtures/ib8-storage';
const RUNS = Number(process.env.BENCH_RUNS ?? 9);
// eslint-disable-next-line no-control-regex
const strip = (s) => s.replace(/\x1b\][^\x07]*\x07/g, '').replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))];

/** Spawn under a pseudo-terminal; resolve with ms from spawn until the output shows `done`. */
function ptyRun(command, done, timeoutMs = 10_000) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn('script', ['-qfec', `stty cols 80 rows 24; exec ${command}`, '/dev/null'], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, TERM: 'xterm-256color' } });
    let out = '';
    let ms = null;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no frame within ${timeoutMs} ms; output:\n${strip(out).slice(-2000)}`));
    }, timeoutMs);
    child.stdout.on('data', (d) => {
      out += d.toString('utf8');
      if (ms === null && done(strip(out))) {
        ms = Number(process.hrtime.bigint() - t0) / 1e6;
        child.stdin.write('q');
      }
    });
    child.on('exit', () => {
      clearTimeout(timer);
      if (ms === null) reject(new Error(`exited before the frame; output:\n${strip(out).slice(-2000)}`));
      else resolve(ms);
    });
  });
}

async function firstFrame() {
  const frame = (s) => /ncclx doctor · dgx-h100-01/.test(s) && /\d+ results/.test(s) && /\[!\] IB-009/.test(s);
  const bare = [];
  const tui = [];
  // Interleaved, after one warm-up of each, so load and page cache hit both alike.
  await ptyRun(`node dist/cli.js doctor --root ${FIXTURE}`, frame);
  for (let i = 0; i < RUNS; i++) {
    bare.push(await ptyRun(`node -e "process.stdout.write('ready')"`, (s) => s.includes('ready')));
    tui.push(await ptyRun(`node dist/cli.js doctor --root ${FIXTURE}`, frame));
  }
  return { bare: median(bare), tui: median(tui), max: Math.max(...tui) };
}

class FakeStdin extends EventEmitter {
  isTTY = true;
  data = null;
  setEncoding() {}
  setRawMode() {}
  resume() {}
  pause() {}
  ref() {}
  unref() {}
  read = () => {
    const d = this.data;
    this.data = null;
    return d;
  };
  write(d) {
    this.data = d;
    this.emit('readable');
  }
}

export async function keystrokes() {
  const [{ render }, React, { App }, { probeNode }, { ALL_CHECKS }] = await Promise.all([
    import('ink'),
    import('react'),
    import('../dist/tui/App.js'),
    import('../dist/probe/index.js'),
    import('../dist/checks/registry.js'),
  ]);
  const snapshot = await probeNode({ root: join(ROOT, FIXTURE), kernel: true, rdma: true });
  let screen = '';
  const waiters = [];
  const stdout = Object.assign(
    new Writable({
      write(chunk, _enc, cb) {
        // Ink writes a frame in pieces (synchronized-output markers, erase, text): keep all since the last key.
        screen += strip(chunk.toString('utf8'));
        for (const w of [...waiters]) if (w.test(screen)) w.resolve(process.hrtime.bigint());
        cb();
      },
    }),
    { isTTY: true, columns: 80, rows: 24 },
  );
  // Fake streams keep nothing alive: a timer does, and a frame that never comes is an error, not a silent exit.
  const until = (test, ms = 5000) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        waiters.splice(waiters.indexOf(w), 1);
        reject(new Error(`no frame matching ${test} within ${ms} ms; last:\n${screen}`));
      }, ms);
      const w = {
        test,
        resolve: (t) => {
          clearTimeout(timer);
          waiters.splice(waiters.indexOf(w), 1);
          resolve(t);
        },
      };
      waiters.push(w);
      if (test(screen)) w.resolve(process.hrtime.bigint());
    });
  const stdin = new FakeStdin();
  const app = render(
    React.createElement(App, { load: async () => snapshot, checks: ALL_CHECKS, options: { uplinkRegex: /^eth[0-9]+$/, include: [] }, source: { kind: 'root', path: FIXTURE }, color: true, initialView: 'whatif', copy: () => {} }),
    { stdout, stdin, stderr: stdout, exitOnCtrlC: false, patchConsole: false, maxFps: 60 },
  );
  await until((s) => /^Result/m.test(s));
  const samples = [];
  const type = async (text) => {
    let value = '';
    for (const ch of text) {
      value += ch;
      // The field shows the end of a long value while it is edited.
      const shown = `${value.slice(-20)}▏`;
      // Let the previous frame's throttle window pass, as between a person's keystrokes.
      await new Promise((r) => setTimeout(r, 20));
      screen = '';
      const t0 = process.hrtime.bigint();
      const seen = until((s) => s.includes(shown));
      stdin.write(ch);
      samples.push(Number((await seen) - t0) / 1e6);
    }
  };
  screen = '';
  stdin.write('\r'); // edit NCCL_SOCKET_IFNAME
  await until((s) => /editing/.test(s));
  await type('=ibp24s0,ibp64s0,eno1,enp41s0f0np0');
  stdin.write('\r');
  stdin.write('\x1b[B\x1b[B\x1b[B\x1b[B\x1b[B'); // to the NCCL version
  await new Promise((r) => setTimeout(r, 50));
  screen = '';
  stdin.write('\r');
  stdin.write('\x15'); // Ctrl-U: clear the prefilled version
  await until((s) => /NCCL version +▏/.test(s));
  await type('2.27.3');
  app.unmount();
  return samples;
}

export default async function () {
  const have = spawnSync('script', ['--version']).status === 0;
  console.log('| measure | median ms | notes |');
  console.log('|---|---|---|');
  if (have) {
    const f = await firstFrame();
    console.log(`| first full frame (ncclx doctor --root ${FIXTURE}, pty 80×24) | ${f.tui.toFixed(0)} | max ${f.max.toFixed(0)}; bare \`node -e\` under the same pty ${f.bare.toFixed(0)} |`);
    target('TUI first full frame', f.tui, { max: 1000, unit: ' ms', digits: 0 });
  } else {
    console.log('| first full frame | — | skipped: util-linux `script` not found |');
    notMeasured('TUI first full frame', 'util-linux `script` not found (apt-get install bsdutils)');
  }
  const k = await keystrokes();
  console.log(`| what-if keystroke → frame (${k.length} keystrokes, none cached) | ${median(k).toFixed(1)} | p95 ${pct(k, 95).toFixed(1)}, max ${Math.max(...k).toFixed(1)} |`);
  target('TUI what-if keystroke → frame, p95', pct(k, 95), { max: 50, unit: ' ms' });
  // Other work on the machine slows every figure: say how busy it was.
  console.log(`load average ${loadavg()[0].toFixed(2)} on ${cpus().length} CPUs`);
}
