// Test helper for test/netns/fix.test.ts: run a command with a directory
// bind-mounted at a second path.
//
// The "not root" case runs ncclx as uid 65534, which cannot reach a checkout
// under a directory only root may enter (a clone in /root or in `mktemp -d`).
// A bind mount of the checkout at a path every user can reach gives that user
// the same files, wherever the clone sits, without copying node_modules.
//
// Usage (must already run in its own mount namespace, e.g. under
// `ip netns exec NS unshare --mount --propagation private`):
//   node bind-run.mjs <source-dir> <mount-point> -- <command> [args…]
//
// Every command is an argument array; the mount vanishes with the namespace.

import { spawnSync } from 'node:child_process';

const [source, target, sep, ...command] = process.argv.slice(2);
if (!source || !target || sep !== '--' || command.length === 0) {
  process.stderr.write('usage: bind-run.mjs <source-dir> <mount-point> -- <command> [args…]\n');
  process.exit(2);
}

const m = spawnSync('mount', ['--bind', source, target], { encoding: 'utf8' });
if (m.error || m.status !== 0) {
  process.stderr.write(`bind-run: mount --bind ${source} ${target} failed: ${m.error?.message ?? m.stderr}\n`);
  process.exit(2);
}
const r = spawnSync(command[0], command.slice(1), { stdio: 'inherit', env: process.env });
process.exit(r.status ?? 2);
