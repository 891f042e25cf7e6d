// `ib map` states as ibdev2netdev prints them (from the carrier file, not
// operstate) and `ib gids`' footer as show_gids prints it.
import { cpSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tmp.js';
import { cliServer, sameAsOwnProcess } from '../helpers/cli-server.js';

// Every CLI call in one ncclx process (test/helpers/cli-server.ts), one checked against its own process.
const server = cliServer({ faults: false });
const FIX = join(__dirname, '../fixtures');
const ncclx = (args: string[]) => server.spawnSync([...args], { encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '', NO_COLOR: '1' } });

describe('ib map follows ibdev2netdev: carrier 1 → Up, else Down, no carrier file → NA', () => {
  const root = join(tempDir('ncclx-map-'), 'node');
  cpSync(join(FIX, 'roce-bond'), root, { recursive: true });
  // operstate is "up" on all three: only the carrier decides (the fixture records ens5np0 without carrier and bond0 without the file).
  writeFileSync(join(root, 'sys/class/net/ens2np0/carrier'), '1\n');
  writeFileSync(join(root, 'sys/class/net/ens5np0/carrier'), '0\n');
  rmSync(join(root, 'sys/class/net/bond0/carrier'), { force: true });
  it('Up, Down and NA as the carrier file says', () => {
    const r = ncclx(['ib', 'map', '--root', root]);
    expect(r.stdout.split('\n').filter(Boolean)).toEqual(['mlx5_2 port 1 ==> ens2np0 (Up)', 'mlx5_3 port 1 ==> ens5np0 (Down)', 'mlx5_bond_0 port 1 ==> bond0 (NA)']);
  });
});

describe('ib gids footer', () => {
  it('is exactly n_gids_found=N, with the legend on its own line', () => {
    const lines = ncclx(['ib', 'gids', '--root', join(FIX, 'roce-bond')]).stdout.split('\n');
    const footer = lines.findIndex((l) => l.startsWith('n_gids_found='));
    expect(lines[footer]).toBe('n_gids_found=12');
    expect(lines[footer]!.split('=')[1]).toBe('12');
    expect(lines[footer + 1]).toBe('* = the index NCCL uses on that port, ? = one it may use');
  });
});

it('the CLI server answers as its own process does', () => {
  sameAsOwnProcess(server, ['ib', 'map', '--root', join(__dirname, '../fixtures/roce-bond')], { PATH: process.env['PATH'] ?? '', HOME: '/nonexistent' });
});
