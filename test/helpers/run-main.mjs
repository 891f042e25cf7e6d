// One run of ncclx's main() in a process that runs many (test/netns/batch-run.mjs,
// test/helpers/ncclx-server.mjs; docs/testing.md, "One process per scenario"):
// what a fresh process would not share with the run before it is set here.

const realWrite = { out: process.stdout.write, err: process.stderr.write };
const startCwd = process.cwd();

/** A stream's write() that keeps the bytes instead (callback and return value as a pipe would give them). */
function capture(parts) {
  return function write(chunk, encoding, cb) {
    if (typeof encoding === 'function') [cb, encoding] = [encoding, undefined];
    parts.push(typeof chunk === 'string' ? Buffer.from(chunk, encoding ?? 'utf8') : Buffer.from(chunk));
    if (cb) process.nextTick(cb);
    return true;
  };
}

/** process.env becomes exactly `env`: every other variable is unset through the real unsetenv. */
function setEnvironment(env) {
  for (const k of Object.keys(process.env)) delete process.env[k];
  for (const [k, v] of Object.entries(env)) process.env[k] = v;
}

/**
 * Runs main() for one case { argv, env, cwd? } with a fresh process's argv and
 * exit code, the case's environment and working directory, and what ncclx
 * writes captured: { code, stdout, stderr }. main() turns every error into an
 * exit code; one that escapes is a bug, answered as code -1 with its stack.
 */
export async function runCase(main, c, who) {
  setEnvironment(c.env);
  process.chdir(c.cwd ?? startCwd);
  process.argv = [...c.argv];
  process.exitCode = undefined;
  const out = [];
  const err = [];
  process.stdout.write = capture(out);
  process.stderr.write = capture(err);
  let code;
  try {
    code = await main(c.argv);
  } catch (e) {
    err.push(Buffer.from(`${who}: main() threw: ${e instanceof Error ? e.stack : String(e)}\n`));
    code = -1;
  } finally {
    process.stdout.write = realWrite.out;
    process.stderr.write = realWrite.err;
  }
  return { code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') };
}
