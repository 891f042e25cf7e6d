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
//   node kernel-overlay.mjs <fixture-infiniband-dir> <scratch-dir> [--dev-infiniband] -- <command> [args…]
//   node kernel-overlay.mjs <fixture-infiniband-dir> <scratch-dir> [--dev-infiniband] --hold
// With --hold it runs no command: it prints `ready` once the mounts are in
// place and keeps the mount namespace alive until its standard input ends,
// so each command can enter it (`nsenter --target PID --mount --net`)
// without a Node start-up and the mounts per command (kernel-lib.ts).
//
// sysfs cannot get a new directory, so a tmpfs goes over /sys/class with
// `net` (bind of the real one, saved first) and `infiniband` (the fixture).
// With --dev-infiniband the devices also open as NCCL's IB transport checks
// it (/dev/infiniband present, src/model/nccl/ib.ts): a tmpfs goes over /dev
// holding an empty infiniband/ directory and binds of the real character
// devices a command needs (null, zero, random, urandom, full, tty) and
// /dev/pts and /dev/shm. Nothing is created on the machine's own /dev.
// Every command is an argument array; the mounts vanish with the namespace.

import { spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const args = process.argv.slice(2);
const devInfiniband = args[2] === '--dev-infiniband';
if (devInfiniband) args.splice(2, 1);
const [fixture, scratch, sep, ...command] = args;
const hold = sep === '--hold' && command.length === 0;
if (!fixture || !scratch || !(hold || (sep === '--' && command.length > 0))) {
  process.stderr.write('usage: kernel-overlay.mjs <fixture-infiniband-dir> <scratch-dir> [--dev-infiniband] (-- <command> [args…] | --hold)\n');
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

if (devInfiniband) {
  const savedDev = join(scratch, 'dev');
  mkdirSync(savedDev, { recursive: true });
  run(['mount', '--bind', '/dev', savedDev]);
  run(['mount', '-t', 'tmpfs', 'ncclx-test-dev', '/dev']);
  mkdirSync('/dev/infiniband');
  for (const c of ['null', 'zero', 'random', 'urandom', 'full', 'tty']) {
    writeFileSync(join('/dev', c), '');
    run(['mount', '--bind', join(savedDev, c), join('/dev', c)]);
  }
  for (const d of ['pts', 'shm']) {
    mkdirSync(join('/dev', d));
    run(['mount', '--bind', join(savedDev, d), join('/dev', d)]);
  }
  for (const [name, to] of [['fd', '/proc/self/fd'], ['stdin', '/proc/self/fd/0'], ['stdout', '/proc/self/fd/1'], ['stderr', '/proc/self/fd/2']]) symlinkSync(to, join('/dev', name));
}

if (hold) {
  process.stdout.write('ready\n');
  process.stdin.resume().on('end', () => process.exit(0));
} else {
  const r = spawnSync(command[0], command.slice(1), { stdio: 'inherit', env: process.env });
  process.exit(r.status ?? 2);
}
