// Issue #25: a problem group keeps the distinct peers, GIDs, devices and ranks its lines name (bounded), PyTorch's
// line after `NCCL error in:` is a message of that problem, and a status-12
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

function log(lines: string[]): { errors: { signature: string; count: number; details?: Record<string, string[]>; note?: string }[]; text: string } {
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

  it('PyTorch\'s line after `NCCL error in:` is a message of that problem, in text and JSON', () => {
    const torch = (rank: number, result: string) => [
      `[rank${rank}]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, internal error - please report this issue to the NCCL developers, NCCL version 2.19.3`,
      `[rank${rank}]: ${result}`,
      `[rank${rank}]: Last error:`,
      `[rank${rank}]: Net : Call to recv from 10.0.0.1<57120> failed : Connection reset by peer`,
    ];
    const r = log([...torch(3, 'ncclInternalError: Internal check failed.'), ...torch(5, 'ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.')]);
    const [p] = r.errors.filter((e) => e.signature === 'torch-nccl-error');
    expect(p!.count).toBe(2);
    expect(p!.details).toEqual({ message: ['ncclInternalError: Internal check failed.', 'ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.'], rank: ['3', '5'] });
    expect(r.text).toMatch(/^ {6}PyTorch says: ncclInternalError: Internal check failed\., ncclRemoteError: /m);
    expect(r.text).toMatch(/^ {6}ranks: 3, 5$/m);
    // Another launcher task's line, or a line that names no result, is no message of it.
    const other = log([torch(3, '')[0]!, '[rank4]: ncclInternalError: Internal check failed.', torch(3, '')[0]!, '[rank3]: RuntimeError: ncclInternalError']);
    expect(other.errors[0]!.details).toEqual({ rank: ['3'] });
  });

  it('the ranks of the processes that showed it: the rank in each one\'s largest communicator, 8 at most', () => {
    const rankLines = (host: string, pid: number, rank: number) => [`${host}:${pid}:1 [0] NCCL INFO comm 0x2 rank ${rank % 2} nRanks 2 cudaDev 0`, `${host}:${pid}:1 [0] NCCL INFO comm 0x1 rank ${rank} nRanks 64 cudaDev 0`];
    const warn = (host: string, pid: number) => `${host}:${pid}:3 [0] misc/socket.cc:50 NCCL WARN Net : Connection closed by remote peer 10.0.0.9<4100>`;
    const two = log([...rankLines('n1', 10, 13), ...rankLines('n2', 20, 6), warn('n1', 10), warn('n2', 20), warn('n2', 99)]);
    expect(two.errors[0]!.details?.['rank']).toEqual(['6', '13']);
    expect(two.text).toMatch(/^ {6}ranks: 6, 13$/m);
    const many = Array.from({ length: 20 }, (_, i) => [...rankLines(`n${i}`, 10, 40 - i), warn(`n${i}`, 10)]).flat();
    expect(log(many).errors[0]!.details?.['rank']).toEqual(['33', '34', '35', '36', '37', '38', '39', '40']);
  });

  it('bounded: 20 distinct peers keep 8 of each', () => {
    const lines = Array.from({ length: 20 }, (_, i) => completion(`n${i}`, `10.0.1.${i + 10}`, `10.0.1.${i + 100}`, `10.0.1.${i + 10}`, `mlx5_${i}`));
    const [p] = log(lines).errors;
    expect(p!.details!['peer']).toHaveLength(8);
    expect(p!.details!['device']).toHaveLength(8);
    expect(p!.note).toBeUndefined();
  });
});
