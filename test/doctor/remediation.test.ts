// A remediation is only worth printing if doing what it says gives the result
// it promises. SOCK-031 pins NCCL_SOCKET_IFNAME to the rails: fed back to
// `ncclx explain`, the pinned value must select exactly those rails.
import { join } from 'node:path';
import { tempDir } from '../helpers/tmp.js';
import { describe, expect, it } from 'vitest';
import { cliServer, sameAsOwnProcess } from '../helpers/cli-server.js';

// The built CLI, with the fixtures' failing reads (EINVAL on hidden GID entries) as a real kernel has them: test/helpers/faults.mjs.
// Every CLI call in one ncclx process (test/helpers/cli-server.ts), one checked against its own process.
const server = cliServer({ faults: true });
const FIX = join(__dirname, '../fixtures');
const HOME = tempDir('ncclx-rem-home-');

function cli(args: string[], env: Record<string, string> = {}) {
  const r = server.spawnSync([...args], { encoding: 'utf8', env: { PATH: process.env['PATH'], HOME, ...env } });
  return JSON.parse(r.stdout);
}

describe('SOCK-031 remediation', () => {
  // sandbox with the IB transport off, so sockets carry the data: the pod network eth0 carries the default route next to the rails net1 and net2.
  it('pins every rail: NCCL reads one "=" for the whole list, so "=net1,=net2" would keep net1 only', () => {
    const doc = cli(['doctor', '--json', '--root', join(FIX, 'sandbox'), '--nccl-version', '2.28.3', '--only', 'SOCK-031'], { NCCL_IB_DISABLE: '1' });
    const r = doc.results.find((x: { id: string; severity: string }) => x.id === 'SOCK-031' && x.severity === 'warn');
    expect(r.remediation.env).toEqual({ NCCL_SOCKET_IFNAME: '=net1,net2' });
    const ex = cli(['explain', '--json', '--root', join(FIX, 'sandbox'), '--nccl-version', '2.28.3', '--ifname', r.remediation.env.NCCL_SOCKET_IFNAME]);
    expect(ex.socket.selected.map((s: { name: string }) => s.name)).toEqual(['net1', 'net2']);
  });
});

it('the CLI server answers as its own process does', () => {
  sameAsOwnProcess(server, ['doctor', '--json', '--root', join(__dirname, '../fixtures/roce-healthy'), '--nccl-version', '2.28.3'], { PATH: process.env['PATH'] ?? '', HOME: '/nonexistent' });
});
