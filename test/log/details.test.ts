// Issue #25: a problem group keeps the distinct peers, GIDs and devices its lines name (bounded), and a status-12
// completion error says when the local and remote GIDs are on different subnets. Read through the CLI, so the
// reader's scanner path (src/probe/log-read.ts) is the one tested.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tmp.js';

const CLI = join(__dirname, '../../dist/cli.js');
const tmp = tempDir('ncclx-log-details-');

const completion = (host: string, peer: string, local: string, remote: string, hca: string, status = 'IBV_WC_RETRY_EXC_ERR(12)') =>
  `${host}:10:13 [2] transport/net_ib.cc:1422 NCCL WARN NET/IB: Got completion from peer ${peer}<39013> with status=${status} opcode=IBV_WC_SEND(0) vendor_err=129 localGid ::ffff:${local} remoteGids ::ffff:${remote} hca ${hca}`;

function log(lines: string[]): { errors: { signature: string; details?: Record<string, string[]>; note?: string }[]; text: string } {
  const file = join(tmp, `${lines.length}-${Math.random().toString(36).slice(2)}.log`);
  writeFileSync(file, lines.join('\n') + '\n');
  const json = spawnSync(process.execPath, [CLI, 'log', '--json', file], { encoding: 'utf8' });
  const text = spawnSync(process.execPath, [CLI, 'log', file], { encoding: 'utf8' });
  return { errors: (JSON.parse(json.stdout) as { summary: { errors: never[] } }).summary.errors, text: text.stdout };
}

describe('ncclx log: the details of a problem group', () => {
  it('keeps each distinct peer, local and remote GID and device, and says the GIDs cross /24 subnets (status 12)', () => {
    const r = log([completion('n1', '10.0.1.3', '10.0.0.1', '10.0.1.3', 'mlx5_2'), completion('n2', '10.0.1.4', '10.0.0.2', '10.0.1.4', 'mlx5_3')]);
    const [p] = r.errors.filter((e) => e.signature === 'ib-completion-12');
    expect(p!.details).toEqual({ peer: ['10.0.1.3', '10.0.1.4'], localGid: ['::ffff:10.0.0.1', '::ffff:10.0.0.2'], remoteGid: ['::ffff:10.0.1.3', '::ffff:10.0.1.4'], device: ['mlx5_2', 'mlx5_3'] });
    expect(p!.note).toMatch(/^local and remote GIDs are on different \/24 subnets \(10\.0\.0\.1 → 10\.0\.1\.3, /);
    expect(r.text).toMatch(/^ {6}peers: 10\.0\.1\.3, 10\.0\.1\.4$/m);
    expect(r.text).toMatch(/^ {6}remote GIDs: ::ffff:10\.0\.1\.3, ::ffff:10\.0\.1\.4$/m);
    expect(r.text).toMatch(/^ {6}note: local and remote GIDs are on different \/24 subnets/m);
  });

  it('no subnet note when the GIDs share a /24, nor for another status', () => {
    expect(log([completion('n1', '10.0.0.3', '10.0.0.1', '10.0.0.3', 'mlx5_0')]).errors[0]!.note).toBeUndefined();
    const other = log([completion('n1', '10.0.1.3', '10.0.0.1', '10.0.1.3', 'mlx5_0', 'IBV_WC_REM_ACCESS_ERR(10)')]).errors[0]!;
    expect(other.signature).toBe('ib-completion-10');
    expect(other.details?.['peer']).toEqual(['10.0.1.3']);
    expect(other.note).toBeUndefined();
  });

  it('bounded: 20 distinct peers keep 8 of each', () => {
    const lines = Array.from({ length: 20 }, (_, i) => completion(`n${i}`, `10.0.1.${i + 10}`, `10.0.1.${i + 100}`, `10.0.1.${i + 10}`, `mlx5_${i}`));
    const [p] = log(lines).errors;
    expect(p!.details!['peer']).toHaveLength(8);
    expect(p!.details!['device']).toHaveLength(8);
    expect(p!.note).toBeUndefined();
  });
});
