// Runs the built CLI in this process and reports its peak resident memory and
// CPU time (worker threads included: they are threads of this process) on stderr.
//   node bench/measure.mjs compare DIR --json
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const cli = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'cli.js');
process.on('exit', () => {
  const u = process.resourceUsage();
  process.stderr.write(`\nMAXRSS_KB ${u.maxRSS}\nCPU_MS ${Math.round((u.userCPUTime + u.systemCPUTime) / 1000)}\n`);
});
process.argv = [process.argv[0], cli, ...process.argv.slice(2)];
await import(pathToFileURL(cli).href);
