// Issue 3 target: `ncclx ib --json --root` on a node with 16 devices × 2 ports
// × 256 GID entries finishes in under 300 ms and at least 10× faster than a
// shell loop that reads the same GID files the way show_gids does (one `cat`
// per file), measured in the same run on the same generated tree.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildBenchNode } from '../test/fixtures/generate.mjs';
import { target } from './targets.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const cli = join(here, '..', 'dist', 'cli.js');
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const SHELL_RUNS = Number(process.env.BENCH_SHELL_RUNS ?? 3);

// show_gids' loop (MLNX_OFED), reading under a root instead of /.
const SHOW_GIDS = `
root=$1
for d in $(ls $root/sys/class/infiniband); do
  for p in $(ls $root/sys/class/infiniband/$d/ports); do
    for g in $(ls $root/sys/class/infiniband/$d/ports/$p/gids); do
      gid=$(cat $root/sys/class/infiniband/$d/ports/$p/gids/$g)
      if [ "$gid" = 0000:0000:0000:0000:0000:0000:0000:0000 ]; then continue; fi
      if [ "$gid" = fe80:0000:0000:0000:0000:0000:0000:0000 ]; then continue; fi
      _ndev=$(cat $root/sys/class/infiniband/$d/ports/$p/gid_attrs/ndevs/$g 2>/dev/null)
      __type=$(cat $root/sys/class/infiniband/$d/ports/$p/gid_attrs/types/$g 2>/dev/null)
      _type=$(echo $__type | grep -o "[Vv].*")
      if [ "$(echo $gid | cut -d ':' -f -1)" = "0000" ]; then
        ipv4=$(printf "%d.%d.%d.%d" 0x\${gid:30:2} 0x\${gid:32:2} 0x\${gid:35:2} 0x\${gid:37:2})
        echo -e "$d\\t$p\\t$g\\t$gid\\t$ipv4\\t$_type\\t$_ndev"
      else
        echo -e "$d\\t$p\\t$g\\t$gid\\t\\t$_type\\t$_ndev"
      fi
    done
  done
done
`;

function time(argv, runs) {
  const samples = [];
  let out = '';
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint();
    const r = spawnSync(argv[0], argv.slice(1), { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, env: { PATH: process.env.PATH ?? '', HOME: tmpdir(), NO_COLOR: '1' } });
    samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (r.status !== 0 && r.status !== 1) throw new Error(`${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
    out = r.stdout;
  }
  samples.sort((a, b) => a - b);
  return { ms: samples[Math.floor(samples.length / 2)], out };
}

export default async function () {
  const dir = mkdtempSync(join(tmpdir(), 'ncclx-ib-bench-'));
  try {
    const root = join(dir, 'node');
    buildBenchNode(root, { devices: 16, ports: 2, gids: 256 });
    const script = join(dir, 'show_gids.sh');
    writeFileSync(script, SHOW_GIDS);
    const ncclxArgv = [process.execPath, cli, 'ib', '--json', '--root', root, '--nccl-version', '2.28.3'];
    time(ncclxArgv, 2); // warm the page cache for both
    const ncclx = time(ncclxArgv, RUNS);
    const shell = time(['bash', script, root], SHELL_RUNS);
    // Both must have seen the same GIDs: every configured entry is a row of show_gids.
    const j = JSON.parse(ncclx.out);
    const gids = j.devices.reduce((n, d) => n + d.ports.reduce((m, p) => m + p.gidTable.configured, 0), 0);
    const rows = shell.out.split('\n').filter(Boolean).length;
    const ports = j.devices.reduce((n, d) => n + d.ports.length, 0);
    const ratio = shell.ms / ncclx.ms;
    console.log(`fixture: 16 devices × 2 ports × 256 GID entries (${ports} ports, ${gids} configured GIDs; show_gids rows: ${rows})`);
    console.log(`| command | median ms |`);
    console.log('|---|---|');
    console.log(`| ncclx ib --json --root (${RUNS} runs) | ${ncclx.ms.toFixed(1)} |`);
    console.log(`| show_gids-style shell loop (${SHELL_RUNS} runs) | ${shell.ms.toFixed(1)} |`);
    target('ib --json, 16 devices × 2 ports × 256 GIDs', ncclx.ms, { max: 300, unit: ' ms' });
    target('ib --json vs the show_gids-style shell loop', ratio, { min: 10, unit: '× faster' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
