// Test helper for test/netns/kernel-*.test.ts: run a command with a fixture
// /sys/class/infiniband, everything else live.
//
// A network namespace has no RDMA devices (no rdma_rxe here either), but the
// ARP checks need to know which netdevs are RDMA netdevs. Rather than give
// ncclx a test-only switch, this runs ncclx unchanged in a private mount
// namespace where /sys/class/infiniband is a bind mount of a small fixture
// whose gid_attrs/ndevs name the namespace's real veths; /proc/sys, `ip`,
// `tc`, `nft` and /sys/class/net stay the live kernel's.
//
// Usage (must already run in its own mount namespace, e.g. under
// `ip netns exec NS unshare --mount --propagation private`):
//   node kernel-overlay.mjs <fixture-infiniband-dir> <scratch-dir> -- <command> [args…]
//
// sysfs cannot get a new directory, so a tmpfs goes over /sys/class with
// `net` (bind of the real one, saved first) and `infiniband` (the fixture).
// Every command is an argument array; the mounts vanish with the namespace.

import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

const [fixture, scratch, sep, ...command] = process.argv.slice(2);
if (!fixture || !scratch || sep !== '--' || command.length === 0) {
  process.stderr.write('usage: kernel-overlay.mjs <fixture-infiniband-dir> <scratch-dir> -- <command> [args…]\n');
  process.exit(2);
}

function run(argv) {
  const r = spawnSync(argv[0], argv.slice(1), { encoding: 'utf8' });
  if (r.error || r.status !== 0) {
    process.stderr.write(`kernel-overlay: ${JSON.stringify(argv)} failed: ${r.error?.message ?? r.stderr}\n`);
    process.exit(2);
  }
}

const saved = join(scratch, 'class-net');
mkdirSync(saved, { recursive: true });
run(['mount', '--bind', '/sys/class/net', saved]);
run(['mount', '-t', 'tmpfs', 'ncclx-test-class', '/sys/class']);
mkdirSync('/sys/class/net');
mkdirSync('/sys/class/infiniband');
run(['mount', '--bind', saved, '/sys/class/net']);
run(['mount', '--bind', fixture, '/sys/class/infiniband']);

const r = spawnSync(command[0], command.slice(1), { stdio: 'inherit', env: process.env });
process.exit(r.status ?? 2);
